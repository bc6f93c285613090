// The element's GstCclMeta equals the reference labeler on every format, padded
// strides, odd sizes, each threshold mode and connectivity, real images, and across
// resolution changes (real images: real_images_test.cpp).
#include <gtest/gtest.h>

#include <string>
#include <tuple>

#include "element_util.h"

namespace ccl::element_test {
namespace {

using test::Frame;
using test::GrayImage;
using test::make_frame;

std::string name_of(PixelFormat f) { return to_string(f); }

// Images that cover degenerate sizes, widths around warp boundaries and random content.
std::vector<GrayImage> broad_images() {
  std::vector<GrayImage> images;
  for (const GrayImage& g : test::awkward_images())
    if (g.name.rfind("w1001", 0) != 0) images.push_back(g);  // keep the suite quick
  images.push_back(random_gray(67, 45, 0.5, 1, 7));
  images.push_back(random_gray(128, 96, 0.6, 4, 8));
  return images;
}

class Formats : public ::testing::TestWithParam<std::tuple<PixelFormat, size_t>> {};

TEST_P(Formats, MetaEqualsReferenceOnAwkwardAndRandomImages) {
  SKIP_UNLESS_BACKEND_RUNS();
  const auto [format, extra] = GetParam();
  for (int connectivity : {4, 8}) {
    Harness h("connectivity=" + std::to_string(connectivity));
    // One harness for all images: every size change is a caps change mid-stream.
    for (const GrayImage& g : broad_images()) {
      const Frame frame = make_frame(g, format, extra);
      h.set_caps(format, g.width, g.height);
      GstBuffer* out = h.process(buffer_from_frame(frame));
      expect_meta_matches_reference(out, frame, reference_options(128, ThresholdMode::Above,
                                                                  connectivity),
                                    g.name + " " + name_of(format) + " stride+" +
                                        std::to_string(extra) + " c" +
                                        std::to_string(connectivity));
      if (out) gst_buffer_unref(out);
      if (HasFailure()) return;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    AllFormats, Formats,
    ::testing::Combine(::testing::ValuesIn(test::all_formats()), ::testing::Values(0, 13)),
    [](const auto& info) {
      return name_of(std::get<0>(info.param)) + "_stride_plus_" +
             std::to_string(std::get<1>(info.param));
    });

// A gray image with a spread of values, so that every mode and level matters.
GrayImage ramp_with_noise(int w, int h) {
  GrayImage g{"ramp", w, h, std::vector<uint8_t>(size_t(w) * h)};
  uint32_t s = 12345;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      s = s * 1664525u + 1013904223u;
      const int v = (x * 255) / (w - 1) / 2 + int((s >> 24) % 128);
      g.pixels[size_t(y) * w + x] = uint8_t(std::min(v, 255));
    }
  return g;
}

struct ModeCase {
  const char* mode;
  ThresholdMode ref_mode;
  int threshold;
};

class ThresholdModes : public ::testing::TestWithParam<ModeCase> {};

TEST_P(ThresholdModes, FollowTheReferenceOnEveryFormat) {
  SKIP_UNLESS_BACKEND_RUNS();
  const ModeCase c = GetParam();
  const GrayImage g = ramp_with_noise(83, 61);
  for (PixelFormat f : test::all_formats()) {
    Harness h(std::string("threshold-mode=") + c.mode + " threshold=" + std::to_string(c.threshold));
    const Frame frame = make_frame(g, f, 5);
    h.set_caps(f, g.width, g.height);
    GstBuffer* out = h.process(buffer_from_frame(frame));
    expect_meta_matches_reference(out, frame, reference_options(c.threshold, c.ref_mode),
                                  std::string(c.mode) + " " + name_of(f));
    if (out) gst_buffer_unref(out);
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, ThresholdModes,
                         ::testing::Values(ModeCase{"above", ThresholdMode::Above, 100},
                                           ModeCase{"above", ThresholdMode::Above, 0},
                                           ModeCase{"above", ThresholdMode::Above, 255},
                                           ModeCase{"below", ThresholdMode::Below, 60},
                                           ModeCase{"below", ThresholdMode::Below, 255},
                                           ModeCase{"otsu", ThresholdMode::Otsu, 128}),
                         [](const auto& info) {
                           return std::string(info.param.mode) + "_" +
                                  std::to_string(info.param.threshold);
                         });

TEST(Threshold, OtsuLevelIsReportedInTheMeta) {
  SKIP_UNLESS_BACKEND_RUNS();
  // Two populations, 40 and 200: Otsu's level lies between them.
  GrayImage g{"bimodal", 50, 40, std::vector<uint8_t>(2000, 40)};
  for (int y = 10; y < 30; ++y)
    for (int x = 5; x < 20; ++x) g.pixels[size_t(y) * 50 + x] = 200;
  Harness h("threshold-mode=otsu");
  const Frame frame = make_frame(g, PixelFormat::Gray8);
  h.set_caps(PixelFormat::Gray8, g.width, g.height);
  GstBuffer* out = h.process(buffer_from_frame(frame));
  ASSERT_NE(out, nullptr);
  const GstCclMeta* meta = gst_ccl_meta_get(out);
  ASSERT_NE(meta, nullptr);
  EXPECT_GE(meta->threshold, 40u);
  EXPECT_LT(meta->threshold, 200u);
  EXPECT_EQ(meta->total_count, 1u);
  expect_meta_matches_reference(out, frame, reference_options(128, ThresholdMode::Otsu),
                                "otsu bimodal");
  gst_buffer_unref(out);
}

TEST(Sizes, OddSizesInEveryFormat) {
  SKIP_UNLESS_BACKEND_RUNS();
  const int sizes[][2] = {{1, 1}, {2, 1}, {1, 2}, {33, 17}, {17, 33}, {1, 57}, {64, 1},
                          {127, 3}, {3, 127}, {31, 31}, {65, 9}};
  uint32_t seed = 100;
  for (PixelFormat f : test::all_formats()) {
    Harness h;
    for (const auto& s : sizes) {
      const GrayImage g = random_gray(s[0], s[1], 0.5, 1, seed++);
      const Frame frame = make_frame(g, f, 3);
      h.set_caps(f, g.width, g.height);
      GstBuffer* out = h.process(buffer_from_frame(frame));
      expect_meta_matches_reference(out, frame, reference_options(), g.name + " " + name_of(f));
      if (out) gst_buffer_unref(out);
    }
  }
}

// Every value of GstCclAlgorithm (the engine's registry): a new algorithm is tested
// here as soon as it is registered.
TEST(Algorithm, EveryAlgorithmGivesTheSameMetaExceptTheAlgorithmField) {
  SKIP_UNLESS_BACKEND_RUNS();
  const GrayImage g = random_gray(150, 70, 0.55, 1, 3);
  auto* algorithms = static_cast<GEnumClass*>(g_type_class_ref(GST_TYPE_CCL_ALGORITHM));
  for (guint i = 0; i < algorithms->n_values; ++i) {
    const GEnumValue& algo = algorithms->values[i];
    for (int c : {4, 8}) {
      Harness h(std::string("algorithm=") + algo.value_nick + " connectivity=" +
                std::to_string(c));
      const Frame frame = make_frame(g, PixelFormat::NV12);
      h.set_caps(PixelFormat::NV12, g.width, g.height);
      GstBuffer* out = h.process(buffer_from_frame(frame));
      expect_meta_matches_reference(out, frame, reference_options(128, ThresholdMode::Above, c),
                                    std::string(algo.value_nick) + " c" + std::to_string(c));
      if (!out) continue;  // reported above; the other algorithms still run
      EXPECT_EQ(int(gst_ccl_meta_get(out)->algorithm), algo.value) << algo.value_nick;
      gst_buffer_unref(out);
    }
  }
  g_type_class_unref(algorithms);
}

TEST(Meta, GpuTimeIsSetOnlyByTheCudaBackend) {
  SKIP_UNLESS_BACKEND_RUNS();
  const GrayImage g = random_gray(40, 30, 0.5, 2, 5);
  Harness h;
  const Frame frame = make_frame(g, PixelFormat::Gray8);
  h.set_caps(PixelFormat::Gray8, g.width, g.height);
  GstBuffer* out = h.process(buffer_from_frame(frame));
  ASSERT_NE(out, nullptr);
  const GstCclMeta* meta = gst_ccl_meta_get(out);
  ASSERT_NE(meta, nullptr);
  if (backend_under_test() == "cuda")
    EXPECT_TRUE(GST_CLOCK_TIME_IS_VALID(meta->gpu_time));
  else
    EXPECT_EQ(meta->gpu_time, GST_CLOCK_TIME_NONE);
  gst_buffer_unref(out);
}

TEST(Caps, ResolutionChangeMidStreamReallocatesAndStaysExact) {
  SKIP_UNLESS_BACKEND_RUNS();
  Harness h("overlay=fill+boxes+centroids");
  const int sizes[][2] = {{64, 48}, {320, 200}, {17, 5}, {320, 200}, {640, 360}, {64, 48}};
  uint32_t seed = 40;
  for (PixelFormat f : {PixelFormat::I420, PixelFormat::BGRx}) {
    for (const auto& s : sizes) {
      const GrayImage g = random_gray(s[0], s[1], 0.4, 2, seed++);
      const Frame frame = make_frame(g, f);
      h.set_caps(f, g.width, g.height);
      for (int i = 0; i < 2; ++i) {
        GstBuffer* out = h.process(buffer_from_frame(frame));
        expect_meta_matches_reference(out, frame, reference_options(),
                                      g.name + " " + name_of(f) + " frame " + std::to_string(i));
        if (out) gst_buffer_unref(out);
      }
    }
  }
}

}  // namespace
}  // namespace ccl::element_test
