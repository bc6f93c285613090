#include "color_cases.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "fuzz_frames.h"
#include "splitmix.h"

namespace ccl::test {

namespace {

// The fuzz generator's stream, salted apart from the others (splitmix.h).
struct Rng : SplitMixRng {
  explicit Rng(uint64_t seed) : SplitMixRng(seed, 0xC0102A46E5B9D37Full) {}
};

uint8_t clamp8(int v) { return uint8_t(std::clamp(v, 0, 255)); }

/// An RGB color near HSV (h 0..179, s, v 0..255), by the usual hexcone formula in
/// floating point: the generator only needs colors about the range, not exact ones
/// (the oracle decides).
void hsv_to_rgb(int h, int s, int v, uint8_t* rgb) {
  const double hh = std::fmod(h * 2.0, 360.0) / 60.0;
  const double c = v * s / 255.0, x = c * (1.0 - std::fabs(std::fmod(hh, 2.0) - 1.0)), m = v - c;
  double r = 0, g = 0, b = 0;
  switch (int(hh)) {
    case 0: r = c, g = x; break;
    case 1: r = x, g = c; break;
    case 2: g = c, b = x; break;
    case 3: g = x, b = c; break;
    case 4: r = x, b = c; break;
    default: r = c, b = x;
  }
  rgb[0] = clamp8(int(std::lround(r + m)));
  rgb[1] = clamp8(int(std::lround(g + m)));
  rgb[2] = clamp8(int(std::lround(b + m)));
}

/// A value of [lo, hi], now and then just outside it (by 1 to 3), clamped to 0..top.
int near_range(Rng& rng, int lo, int hi, int top) {
  if (rng.chance(15)) return std::clamp(rng.chance(50) ? lo - rng.range(1, 3) : hi + rng.range(1, 3), 0, top);
  return rng.range(lo, hi);
}

/// A color whose HSV is about inside the range.
void inside_color(Rng& rng, const ColorOptions& r, uint8_t* rgb) {
  int h;
  if (r.low[0] <= r.high[0]) {
    h = near_range(rng, r.low[0], r.high[0], 179);
  } else {  // wrapping: one of the two arcs
    h = rng.chance(50) ? near_range(rng, r.low[0], 179, 179) : near_range(rng, 0, r.high[0], 179);
  }
  hsv_to_rgb(h, near_range(rng, r.low[1], r.high[1], 255), near_range(rng, r.low[2], r.high[2], 255), rgb);
}

ColorOptions random_range(Rng& rng) {
  ColorOptions o;
  const int kind = rng.range(0, 9);
  if (kind < 3) {  // wrapping around red
    o.low[0] = rng.range(1, 179);
    o.high[0] = rng.range(0, o.low[0] - 1);
  } else if (kind < 8) {
    o.low[0] = rng.range(0, 179);
    o.high[0] = std::min(179, o.low[0] + rng.range(0, 60));
  } else if (kind == 8) {
    o.low[0] = o.high[0] = rng.range(0, 179);  // one hue
  }  // else: every hue
  for (int c = 1; c < 3; ++c) {
    const int k = rng.range(0, 9);
    if (k < 2) continue;  // 0..255
    o.low[c] = k < 4 ? 0 : rng.range(0, 200);
    o.high[c] = k == 4 ? 255 : std::min(255, o.low[c] + rng.range(k == 5 ? 0 : 30, 255));
  }
  return o;
}

/// Approximate HSV (OpenCV's scales) of an RGB color, in floating point.
void approx_hsv(const uint8_t* rgb, int* hsv) {
  const int r = rgb[0], g = rgb[1], b = rgb[2];
  const int v = std::max({r, g, b}), d = v - std::min({r, g, b});
  double h = 0;
  if (d > 0) h = v == r ? 30.0 * (g - b) / d : v == g ? 60.0 + 30.0 * (b - r) / d : 120.0 + 30.0 * (r - g) / d;
  if (h < 0) h += 180;
  hsv[0] = int(h) % 180;
  hsv[1] = v ? 255 * d / v : 0;
  hsv[2] = v;
}

/// A range about the color of one of the image's pixels, so that a scene's objects (or
/// its background) are found: hue +- a few to a few dozen (wrapping where it crosses
/// red), saturation and value bands around the pixel's.
ColorOptions range_about(Rng& rng, const ColorImage& img) {
  const size_t i = size_t(rng.next() % (uint64_t(img.width) * img.height));
  int hsv[3];
  approx_hsv(&img.rgb[3 * i], hsv);
  ColorOptions o;
  const int dh = rng.range(2, 30);
  o.low[0] = (hsv[0] - dh + 180) % 180;
  o.high[0] = (hsv[0] + dh) % 180;
  for (int c = 1; c < 3; ++c) {
    o.low[c] = std::max(0, hsv[c] - rng.range(5, 120));
    o.high[c] = std::min(255, hsv[c] + rng.range(5, 120));
  }
  return o;
}

int radius(Rng& rng) {
  const int r = rng.range(0, 99);
  return r < 50 ? 0 : r < 85 ? rng.range(1, 3) : rng.range(4, 12);
}

const char* content_name(ColorContent c) {
  switch (c) {
    case ColorContent::Shapes: return "shapes";
    case ColorContent::Noise: return "noise";
    case ColorContent::RawBytes: return "raw-bytes";
    case ColorContent::Scene: return "scene";
  }
  return "?";
}

/// Fills every plane's pixel bytes (not the padding) with random bytes.
void randomize_planes(Frame& f, Rng& rng) {
  const ImageView& v = f.view;
  for (int p = 0; p < plane_count(v.format); ++p) {
    const PlaneSize size = plane_size(v.format, v.width, v.height, p);
    for (size_t y = 0; y < size.rows; ++y)
      for (size_t x = 0; x < size.row_bytes; ++x)
        f.storage[size_t(p)][y * v.strides[p] + x] = uint8_t(rng.next());
  }
}

/// The fuzz_frames case whose content a Shapes case colors (and whose size it takes).
FuzzCase shapes_case(uint64_t seed, int max_side) {
  FuzzLimits limits;
  limits.max_side = max_side;
  limits.max_pixels = int64_t(max_side) * std::min(max_side, 480);
  limits.tracking = false;
  return random_fuzz_case(seed, limits);
}

ColorImage case_image(const ColorFuzzCase& c, Rng& rng);
Rng image_rng(uint64_t seed);

}  // namespace

const std::vector<PixelFormat>& color_formats() {
  static const std::vector<PixelFormat> formats = {PixelFormat::NV12, PixelFormat::I420,
                                                   PixelFormat::RGBA, PixelFormat::BGRA,
                                                   PixelFormat::RGBx, PixelFormat::BGRx};
  return formats;
}

ColorOptions hsv_range(int h_low, int s_low, int v_low, int h_high, int s_high, int v_high) {
  ColorOptions o;
  o.low[0] = h_low, o.low[1] = s_low, o.low[2] = v_low;
  o.high[0] = h_high, o.high[1] = s_high, o.high[2] = v_high;
  return o;
}

const std::vector<NamedRange>& color_ranges() {
  static const std::vector<NamedRange> ranges = {
      {"red_wrap", hsv_range(170, 100, 60, 10, 255, 255)},
      {"red_wide_wrap", hsv_range(150, 50, 30, 25, 255, 255)},
      {"skin_orange", hsv_range(5, 40, 60, 25, 200, 255)},
      {"yellow_green", hsv_range(25, 60, 40, 85, 255, 255)},
      {"blue", hsv_range(95, 80, 20, 130, 255, 255)},
      {"dark", hsv_range(0, 0, 0, 179, 255, 60)},
      {"gray_bright", hsv_range(0, 0, 120, 179, 40, 255)},
      {"one_hue", hsv_range(60, 0, 0, 60, 255, 255)},
      {"everything", hsv_range(0, 0, 0, 179, 255, 255)},
      {"ends", hsv_range(179, 255, 255, 0, 255, 255)},  // wraps; S and V at their top
      {"all_but_one_hue", hsv_range(91, 1, 1, 89, 254, 254)},
  };
  return ranges;
}

Options real_image_options(size_t k, const ColorOptions& range) {
  Options o;
  o.foreground = ForegroundModel::Color;
  o.color = range;
  const std::vector<AlgorithmInfo>& all = algorithms();
  o.algorithm = all[k % all.size()].id;
  o.connectivity = k % 2 ? 4 : 8;
  static const int radii[][2] = {{0, 0}, {1, 0}, {0, 2}, {2, 1}, {0, 0}, {3, 3}};
  o.open_radius = radii[k % 6][0];
  o.close_radius = radii[k % 6][1];
  switch (k % 5) {
    case 1: o.min_area = 20; break;
    case 2: o.max_area = 5000; break;
    case 3: o.min_area = 5, o.max_area = 200000; break;
    default: break;
  }
  return o;
}

size_t color_padding(size_t k, PixelFormat format) {
  switch (k % 3) {
    case 0: return 0;
    case 1: return size_t(luma_bytes_per_pixel(format)) * (1 + k % 9);
    default: return 1 + 2 * (k % 13);
  }
}

ColorImage to_color_image(const RgbImage& image) {
  ColorImage c;
  c.width = image.width;
  c.height = image.height;
  c.rgb = image.rgb;
  return c;
}

ColorFuzzCase random_color_case(uint64_t seed, int max_side) {
  Rng rng(seed);
  ColorFuzzCase c;
  c.seed = seed;
  max_side = std::max(1, max_side);
  const int kind = rng.range(0, 19);
  c.content = kind < 10 ? ColorContent::Shapes : kind < 13 ? ColorContent::Noise
            : kind < 16 ? ColorContent::RawBytes : ColorContent::Scene;
  const int shape = rng.range(0, 9);
  if (shape < 2) {
    c.width = rng.range(1, 9), c.height = rng.range(1, 9);
  } else if (shape == 2) {
    c.width = rng.range(1, max_side), c.height = 1;
  } else if (shape == 3) {
    c.width = 1, c.height = rng.range(1, max_side);
  } else {
    c.width = rng.range(2, max_side) | (rng.chance(60) ? 1 : 0);  // odd sides often
    c.height = rng.range(2, std::min(max_side, 480)) | (rng.chance(60) ? 1 : 0);
  }
  if (c.content == ColorContent::Shapes) {
    const FuzzCase shapes = shapes_case(seed, max_side);
    c.width = shapes.width;
    c.height = shapes.height;
  }
  c.max_side = max_side;
  c.width = std::clamp(c.width, 1, max_side);
  c.height = std::clamp(c.height, 1, max_side);
  c.format = color_formats()[size_t(rng.range(0, int(color_formats().size()) - 1))];
  const int bpp = luma_bytes_per_pixel(c.format), pad = rng.range(0, 9);
  c.padding = pad < 4 ? 0 : pad < 8 ? bpp * rng.range(1, 40) : rng.range(1, 257);
  Options& o = c.options;
  o.foreground = ForegroundModel::Color;
  o.color = random_range(rng);
  o.algorithm = algorithms()[size_t(rng.range(0, int(algorithms().size()) - 1))].id;
  o.connectivity = rng.chance(50) ? 4 : 8;
  o.write_labels = rng.chance(85);
  o.open_radius = radius(rng);
  o.close_radius = radius(rng);
  if (rng.chance(35)) {
    o.min_area = uint64_t(rng.range(0, 3) == 0 ? 0 : rng.range(1, 100));
    if (rng.chance(50)) o.max_area = uint64_t(rng.range(1, 100000));
  }
  if (c.content == ColorContent::Scene || (c.content == ColorContent::Noise && rng.chance(50))) {
    // Where the range does not shape the content, it follows the content instead.
    Rng image = image_rng(seed);
    o.color = range_about(rng, case_image(c, image));
  }
  // The threshold's fields must not matter.
  o.mode = rng.chance(50) ? ThresholdMode::Above : ThresholdMode::Below;
  o.threshold = rng.range(0, 255);
  return c;
}

std::string describe(const ColorFuzzCase& c) {
  const Options& o = c.options;
  std::ostringstream s;
  s << "color seed=" << c.seed << " max_side=" << c.max_side << " size=" << c.width << "x" << c.height
    << " format=" << to_string(c.format) << " pad=" << c.padding
    << " content=" << content_name(c.content) << " low=" << o.color.low[0] << ","
    << o.color.low[1] << "," << o.color.low[2] << " high=" << o.color.high[0] << ","
    << o.color.high[1] << "," << o.color.high[2] << " algo=" << to_string(o.algorithm)
    << " conn=" << o.connectivity << " labels=" << (o.write_labels ? 1 : 0)
    << " open=" << o.open_radius << " close=" << o.close_radius << " min_area=" << o.min_area
    << " max_area=" << o.max_area;
  return s.str();
}

namespace {

ColorImage case_image(const ColorFuzzCase& c, Rng& rng) {
  ColorImage img;
  img.width = c.width;
  img.height = c.height;
  img.rgb.resize(size_t(c.width) * c.height * 3);
  switch (c.content) {
    case ColorContent::Shapes: {
      // fuzz_frames' shapes (noise of every grain, checkerboards, rings, spirals,
      // snakes) at this size: inside pixels from a few colors about the range, the
      // rest anywhere, each with a little noise.
      const BinaryImage content = fuzz_content(shapes_case(c.seed, c.max_side), 0);
      uint8_t inside[6][3], outside[6][3];
      for (auto& col : inside) inside_color(rng, c.options.color, col);
      for (auto& col : outside)
        for (uint8_t& v : col) v = uint8_t(rng.next());
      const int noise = rng.range(0, 6);
      for (size_t i = 0; i < content.pixels.size(); ++i) {
        const uint8_t* from = content.pixels[i] ? inside[rng.next() % 6] : outside[rng.next() % 6];
        for (int k = 0; k < 3; ++k)
          img.rgb[i * 3 + k] = clamp8(from[k] + (noise ? rng.range(-noise, noise) : 0));
      }
      break;
    }
    case ColorContent::Noise:
    case ColorContent::RawBytes:
      for (uint8_t& v : img.rgb) v = uint8_t(rng.next());
      break;
    case ColorContent::Scene: {
      SceneSpec spec;
      spec.width = c.width;
      spec.height = c.height;
      spec.seed = c.seed;
      spec.objects = rng.range(1, 12);
      spec.noise = rng.range(0, 8);
      img = Scene(spec).frame(rng.range(0, 20));
      break;
    }
  }
  return img;
}

Rng image_rng(uint64_t seed) { return Rng(seed ^ 0x5EED0F0C010Eull); }

}  // namespace

Frame color_case_frame(const ColorFuzzCase& c) {
  Rng rng = image_rng(c.seed);
  const ColorImage img = case_image(c, rng);
  Frame f = to_frame(img, c.format, size_t(c.padding));
  if (c.content == ColorContent::RawBytes) randomize_planes(f, rng);
  return f;
}

}  // namespace ccl::test
