#include "foreground_scenes.h"

#include <algorithm>
#include <climits>
#include <stdexcept>

#include "ccl/luma.h"
#include "splitmix.h"

namespace ccl::test {

namespace {

// A value from any number of integers; the order of the arguments matters.
uint64_t mix(uint64_t a, uint64_t b) { return splitmix64(a ^ splitmix64(b + 0x632BE59BD9B4E019ull)); }
uint64_t mix(uint64_t a, uint64_t b, uint64_t c) { return mix(mix(a, b), c); }
uint64_t mix(uint64_t a, uint64_t b, uint64_t c, uint64_t d) { return mix(mix(a, b, c), d); }

// lo..hi inclusive, from a hash.
int pick(uint64_t h, int lo, int hi) {
  return hi <= lo ? lo : lo + int(h % uint64_t(int64_t(hi) - lo + 1));
}

uint8_t clamp8(int v) { return uint8_t(v < 0 ? 0 : v > 255 ? 255 : v); }

// Rounds toward minus infinity, whatever the sign (chroma sums can be negative).
int floor_div(int a, int b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

// Smooth noise: random values on a lattice of `cell` px, interpolated bilinearly.
int value_noise(uint64_t seed, int x, int y, int cell) {
  const int gx = x / cell, gy = y / cell, fx = x % cell, fy = y % cell;
  auto at = [&](int i, int j) { return int(mix(seed, uint64_t(gx + i), uint64_t(gy + j)) & 255); };
  const int top = at(0, 0) * (cell - fx) + at(1, 0) * fx;
  const int bottom = at(0, 1) * (cell - fx) + at(1, 1) * fx;
  return (top * (cell - fy) + bottom * fy) / (cell * cell);
}

// x0 + v * t reflected into [lo, hi], as a ball bounces between two walls.
int bounce(int x0, int v, int t, int lo, int hi) {
  const int64_t span = int64_t(hi) - lo;
  if (span <= 0) return lo;
  int64_t p = (int64_t(x0) - lo + int64_t(v) * t) % (2 * span);
  if (p < 0) p += 2 * span;
  return int(lo + (p <= span ? p : 2 * span - p));
}

}  // namespace

Scene::Scene(const SceneSpec& spec) : spec_(spec) {
  const int w = spec.width, h = spec.height;
  if (w < 1 || h < 1) throw std::invalid_argument("Scene: empty frame");
  background_.resize(size_t(w) * h * 3);
  const uint64_t s = spec.seed;
  // Two colors the texture blends between, and the light's tint for a real image.
  uint8_t a[3], b[3];
  for (int c = 0; c < 3; ++c) {
    a[c] = uint8_t(pick(mix(s, 1, c), 25, 120));
    b[c] = uint8_t(pick(mix(s, 2, c), 130, 230));
  }
  const GrayImage* img = spec.backdrop;
  if (img && (img->width < 1 || img->height < 1 ||
              img->pixels.size() != size_t(img->width) * img->height))
    throw std::invalid_argument("Scene: malformed backdrop " + img->name);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      uint8_t* px = &background_[(size_t(y) * w + x) * 3];
      if (img) {
        const int l = img->pixels[size_t(int64_t(y) * img->height / h) * img->width +
                                  size_t(int64_t(x) * img->width / w)];
        px[0] = clamp8(l * (200 + 56 * x / w) / 256 + 8);
        px[1] = clamp8(l * 230 / 256 + 8);
        px[2] = clamp8(l * (200 + 56 * (h - 1 - y) / h) / 256 + 8);
      } else {
        const int t = (2 * value_noise(s ^ 0xA5, x, y, 37) + value_noise(s ^ 0x5A, x, y, 9) +
                       value_noise(s ^ 0x3C, x, y, 3)) / 4;
        for (int c = 0; c < 3; ++c) px[c] = uint8_t(a[c] + (b[c] - a[c]) * t / 255);
      }
    }

  const int side = std::min(w, h);
  const int speed = std::max(1, side / 40) + 2;
  for (int i = 0; i < spec.objects; ++i) {
    auto r = [&](int field, int lo, int hi) { return pick(mix(s, 100 + i, field), lo, hi); };
    Object o{};
    o.disc = r(0, 0, 1) == 1;
    o.w = std::max(1, side * r(1, 6, 25) / 100);
    o.h = std::max(1, side * r(2, 6, 25) / 100);
    o.x0 = r(3, -o.w / 2, w - o.w / 2);
    o.y0 = r(4, -o.h / 2, h - o.h / 2);
    o.vx = r(5, -speed, speed);
    o.vy = r(6, -speed, speed);
    if (o.vx == 0 && o.vy == 0) o.vx = 1;
    o.stop_at = r(7, 0, 3) == 0 ? r(8, 3, 15) : -1;
    o.from = r(9, 0, 4) == 0 ? r(10, 1, 8) : 0;
    o.until = r(11, 0, 4) == 0 ? o.from + r(12, 2, 15) : INT_MAX;
    for (int c = 0; c < 3; ++c) o.color[c] = uint8_t(r(13 + c, 0, 255));
    o.pattern = r(16, 0, 2);
    o.period = r(17, 2, 8);
    o.shade = r(18, 115, 218);
    o.shadow_dx = std::max(1, o.w / 5);
    o.shadow_dy = std::max(1, o.h / 4);
    objects_.push_back(o);
  }
}

void Scene::position(const Object& o, int t, int* x, int* y) const {
  const int moving = o.stop_at >= 0 ? std::min(t, o.stop_at) : t;
  *x = bounce(o.x0, o.vx, moving, -o.w / 2, spec_.width - o.w / 2);
  *y = bounce(o.y0, o.vy, moving, -o.h / 2, spec_.height - o.h / 2);
}

bool Scene::covers(const Object& o, int ox, int oy, int x, int y) {
  const int lx = x - ox, ly = y - oy;
  if (lx < 0 || ly < 0 || lx >= o.w || ly >= o.h) return false;
  if (!o.disc) return true;
  // Inside the ellipse inscribed in w x h, in doubled coordinates to stay integer.
  const int64_t dx = 2 * lx + 1 - o.w, dy = 2 * ly + 1 - o.h;
  return dx * dx * o.h * o.h + dy * dy * o.w * o.w <= int64_t(o.w) * o.w * o.h * o.h;
}

void Scene::render_rows(int t, int y0, int y1, uint8_t* rgb) const {
  const int w = spec_.width;
  y0 = std::max(0, y0);
  y1 = std::min(spec_.height, y1);
  std::copy(background_.begin() + ptrdiff_t(size_t(y0) * w * 3),
            background_.begin() + ptrdiff_t(size_t(y1) * w * 3), rgb + size_t(y0) * w * 3);
  struct Placed {
    const Object* o;
    int x, y;
  };
  std::vector<Placed> placed;
  for (const Object& o : objects_) {
    if (t < o.from || t >= o.until) continue;
    Placed p{&o, 0, 0};
    position(o, t, &p.x, &p.y);
    placed.push_back(p);
  }
  std::vector<int> shade(static_cast<size_t>(w));
  const int jump = spec_.step_at >= 0 && t >= spec_.step_at ? spec_.step : 0;
  const int light = std::clamp(256 + spec_.drift * t + jump, 96, 416);
  for (int y = y0; y < y1; ++y) {
    uint8_t* row = rgb + size_t(y) * w * 3;
    if (spec_.shadows) {
      // The darkest shadow over a pixel wins: overlapping shadows do not add up.
      std::fill(shade.begin(), shade.end(), 256);
      bool any = false;
      for (const Placed& p : placed) {
        const int sx = p.x + p.o->shadow_dx, sy = p.y + p.o->shadow_dy;
        if (y < sy || y >= sy + p.o->h) continue;
        for (int x = std::max(0, sx); x < std::min(w, sx + p.o->w); ++x)
          if (covers(*p.o, sx, sy, x, y)) {
            shade[size_t(x)] = std::min(shade[size_t(x)], p.o->shade);
            any = true;
          }
      }
      if (any)
        for (int x = 0; x < w; ++x)
          if (shade[size_t(x)] < 256)
            for (int c = 0; c < 3; ++c) row[x * 3 + c] = uint8_t(row[x * 3 + c] * shade[size_t(x)] / 256);
    }
    for (const Placed& p : placed) {
      const Object& o = *p.o;
      if (y < p.y || y >= p.y + o.h) continue;
      for (int x = std::max(0, p.x); x < std::min(w, p.x + o.w); ++x) {
        if (!covers(o, p.x, p.y, x, y)) continue;
        // The texture moves with the object.
        const int lx = x - p.x, ly = y - p.y;
        bool dark;
        if (o.pattern == 0) dark = ((lx + ly) / o.period) % 2;
        else if (o.pattern == 1) dark = (lx / o.period + ly / o.period) % 2;
        else dark = ((lx - o.w / 2) * (lx - o.w / 2) + (ly - o.h / 2) * (ly - o.h / 2)) /
                        (4 * o.period * o.period) % 2;
        for (int c = 0; c < 3; ++c) row[x * 3 + c] = uint8_t(dark ? o.color[c] * 3 / 5 : o.color[c]);
      }
    }
    if (light != 256 || spec_.noise > 0) {
      const int n = spec_.noise, span = 2 * std::max(0, n) + 1;
      for (int x = 0; x < w; ++x) {
        const uint64_t hsh = n > 0 ? mix(spec_.seed, uint64_t(t), uint64_t(y), uint64_t(x)) : 0;
        for (int c = 0; c < 3; ++c) {
          int v = row[x * 3 + c] * light / 256;
          if (n > 0) v += int(((hsh >> (16 * c)) & 0xFFFF) % uint64_t(span)) - n;
          row[x * 3 + c] = clamp8(v);
        }
      }
    }
  }
}

ColorImage Scene::frame(int t) const {
  ColorImage img;
  img.width = spec_.width;
  img.height = spec_.height;
  img.rgb.resize(size_t(img.width) * img.height * 3);
  render_rows(t, 0, img.height, img.rgb.data());
  return img;
}

Frame to_frame(const ColorImage& image, PixelFormat format, size_t extra_stride) {
  const int w = image.width, h = image.height;
  if (w < 1 || h < 1 || image.rgb.size() != size_t(w) * h * 3)
    throw std::invalid_argument("to_frame: malformed image");
  Frame f;
  f.view.width = w;
  f.view.height = h;
  f.view.format = format;
  f.view.space = MemorySpace::Host;
  auto plane = [&](size_t row_bytes, int rows, int bpp) {
    const size_t stride = row_bytes + extra_stride;
    std::vector<uint8_t> p(stride * size_t(rows));
    for (int y = 0; y < rows; ++y)
      for (size_t i = 0; i < extra_stride; ++i) p[size_t(y) * stride + row_bytes + i] = poison_byte(i, bpp);
    f.view.strides[f.storage.size()] = stride;
    f.storage.push_back(std::move(p));
    return stride;
  };
  const int bpp = luma_bytes_per_pixel(format);
  const size_t stride = plane(size_t(w) * bpp, h, bpp);
  for (int y = 0; y < h; ++y) {
    uint8_t* row = f.storage[0].data() + size_t(y) * stride;
    for (int x = 0; x < w; ++x) {
      const uint8_t* c = &image.rgb[(size_t(y) * w + x) * 3];
      const int luma = int(bt601_luma(c[0], c[1], c[2]));
      uint8_t* px = row + size_t(x) * bpp;
      switch (format) {
        case PixelFormat::Gray16LE: {
          // Below the 8-bit step, so that the model sees values between them.
          const int dither = int(mix(uint64_t(x), uint64_t(y)) & 255) - 128;
          const int v = std::clamp(luma * 257 + dither, 0, 65535);
          px[0] = uint8_t(v & 0xFF);
          px[1] = uint8_t(v >> 8);
          break;
        }
        case PixelFormat::RGBA:
        case PixelFormat::RGBx:
        case PixelFormat::BGRA:
        case PixelFormat::BGRx: {
          const bool rgb = format == PixelFormat::RGBA || format == PixelFormat::RGBx;
          px[0] = rgb ? c[0] : c[2];
          px[1] = c[1];
          px[2] = rgb ? c[2] : c[0];
          px[3] = uint8_t(x * 37 + y * 101 + 13);  // never part of the color
          break;
        }
        default:
          px[0] = uint8_t(luma);
      }
    }
  }
  if (format == PixelFormat::NV12 || format == PixelFormat::I420) {
    const int cw = (w + 1) / 2, ch = (h + 1) / 2;
    const bool nv12 = format == PixelFormat::NV12;
    const size_t s1 = plane(nv12 ? 2 * size_t(cw) : size_t(cw), ch, nv12 ? 2 : 1);
    const size_t s2 = nv12 ? 0 : plane(size_t(cw), ch, 1);
    for (int by = 0; by < ch; ++by)
      for (int bx = 0; bx < cw; ++bx) {
        int sum[3] = {0, 0, 0}, n = 0;
        for (int y = 2 * by; y < std::min(h, 2 * by + 2); ++y)
          for (int x = 2 * bx; x < std::min(w, 2 * bx + 2); ++x, ++n)
            for (int c = 0; c < 3; ++c) sum[c] += image.rgb[(size_t(y) * w + x) * 3 + c];
        const int r = (sum[0] + n / 2) / n, g = (sum[1] + n / 2) / n, b = (sum[2] + n / 2) / n;
        const uint8_t u = clamp8(128 + floor_div(-43 * r - 85 * g + 128 * b + 128, 256));
        const uint8_t v = clamp8(128 + floor_div(128 * r - 107 * g - 21 * b + 128, 256));
        if (nv12) {
          f.storage[1][size_t(by) * s1 + 2 * size_t(bx)] = u;
          f.storage[1][size_t(by) * s1 + 2 * size_t(bx) + 1] = v;
        } else {
          f.storage[1][size_t(by) * s1 + size_t(bx)] = u;
          f.storage[2][size_t(by) * s2 + size_t(bx)] = v;
        }
      }
  }
  for (size_t i = 0; i < f.storage.size(); ++i) f.view.planes[i] = f.storage[i].data();
  return f;
}

std::vector<uint8_t> blob_region(int width, int height, uint64_t seed, size_t stride) {
  if (stride < size_t(width)) stride = size_t(width);
  std::vector<uint8_t> region(stride * size_t(height));
  const bool mostly_allowed = mix(seed, 1) & 1;
  // Allowed bytes take any non-zero value: set_region must not read them as 0/1 only.
  auto allowed = [&](int x, int y) { return uint8_t(1 + mix(seed, 2, uint64_t(x), uint64_t(y)) % 255); };
  for (int y = 0; y < height; ++y)
    for (size_t x = 0; x < stride; ++x)
      region[size_t(y) * stride + x] =
          x >= size_t(width) ? uint8_t(mix(seed, 3, x, uint64_t(y)) & 1 ? 0xEE : 0)
          : mostly_allowed  ? allowed(int(x), y)
                            : 0;
  const int blobs = pick(mix(seed, 4), 1, 6), side = std::min(width, height);
  for (int k = 0; k < blobs; ++k) {
    const int cx = pick(mix(seed, 5, k), 0, width - 1), cy = pick(mix(seed, 6, k), 0, height - 1);
    const int r = pick(mix(seed, 7, k), 0, std::max(1, side / 4));
    const bool disc = mix(seed, 8, k) & 1;
    for (int y = std::max(0, cy - r); y <= std::min(height - 1, cy + r); ++y)
      for (int x = std::max(0, cx - r); x <= std::min(width - 1, cx + r); ++x)
        if (!disc || (x - cx) * (x - cx) + (y - cy) * (y - cy) <= r * r)
          region[size_t(y) * stride + x] = mostly_allowed ? 0 : allowed(x, y);
  }
  return region;
}

}  // namespace ccl::test
