// The fast CPU labeler (ccl/cpu_labeler.h) against the sequential reference
// (label_binary): the label image and the whole component table, field for field, on
// YACCLAB random images of many sizes, densities and granularities, the awkward shapes
// and the real images, both connectivities and several thread counts (more stripes
// than the image has rows included). Then the frame entry points (label_frame_cpu)
// against reference_label with reporting options and a foreground stage.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "ccl/cpu_labeler.h"
#include "ccl/foreground.h"
#include "ccl/reference.h"
#include "test_images.h"

namespace ccl::test {
namespace {

BinaryImage binarize(const GrayImage& g, bool inverted) {
  BinaryImage b;
  b.width = g.width;
  b.height = g.height;
  b.pixels.resize(g.pixels.size());
  for (size_t i = 0; i < g.pixels.size(); ++i)
    b.pixels[i] = uint8_t((g.pixels[i] > 128) != inverted);
  return b;
}

std::string describe(const Component& c) {
  return "label " + std::to_string(c.label) + " box " + std::to_string(c.x) + "," +
         std::to_string(c.y) + " " + std::to_string(c.width) + "x" + std::to_string(c.height) +
         " area " + std::to_string(c.area) + " sums " + std::to_string(c.sum_x) + " " +
         std::to_string(c.sum_y) + " " + std::to_string(c.sum_xx) + " " +
         std::to_string(c.sum_xy) + " " + std::to_string(c.sum_yy);
}

// Checks label_binary_fast against label_binary; `out` may hold an earlier result (it
// is reused, as callers do). Returns false after the first difference.
::testing::AssertionResult same(const BinaryImage& b, int connectivity, int threads,
                                const Result& want, Result& out) {
  label_binary_fast(b, connectivity, out, threads);
  const std::string where = std::to_string(b.width) + "x" + std::to_string(b.height) + " c" +
                            std::to_string(connectivity) + " threads " + std::to_string(threads);
  if (out.width != want.width || out.height != want.height)
    return ::testing::AssertionFailure() << where << ": size " << out.width << "x" << out.height;
  if (out.num_components != want.num_components)
    return ::testing::AssertionFailure() << where << ": " << out.num_components
                                         << " components, the reference has "
                                         << want.num_components;
  if (out.labels.size() != want.labels.size())
    return ::testing::AssertionFailure() << where << ": " << out.labels.size() << " labels";
  for (size_t i = 0; i < want.labels.size(); ++i)
    if (out.labels[i] != want.labels[i])
      return ::testing::AssertionFailure()
             << where << ": label at (" << i % size_t(b.width) << ", " << i / size_t(b.width)
             << ") is " << out.labels[i] << ", the reference's " << want.labels[i];
  if (out.components.size() != want.components.size())
    return ::testing::AssertionFailure() << where << ": table of " << out.components.size();
  for (size_t i = 0; i < want.components.size(); ++i)
    if (!(out.components[i] == want.components[i]))
      return ::testing::AssertionFailure() << where << ": entry " << i << " is "
                                           << describe(out.components[i]) << ", the reference's "
                                           << describe(want.components[i]);
  return ::testing::AssertionSuccess();
}

void check_all_threads(const BinaryImage& b, const std::string& name) {
  for (int connectivity : {4, 8}) {
    Result want;
    label_binary(b, connectivity, want);
    Result out;  // reused across thread counts: entries and labels are overwritten
    // More threads than rows only on the smaller images: one thread per row of a large
    // image is slow to start on a small machine.
    const int many = b.height <= 256 ? b.height + 5 : 64;
    for (int threads : {1, 2, 3, 7, many, 0})
      ASSERT_TRUE(same(b, connectivity, threads, want, out)) << name;
  }
}

TEST(CpuLabeler, RandomSmall) {
  uint32_t seed = 1;
  for (int w : {1, 2, 3, 63, 64, 65, 127, 129}) {
    for (int h : {1, 2, 3, 5, 17, 64}) {
      for (int g : {1, 4, 16}) {
        for (int d10 = 1; d10 <= 9; ++d10) {
          const BinaryImage b = yacclab_random(w, h, d10 / 10.0, g, seed++);
          check_all_threads(b, "random " + std::to_string(w) + "x" + std::to_string(h) +
                                   " d" + std::to_string(d10) + " g" + std::to_string(g));
          if (HasFatalFailure()) return;
        }
      }
    }
  }
}

TEST(CpuLabeler, RandomLarge) {
  uint32_t seed = 1000;
  for (auto [w, h] : {std::pair{640, 480}, std::pair{1001, 333}, std::pair{200, 1500}}) {
    for (int g : {1, 4, 16}) {
      for (int d10 = 1; d10 <= 9; d10 += 2) {
        const BinaryImage b = yacclab_random(w, h, d10 / 10.0, g, seed++);
        check_all_threads(b, "random " + std::to_string(w) + "x" + std::to_string(h) + " d" +
                                 std::to_string(d10) + " g" + std::to_string(g));
        if (HasFatalFailure()) return;
      }
    }
  }
}

TEST(CpuLabeler, AllForegroundAndEmpty) {
  for (int w : {1, 2, 64, 65, 300}) {
    for (int h : {1, 2, 7, 100}) {
      for (uint8_t v : {uint8_t(0), uint8_t(1)}) {
        BinaryImage b;
        b.width = w;
        b.height = h;
        b.pixels.assign(size_t(w) * h, v);
        check_all_threads(b, "constant " + std::to_string(v));
        if (HasFatalFailure()) return;
      }
    }
  }
}

TEST(CpuLabeler, Awkward) {
  for (const GrayImage& g : awkward_images()) {
    for (bool inverted : {false, true}) {
      check_all_threads(binarize(g, inverted), g.name + (inverted ? " inverted" : ""));
      if (HasFatalFailure()) return;
    }
  }
}

TEST(CpuLabeler, Real) {
  std::string why;
  const std::vector<GrayImage> images = real_images(&why);
  if (images.empty()) {
    std::printf("real test images unavailable: %s\n", why.c_str());
    GTEST_SKIP() << "real test images unavailable: " << why;
  }
  for (const GrayImage& g : images) {
    for (bool inverted : {false, true}) {
      check_all_threads(binarize(g, inverted), g.name + (inverted ? " inverted" : ""));
      if (HasFatalFailure()) return;
    }
  }
}

// Runs of 2^21 pixels and more take the moments' other closed form.
TEST(CpuLabeler, LongRuns) {
  BinaryImage b;
  b.width = (1 << 21) + 70;
  b.height = 3;
  b.pixels.assign(size_t(b.width) * b.height, 1);
  b.pixels[5] = 0;                           // row 0: runs of 5 and width - 6
  b.pixels[size_t(b.width) + 1000] = 0;      // row 1: a run of exactly 2^21 + 69 - 1000
  for (int x = 0; x < b.width; x += 2) b.pixels[size_t(2) * b.width + x] = 0;  // row 2: dots
  check_all_threads(b, "long runs");
  b.pixels.assign(size_t(b.width) * b.height, 1);  // one run per row
  check_all_threads(b, "full rows");
}

TEST(CpuLabeler, ReusedResultOfAnotherSize) {
  // A Result that held a larger frame with more components, then a smaller one.
  Result out;
  const BinaryImage big = yacclab_random(300, 200, 0.5, 1, 5);
  const BinaryImage small = yacclab_random(70, 30, 0.3, 4, 6);
  for (int connectivity : {4, 8}) {
    Result want_big, want_small;
    label_binary(big, connectivity, want_big);
    label_binary(small, connectivity, want_small);
    ASSERT_TRUE(same(big, connectivity, 3, want_big, out));
    ASSERT_TRUE(same(small, connectivity, 2, want_small, out));
    ASSERT_TRUE(same(big, connectivity, 1, want_big, out));
  }
}

TEST(CpuLabeler, BadInput) {
  BinaryImage b;
  b.width = 4;
  b.height = 4;
  b.pixels.assign(15, 1);
  Result out;
  EXPECT_THROW(label_binary_fast(b, 8, out), Error);
  b.pixels.assign(16, 1);
  EXPECT_THROW(label_binary_fast(b, 6, out), Error);
  BinaryImage empty;
  label_binary_fast(empty, 8, out);
  EXPECT_EQ(out.num_components, 0u);
  EXPECT_TRUE(out.components.empty());
  EXPECT_TRUE(out.labels.empty());
}

void expect_same_result(const Result& got, const Result& want, const std::string& what) {
  EXPECT_EQ(got.threshold_used, want.threshold_used) << what;
  EXPECT_EQ(got.num_components, want.num_components) << what;
  EXPECT_EQ(got.labels, want.labels) << what;
  EXPECT_EQ(got.group_of, want.group_of) << what;
  ASSERT_EQ(got.components.size(), want.components.size()) << what;
  for (size_t i = 0; i < want.components.size(); ++i)
    EXPECT_TRUE(got.components[i] == want.components[i]) << what << " entry " << i;
  ASSERT_EQ(got.blobs.size(), want.blobs.size()) << what;
  for (size_t i = 0; i < want.blobs.size(); ++i)
    EXPECT_TRUE(got.blobs[i] == want.blobs[i]) << what << " blob " << i;
}

TEST(CpuLabeler, FrameEntryPoints) {
  const GrayImage g = to_gray(yacclab_random(257, 131, 0.45, 2, 9), "noise");
  for (PixelFormat format : {PixelFormat::Gray8, PixelFormat::NV12, PixelFormat::RGBA}) {
    const Frame frame = make_frame(g, format, 3);
    for (int variant = 0; variant < 4; ++variant) {
      Options options;
      options.connectivity = variant % 2 ? 4 : 8;
      if (variant == 1) options.mode = ThresholdMode::Otsu;
      if (variant == 2) {
        options.min_area = 3;
        options.max_components = 20;
        options.properties = kAllProperties;
      }
      if (variant == 3) {
        options.group_gap = 2;
        options.write_labels = false;
      }
      const std::string what = std::string(to_string(format)) + " variant " +
                               std::to_string(variant);
      Result want, got;
      reference_label(frame.view, options, want);
      label_frame_cpu(frame.view, options, got, 3);
      expect_same_result(got, want, what);

      ForegroundStage stage_a, stage_b;
      options.open_radius = variant;
      Result want_stage, got_stage;
      BinaryImage mask_a, mask_b;
      reference_label(frame.view, options, stage_a, want_stage, &mask_a);
      label_frame_cpu(frame.view, options, stage_b, got_stage, &mask_b, 2);
      EXPECT_EQ(mask_a.pixels, mask_b.pixels) << what;
      expect_same_result(got_stage, want_stage, what + " with a stage");
    }
  }
}

// The threshold fused into the labeling (8-bit luma planes): every level's edge, both
// modes and Otsu, padded rows, against reference_label; and the formats that go
// through threshold_image.
TEST(CpuLabeler, FusedThreshold) {
  uint32_t seed = 77;
  for (int w : {1, 2, 63, 64, 65, 200}) {
    for (int h : {1, 3, 40}) {
      GrayImage g;
      g.name = "levels";
      g.width = w;
      g.height = h;
      g.pixels.resize(size_t(w) * h);
      for (uint8_t& v : g.pixels) {
        seed = seed * 1664525u + 1013904223u;
        const uint32_t r = seed >> 24;
        // Mostly the edges of the levels tried, some anything.
        v = uint8_t(r < 64 ? 0 : r < 96 ? 1 : r < 128 ? 127 : r < 160 ? 128 : r < 192 ? 254
                    : r < 224 ? 255 : (seed >> 8) & 0xFF);
      }
      for (PixelFormat format : {PixelFormat::Gray8, PixelFormat::NV12, PixelFormat::I420,
                                 PixelFormat::Gray16LE, PixelFormat::BGRx}) {
        const Frame frame = make_frame(g, format, 5);
        for (ThresholdMode mode :
             {ThresholdMode::Above, ThresholdMode::Below, ThresholdMode::Otsu}) {
          for (int level : {0, 1, 127, 128, 254, 255}) {
            if (mode == ThresholdMode::Otsu && level != 128) continue;
            for (int connectivity : {4, 8}) {
              Options options;
              options.mode = mode;
              options.threshold = level;
              options.connectivity = connectivity;
              const std::string what = std::to_string(w) + "x" + std::to_string(h) + " " +
                                       to_string(format) + " " + to_string(mode) + " " +
                                       std::to_string(level) + " c" +
                                       std::to_string(connectivity);
              Result want, got, got_stage;
              reference_label(frame.view, options, want);
              label_frame_cpu(frame.view, options, got, 2);
              expect_same_result(got, want, what);
              ForegroundStage stage;
              label_frame_cpu(frame.view, options, stage, got_stage, nullptr, 3);
              expect_same_result(got_stage, want, what + " with a stage");
              if (HasFailure()) return;
            }
          }
        }
      }
    }
  }
}

TEST(CpuLabeler, FusedThresholdChecksInput) {
  const GrayImage g = to_gray(yacclab_random(16, 16, 0.5, 1, 3), "x");
  Frame frame = make_frame(g, PixelFormat::Gray8);
  Options options;
  Result out;
  frame.view.space = MemorySpace::Device;
  EXPECT_THROW(label_frame_cpu(frame.view, options, out), Error);
  frame.view.space = MemorySpace::Host;
  options.connectivity = 6;
  EXPECT_THROW(label_frame_cpu(frame.view, options, out), Error);
  options.connectivity = 8;
  frame.view.strides[0] = 3;  // shorter than a row
  EXPECT_THROW(label_frame_cpu(frame.view, options, out), Error);
}

}  // namespace
}  // namespace ccl::test
