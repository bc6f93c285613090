// Random fuzz cases (fuzz_frames.h). The random choices use a 64-bit generator and
// plain modulo arithmetic of our own, so that a case and its pixels are the same with
// every standard library; only noise goes through yacclab_random (std::mt19937, whose
// output the standard fixes).
#include "fuzz_frames.h"
#include "splitmix.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace ccl::test {

namespace {

using Rng = SplitMixRng;

bool is_prime(int n) {
  if (n < 2) return false;
  for (int d = 2; d * d <= n; ++d)
    if (n % d == 0) return false;
  return true;
}

int prime_near(Rng& rng, int lo, int hi) {
  int n = rng.range(lo, hi);
  while (!is_prime(n) && n < hi) ++n;
  return is_prime(n) ? n : 2;
}

// A side near a multiple of a strip or tile width: k * m - 1, k * m or k * m + 1.
int aligned_side(Rng& rng, int max_side) {
  const int m = rng.pick(std::vector<int>{32, 64, 128});
  const int k = rng.range(1, std::max(1, std::min(max_side / m, rng.chance(80) ? 16 : 64)));
  return std::max(1, k * m + rng.range(-1, 1));
}

// Mostly small and medium sizes so that many frames fit in a time budget, a few large.
void pick_size(Rng& rng, const FuzzLimits& limits, int* w, int* h) {
  const int max_side = std::max(1, limits.max_side);
  const int medium = std::min(max_side, 600);
  switch (rng.range(0, 19)) {
    case 0:
    case 1:  // tiny
      *w = rng.range(1, 9);
      *h = rng.range(1, 9);
      break;
    case 2:  // one row
      *w = rng.range(1, rng.chance(80) ? medium : max_side);
      *h = 1;
      break;
    case 3:  // one column
      *w = 1;
      *h = rng.range(1, rng.chance(80) ? medium : max_side);
      break;
    case 4:
    case 5:
    case 6:  // around strip/tile multiples
      *w = aligned_side(rng, max_side);
      *h = rng.chance(50) ? aligned_side(rng, max_side) : rng.range(1, medium);
      break;
    case 7:
    case 8:  // primes
      *w = prime_near(rng, 2, medium);
      *h = prime_near(rng, 2, medium);
      break;
    case 9:  // tall
      *w = rng.range(1, 24);
      *h = rng.range(100, max_side);
      break;
    case 10:  // wide
      *w = rng.range(100, max_side);
      *h = rng.range(1, 24);
      break;
    case 11:  // large
      *w = rng.range(std::min(1000, max_side), max_side);
      *h = rng.range(std::min(700, max_side), max_side);
      break;
    default:  // medium
      *w = rng.range(10, medium);
      *h = rng.range(10, medium);
  }
  *w = std::clamp(*w, 1, max_side);
  *h = std::clamp(*h, 1, max_side);
  while (int64_t(*w) * *h > limits.max_pixels) (*w > *h ? *w : *h) /= 2;
}

void pick_content(Rng& rng, FuzzCase& c) {
  const int r = rng.range(0, 99);
  if (r < 40) {
    c.content = FuzzContent::Noise;
    // Every density, the percolation band and the extremes more often.
    const int d = rng.range(0, 9);
    c.density_ppm = d == 0   ? rng.pick(std::vector<int>{0, 1000, 999000, 1000000})
                    : d < 4 ? rng.range(400000, 650000)
                            : rng.range(0, 1000000);
    c.granularity = rng.chance(50) ? 1 : rng.pick(std::vector<int>{2, 3, 4, 5, 7, 8, 16, 31, 32, 33, 64});
  } else if (r < 52) {
    c.content = FuzzContent::Checkerboard;
    c.thickness = rng.chance(60) ? 1 : rng.range(2, 9);
  } else if (r < 64) {
    c.content = FuzzContent::Rings;
    c.thickness = rng.range(1, 6);
    c.gap = rng.range(1, 6);
  } else if (r < 76) {
    c.content = FuzzContent::Spiral;
    c.thickness = rng.range(1, 4);
    c.gap = rng.range(1, 4);
  } else if (r < 92) {
    c.content = FuzzContent::Snake;
    c.thickness = rng.range(1, 3);
    c.gap = rng.range(1, 4);
    c.vertical = rng.chance(60);
  } else if (r < 96) {
    c.content = FuzzContent::AllForeground;
  } else {
    c.content = FuzzContent::AllBackground;
  }
  // Centers (rings) and start offsets (spiral, snake) inside, at or past the edges.
  c.cx = rng.range(-c.width / 4, c.width + c.width / 4);
  c.cy = rng.range(-c.height / 4, c.height + c.height / 4);
  if (c.content == FuzzContent::Spiral || c.content == FuzzContent::Snake) {
    c.cx = rng.chance(50) ? 0 : rng.range(-3, 5);
    c.cy = rng.chance(50) ? 0 : rng.range(-3, 5);
  }
  c.sprinkle_ppm = rng.chance(80) ? 0 : rng.range(1, 50000);
}

// Fills [x0, x1] x [y0, y1] (inclusive, clipped).
void fill(BinaryImage& b, int x0, int y0, int x1, int y1) {
  x0 = std::max(x0, 0);
  y0 = std::max(y0, 0);
  x1 = std::min(x1, b.width - 1);
  y1 = std::min(y1, b.height - 1);
  for (int y = y0; y <= y1; ++y)
    for (int x = x0; x <= x1; ++x) b.pixels[size_t(y) * b.width + x] = 1;
}

// A stroke of thickness t from (ax, ay) to (bx, by), horizontal or vertical.
void stroke(BinaryImage& b, int ax, int ay, int bx, int by, int t) {
  fill(b, std::min(ax, bx), std::min(ay, by), std::max(ax, bx) + t - 1, std::max(ay, by) + t - 1);
}

int64_t isqrt(int64_t v) {
  int64_t r = int64_t(std::sqrt(double(v)));
  while (r * r > v) --r;
  while ((r + 1) * (r + 1) <= v) ++r;
  return r;
}

BinaryImage base_content(const FuzzCase& c) {
  BinaryImage b;
  b.width = c.width;
  b.height = c.height;
  b.pixels.assign(size_t(c.width) * c.height, 0);
  const int t = std::max(1, c.thickness), p = t + std::max(1, c.gap);
  switch (c.content) {
    case FuzzContent::Noise:
      return yacclab_random(c.width, c.height, c.density_ppm / 1e6, std::max(1, c.granularity),
                            uint32_t(c.seed ^ (c.seed >> 32)));
    case FuzzContent::Checkerboard:
      for (int y = 0; y < c.height; ++y)
        for (int x = 0; x < c.width; ++x)
          b.pixels[size_t(y) * c.width + x] = (x / t + y / t) % 2 == 0;
      break;
    case FuzzContent::Rings:
      for (int y = 0; y < c.height; ++y)
        for (int x = 0; x < c.width; ++x) {
          const int64_t dx = x - c.cx, dy = y - c.cy;
          b.pixels[size_t(y) * c.width + x] = isqrt(dx * dx + dy * dy) % p < t;
        }
      break;
    case FuzzContent::Spiral: {
      // Inward, clockwise from (cx, cy); each turn stops `gap` short of the last arm.
      int left = c.cx, top = c.cy, right = c.width - t, bottom = c.height - t;
      int x = left, y = top;
      for (int dir = 0; left <= right && top <= bottom; dir = (dir + 1) % 4) {
        int nx = x, ny = y;
        if (dir == 0) nx = right, top += p;
        if (dir == 1) ny = bottom, right -= p;
        if (dir == 2) nx = left, bottom -= p;
        if (dir == 3) ny = top, left += p;
        stroke(b, x, y, nx, ny, t);
        x = nx, y = ny;
      }
      break;
    }
    case FuzzContent::Snake: {
      // Bars `p` apart across the frame, joined at alternate ends: one component that
      // crosses every strip (vertical bars) or row-tile border (horizontal) many times.
      const int along = c.vertical ? c.height : c.width;
      const int across = c.vertical ? c.width : c.height;
      const int a0 = c.cy, a1 = along - t - std::max(0, c.cy);
      int prev_end = -1;
      for (int k = c.cx, n = 0; k < across; k += p, ++n) {
        const int from = n % 2 ? a1 : a0, to = n % 2 ? a0 : a1;
        if (c.vertical) stroke(b, k, from, k, to, t);
        else stroke(b, from, k, to, k, t);
        if (prev_end >= 0) {  // the joint to the previous bar, at this bar's start
          if (c.vertical) stroke(b, k - p, from, k, from, t);
          else stroke(b, from, k - p, from, k, t);
        }
        prev_end = to;
      }
      break;
    }
    case FuzzContent::AllForeground:
      std::fill(b.pixels.begin(), b.pixels.end(), 1);
      break;
    case FuzzContent::AllBackground:
      break;
  }
  return b;
}

const std::vector<std::pair<FuzzContent, const char*>>& content_names() {
  static const std::vector<std::pair<FuzzContent, const char*>> names = {
      {FuzzContent::Noise, "noise"},
      {FuzzContent::Checkerboard, "checkerboard"},
      {FuzzContent::Rings, "rings"},
      {FuzzContent::Spiral, "spiral"},
      {FuzzContent::Snake, "snake"},
      {FuzzContent::AllForeground, "all-foreground"},
      {FuzzContent::AllBackground, "all-background"},
  };
  return names;
}

}  // namespace

const char* to_string(FuzzContent c) {
  for (const auto& [id, name] : content_names())
    if (id == c) return name;
  return "?";
}

FuzzCase random_fuzz_case(uint64_t seed, const FuzzLimits& limits) {
  Rng rng(seed);
  FuzzCase c;
  c.seed = seed;
  pick_size(rng, limits, &c.width, &c.height);
  c.format = rng.pick(all_formats());
  const int bpp = luma_bytes_per_pixel(c.format);
  const int pad_kind = rng.range(0, 9);
  c.padding = pad_kind < 4 ? 0 : pad_kind < 8 ? bpp * rng.range(1, 80) : rng.range(1, 257);
  const int mode = rng.range(0, 4);
  c.mode = mode < 2 ? ThresholdMode::Above : mode < 4 ? ThresholdMode::Below : ThresholdMode::Otsu;
  c.level = rng.chance(15) ? rng.pick(std::vector<int>{0, 1, 127, 128, 254, 255}) : rng.range(0, 255);
  c.algorithm = rng.pick(algorithms()).id;
  c.connectivity = rng.chance(50) ? 4 : 8;
  if (limits.tracking && rng.chance(15)) {
    c.frames = rng.range(2, 6);
    c.shift_x = rng.range(-8, 8);
    c.shift_y = rng.range(-8, 8);
  }
  pick_content(rng, c);
  return c;
}

std::string to_line(const FuzzCase& c) {
  std::ostringstream s;
  s << "seed=" << c.seed << " size=" << c.width << "x" << c.height
    << " format=" << to_string(c.format) << " pad=" << c.padding << " mode=" << to_string(c.mode)
    << " level=" << c.level << " algo=" << to_string(c.algorithm) << " conn=" << c.connectivity
    << " frames=" << c.frames << " shift=" << c.shift_x << "," << c.shift_y
    << " content=" << to_string(c.content) << " density_ppm=" << c.density_ppm
    << " gran=" << c.granularity << " thick=" << c.thickness << " gap=" << c.gap
    << " center=" << c.cx << "," << c.cy << " vertical=" << (c.vertical ? 1 : 0)
    << " sprinkle_ppm=" << c.sprinkle_ppm;
  return s.str();
}

bool read_key_values(std::istream& words,
                     const std::function<FieldRead(const std::string& key,
                                                   const std::string& value)>& read,
                     std::string* why) {
  auto fail = [&](const std::string& text) {
    if (why) *why = text;
    return false;
  };
  std::string word;
  while (words >> word) {
    const size_t eq = word.find('=');
    if (eq == std::string::npos) return fail("'" + word + "' is not key=value");
    const std::string key = word.substr(0, eq);
    FieldRead r = FieldRead::BadValue;  // stays so when a conversion throws
    try {
      r = read(key, word.substr(eq + 1));
    } catch (const std::exception&) {
    }
    if (r == FieldRead::UnknownKey) return fail("unknown key '" + key + "'");
    if (r == FieldRead::BadValue) return fail("bad value in '" + word + "'");
  }
  return true;
}

bool parse_int_pair(const std::string& value, char sep, int* a, int* b) {
  const size_t at = value.find(sep);
  if (at == std::string::npos) return false;
  try {
    *a = std::stoi(value.substr(0, at));
    *b = std::stoi(value.substr(at + 1));
  } catch (const std::exception&) {
    return false;
  }
  return true;
}

bool parse_format(const std::string& value, PixelFormat* format) {
  for (PixelFormat f : all_formats())
    if (value == ccl::to_string(f)) {
      *format = f;
      return true;
    }
  return false;
}

bool parse_fuzz_case(const std::string& line, FuzzCase* out, std::string* why) {
  auto fail = [&](const std::string& text) {
    if (why) *why = text;
    return false;
  };
  FuzzCase c;
  std::istringstream words(line);
  const bool read = read_key_values(words, [&](const std::string& key, const std::string& value) {
    bool ok = true;
    if (key == "seed") c.seed = std::stoull(value);
    else if (key == "size") ok = parse_int_pair(value, 'x', &c.width, &c.height);
    else if (key == "format") ok = parse_format(value, &c.format);
    else if (key == "pad") c.padding = std::stoi(value);
    else if (key == "mode") ok = parse(value, &c.mode);
    else if (key == "level") c.level = std::stoi(value);
    else if (key == "algo") ok = parse(value, &c.algorithm);
    else if (key == "conn") c.connectivity = std::stoi(value);
    else if (key == "frames") c.frames = std::stoi(value);
    else if (key == "shift") ok = parse_int_pair(value, ',', &c.shift_x, &c.shift_y);
    else if (key == "content") {
      ok = false;
      for (const auto& [id, name] : content_names())
        if (value == name) c.content = id, ok = true;
    } else if (key == "density_ppm") c.density_ppm = std::stoi(value);
    else if (key == "gran") c.granularity = std::stoi(value);
    else if (key == "thick") c.thickness = std::stoi(value);
    else if (key == "gap") c.gap = std::stoi(value);
    else if (key == "center") ok = parse_int_pair(value, ',', &c.cx, &c.cy);
    else if (key == "vertical") c.vertical = std::stoi(value) != 0;
    else if (key == "sprinkle_ppm") c.sprinkle_ppm = std::stoi(value);
    else return FieldRead::UnknownKey;
    return ok ? FieldRead::Ok : FieldRead::BadValue;
  }, why);
  if (!read) return false;
  if (c.width < 1 || c.height < 1) return fail("empty size");
  if (c.padding < 0 || c.frames < 0) return fail("negative pad or frames");
  *out = c;
  return true;
}

Options fuzz_options(const FuzzCase& c) {
  Options o;
  o.threshold = c.level;
  o.mode = c.mode;
  o.connectivity = c.connectivity;
  o.algorithm = c.algorithm;
  // A tracked sequence reports at most 1024 components, the element's default, as the
  // element feeds its tracker what a frame reports: a table of a million components
  // (4-connected noise at 4096x4096) kept the tracker busy for seconds a frame and the
  // fuzz from its count. The selection itself is compared with the reference's.
  if (c.frames > 0) o.max_components = 1024;
  return o;
}

int fuzz_frame_count(const FuzzCase& c) { return std::max(1, c.frames); }

BinaryImage fuzz_content(const FuzzCase& c, int t) {
  BinaryImage base = base_content(c);
  BinaryImage b = base;
  const int64_t w = c.width, h = c.height;
  const int64_t sx = ((int64_t(t) * c.shift_x) % w + w) % w;
  const int64_t sy = ((int64_t(t) * c.shift_y) % h + h) % h;
  if (sx || sy)
    for (int64_t y = 0; y < h; ++y)
      for (int64_t x = 0; x < w; ++x)
        b.pixels[size_t(((y + sy) % h) * w + (x + sx) % w)] = base.pixels[size_t(y * w + x)];
  if (c.sprinkle_ppm > 0) {
    Rng rng(c.seed * 0x2545F4914F6CDD1Dull + uint64_t(t) + 1);
    for (uint8_t& px : b.pixels)
      if (int(rng.next() % 1000000) < c.sprinkle_ppm) px ^= 1;
  }
  return b;
}

GrayImage fuzz_gray(const FuzzCase& c, int t, BinaryImage* expected) {
  BinaryImage b = fuzz_content(c, t);
  GrayImage g;
  g.name = "fuzz";
  g.width = c.width;
  g.height = c.height;
  g.pixels.resize(b.pixels.size());
  Rng rng(~c.seed * 0x9E3779B97F4A7C15ull + uint64_t(t));
  const int L = std::clamp(c.level, 0, 255);
  // Value ranges [lo, hi] of foreground and background; an empty range (lo > hi)
  // sends every pixel to the other side.
  int fg_lo, fg_hi, bg_lo, bg_hi;
  if (c.mode == ThresholdMode::Above) {
    fg_lo = L + 1, fg_hi = 255, bg_lo = 0, bg_hi = L;
  } else if (c.mode == ThresholdMode::Below) {
    fg_lo = 0, fg_hi = L, bg_lo = L + 1, bg_hi = 255;
  } else {  // Otsu: two overlapping-or-not populations around random bases
    bg_lo = rng.range(0, 200), bg_hi = std::min(255, bg_lo + rng.range(0, 60));
    fg_lo = rng.range(bg_lo, 255), fg_hi = std::min(255, fg_lo + rng.range(0, 60));
  }
  auto value = [&](int lo, int hi, int edge) {
    // A quarter of the pixels sit right at the level's edge.
    return uint8_t(rng.chance(25) ? edge : rng.range(lo, hi));
  };
  const bool above = c.mode != ThresholdMode::Below;
  for (size_t i = 0; i < b.pixels.size(); ++i) {
    bool fg = b.pixels[i] != 0;
    if (fg && fg_lo > fg_hi) fg = false;
    if (!fg && bg_lo > bg_hi) fg = true;
    b.pixels[i] = fg;
    g.pixels[i] = fg ? value(fg_lo, fg_hi, above ? fg_lo : fg_hi)
                     : value(bg_lo, bg_hi, above ? bg_hi : bg_lo);
  }
  if (expected) *expected = std::move(b);
  return g;
}

Frame fuzz_frame(const FuzzCase& c, int t) {
  return make_frame(fuzz_gray(c, t), c.format, size_t(std::max(0, c.padding)));
}

}  // namespace ccl::test
