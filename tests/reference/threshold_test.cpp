// Thresholding of every pixel format (fixed above/below and Otsu, padded strides),
// reference_label on frames, and the validation of bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <tuple>

#include "ccl/luma.h"
#include "ccl/reference.h"
#include "opencv_oracle.h"

namespace ccl::test {
namespace {

// Random values plus every value 0..255 (so both sides of any level occur), odd size.
GrayImage test_gray() {
  GrayImage g;
  g.name = "values";
  g.width = 61;
  g.height = 23;
  g.pixels.resize(size_t(g.width) * g.height);
  std::mt19937 gen(5);
  for (size_t i = 0; i < g.pixels.size(); ++i) g.pixels[i] = uint8_t(i < 256 ? i : gen() >> 24);
  std::shuffle(g.pixels.begin(), g.pixels.end(), gen);
  return g;
}

std::vector<uint32_t> histogram_of(const GrayImage& g) {
  std::vector<uint32_t> h(256, 0);
  for (uint8_t v : g.pixels) ++h[v];
  return h;
}

using ThresholdCase = std::tuple<PixelFormat, ThresholdMode, size_t /*extra stride*/>;

class ThresholdFormats : public ::testing::TestWithParam<ThresholdCase> {};

TEST_P(ThresholdFormats, ForegroundFollowsTheGrayValue) {
  const auto [format, mode, extra] = GetParam();
  const GrayImage g = test_gray();
  const Frame frame = make_frame(g, format, extra);

  EXPECT_EQ(luma_histogram(frame.view), histogram_of(g));

  Options options;
  options.mode = mode;
  options.threshold = 100;
  const int expected_level =
      mode == ThresholdMode::Otsu ? otsu_level(histogram_of(g).data()) : options.threshold;
  BinaryImage binary;
  ASSERT_EQ(threshold_image(frame.view, options, binary), expected_level);
  ASSERT_EQ(binary.width, g.width);
  ASSERT_EQ(binary.height, g.height);
  ASSERT_EQ(binary.pixels.size(), g.pixels.size());
  for (size_t i = 0; i < g.pixels.size(); ++i) {
    const bool fg = mode == ThresholdMode::Below ? g.pixels[i] <= expected_level
                                                 : g.pixels[i] > expected_level;
    ASSERT_EQ(binary.pixels[i], fg ? 1 : 0) << "pixel " << i << " value " << int(g.pixels[i]);
  }

  // reference_label = threshold + label_binary, with the level it used.
  for (int connectivity : {4, 8}) {
    options.connectivity = connectivity;
    Result from_frame, from_binary;
    reference_label(frame.view, options, from_frame);
    label_binary(binary, connectivity, from_binary);
    EXPECT_EQ(from_frame.threshold_used, expected_level);
    EXPECT_EQ(from_frame.num_components, from_binary.num_components);
    EXPECT_EQ(from_frame.labels, from_binary.labels);
    EXPECT_EQ(from_frame.components, from_binary.components);

    options.write_labels = false;
    Result no_labels;
    reference_label(frame.view, options, no_labels);
    EXPECT_TRUE(no_labels.labels.empty());
    EXPECT_EQ(no_labels.components, from_binary.components);
    options.write_labels = true;
  }
}

INSTANTIATE_TEST_SUITE_P(
    AllFormats, ThresholdFormats,
    ::testing::Combine(::testing::ValuesIn(all_formats()),
                       ::testing::Values(ThresholdMode::Above, ThresholdMode::Below,
                                         ThresholdMode::Otsu),
                       ::testing::Values(size_t(0), size_t(9))),
    [](const ::testing::TestParamInfo<ThresholdCase>& info) {
      return std::string(to_string(std::get<0>(info.param))) + "_" +
             to_string(std::get<1>(info.param)) + "_pad" + std::to_string(std::get<2>(info.param));
    });

TEST(Threshold, LevelsAtTheEndsOfTheRange) {
  const GrayImage g = test_gray();
  for (PixelFormat format : {PixelFormat::Gray8, PixelFormat::Gray16LE, PixelFormat::BGRx}) {
    const Frame frame = make_frame(g, format, 3);
    BinaryImage b;
    Options o;
    o.threshold = 255;  // nothing is above 255
    threshold_image(frame.view, o, b);
    EXPECT_EQ(std::count(b.pixels.begin(), b.pixels.end(), 1), 0) << to_string(format);
    o.threshold = 0;
    o.mode = ThresholdMode::Below;  // only the zeros
    threshold_image(frame.view, o, b);
    EXPECT_EQ(std::count(b.pixels.begin(), b.pixels.end(), 1),
              std::count(g.pixels.begin(), g.pixels.end(), 0))
        << to_string(format);
    o.threshold = 255;  // everything
    threshold_image(frame.view, o, b);
    EXPECT_EQ(std::count(b.pixels.begin(), b.pixels.end(), 1), long(g.pixels.size()))
        << to_string(format);
  }
}

// 16-bit values that are not multiples of 257: the level is compared at 16-bit
// precision (t * 257), and Otsu's histogram uses the high byte.
TEST(Threshold, Gray16ComparesAtFullPrecision) {
  const int w = 4;
  std::vector<uint8_t> px;
  for (uint16_t v : {uint16_t(100 * 257), uint16_t(100 * 257 + 1), uint16_t(100 * 257 - 1),
                     uint16_t(65535)}) {
    px.push_back(uint8_t(v & 0xFF));
    px.push_back(uint8_t(v >> 8));
  }
  ImageView view;
  view.width = w;
  view.height = 1;
  view.format = PixelFormat::Gray16LE;
  view.planes[0] = px.data();
  view.strides[0] = px.size();
  Options o;
  o.threshold = 100;
  BinaryImage b;
  threshold_image(view, o, b);
  EXPECT_EQ(b.pixels, (std::vector<uint8_t>{0, 1, 0, 1}));
  const std::vector<uint32_t> hist = luma_histogram(view);
  EXPECT_EQ(hist[100], 3u);  // 0x6464, 0x6465 and 0x6463 share the high byte
  EXPECT_EQ(hist[99], 0u);
  EXPECT_EQ(hist[255], 1u);
}

// ---- Otsu -----------------------------------------------------------------------

// Textbook Otsu in doubles: maximize w0 * w1 * (mu0 - mu1)^2 over t (fg = v > t),
// scaled by N^2 so it is comparable with the integer score n0 * n1 * (mu0 - mu1)^2.
std::vector<double> double_scores(const std::vector<uint32_t>& hist) {
  double total = 0, sum = 0;
  for (int v = 0; v < 256; ++v) {
    total += hist[v];
    sum += double(v) * hist[v];
  }
  std::vector<double> scores(255, -1.0);
  double n0 = 0, s0 = 0;
  for (int t = 0; t < 255; ++t) {
    n0 += hist[t];
    s0 += double(t) * hist[t];
    const double n1 = total - n0;
    if (n0 == 0 || n1 == 0) continue;
    const double w0 = n0 / total, w1 = n1 / total;
    const double mu0 = s0 / n0, mu1 = (sum - s0) / n1;
    scores[t] = w0 * w1 * (mu0 - mu1) * (mu0 - mu1) * total * total;
  }
  return scores;
}

enum class HistKind { Dense, Sparse, Bimodal, Huge };

std::vector<uint32_t> random_histogram(HistKind kind, uint32_t seed) {
  std::mt19937 gen(seed);
  std::vector<uint32_t> h(256, 0);
  switch (kind) {
    case HistKind::Dense:
      for (auto& c : h) c = gen() % 1000;
      break;
    case HistKind::Sparse:
      for (int i = 0; i < 2 + int(gen() % 5); ++i) h[gen() % 256] += 1 + gen() % 50;
      break;
    case HistKind::Bimodal: {
      std::normal_distribution<double> a(40 + gen() % 60, 5 + gen() % 20);
      std::normal_distribution<double> b(140 + gen() % 80, 5 + gen() % 20);
      for (int i = 0; i < 200000; ++i) {
        const double v = (i % 3 ? a : b)(gen);
        ++h[size_t(std::clamp(v, 0.0, 255.0))];
      }
      break;
    }
    case HistKind::Huge:  // about 2^31 pixels, the largest image the engine takes
      for (auto& c : h) c = gen() % (1u << 24);
      break;
  }
  return h;
}

const char* kind_name(HistKind k) {
  switch (k) {
    case HistKind::Dense: return "dense";
    case HistKind::Sparse: return "sparse";
    case HistKind::Bimodal: return "bimodal";
    case HistKind::Huge: return "huge";
  }
  return "?";
}

using OtsuCase = std::tuple<HistKind, uint32_t>;

class OtsuRandom : public ::testing::TestWithParam<OtsuCase> {};

TEST_P(OtsuRandom, AgreesWithDoublePrecisionOtsu) {
  const auto [kind, seed] = GetParam();
  const std::vector<uint32_t> hist = random_histogram(kind, seed);
  const std::vector<double> s = double_scores(hist);
  const int best = int(std::max_element(s.begin(), s.end()) - s.begin());
  const int level = otsu_level(hist.data());
  ASSERT_GE(level, 0);
  ASSERT_LT(level, 255);
  if (level != best) {
    // The integer score is floor(exact score), so a different choice is only right where
    // the exact scores are within 1 (plus double rounding) of each other.
    EXPECT_GE(s[size_t(level)], s[size_t(best)] - 1.0 - 1e-9 * s[size_t(best)])
        << "otsu_level " << level << ", double Otsu " << best;
    EXPECT_LT(level, best) << "ties go to the smallest level";
  }
}

INSTANTIATE_TEST_SUITE_P(
    Histograms, OtsuRandom,
    ::testing::Combine(::testing::Values(HistKind::Dense, HistKind::Sparse, HistKind::Bimodal,
                                         HistKind::Huge),
                       ::testing::Range(1u, 11u)),
    [](const ::testing::TestParamInfo<OtsuCase>& info) {
      return std::string(kind_name(std::get<0>(info.param))) + "_seed" +
             std::to_string(std::get<1>(info.param));
    });

TEST(Otsu, DegenerateHistograms) {
  std::vector<uint32_t> h(256, 0);
  EXPECT_EQ(otsu_level(h.data()), 0) << "empty";
  h[77] = 1000;
  EXPECT_EQ(otsu_level(h.data()), 77) << "one value";
  h[200] = 10;
  EXPECT_EQ(otsu_level(h.data()), 77) << "two values: every t in [77, 199] ties, smallest wins";
  std::fill(h.begin(), h.end(), 0);
  h[0] = h[255] = 5;
  EXPECT_EQ(otsu_level(h.data()), 0);
  h[255] = 0;
  EXPECT_EQ(otsu_level(h.data()), 0) << "only zeros";
  std::fill(h.begin(), h.end(), 0);
  h[255] = 3;
  EXPECT_EQ(otsu_level(h.data()), 255) << "only 255: nothing is foreground";
  std::fill(h.begin(), h.end(), 7);
  EXPECT_EQ(otsu_level(h.data()), 127) << "uniform splits in the middle";
}

// ---- validation -----------------------------------------------------------------

struct BadInput {
  const char* name;
  int width, height;
  PixelFormat format;
  size_t stride;  // 0: exactly one row
  bool null_plane;
  int connectivity, threshold;
  const char* message;  // expected part of the error; nullptr: valid
};

class Validate : public ::testing::TestWithParam<BadInput> {};

TEST_P(Validate, RejectsBadInputWithAClearMessage) {
  const BadInput& c = GetParam();
  static uint8_t dummy[16];
  ImageView v;
  v.width = c.width;
  v.height = c.height;
  v.format = c.format;
  v.planes[0] = c.null_plane ? nullptr : dummy;
  v.strides[0] = c.stride ? c.stride : size_t(std::max(c.width, 0)) * luma_bytes_per_pixel(c.format);
  Options o;
  o.connectivity = c.connectivity;
  o.threshold = c.threshold;
  if (!c.message) {
    EXPECT_NO_THROW(validate(v, o));
    return;
  }
  try {
    validate(v, o);
    ADD_FAILURE() << "no error for " << c.name;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(c.message), std::string::npos) << e.what();
  }
  // the reference labeler refuses it too, before touching any pixel
  Result r;
  EXPECT_THROW(reference_label(v, o, r), Error);
}

const PixelFormat G8 = PixelFormat::Gray8;
INSTANTIATE_TEST_SUITE_P(
    Cases, Validate,
    ::testing::Values(
        BadInput{"zero_width", 0, 5, G8, 1, false, 8, 128, "empty"},
        BadInput{"zero_height", 5, 0, G8, 0, false, 8, 128, "empty"},
        BadInput{"negative_width", -3, 5, G8, 1, false, 8, 128, "empty"},
        BadInput{"two_to_the_31_pixels", 65536, 32768, G8, 0, false, 8, 128, "too large"},
        BadInput{"null_plane", 4, 4, G8, 0, true, 8, 128, "plane"},
        BadInput{"gray8_stride_short", 10, 2, G8, 9, false, 8, 128, "stride"},
        BadInput{"gray16_stride_short", 10, 2, PixelFormat::Gray16LE, 19, false, 8, 128, "stride"},
        BadInput{"nv12_stride_short", 10, 2, PixelFormat::NV12, 9, false, 8, 128, "stride"},
        BadInput{"rgba_stride_short", 10, 2, PixelFormat::RGBA, 39, false, 8, 128, "stride"},
        BadInput{"bgrx_stride_one_pixel_per_byte", 10, 2, PixelFormat::BGRx, 10, false, 8, 128,
                 "stride"},
        BadInput{"connectivity_6", 4, 4, G8, 0, false, 6, 128, "connectivity"},
        BadInput{"connectivity_0", 4, 4, G8, 0, false, 0, 128, "connectivity"},
        BadInput{"threshold_negative", 4, 4, G8, 0, false, 8, -1, "threshold"},
        BadInput{"threshold_256", 4, 4, G8, 0, false, 4, 256, "threshold"},
        BadInput{"valid_exact_stride", 4, 4, PixelFormat::RGBx, 0, false, 4, 0, nullptr},
        BadInput{"valid_largest", 65535, 32768, G8, 0, false, 8, 255, nullptr}),
    [](const ::testing::TestParamInfo<BadInput>& info) { return std::string(info.param.name); });

TEST(Validate, DeviceMemoryIsRefusedByTheCpuReference) {
  const Frame f = make_frame(test_gray(), PixelFormat::Gray8);
  ImageView v = f.view;
  v.space = MemorySpace::Device;
  BinaryImage b;
  EXPECT_THROW(threshold_image(v, Options{}, b), Error);
}

}  // namespace
}  // namespace ccl::test
