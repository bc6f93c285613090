// The CPU foreground stage (ccl/foreground.h): the mask cleanup against OpenCV's
// morphology, the threshold model against threshold_image, the background model's
// behaviour on synthetic scenes with known truth (noise, a moving object, a shadow, a
// stopped object, resets, a region), its determinism across stages and formats, and
// select_reported with max_area. The CPU stage is the oracle the CUDA stage is compared
// with bit for bit, so what is asserted here is what both backends must do.
#include <gtest/gtest.h>

#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <ostream>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "ccl/foreground.h"
#include "ccl/reference.h"
#include "fuzz_frames.h"
#include "test_images.h"

namespace ccl::test {
namespace {

// ---- helpers ----------------------------------------------------------------------

BinaryImage random_mask(int width, int height, double density, int granularity, uint32_t seed) {
  return yacclab_random(width, height, density, granularity, seed);
}

cv::Mat as_mat(const BinaryImage& b) {
  return cv::Mat(b.height, b.width, CV_8UC1, const_cast<uint8_t*>(b.pixels.data())).clone();
}

BinaryImage from_mat(const cv::Mat& m) {
  BinaryImage b;
  b.width = m.cols;
  b.height = m.rows;
  b.pixels.assign(m.datastart, m.dataend);
  return b;
}

cv::Mat square(int radius) {
  return cv::getStructuringElement(cv::MORPH_RECT, cv::Size(2 * radius + 1, 2 * radius + 1));
}

// OpenCV with its default anchor, iterations and border (BORDER_CONSTANT with
// morphologyDefaultBorderValue: outside pixels never win the min or the max).
BinaryImage cv_erode(const BinaryImage& b, int r) {
  cv::Mat dst;
  cv::erode(as_mat(b), dst, square(r));
  return from_mat(dst);
}
BinaryImage cv_dilate(const BinaryImage& b, int r) {
  cv::Mat dst;
  cv::dilate(as_mat(b), dst, square(r));
  return from_mat(dst);
}
BinaryImage cv_clean(const BinaryImage& b, int open_r, int close_r) {
  cv::Mat opened, closed;
  cv::morphologyEx(as_mat(b), opened, cv::MORPH_OPEN, square(open_r));
  cv::morphologyEx(opened, closed, cv::MORPH_CLOSE, square(close_r));
  return from_mat(closed);
}

// Equal masks, or the first differing pixel and the counts (enough to reproduce).
::testing::AssertionResult same_mask(const BinaryImage& got, const BinaryImage& want) {
  if (got.width != want.width || got.height != want.height ||
      got.pixels.size() != want.pixels.size())
    return ::testing::AssertionFailure()
           << "size " << got.width << "x" << got.height << " (" << got.pixels.size()
           << " bytes), expected " << want.width << "x" << want.height;
  for (size_t i = 0; i < got.pixels.size(); ++i)
    if (got.pixels[i] != want.pixels[i]) {
      size_t diff = 0;
      for (size_t j = 0; j < got.pixels.size(); ++j) diff += got.pixels[j] != want.pixels[j];
      return ::testing::AssertionFailure()
             << "pixel (" << i % size_t(got.width) << ", " << i / size_t(got.width)
             << ") is " << int(got.pixels[i]) << ", expected " << int(want.pixels[i]) << "; "
             << diff << " of " << got.pixels.size() << " pixels differ";
    }
  return ::testing::AssertionSuccess();
}

BinaryImage to_binary(const GrayImage& g, int level) {
  BinaryImage b;
  b.width = g.width;
  b.height = g.height;
  b.pixels.resize(g.pixels.size());
  for (size_t i = 0; i < g.pixels.size(); ++i) b.pixels[i] = g.pixels[i] > level ? 1 : 0;
  return b;
}

// clean_mask (and, when `each`, erode_mask and dilate_mask by open_r) on one mask and
// radius pair, against OpenCV.
void check_against_opencv(const BinaryImage& mask, int open_r, int close_r,
                          const std::string& what, std::vector<uint8_t>& scratch,
                          bool each = true) {
  if (each) {
    BinaryImage e = mask, d = mask;
    erode_mask(e, open_r, scratch);
    ASSERT_TRUE(same_mask(e, cv_erode(mask, open_r))) << "erode r=" << open_r << " " << what;
    dilate_mask(d, open_r, scratch);
    ASSERT_TRUE(same_mask(d, cv_dilate(mask, open_r))) << "dilate r=" << open_r << " " << what;
  }
  BinaryImage c = mask;
  clean_mask(c, open_r, close_r, nullptr, scratch);
  ASSERT_TRUE(same_mask(c, cv_clean(mask, open_r, close_r)))
      << "open " << open_r << " close " << close_r << " " << what;
}

// ---- 1. cleanup = OpenCV morphology ----------------------------------------------

struct Size2 {
  int w, h;
};

// Sizes where the (2r+1)-square overhangs the frame on one or both sides for most radii
// (the clipping is where a hand-written min/max filter goes wrong), odd sizes, and
// sizes larger than every square.
const Size2 kMorphSizes[] = {{1, 1},  {1, 23},  {23, 1},  {2, 2},   {3, 7},    {1, 200},
                             {200, 1}, {31, 33}, {65, 64}, {66, 65}, {257, 131}, {131, 257}};

TEST(Cleanup, ErodeDilateEqualOpenCVForEveryRadius) {
  std::vector<uint8_t> scratch;  // shared on purpose: sizes shrink and grow between calls
  uint32_t seed = 1;
  for (const Size2 s : kMorphSizes)
    for (auto [density, granularity] : {std::pair{0.5, 1}, std::pair{0.85, 2}, std::pair{0.2, 3},
                                        std::pair{0.6, 8}}) {
      const BinaryImage mask = random_mask(s.w, s.h, density, granularity, seed++);
      for (int r = 0; r <= kMaxCleanupRadius; ++r) {
        std::ostringstream what;
        what << s.w << "x" << s.h << " density " << density << " granularity " << granularity
             << " seed " << seed - 1;
        BinaryImage e = mask, d = mask;
        erode_mask(e, r, scratch);
        ASSERT_TRUE(same_mask(e, cv_erode(mask, r))) << "erode r=" << r << " " << what.str();
        dilate_mask(d, r, scratch);
        ASSERT_TRUE(same_mask(d, cv_dilate(mask, r))) << "dilate r=" << r << " " << what.str();
      }
    }
}

TEST(Cleanup, OpenThenCloseEqualsOpenCV) {
  std::vector<uint8_t> scratch;
  uint32_t seed = 100;
  for (const Size2 s : kMorphSizes)
    // Noise, blobs, and large solid areas with holes (what survives a large opening).
    for (auto [density, granularity] : {std::pair{0.55, 1}, std::pair{0.5, 4}, std::pair{0.92, 16}}) {
      const BinaryImage mask = random_mask(s.w, s.h, density, granularity, seed++);
      // Every radius on each side, paired with a spread of the other side's radii; every
      // 8th alone (an opening only, a closing only).
      for (int r = 0; r <= kMaxCleanupRadius; ++r)
        for (auto [o, c] : r % 8 == 0 ? std::vector<std::pair<int, int>>{{r, 0}, {0, r}}
                                      : std::vector<std::pair<int, int>>{
                                            {r, (r * 7 + 3) % 33}, {(r * 5 + 1) % 33, r}}) {
          std::ostringstream what;
          what << s.w << "x" << s.h << " seed " << seed - 1;
          // erode / dilate alone: the test above
          check_against_opencv(mask, o, c, what.str(), scratch, false);
          if (HasFatalFailure()) return;
        }
    }
}

// Masks with structure (the awkward shapes: rings, spirals, checkerboards, lines, 1-px
// wide frames), where an opening removes thin parts and a closing fills gaps.
TEST(Cleanup, ThresholdedTestImagesEqualOpenCV) {
  std::vector<uint8_t> scratch;
  for (const GrayImage& g : awkward_images()) {
    const BinaryImage mask = to_binary(g, 128);
    for (auto [o, c] : {std::pair{1, 0}, std::pair{0, 1}, std::pair{1, 1}, std::pair{2, 3},
                        std::pair{5, 2}, std::pair{32, 32}}) {
      check_against_opencv(mask, o, c, g.name, scratch);
      if (HasFatalFailure()) return;
    }
  }
}

TEST(Cleanup, ThresholdedRealImagesEqualOpenCV) {
  std::string why;
  const std::vector<GrayImage> images = real_images(&why);
  if (images.empty()) GTEST_SKIP() << "real test images unavailable: " << why;
  std::vector<uint8_t> scratch;
  int big_seen = 0;
  for (const GrayImage& g : images) {
    // The fax pages (4 Mpixels each, bilevel, so both levels give one mask) cost
    // O(pixels * r) here: two of them at one level and radius pair; the photographs at
    // both levels and more radii.
    const bool big = g.pixels.size() > 1000000;
    if (big && ++big_seen > 2) continue;
    const Frame frame = make_frame(g, PixelFormat::Gray8);
    for (ThresholdMode mode : {ThresholdMode::Otsu, ThresholdMode::Above}) {
      if (big && mode == ThresholdMode::Above) continue;
      Options options;
      options.mode = mode;
      BinaryImage mask;
      threshold_image(frame.view, options, mask);
      const std::vector<std::pair<int, int>> pairs =
          big ? std::vector<std::pair<int, int>>{{1, 2}}
              : std::vector<std::pair<int, int>>{{1, 1}, {2, 0}, {0, 3}, {5, 9}};
      for (auto [o, c] : pairs) {
        check_against_opencv(mask, o, c, g.name + " " + to_string(mode), scratch, !big);
        if (HasFatalFailure()) return;
      }
    }
  }
}

TEST(Cleanup, RegionClearsAfterTheCleanup) {
  // The region is applied last: a closing may grow the mask into a region hole's
  // neighbourhood, but never into the hole itself.
  std::vector<uint8_t> scratch;
  const BinaryImage mask = random_mask(41, 29, 0.5, 3, 7);
  std::vector<uint8_t> region(mask.pixels.size());
  for (size_t i = 0; i < region.size(); ++i) region[i] = uint8_t((i * 2654435761u) >> 7);
  BinaryImage got = mask;
  clean_mask(got, 1, 2, region.data(), scratch);
  BinaryImage want = cv_clean(mask, 1, 2);
  for (size_t i = 0; i < region.size(); ++i)
    if (!region[i]) want.pixels[i] = 0;
  EXPECT_TRUE(same_mask(got, want));
}

// ---- 2. the threshold model = threshold_image --------------------------------------

TEST(ThresholdStage, EqualsThresholdImageForEveryFormatAndMode) {
  FuzzLimits limits;
  limits.max_side = 257;
  limits.max_pixels = 257 * 160;
  limits.tracking = false;
  ForegroundStage shared;  // one stage and mask for every case: they follow size and format
  BinaryImage got;
  for (uint64_t seed = 1; seed <= 30; ++seed) {
    const FuzzCase base = random_fuzz_case(seed * 1000003ull, limits);
    for (PixelFormat format : all_formats())
      for (ThresholdMode mode : {ThresholdMode::Above, ThresholdMode::Below, ThresholdMode::Otsu}) {
        FuzzCase c = base;
        c.format = format;
        c.mode = mode;
        const std::string line = to_line(c);
        const Frame frame = fuzz_frame(c, 0);
        const Options options = fuzz_options(c);
        ASSERT_FALSE(options.mask_stage()) << "the threshold without cleanup needs no mask";

        BinaryImage want;
        const int want_level = threshold_image(frame.view, options, want);
        ASSERT_EQ(shared.apply(frame.view, options, got), want_level) << line;
        ASSERT_TRUE(same_mask(got, want)) << line;
        ASSERT_EQ(shared.frames(), 0u) << "the threshold model learns nothing";

        // The whole pipeline through the stage = the plain reference labeler.
        ForegroundStage fresh;
        Result through_stage, plain;
        BinaryImage mask;
        reference_label(frame.view, options, fresh, through_stage, &mask);
        reference_label(frame.view, options, plain);
        ASSERT_TRUE(same_mask(mask, want)) << line;
        ASSERT_EQ(through_stage.threshold_used, plain.threshold_used) << line;
        ASSERT_EQ(through_stage.num_components, plain.num_components) << line;
        ASSERT_EQ(through_stage.labels, plain.labels) << line;
        ASSERT_EQ(through_stage.components, plain.components) << line;
      }
  }
}

TEST(ThresholdStage, CleanupAndRegionFollowTheThreshold) {
  const GrayImage g = to_gray(random_mask(77, 53, 0.55, 2, 31), "blobs");
  std::vector<uint8_t> region(size_t(g.width + 5) * g.height, 0);
  for (int y = 0; y < g.height; ++y)
    for (int x = 0; x < g.width; ++x) region[size_t(y) * (g.width + 5) + x] = (x + y) % 3 ? 9 : 0;
  std::vector<uint8_t> scratch;
  for (PixelFormat format : all_formats()) {
    const Frame frame = make_frame(g, format, 7);
    Options options;
    options.open_radius = 1;
    options.close_radius = 2;
    ASSERT_TRUE(options.mask_stage());
    BinaryImage want;
    threshold_image(frame.view, options, want);
    want = cv_clean(want, 1, 2);
    ForegroundStage stage;
    BinaryImage got;
    stage.apply(frame.view, options, got);
    EXPECT_TRUE(same_mask(got, want)) << to_string(format);

    stage.set_region(region.data(), g.width, g.height, size_t(g.width + 5));
    ASSERT_TRUE(stage.has_region());
    for (int y = 0; y < g.height; ++y)
      for (int x = 0; x < g.width; ++x)
        if (!region[size_t(y) * (g.width + 5) + x]) want.pixels[size_t(y) * g.width + x] = 0;
    stage.apply(frame.view, options, got);
    EXPECT_TRUE(same_mask(got, want)) << to_string(format) << " with a region";
  }
}

// ---- synthetic scenes for the background model --------------------------------------

enum class Family { Gray, Yuv, Rgb };

Family family_of(PixelFormat f) {
  switch (f) {
    case PixelFormat::Gray8:
    case PixelFormat::Gray16LE: return Family::Gray;
    case PixelFormat::NV12:
    case PixelFormat::I420: return Family::Yuv;
    default: return Family::Rgb;
  }
}

using Px = std::array<int, 3>;

// A frame's content, format-neutral: per pixel (R, G, B) for the RGB formats, (Y, U, V)
// for NV12/I420 (the chroma of each 2x2 block is its top-left pixel's), channel 0 only
// for the gray ones.
struct Scene {
  int width = 0, height = 0;
  std::vector<Px> px;
  Px& at(int x, int y) { return px[size_t(y) * width + x]; }
  const Px& at(int x, int y) const { return px[size_t(y) * width + x]; }
};

uint8_t clamp8(int v) { return uint8_t(std::clamp(v, 0, 255)); }

// The scene as a frame of `format`, rows padded with poison; alpha / X bytes vary with
// `frame_no` so that reading them would show. RGB formats store the scene's (R, G, B)
// in their own byte order.
Frame to_frame(const Scene& s, PixelFormat format, size_t extra = 0, int frame_no = 0) {
  Frame f;
  f.view.width = s.width;
  f.view.height = s.height;
  f.view.format = format;
  const int bpp = luma_bytes_per_pixel(format);
  auto plane = [&](size_t row_bytes, int rows, int bytes_pp, size_t* stride) {
    *stride = row_bytes + extra;
    std::vector<uint8_t> p(*stride * size_t(rows));
    for (int y = 0; y < rows; ++y)
      for (size_t i = 0; i < extra; ++i) p[size_t(y) * *stride + row_bytes + i] = poison_byte(i, bytes_pp);
    return p;
  };
  f.storage.push_back(plane(size_t(s.width) * bpp, s.height, bpp, &f.view.strides[0]));
  for (int y = 0; y < s.height; ++y)
    for (int x = 0; x < s.width; ++x) {
      uint8_t* p = f.storage[0].data() + size_t(y) * f.view.strides[0] + size_t(x) * bpp;
      const Px& v = s.at(x, y);
      switch (format) {
        case PixelFormat::Gray16LE: {
          const int v16 = clamp8(v[0]) * 257;
          p[0] = uint8_t(v16 & 0xFF);
          p[1] = uint8_t(v16 >> 8);
          break;
        }
        case PixelFormat::RGBA:
        case PixelFormat::RGBx:
          p[0] = clamp8(v[0]), p[1] = clamp8(v[1]), p[2] = clamp8(v[2]);
          p[3] = uint8_t(x * 31 + y * 17 + frame_no * 101);
          break;
        case PixelFormat::BGRA:
        case PixelFormat::BGRx:
          p[0] = clamp8(v[2]), p[1] = clamp8(v[1]), p[2] = clamp8(v[0]);
          p[3] = uint8_t(x * 31 + y * 17 + frame_no * 101);
          break;
        default: p[0] = clamp8(v[0]);
      }
    }
  const int cw = (s.width + 1) / 2, ch = (s.height + 1) / 2;
  if (format == PixelFormat::NV12) {
    f.storage.push_back(plane(size_t(cw) * 2, ch, 2, &f.view.strides[1]));
    for (int y = 0; y < ch; ++y)
      for (int x = 0; x < cw; ++x) {
        uint8_t* p = f.storage[1].data() + size_t(y) * f.view.strides[1] + 2 * size_t(x);
        p[0] = clamp8(s.at(2 * x, 2 * y)[1]);
        p[1] = clamp8(s.at(2 * x, 2 * y)[2]);
      }
  } else if (format == PixelFormat::I420) {
    for (int c = 1; c <= 2; ++c) {
      f.storage.push_back(plane(size_t(cw), ch, 1, &f.view.strides[c]));
      for (int y = 0; y < ch; ++y)
        for (int x = 0; x < cw; ++x)
          f.storage[c][size_t(y) * f.view.strides[c] + x] = clamp8(s.at(2 * x, 2 * y)[c]);
    }
  }
  for (size_t i = 0; i < f.storage.size(); ++i) f.view.planes[i] = f.storage[i].data();
  return f;
}

// Gaussian noise: a table of 2^16 deviates drawn once by Box-Muller from mt19937's raw
// output, read at random indices (mt19937 too). The same numbers with every standard
// library (unlike std::normal_distribution), and cheap enough for thousands of frames.
class Noise {
 public:
  explicit Noise(uint32_t seed) : gen_(seed) {}
  double next() { return table()[gen_() >> 16]; }

 private:
  static const std::vector<double>& table() {
    static const std::vector<double> t = [] {
      std::mt19937 gen(20240601);
      std::vector<double> v(65536);
      for (size_t i = 0; i < v.size(); i += 2) {
        const double u1 = (double(gen()) + 1.0) / 4294967297.0, u2 = double(gen()) / 4294967296.0;
        const double r = std::sqrt(-2.0 * std::log(u1));
        v[i] = r * std::cos(6.283185307179586 * u2);
        v[i + 1] = r * std::sin(6.283185307179586 * u2);
      }
      return v;
    }();
    return t;
  }
  std::mt19937 gen_;
};

struct Rect {
  int x = 0, y = 0, w = 0, h = 0;
  bool contains(int px, int py) const { return px >= x && px < x + w && py >= y && py < y + h; }
};

// Background texture: channel 0 within 70..126, the others within 100..150 (for YUV a
// chroma near 128, for RGB a bluish gray), varying over a few pixels.
Px background_at(int x, int y) {
  return {70 + 14 * ((x / 3 + y / 5) % 5), 100 + 9 * ((x / 4 + 2 * (y / 3)) % 6),
          150 - 8 * ((x / 6 + y / 2) % 5)};
}

// The object's texture: a checkerboard of 4-px cells of two colors far from the
// background in every format; channel 0 is brighter than any background, so that in
// gray (where every darker pixel is a possible shadow) it is never one.
Px object_at(int x, int y) {
  return ((x / 4 + y / 4) % 2) ? Px{215, 40, 60} : Px{245, 200, 30};
}

// Darkening by `gain` keeping chromaticity: RGB channels scale; in YUV the luma scales
// and the chroma scales around 128 (what scaling RGB does to YUV).
// A shadow scales the color's distance from black: in YUV video black is Y 16 (limited
// range) and U, V 128, as the model assumes.
Px shadowed(const Px& p, double gain, Family fam) {
  Px s;
  for (int c = 0; c < 3; ++c) {
    const double offset = fam != Family::Yuv ? 0.0 : c == 0 ? 16.0 : 128.0;
    s[c] = int(std::lround(offset + (p[c] - offset) * gain));
  }
  return s;
}

// Noise of sigma 3 means a camera's: sigma 3 on each of R, G and B. The model compares
// Y, U, V frames in R, G, B units, and in Y, U, V such noise is about half as large on
// Y (219 levels for 255, a weighted mean of three independent channels), and half that
// again on U and V (their own weights, averaged over the 2x2 block).
double noise_share(Family fam, int channel) {
  return fam != Family::Yuv ? 1.0 : channel == 0 ? 0.5 : 0.25;
}

struct SceneSpec {
  int width = 96, height = 64;
  double sigma = 3.0;  // noise added to every channel of every pixel, every frame
  const Rect* object = nullptr;
  const Rect* shadow = nullptr;
  double shadow_gain = 0.6;
  Family family = Family::Rgb;
  double light = 1.0;  // the whole scene's light (a lamp, the exposure), from black
};

Scene render(const SceneSpec& spec, Noise& noise) {
  Scene s;
  s.width = spec.width;
  s.height = spec.height;
  s.px.resize(size_t(s.width) * s.height);
  for (int y = 0; y < s.height; ++y)
    for (int x = 0; x < s.width; ++x) {
      Px v = background_at(x, y);
      if (spec.shadow && spec.shadow->contains(x, y)) v = shadowed(v, spec.shadow_gain, spec.family);
      if (spec.object && spec.object->contains(x, y))
        v = object_at(x - spec.object->x, y - spec.object->y);
      if (spec.light != 1.0) v = shadowed(v, spec.light, spec.family);
      for (int c = 0; c < 3; ++c)
        v[c] += int(std::lround(spec.sigma * noise_share(spec.family, c) * noise.next()));
      s.at(x, y) = v;
    }
  return s;
}

Options background_options() {
  Options o;
  o.foreground = ForegroundModel::Background;
  return o;
}

size_t count_in(const BinaryImage& m, const Rect& r) {
  size_t n = 0;
  for (int y = r.y; y < r.y + r.h; ++y)
    for (int x = r.x; x < r.x + r.w; ++x) n += m.pixels[size_t(y) * m.width + x];
  return n;
}

size_t count_all(const BinaryImage& m) {
  return size_t(std::count(m.pixels.begin(), m.pixels.end(), uint8_t(1)));
}

std::string format_name(const ::testing::TestParamInfo<PixelFormat>& info) {
  return to_string(info.param);
}

// ---- 3. the background model's behaviour --------------------------------------------

// Share of pixels a static scene with noise of sigma 3 reports after the warm-up. In
// gray: those beyond 4 sigma (variance threshold 16), about 63 ppm. In color the model
// learns one variance for the three channels' summed squared distance and tests that
// sum against 16 times it, which noise exceeds almost never (0 measured).
constexpr double kStaticFalsePositiveRate = 2e-4;

class BackgroundModel : public ::testing::TestWithParam<PixelFormat> {
 protected:
  PixelFormat format() const { return GetParam(); }
  Family family() const { return family_of(GetParam()); }
  SceneSpec spec() const {
    SceneSpec s;
    s.family = family();
    return s;
  }
  // Feeds `frames` frames of the plain scene (warm-up).
  void warm_up(ForegroundStage& stage, const Options& o, Noise& noise, int frames,
               size_t extra = 0) {
    BinaryImage mask;
    for (int t = 0; t < frames; ++t)
      stage.apply(to_frame(render(spec(), noise), format(), extra, t).view, o, mask);
  }
};

TEST_P(BackgroundModel, FirstFrameIsTheBackground) {
  // Whatever the first frame holds (here an object and noise) is learned, not reported.
  Noise noise(1);
  SceneSpec s = spec();
  const Rect object{30, 20, 16, 16};
  s.object = &object;
  ForegroundStage stage;
  EXPECT_EQ(stage.frames(), 0u);
  BinaryImage mask;
  EXPECT_EQ(stage.apply(to_frame(render(s, noise), format(), 3).view, background_options(), mask),
            0) << "the background model reports level 0";
  EXPECT_EQ(stage.frames(), 1u);
  ASSERT_EQ(mask.width, s.width);
  ASSERT_EQ(mask.height, s.height);
  EXPECT_EQ(count_all(mask), 0u);
  // The object it learned is background on the next frame too.
  stage.apply(to_frame(render(s, noise), format(), 3).view, background_options(), mask);
  EXPECT_LE(count_in(mask, object), 2u);
}

TEST_P(BackgroundModel, StaticNoisySceneStaysEmpty) {
  // Gaussian noise of sigma 3 on every channel: after the warm-up only rare isolated
  // outliers (beyond about 4 sigma of the learned variance) are foreground, and an
  // opening of radius 1 leaves nothing at all.
  Noise noise(2);
  ForegroundStage raw, opened;
  Options o = background_options();
  Options o_open = o;
  o_open.open_radius = 1;
  BinaryImage m_raw, m_open;
  size_t fg = 0, pixels = 0;
  for (int t = 0; t < 130; ++t) {
    const Frame f = to_frame(render(spec(), noise), format(), 0, t);
    raw.apply(f.view, o, m_raw);
    opened.apply(f.view, o_open, m_open);
    if (t < 30) continue;  // warm-up
    fg += count_all(m_raw);
    pixels += m_raw.pixels.size();
    ASSERT_EQ(count_all(m_open), 0u) << "frame " << t;
  }
  const double rate = double(fg) / double(pixels);
  RecordProperty("false_positive_ppm", std::to_string(int(rate * 1e6)));
  EXPECT_LT(rate, kStaticFalsePositiveRate) << fg << " of " << pixels << " pixels";
}

TEST_P(BackgroundModel, MovingTexturedObjectIsFound) {
  Noise noise(3);
  ForegroundStage stage;
  const Options o = background_options();
  warm_up(stage, o, noise, 60, 5);
  BinaryImage mask;
  SceneSpec s = spec();
  for (int k = 0; k < 24; ++k) {
    // 2 px a frame (even, so chroma blocks stay whole), diagonally across the frame.
    const Rect object{8 + 2 * k, 6 + 2 * (k / 2), 16, 16};
    s.object = &object;
    stage.apply(to_frame(render(s, noise), format(), 5, 60 + k).view, o, mask);
    const size_t inside = count_in(mask, object), all = count_all(mask);
    const size_t area = size_t(object.w) * object.h;
    const size_t outside = all - inside, outside_area = mask.pixels.size() - area;
    EXPECT_GE(inside, area * 9 / 10) << "frame " << k << ": " << inside << " of " << area;
    EXPECT_LE(outside, outside_area / 1000) << "frame " << k << ": " << outside << " outside";
  }
}

TEST_P(BackgroundModel, DarkerSameChromaticityIsAShadow) {
  // A region 0.6 times as bright, chromaticity kept, appears after the warm-up. With
  // detect_shadows it is (nearly) no foreground; without, it is (nearly) all. In gray
  // the chromaticity test is void: any pixel 0.5..1 times the background is a shadow.
  // (At 0.7 the darkest YUV backgrounds lose only 21 of luma, within the match distance
  // of 4 sigma of the three channels' summed variance, so some were not foreground.)
  for (bool shadows : {true, false}) {
    Noise noise(4);
    ForegroundStage stage;
    Options o = background_options();
    o.background.detect_shadows = shadows;
    warm_up(stage, o, noise, 60);
    const Rect shadow{20, 12, 40, 30};
    SceneSpec s = spec();
    s.shadow = &shadow;
    BinaryImage mask;
    size_t inside = 0, outside = 0, frames = 5;
    for (size_t t = 0; t < frames; ++t) {
      stage.apply(to_frame(render(s, noise), format()).view, o, mask);
      inside += count_in(mask, shadow);
      outside += count_all(mask) - count_in(mask, shadow);
    }
    const size_t area = size_t(shadow.w) * shadow.h * frames;
    // YUV shadows darken toward Y 16, so on the scene's darkest pixels they change Y
    // less than RGB ones change their colors: a little more of them stays within the
    // noise either way.
    const bool yuv = family_of(format()) == Family::Yuv;
    if (shadows)
      EXPECT_LE(inside, area / (yuv ? 50 : 100)) << "shadow pixels reported as foreground";
    else
      EXPECT_GE(inside, area * (yuv ? 90 : 98) / 100)
          << "without shadow detection a darker region is foreground";
    EXPECT_LE(outside, (mask.pixels.size() * frames - area) / 1000);
  }
}

TEST_P(BackgroundModel, FrozenModelNeverAbsorbs) {
  // learning_rate 0: the first frame is the background for good; an object that stops
  // stays foreground (a learning model of history 500 absorbs it in 56 frames, below).
  Noise noise(5);
  ForegroundStage stage;
  Options o = background_options();
  o.background.learning_rate = 0;
  warm_up(stage, o, noise, 20);
  const Rect object{40, 24, 16, 16};
  SceneSpec s = spec();
  s.object = &object;
  BinaryImage mask;
  for (int t = 0; t < 120; ++t) {
    stage.apply(to_frame(render(s, noise), format()).view, o, mask);
    ASSERT_GE(count_in(mask, object), size_t(object.w * object.h * 95 / 100)) << "frame " << t;
  }
}

TEST_P(BackgroundModel, ResetRestarts) {
  Noise noise(6);
  ForegroundStage stage;
  const Options o = background_options();
  warm_up(stage, o, noise, 40);
  EXPECT_EQ(stage.frames(), 40u);
  // A scene with a large object: foreground to the warmed-up model...
  const Rect object{10, 10, 60, 40};
  SceneSpec s = spec();
  s.object = &object;
  BinaryImage mask;
  stage.apply(to_frame(render(s, noise), format()).view, o, mask);
  EXPECT_GE(count_in(mask, object), size_t(object.w * object.h * 95 / 100));
  // ...after reset() the background: the first frame is empty and the next ones stay so.
  stage.reset();
  EXPECT_EQ(stage.frames(), 0u);
  stage.apply(to_frame(render(s, noise), format()).view, o, mask);
  EXPECT_EQ(stage.frames(), 1u);
  EXPECT_EQ(count_all(mask), 0u);
  for (int t = 0; t < 10; ++t) {
    stage.apply(to_frame(render(s, noise), format()).view, o, mask);
    EXPECT_LE(count_in(mask, object), 3u) << "frame " << t;
  }
}

// A light switched on or off: the whole scene 35 % brighter or darker from one frame to
// the next. The model measures the change (light_gain) and follows it, so the step
// makes no foreground, while an object in front of the changed scene is still found;
// without compensate_light most of the frame is foreground.
TEST_P(BackgroundModel, SuddenLightChangeIsFollowed) {
  for (double light : {1.35, 0.65}) {
    for (bool compensate : {true, false}) {
      SCOPED_TRACE(std::string(compensate ? "compensated" : "not compensated") + ", light x" +
                   std::to_string(light));
      Noise noise(8);
      ForegroundStage stage;
      Options o = background_options();
      o.background.compensate_light = compensate;
      o.background.detect_shadows = false;  // darker frames would pass as shadows
      warm_up(stage, o, noise, 60);
      EXPECT_DOUBLE_EQ(stage.light_gain(), 1.0) << "steady light";
      SceneSpec s = spec();
      s.light = light;
      const Rect object{60, 20, 16, 16};
      BinaryImage mask;
      for (int k = 0; k < 5; ++k) {
        stage.apply(to_frame(render(s, noise), format()).view, o, mask);
        const size_t all = count_all(mask);
        if (!compensate) {
          if (k == 0) EXPECT_GT(all, mask.pixels.size() / 3) << "frame " << k;
          continue;
        }
        if (k == 0) EXPECT_NEAR(stage.light_gain(), light, 0.02);
        EXPECT_LE(all, mask.pixels.size() / 500) << "frame " << k << ": " << all << " pixels";
      }
      if (!compensate) continue;
      s.object = &object;
      stage.apply(to_frame(render(s, noise), format()).view, o, mask);
      EXPECT_GE(count_in(mask, object), size_t(object.w * object.h * 9 / 10))
          << "the object in front of the relit scene";
    }
  }
}

TEST_P(BackgroundModel, RegionHidesPixels) {
  // The model runs everywhere; the region only clears the mask afterwards, so the mask
  // with a region is the mask without it, and'ed with the region.
  Noise noise(7);
  const int w = 96, h = 64;
  const size_t stride = w + 3;
  std::vector<uint8_t> region(stride * h, 0x5A);  // padding bytes non-zero: must be ignored
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) region[size_t(y) * stride + x] = x < 50 ? uint8_t(1 + x) : 0;
  ForegroundStage with, without;
  with.set_region(region.data(), w, h, stride);
  ASSERT_TRUE(with.has_region());
  Options o = background_options();
  o.close_radius = 1;
  BinaryImage m_with, m_without;
  SceneSpec s = spec();
  size_t seen_left = 0;
  for (int t = 0; t < 60; ++t) {
    // From t = 30: in the hidden half, then the open one, then across the edge at x = 50.
    const Rect object{20 + t % 40, 20, 18, 18};
    s.object = t >= 30 ? &object : nullptr;
    const Frame f = to_frame(render(s, noise), format());
    with.apply(f.view, o, m_with);
    without.apply(f.view, o, m_without);
    BinaryImage want = m_without;
    for (int y = 0; y < h; ++y)
      for (int x = 50; x < w; ++x) want.pixels[size_t(y) * w + x] = 0;
    ASSERT_TRUE(same_mask(m_with, want)) << "frame " << t;
    if (t >= 30) seen_left += count_all(m_with);
  }
  EXPECT_GT(seen_left, 1000u) << "the object shows where the region allows";

  // A region of another size is refused; clearing it lets every pixel through again.
  with.set_region(region.data(), w - 2, h, stride);
  BinaryImage m;
  const Frame f = to_frame(render(s, noise), format());
  EXPECT_THROW(with.apply(f.view, o, m), Error);
  with.set_region(nullptr, 0, 0);
  EXPECT_FALSE(with.has_region());
  EXPECT_NO_THROW(with.apply(f.view, o, m));
}

const PixelFormat kEveryFormat[] = {PixelFormat::Gray8, PixelFormat::Gray16LE, PixelFormat::NV12,
                                    PixelFormat::I420,  PixelFormat::RGBA,     PixelFormat::BGRA,
                                    PixelFormat::RGBx,  PixelFormat::BGRx};
INSTANTIATE_TEST_SUITE_P(Formats, BackgroundModel, ::testing::ValuesIn(kEveryFormat), format_name);

// Frames from the model's reset until an object that appears after the warm-up and
// stops is no longer foreground (less than half of it); -1 when it never is within
// `limit` frames.
int absorption_frames(PixelFormat format, const BackgroundOptions& bo, int warm_up, int limit,
                      uint32_t seed) {
  Noise noise(seed);
  ForegroundStage stage;
  Options o = background_options();
  o.background = bo;
  SceneSpec s;
  s.width = 64;
  s.height = 48;
  s.family = family_of(format);
  BinaryImage mask;
  for (int t = 0; t < warm_up; ++t) stage.apply(to_frame(render(s, noise), format).view, o, mask);
  const Rect object{24, 16, 16, 16};
  s.object = &object;
  for (int k = 1; k <= limit; ++k) {
    stage.apply(to_frame(render(s, noise), format).view, o, mask);
    if (count_in(mask, object) * 2 < size_t(object.w * object.h)) return k;
  }
  return -1;
}

struct AbsorptionCase {
  int history;
  double learning_rate;
  PixelFormat format;
};

// gtest prints a parameter's bytes otherwise, padding included.
void PrintTo(const AbsorptionCase& c, std::ostream* os) {
  *os << "history " << c.history << " rate " << c.learning_rate << " " << to_string(c.format);
}

class Absorption : public ::testing::TestWithParam<AbsorptionCase> {};

TEST_P(Absorption, StoppedObjectJoinsTheBackgroundInTime) {
  // Once the rate is a constant a (1/history after 2n >= history frames, or the fixed
  // rate), the old background's weight decays about as (1 - a)^k and the object's mode
  // becomes background when that falls below the background share 0.9:
  // k = ln(0.9) / ln(1 - a) (52.6 for history 500, 10.5 for 100). The complexity prior
  // (0.05 a off every mode each frame, then renormalized) slows the decay a little, to
  // about (1 - a) / (1 - 0.1 a) a frame: the exact fixed-point weights absorb at 56
  // frames for history 500, 11 for 100, 6 for the rate 0.02 (5.2 by the formula).
  const AbsorptionCase c = GetParam();
  BackgroundOptions bo;
  bo.history = c.history;
  bo.learning_rate = c.learning_rate;
  const double a = c.learning_rate > 0 ? c.learning_rate : 1.0 / c.history;
  const double expected = std::log(0.9) / std::log(1.0 - a);
  const int warm_up = c.history / 2 + 20;  // past 2n >= history: the rate is 1/history
  const int got = absorption_frames(c.format, bo, warm_up, int(expected * 3) + 10, 8);
  RecordProperty("frames", std::to_string(got));
  ASSERT_NE(got, -1) << "never absorbed";
  EXPECT_GE(got, int(std::ceil(expected)) - 1) << "absorbed too early";
  EXPECT_LE(got, expected * 1.12 + 1.0)
      << "history " << c.history << " rate " << c.learning_rate << " " << to_string(c.format);
}

INSTANTIATE_TEST_SUITE_P(
    Rates, Absorption,
    ::testing::Values(AbsorptionCase{500, -1, PixelFormat::Gray8},
                      AbsorptionCase{500, -1, PixelFormat::NV12},
                      AbsorptionCase{500, -1, PixelFormat::RGBA},
                      AbsorptionCase{100, -1, PixelFormat::Gray8},
                      AbsorptionCase{100, -1, PixelFormat::I420},
                      AbsorptionCase{100, -1, PixelFormat::BGRx},
                      AbsorptionCase{500, 0.02, PixelFormat::Gray8},
                      AbsorptionCase{500, 0.02, PixelFormat::RGBx}),
    [](const ::testing::TestParamInfo<AbsorptionCase>& info) {
      return "history" + std::to_string(info.param.history) +
             (info.param.learning_rate > 0
                  ? "_rate" + std::to_string(int(info.param.learning_rate * 1000)) + "permille"
                  : std::string("_auto")) +
             "_" + to_string(info.param.format);
    });

TEST(BackgroundRestart, NewSizeOrChannelLayoutRestartsTheModel) {
  // After a warm-up, a frame whose size, or whose channels (gray / YUV / RGB), differ is
  // a first frame again: learned, nothing foreground, frames() == 1.
  struct Change {
    PixelFormat from;
    int from_w;
    PixelFormat to;
    int to_w;
  };
  for (const Change ch : {Change{PixelFormat::Gray8, 96, PixelFormat::Gray8, 94},
                          Change{PixelFormat::Gray8, 96, PixelFormat::NV12, 96},
                          Change{PixelFormat::NV12, 96, PixelFormat::RGBA, 96},
                          Change{PixelFormat::BGRx, 96, PixelFormat::I420, 96},
                          Change{PixelFormat::RGBA, 96, PixelFormat::Gray16LE, 96},
                          Change{PixelFormat::I420, 96, PixelFormat::I420, 90}}) {
    const std::string what = std::string(to_string(ch.from)) + " " + std::to_string(ch.from_w) +
                             " -> " + to_string(ch.to) + " " + std::to_string(ch.to_w);
    Noise noise(9);
    ForegroundStage stage;
    const Options o = background_options();
    SceneSpec s;
    s.width = ch.from_w;
    s.family = family_of(ch.from);
    BinaryImage mask;
    for (int t = 0; t < 30; ++t) stage.apply(to_frame(render(s, noise), ch.from).view, o, mask);
    ASSERT_EQ(stage.frames(), 30u) << what;
    const Rect object{10, 10, 40, 40};
    s.width = ch.to_w;
    s.family = family_of(ch.to);
    s.object = &object;
    stage.apply(to_frame(render(s, noise), ch.to).view, o, mask);
    EXPECT_EQ(stage.frames(), 1u) << what;
    EXPECT_EQ(mask.width, ch.to_w) << what;
    EXPECT_EQ(count_all(mask), 0u) << what;
  }
}

// Any change of format restarts the model, not only one of the channel layout: RGBA
// then BGRA would go on with R and B swapped (on this static scene 4871 of 6144 pixels
// came out foreground before the stage restarted on it).
TEST(BackgroundRestart, EveryFormatChangeRestarts) {
  for (auto [from, to] : {std::pair{PixelFormat::RGBA, PixelFormat::BGRA},
                          std::pair{PixelFormat::BGRx, PixelFormat::RGBx},
                          std::pair{PixelFormat::NV12, PixelFormat::I420},
                          std::pair{PixelFormat::Gray8, PixelFormat::Gray16LE}}) {
    Noise noise(10);
    ForegroundStage stage;
    const Options o = background_options();
    SceneSpec s;
    s.family = family_of(from);
    BinaryImage mask;
    for (int t = 0; t < 30; ++t) stage.apply(to_frame(render(s, noise), from).view, o, mask);
    stage.apply(to_frame(render(s, noise), to).view, o, mask);
    EXPECT_EQ(stage.frames(), 1u) << to_string(from) << " -> " << to_string(to);
    EXPECT_EQ(count_all(mask), 0u) << to_string(from) << " -> " << to_string(to);
  }
}

TEST(BackgroundRestart, ThresholdFramesInBetweenRestartTheModel) {
  // A model that skipped frames (the threshold served them) starts over.
  Noise noise(11);
  ForegroundStage stage;
  const Options bg = background_options();
  SceneSpec s;
  s.family = Family::Gray;
  BinaryImage mask;
  for (int t = 0; t < 20; ++t) stage.apply(to_frame(render(s, noise), PixelFormat::Gray8).view, bg, mask);
  stage.apply(to_frame(render(s, noise), PixelFormat::Gray8).view, Options{}, mask);
  EXPECT_EQ(stage.frames(), 0u);
  const Rect object{10, 10, 40, 40};
  s.object = &object;
  stage.apply(to_frame(render(s, noise), PixelFormat::Gray8).view, bg, mask);
  EXPECT_EQ(stage.frames(), 1u);
  EXPECT_EQ(count_all(mask), 0u);
}

TEST(BackgroundOptionsValidation, OutOfRangeValuesAreRefused) {
  static uint8_t pixels[8 * 8];
  const ImageView view = ImageView::gray8(pixels, 8, 8);
  auto refused = [&](const Options& o) {
    try {
      validate(view, o);
    } catch (const Error&) {
      // The stage refuses it too, before its model advances.
      ForegroundStage stage;
      BinaryImage m;
      EXPECT_THROW(stage.apply(view, o, m), Error);
      EXPECT_EQ(stage.frames(), 0u);
      return true;
    }
    return false;
  };
  auto with = [](auto change) {
    Options o;
    o.foreground = ForegroundModel::Background;
    change(o);
    return o;
  };
  EXPECT_TRUE(refused(with([](Options& o) { o.background.history = 0; })));
  EXPECT_TRUE(refused(with([](Options& o) { o.background.history = -5; })));
  EXPECT_TRUE(refused(with([](Options& o) { o.background.history = 100001; })));
  EXPECT_TRUE(refused(with([](Options& o) { o.background.variance_threshold = 0.5; })));
  EXPECT_TRUE(refused(with([](Options& o) { o.background.variance_threshold = 255.5; })));
  EXPECT_TRUE(refused(with([](Options& o) {
    o.background.variance_threshold = std::numeric_limits<double>::quiet_NaN();
  })));
  EXPECT_TRUE(refused(with([](Options& o) { o.background.learning_rate = 1.5; })));
  EXPECT_TRUE(refused(with([](Options& o) {
    o.background.learning_rate = std::numeric_limits<double>::quiet_NaN();
  })));
  EXPECT_TRUE(refused(with([](Options& o) { o.open_radius = 33; })));
  EXPECT_TRUE(refused(with([](Options& o) { o.close_radius = 33; })));
  EXPECT_TRUE(refused(with([](Options& o) { o.open_radius = -1; })));

  // The ends of every range are valid.
  EXPECT_FALSE(refused(with([](Options& o) { o.background.history = 1; })));
  EXPECT_FALSE(refused(with([](Options& o) { o.background.history = 100000; })));
  EXPECT_FALSE(refused(with([](Options& o) { o.background.variance_threshold = 1; })));
  EXPECT_FALSE(refused(with([](Options& o) { o.background.variance_threshold = 255; })));
  EXPECT_FALSE(refused(with([](Options& o) { o.background.learning_rate = 1; })));
  EXPECT_FALSE(refused(with([](Options& o) { o.background.learning_rate = 0; })));
  EXPECT_FALSE(refused(with([](Options& o) { o.open_radius = o.close_radius = kMaxCleanupRadius; })));

  // The radii bound the threshold model's cleanup too; the background settings serve
  // the background model only.
  Options threshold;
  threshold.open_radius = 33;
  EXPECT_TRUE(refused(threshold));
  threshold.open_radius = 0;
  threshold.background.history = 0;
  EXPECT_FALSE(refused(threshold));
}

TEST(BackgroundState, BytesPerPixel) {
  // 4 modes of a weight, C means and a variance, 16 bits each.
  for (PixelFormat f : all_formats()) {
    const int c = family_of(f) == Family::Gray ? 1 : 3;
    EXPECT_EQ(background_channels(f), c) << to_string(f);
    EXPECT_EQ(background_state_bytes_per_pixel(f), size_t(4 * (c + 2) * 2)) << to_string(f);
  }
}

// ---- 4. determinism -------------------------------------------------------------------

// A sequence for one family: warm-up, a moving object, a shadow, a stop.
std::vector<Scene> sequence(Family fam, uint32_t seed, int frames = 60) {
  Noise noise(seed);
  std::vector<Scene> v;
  static const Rect shadow{4, 30, 30, 20};
  for (int t = 0; t < frames; ++t) {
    SceneSpec s;
    s.family = fam;
    const Rect object{std::min(3 * t, 70), 8 + (t % 20), 16, 16};
    if (t >= 15) s.object = &object;
    if (t >= 30 && t < 45) s.shadow = &shadow;
    v.push_back(render(s, noise));
  }
  return v;
}

std::vector<BinaryImage> masks_of(const std::vector<Scene>& scenes, PixelFormat format,
                                  ForegroundStage& stage, const Options& o, size_t extra = 0) {
  std::vector<BinaryImage> masks(scenes.size());
  for (size_t t = 0; t < scenes.size(); ++t)
    stage.apply(to_frame(scenes[t], format, extra, int(t)).view, o, masks[t]);
  return masks;
}

TEST(BackgroundDeterminism, TwoStagesInterleavedGiveTheSameMasks) {
  // No state outside the stage: two stages fed the same frames, interleaved with a third
  // fed another stream, write the same masks frame for frame.
  Options o = background_options();
  o.open_radius = 1;
  o.close_radius = 1;
  // One format per channel reader; the next test ties the other layouts to these.
  for (PixelFormat format : {PixelFormat::Gray8, PixelFormat::Gray16LE, PixelFormat::NV12,
                             PixelFormat::I420, PixelFormat::BGRx}) {
    const std::vector<Scene> a = sequence(family_of(format), 12), b = sequence(family_of(format), 13);
    ForegroundStage s1, s2, other;
    BinaryImage m1, m2, m3;
    size_t foreground = 0;
    for (size_t t = 0; t < a.size(); ++t) {
      const Frame f = to_frame(a[t], format, 0, int(t));
      s1.apply(f.view, o, m1);
      other.apply(to_frame(b[t], format).view, o, m3);
      s2.apply(f.view, o, m2);
      ASSERT_TRUE(same_mask(m1, m2)) << to_string(format) << " frame " << t;
      foreground += count_all(m1);
    }
    EXPECT_GT(foreground, 5000u) << "the sequence has foreground to compare";
    // A moved-from stage's state goes with the move.
    ForegroundStage moved = std::move(s1);
    const Frame f = to_frame(a.back(), format);
    moved.apply(f.view, o, m1);
    s2.apply(f.view, o, m2);
    EXPECT_TRUE(same_mask(m1, m2)) << to_string(format) << " after a move";
  }
}

TEST(BackgroundDeterminism, LayoutsOfTheSameChannelsGiveTheSameMasks) {
  // The model treats its channels alike, so RGB byte order and alpha / X do not matter;
  // NV12 and I420 hold the same Y, U, V; row padding is never read.
  const Options o = background_options();
  const std::vector<Scene> rgb = sequence(Family::Rgb, 14), yuv = sequence(Family::Yuv, 15);
  ForegroundStage ref_rgb, ref_yuv;
  const std::vector<BinaryImage> want_rgb = masks_of(rgb, PixelFormat::RGBA, ref_rgb, o);
  const std::vector<BinaryImage> want_yuv = masks_of(yuv, PixelFormat::NV12, ref_yuv, o);
  for (PixelFormat f : all_formats()) {
    if (family_of(f) == Family::Gray) continue;
    for (size_t extra : {size_t(0), size_t(6)}) {
      ForegroundStage stage;
      const bool is_yuv = family_of(f) == Family::Yuv;
      const std::vector<BinaryImage> got = masks_of(is_yuv ? yuv : rgb, f, stage, o, extra);
      const std::vector<BinaryImage>& want = is_yuv ? want_yuv : want_rgb;
      for (size_t t = 0; t < got.size(); ++t)
        ASSERT_TRUE(same_mask(got[t], want[t])) << to_string(f) << " pad " << extra << " frame " << t;
    }
  }
}

TEST(BackgroundDeterminism, Gray16OfGray8Times257GivesTheSameMasks) {
  // ReadGray16 maps v to v - (v >> 8) in Q8: for v = g * 257 that is exactly g << 8,
  // what ReadGray8 reads for g, so the model sees the same numbers and writes the same
  // masks bit for bit.
  for (int g = 0; g < 256; ++g) {
    const int v = g * 257;
    ASSERT_EQ(v - (v >> 8), g << 8) << g;
  }
  Options o = background_options();
  for (bool shadows : {true, false}) {
    o.background.detect_shadows = shadows;
    const std::vector<Scene> scenes = sequence(Family::Gray, 16);
    ForegroundStage s8, s16;
    const std::vector<BinaryImage> m8 = masks_of(scenes, PixelFormat::Gray8, s8, o);
    const std::vector<BinaryImage> m16 = masks_of(scenes, PixelFormat::Gray16LE, s16, o, 4);
    for (size_t t = 0; t < scenes.size(); ++t)
      ASSERT_TRUE(same_mask(m16[t], m8[t])) << "frame " << t << " shadows " << shadows;
  }
}

// ---- 5. select_reported with max_area ------------------------------------------------

std::vector<Component> random_table(std::mt19937& gen, uint32_t n, uint64_t max_area) {
  std::vector<Component> table(n);
  for (uint32_t i = 0; i < n; ++i) {
    table[i].label = i + 1;
    table[i].area = 1 + gen() % max_area;
    table[i].y = int32_t(gen() % 1000);  // for == to see beyond the area and label
  }
  return table;
}

// The rule written out plainly: filter by area, keep label order unless more than
// max_components pass, then the largest (ties by label) by a full sort.
std::vector<Component> brute_force(const std::vector<Component>& table, uint64_t min_area,
                                   uint64_t max_area, uint32_t max_components) {
  std::vector<Component> kept;
  for (const Component& c : table)
    if (c.area >= min_area && (max_area == 0 || c.area <= max_area)) kept.push_back(c);
  if (kept.size() <= max_components) return kept;
  std::sort(kept.begin(), kept.end(), [](const Component& a, const Component& b) {
    return a.area != b.area ? a.area > b.area : a.label < b.label;
  });
  kept.resize(max_components);
  return kept;
}

TEST(SelectReportedMaxArea, MatchesBruteForceOnRandomTables) {
  std::mt19937 gen(21);
  for (int round = 0; round < 300; ++round) {
    const uint32_t n = gen() % 300;
    const uint64_t top = 1 + gen() % (round % 2 ? 5 : 80);  // small tops: many ties
    const std::vector<Component> table = random_table(gen, n, top);
    for (uint64_t max_area : {uint64_t(0), uint64_t(1), top / 2, top, top + 1,
                              uint64_t(1 + gen() % (top + 1))})
      for (uint64_t min_area : {uint64_t(0), uint64_t(2), top / 3, max_area, max_area + 1})
        for (uint32_t k : {0u, 1u, n / 3, n, UINT32_MAX, uint32_t(gen() % (n + 1))}) {
          Options o;
          o.min_area = min_area;
          o.max_area = max_area;
          o.max_components = k;
          std::vector<Component> got = table;
          select_reported(got, o);
          ASSERT_EQ(got, brute_force(table, min_area, max_area, k))
              << "round " << round << " n " << n << " min " << min_area << " max " << max_area
              << " k " << k;
          for (const Component& c : got) ASSERT_TRUE(o.area_passes(c.area));
        }
  }
}

TEST(SelectReportedMaxArea, OptionsPredicates) {
  Options o;
  EXPECT_TRUE(o.reports_all());
  o.max_area = 10;
  EXPECT_FALSE(o.reports_all()) << "a max_area alone hides components";
  EXPECT_TRUE(o.area_passes(10));
  EXPECT_FALSE(o.area_passes(11));
  o.min_area = 11;
  EXPECT_FALSE(o.area_passes(10)) << "max_area < min_area passes nothing";
  EXPECT_FALSE(o.area_passes(11));
  EXPECT_FALSE(o.mask_stage()) << "report settings need no mask";
}

TEST(SelectReportedMaxArea, ReferenceLabelThroughTheStage) {
  // The stage's pipeline reports with the same rule, total count kept.
  const GrayImage g = to_gray(random_mask(201, 133, 0.3, 1, 22), "noise");
  const Frame frame = make_frame(g, PixelFormat::BGRA, 3);
  Options all;
  Result whole;
  ForegroundStage stage;
  reference_label(frame.view, all, stage, whole);
  ASSERT_GT(whole.num_components, 1000u);
  for (auto [min_area, max_area, k] : {std::tuple<uint64_t, uint64_t, uint32_t>{0, 4, UINT32_MAX},
                                       {3, 12, 20}, {1, 1, 5}, {8, 0, 3}, {5, 4, 10}}) {
    Options o = all;
    o.min_area = min_area;
    o.max_area = max_area;
    o.max_components = k;
    Result got;
    reference_label(frame.view, o, stage, got);
    EXPECT_EQ(got.num_components, whole.num_components);
    EXPECT_EQ(got.labels, whole.labels);
    EXPECT_EQ(got.components, brute_force(whole.components, min_area, max_area, k))
        << min_area << " " << max_area << " " << k;
  }
}

}  // namespace
}  // namespace ccl::test
