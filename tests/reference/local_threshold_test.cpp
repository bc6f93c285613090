// The local threshold (ForegroundModel::Local) of the CPU stage against OpenCV: masks
// equal to cv::adaptiveThreshold (ADAPTIVE_THRESH_MEAN_C; THRESH_BINARY, or
// THRESH_BINARY_INV for ThresholdMode::Below) on the frame's luma, and after the
// cleanup (cv::morphologyEx), the region and cv::connectedComponentsWithStats, the
// same label image and component table. The semantics are in
// kernels/src/local_threshold.h; the CPU stage is what the GPU is compared with.
//
//   - the window mean's rounding, against OpenCV on windows built to hold chosen sums:
//     every sum whose single-precision rounding differs from the nearest (found by
//     enumerating every sum of every block size), sums next to a tie, the extremes;
//   - every odd block size 3..255 on small images, fractional and negative offsets,
//     above and below;
//   - real images (Debian packages), a spread of block sizes, with cleanup;
//   - fuzzed frames (tests/common/fuzz_frames.h) and uneven-light pages in every
//     format, odd sizes, padded strides, cleanup, area limits, a region;
//   - GRAY16_LE's high byte, refused settings, the background model's restart;
//   - gpu_fuzz's foreground cases with a local threshold (tests/gpu/foreground_fuzz.h):
//     their lines read back, their first frames match OpenCV.
#include <gtest/gtest.h>

#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "../gpu/foreground_fuzz.h"
#include "ccl/foreground.h"
#include "ccl/luma.h"
#include "ccl/reference.h"
#include "fuzz_frames.h"
#include "local_threshold_images.h"
#include "test_images.h"

namespace ccl::test {
namespace {

cv::Mat as_mat(const GrayImage& g) {
  return cv::Mat(g.height, g.width, CV_8UC1, const_cast<uint8_t*>(g.pixels.data()));
}

std::string describe(const Options& o) {
  std::ostringstream s;
  s << "block " << o.local.block_size << " offset " << o.local.offset << " "
    << to_string(o.mode) << " conn " << o.connectivity;
  if (o.open_radius || o.close_radius) s << " open " << o.open_radius << " close " << o.close_radius;
  if (o.min_area || o.max_area) s << " area " << o.min_area << ".." << o.max_area;
  return s.str();
}

// ---- OpenCV's side ------------------------------------------------------------------

/// cv::adaptiveThreshold of the luma as 0/1.
BinaryImage cv_local(const GrayImage& luma, const Options& o) {
  cv::Mat dst;
  cv::adaptiveThreshold(as_mat(luma), dst, 255, cv::ADAPTIVE_THRESH_MEAN_C,
                        o.mode == ThresholdMode::Below ? cv::THRESH_BINARY_INV : cv::THRESH_BINARY,
                        o.local.block_size, o.local.offset);
  BinaryImage b;
  b.width = luma.width;
  b.height = luma.height;
  b.pixels.resize(size_t(luma.width) * size_t(luma.height));
  for (int y = 0; y < luma.height; ++y) {
    const uint8_t* row = dst.ptr<uint8_t>(y);
    for (int x = 0; x < luma.width; ++x) b.pixels[size_t(y) * luma.width + x] = row[x] ? 1 : 0;
  }
  return b;
}

/// The whole mask as OpenCV gives it: the threshold, an opening and a closing with
/// squares (cv::morphologyEx's default border, as ccl::clean_mask), then the region.
BinaryImage cv_mask(const GrayImage& luma, const Options& o, const std::vector<uint8_t>* region) {
  BinaryImage b = cv_local(luma, o);
  cv::Mat m(b.height, b.width, CV_8UC1, b.pixels.data());
  auto square = [](int r) { return cv::getStructuringElement(cv::MORPH_RECT, cv::Size(2 * r + 1, 2 * r + 1)); };
  if (o.open_radius > 0) cv::morphologyEx(m.clone(), m, cv::MORPH_OPEN, square(o.open_radius));
  if (o.close_radius > 0) cv::morphologyEx(m.clone(), m, cv::MORPH_CLOSE, square(o.close_radius));
  if (region)
    for (size_t i = 0; i < b.pixels.size(); ++i)
      if (!(*region)[i]) b.pixels[i] = 0;
  return b;
}

::testing::AssertionResult same_mask(const BinaryImage& got, const BinaryImage& want) {
  if (got.width != want.width || got.height != want.height || got.pixels.size() != want.pixels.size())
    return ::testing::AssertionFailure() << "mask of " << got.width << "x" << got.height
                                         << ", expected " << want.width << "x" << want.height;
  size_t count = 0, first = 0;
  for (size_t i = 0; i < got.pixels.size(); ++i)
    if (got.pixels[i] != want.pixels[i] && count++ == 0) first = i;
  if (!count) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << count << " pixels differ from OpenCV's, first ("
                                       << first % size_t(want.width) << ", " << first / size_t(want.width)
                                       << "): " << int(got.pixels[first]) << " instead of "
                                       << int(want.pixels[first]);
}

/// The engine's result against cv::connectedComponentsWithStats (CCL_WU, the
/// engine's numbering) of `mask`: count, label image, and the reported table (areas
/// within the limits, label order) with boxes, areas and moments from OpenCV's labels.
::testing::AssertionResult same_components(const Result& got, const BinaryImage& mask, const Options& o) {
  cv::Mat labels, stats, centroids;
  const cv::Mat m(mask.height, mask.width, CV_8UC1, const_cast<uint8_t*>(mask.pixels.data()));
  const int n = cv::connectedComponentsWithStats(m, labels, stats, centroids, o.connectivity, CV_32S,
                                                 cv::CCL_WU) - 1;
  if (got.num_components != uint32_t(n))
    return ::testing::AssertionFailure() << got.num_components << " components, OpenCV " << n;
  if (o.write_labels) {
    if (got.labels.size() != mask.pixels.size())
      return ::testing::AssertionFailure() << got.labels.size() << " labels";
    for (int y = 0; y < mask.height; ++y)
      for (int x = 0; x < mask.width; ++x)
        if (got.labels[size_t(y) * mask.width + x] != uint32_t(labels.at<int32_t>(y, x)))
          return ::testing::AssertionFailure() << "label at (" << x << ", " << y << ") is "
                                               << got.labels[size_t(y) * mask.width + x] << ", OpenCV "
                                               << labels.at<int32_t>(y, x);
  }
  std::vector<Component> all(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    Component& c = all[size_t(i)];
    c.label = uint32_t(i + 1);
    c.x = stats.at<int>(i + 1, cv::CC_STAT_LEFT);
    c.y = stats.at<int>(i + 1, cv::CC_STAT_TOP);
    c.width = stats.at<int>(i + 1, cv::CC_STAT_WIDTH);
    c.height = stats.at<int>(i + 1, cv::CC_STAT_HEIGHT);
  }
  for (int y = 0; y < mask.height; ++y)
    for (int x = 0; x < mask.width; ++x) {
      const int l = labels.at<int32_t>(y, x);
      if (!l) continue;
      Component& c = all[size_t(l - 1)];
      const uint64_t ux = uint64_t(x), uy = uint64_t(y);
      c.area += 1;
      c.sum_x += ux;
      c.sum_y += uy;
      c.sum_xx += ux * ux;
      c.sum_xy += ux * uy;
      c.sum_yy += uy * uy;
    }
  std::vector<Component> reported;
  for (const Component& c : all)
    if (c.area >= o.min_area && (o.max_area == 0 || c.area <= o.max_area)) reported.push_back(c);
  if (got.components.size() != reported.size())
    return ::testing::AssertionFailure() << got.components.size() << " reported components, "
                                         << reported.size() << " from OpenCV's table";
  for (size_t i = 0; i < reported.size(); ++i)
    if (!(got.components[i] == reported[i]))
      return ::testing::AssertionFailure() << "reported component " << i << " (label "
                                           << got.components[i].label << ", area " << got.components[i].area
                                           << ") differs from OpenCV's (label " << reported[i].label
                                           << ", area " << reported[i].area << ")";
  return ::testing::AssertionSuccess();
}

/// The CPU stage on `view` (whose luma is `luma`) against OpenCV: the mask, then the
/// labels and the table. `region`: width*height bytes, or null.
::testing::AssertionResult matches_opencv(const ImageView& view, const GrayImage& luma, const Options& o,
                                          const std::vector<uint8_t>* region = nullptr) {
  ForegroundStage stage;
  if (region) stage.set_region(region->data(), view.width, view.height);
  Result got;
  BinaryImage mask;
  reference_label(view, o, stage, got, &mask);
  const BinaryImage want = cv_mask(luma, o, region);
  ::testing::AssertionResult r = same_mask(mask, want);
  if (r) r = same_components(got, want, o);
  if (!r) r << " [" << to_string(view.format) << " " << view.width << "x" << view.height << " stride "
            << view.strides[0] << ", " << describe(o) << "]";
  return r;
}

/// The mask alone, for the many small cases.
::testing::AssertionResult mask_matches_opencv(const GrayImage& luma, const Options& o) {
  BinaryImage mask;
  mask.width = luma.width;
  mask.height = luma.height;
  mask.pixels.resize(luma.pixels.size());
  local::mask_host(ImageView::gray8(luma.pixels.data(), luma.width, luma.height), o, mask.pixels.data());
  ::testing::AssertionResult r = same_mask(mask, cv_local(luma, o));
  if (!r) r << " [" << luma.name << " " << luma.width << "x" << luma.height << ", " << describe(o) << "]";
  return r;
}

// ---- The window mean's rounding ---------------------------------------------------

TEST(LocalRounding, EverySumOfEveryBlockSizeFollowsTheColumnsRule) {
  // window_mean against its definition on every sum; the sums where the two roundings
  // differ exist only from block size 165 on.
  for (int b = 3; b <= 255; b += 2) {
    const uint32_t n = uint32_t(b) * uint32_t(b);
    const local::Params p = local::params(LocalOptions{b, 0}, ThresholdMode::Above, 13);
    const int vector_x = 0, tail_x = 12;  // 13 columns: 8 vector, 5 tail
    const float inverse = float(1.0 / double(n));
    size_t differ = 0;
    for (uint32_t s = 0; s <= 255 * n; ++s) {
      const uint32_t exact = (2 * s + n) / (2 * n);
      const uint32_t single = uint32_t(std::nearbyint(float(s) * inverse));
      if (single != exact) {
        ++differ;
        const int64_t from_tie = int64_t(2 * s) - int64_t(2 * ((2 * s) / (2 * n)) + 1) * n;
        ASSERT_LE(std::abs(from_tie), 16) << "block " << b << " sum " << s << " is far from a tie";
      }
      ASSERT_EQ(local::window_mean(s, tail_x, p), exact) << "block " << b << " sum " << s;
      ASSERT_EQ(local::window_mean(s, vector_x, p), n > 256 ? single : exact) << "block " << b << " sum " << s;
    }
    if (b <= 163) {
      EXPECT_EQ(differ, 0u) << "block " << b;
    } else if (b == 255) {
      EXPECT_GT(differ, 0u) << "block 255 has sums whose roundings differ";
    }
  }
}

TEST(LocalRounding, OpenCvAgreesOnWindowsHoldingChosenSums) {
  // For each block size: the sums whose roundings differ, the sums next to each tie
  // (k + 1/2) of a few k, 0 and the largest, a few at random. Each sum is probed with
  // the centre at the lower of the two means and one above it, offset 0: the mask
  // there tells which mean OpenCV took, in a vector column and in a tail column.
  LocalRng rng(7);
  size_t probes_run = 0, singles = 0;
  for (int b = 3; b <= 255; b += 2) {
    if (b >= 165) singles += single_precision_sums(b).size();
    const std::vector<Probe> probes = rounding_probes(b, 4, rng);
    for (bool tail : {false, true}) {
      std::vector<Probe> placed;
      const GrayImage g = tail ? tail_probes(b, probes, &placed) : vector_probes(b, probes, &placed);
      ASSERT_GE(placed.size() + 8, probes.size()) << "block " << b << ": too few probes fit";
      const int r = b / 2;
      for (size_t k = 0; k < placed.size(); ++k) {
        const int x = tail ? g.width - 1 : int(k) * b + r, y = tail ? int(k) * b + r : r;
        ASSERT_EQ(window_sum(g, x, y, r), placed[k].sum) << "probe construction, block " << b;
        if (tail) {
          ASSERT_GE(x, g.width - g.width % 8);
        } else {
          ASSERT_LT(x, g.width - g.width % 8);
        }
      }
      ASSERT_TRUE(mask_matches_opencv(g, local_options(b, 0))) << (tail ? "tail" : "vector") << " probes";
      probes_run += placed.size();
    }
  }
  std::printf("probed %zu windows; %zu sums whose single-precision mean differs\n", probes_run, singles);
}

// ---- Masks and components ----------------------------------------------------------

const double kOffsets[] = {10, 0.5, -2.5, 7.3, 0, -7.3, 255, -255};

TEST(LocalMask, EveryBlockSizeOnSmallImages) {
  // Narrower and wider than the windows; 203 columns leave a tail of 3.
  const GrayImage images[] = {uneven_page(61, 43, 1), uneven_page(203, 37, 2), uneven_page(9, 300, 3)};
  for (const GrayImage& g : images)
    for (int b = 3; b <= 255; b += 2)
      for (ThresholdMode mode : {ThresholdMode::Above, ThresholdMode::Below})
        for (double offset : kOffsets) ASSERT_TRUE(mask_matches_opencv(g, local_options(b, offset, mode)));
}

TEST(LocalMask, TinyFrames) {
  for (int w = 1; w <= 9; ++w)
    for (int h = 1; h <= 9; ++h) {
      const GrayImage g = uneven_page(w, h, uint64_t(w * 16 + h));
      for (int b : {3, 5, 7, 17, 255})
        for (ThresholdMode mode : {ThresholdMode::Above, ThresholdMode::Below})
          ASSERT_TRUE(matches_opencv(make_frame(g, PixelFormat::Gray8).view, g, local_options(b, 2.5, mode)));
    }
}

TEST(LocalMask, RealImages) {
  std::string why;
  const std::vector<GrayImage> images = real_images(&why);
  if (images.empty()) GTEST_SKIP() << "real test images unavailable: " << why;
  // Five block sizes per image, in turn: every one on several images.
  const int blocks[] = {3, 7, 15, 17, 31, 63, 101, 165, 201, 255};
  size_t i = 0, n = 0;
  for (const GrayImage& g : images) {
    const Frame frame = make_frame(g, PixelFormat::Gray8);
    for (int k = 0; k < 5; ++k) {
      const int b = blocks[(n++ * 3) % 10];
      ++i;
      Options o = local_options(b, kOffsets[i % 6], i % 2 ? ThresholdMode::Above : ThresholdMode::Below);
      o.connectivity = i % 3 ? 8 : 4;
      if (i % 4 == 1) o.open_radius = 1;
      if (i % 5 == 2) o.close_radius = 2;
      if (i % 7 == 3) o.min_area = 5, o.max_area = 5000;
      EXPECT_TRUE(matches_opencv(frame.view, g, o)) << g.name;
    }
  }
}

TEST(LocalMask, EveryFormatWithPaddedStrides) {
  const GrayImage g = uneven_page(157, 93, 11);
  size_t i = 0;
  for (PixelFormat format : all_formats())
    for (size_t padding : {size_t(0), size_t(3), size_t(17)})
      for (int b : {3, 11, 31, 101}) {
        ++i;
        Options o = local_options(b, kOffsets[i % 8], i % 2 ? ThresholdMode::Below : ThresholdMode::Above);
        o.connectivity = i % 2 ? 4 : 8;
        EXPECT_TRUE(matches_opencv(make_frame(g, format, padding).view, g, o));
      }
}

TEST(LocalMask, FuzzedFramesInEveryFormat) {
  // Fuzzed frames (odd sizes, padding, every format) and pages, random settings.
  FuzzLimits limits;
  limits.max_side = 700;
  limits.max_pixels = 250000;
  limits.tracking = false;
  LocalRng rng(2026);
  for (uint64_t seed = 1; seed <= 240; ++seed) {
    const FuzzCase c = random_fuzz_case(seed, limits);
    Options o = fuzz_options(c);
    o.foreground = ForegroundModel::Local;
    o.mode = rng.range(0, 1) ? ThresholdMode::Above : ThresholdMode::Below;
    o.local.block_size = rng.range(0, 3) ? 2 * rng.range(1, 40) + 1 : 2 * rng.range(1, 127) + 1;
    o.local.offset = rng.range(0, 2) ? rng.range(-300, 300) / 10.0 : double(rng.range(-255, 255));
    o.open_radius = rng.range(0, 3) ? 0 : rng.range(1, 3);
    o.close_radius = rng.range(0, 3) ? 0 : rng.range(1, 3);
    if (!rng.range(0, 3)) o.min_area = uint64_t(rng.range(0, 20));
    if (!rng.range(0, 4)) o.max_area = uint64_t(rng.range(1, 2000));
    o.write_labels = rng.range(0, 5) != 0;
    const bool page = seed % 3 == 0;
    const GrayImage g = page ? uneven_page(c.width, c.height, seed) : fuzz_gray(c, 0);
    const Frame frame = page ? make_frame(g, c.format, size_t(c.padding)) : fuzz_frame(c, 0);
    ASSERT_TRUE(matches_opencv(frame.view, g, o)) << to_line(c);
  }
}

TEST(LocalMask, RegionAndAreaLimits) {
  const GrayImage g = uneven_page(211, 131, 5);
  std::vector<uint8_t> region(g.pixels.size());
  for (int y = 0; y < g.height; ++y)
    for (int x = 0; x < g.width; ++x) region[size_t(y) * g.width + x] = (x / 37 + y / 23) % 3 != 0;
  for (PixelFormat format : {PixelFormat::Gray8, PixelFormat::NV12, PixelFormat::BGRx}) {
    Options o = local_options(25, 4.5);
    o.open_radius = 1;
    o.close_radius = 1;
    o.min_area = 3;
    o.max_area = 400;
    EXPECT_TRUE(matches_opencv(make_frame(g, format, 5).view, g, o, &region));
    o = local_options(71, -1.5, ThresholdMode::Below);
    EXPECT_TRUE(matches_opencv(make_frame(g, format).view, g, o, &region));
  }
}

TEST(LocalMask, Gray16UsesTheHighByte) {
  // Low bytes at random: only the high byte may decide.
  LocalRng rng(16);
  const GrayImage g = uneven_page(173, 67, 16);
  std::vector<uint8_t> plane(size_t(g.width) * 2 * g.height);
  for (size_t i = 0; i < g.pixels.size(); ++i) {
    plane[2 * i] = uint8_t(rng.range(0, 255));
    plane[2 * i + 1] = g.pixels[i];
  }
  ImageView v;
  v.width = g.width;
  v.height = g.height;
  v.format = PixelFormat::Gray16LE;
  v.planes[0] = plane.data();
  v.strides[0] = size_t(g.width) * 2;
  for (int b : {3, 31, 255})
    for (ThresholdMode mode : {ThresholdMode::Above, ThresholdMode::Below})
      EXPECT_TRUE(matches_opencv(v, g, local_options(b, 3.7, mode)));
}

TEST(LocalStage, RefusesWhatValidateRefuses) {
  const GrayImage g = uneven_page(40, 30, 1);
  const Frame frame = make_frame(g, PixelFormat::Gray8);
  ForegroundStage stage;
  BinaryImage mask;
  for (int b : {-1, 0, 1, 2, 4, 30, 256, 257})
    EXPECT_THROW(stage.apply(frame.view, local_options(b, 0), mask), Error) << "block " << b;
  for (double offset : {255.5, -256.0, double(NAN)})
    EXPECT_THROW(stage.apply(frame.view, local_options(31, offset), mask), Error) << "offset " << offset;
  EXPECT_THROW(stage.apply(frame.view, local_options(31, 0, ThresholdMode::Otsu), mask), Error);
  EXPECT_NO_THROW(stage.apply(frame.view, local_options(3, -255), mask));
  EXPECT_NO_THROW(stage.apply(frame.view, local_options(255, 255), mask));
}

TEST(LocalStage, ALocalFrameRestartsTheBackgroundModel) {
  const GrayImage g = uneven_page(40, 30, 1);
  const Frame frame = make_frame(g, PixelFormat::Gray8);
  ForegroundStage stage;
  BinaryImage mask;
  Options model;
  model.foreground = ForegroundModel::Background;
  for (int i = 0; i < 3; ++i) stage.apply(frame.view, model, mask);
  EXPECT_EQ(stage.frames(), 3u);
  EXPECT_EQ(stage.apply(frame.view, local_options(31, 10), mask), 0) << "level reported";
  EXPECT_EQ(stage.frames(), 0u);
}

// ---- gpu_fuzz's foreground sequences include local thresholds: their lines read back,
// and their first frames match OpenCV on the engine's luma.

GrayImage luma_of(const ImageView& v) {
  GrayImage g;
  g.name = "luma";
  g.width = v.width;
  g.height = v.height;
  g.pixels.resize(size_t(v.width) * size_t(v.height));
  for (int y = 0; y < v.height; ++y) {
    const uint8_t* row = static_cast<const uint8_t*>(v.planes[0]) + size_t(y) * v.strides[0];
    for (int x = 0; x < v.width; ++x)
      g.pixels[size_t(y) * v.width + x] = uint8_t(luma8(luma_at(row, x, v.format), v.format));
  }
  return g;
}

TEST(LocalFuzzHook, ForegroundCasesWithLocalReadBackAndMatchOpenCv) {
  int local = 0;
  for (uint64_t seed = 1; seed <= 3000; ++seed) {
    const ForegroundFuzzCase c = random_foreground_case(splitmix64(seed), 640);
    ForegroundFuzzCase back;
    std::string why;
    ASSERT_TRUE(parse_foreground_case(to_line(c), &back, &why)) << to_line(c) << ": " << why;
    ASSERT_EQ(to_line(back), to_line(c));
    if (c.model != ForegroundModel::Local) continue;
    if (++local > 60) continue;
    Options o = foreground_options(c);
    o.max_components = UINT32_MAX;  // the comparison reports in label order
    o.group_gap = -1;               // and OpenCV does not group pieces
    const Frame f = foreground_frame(Scene(foreground_scene(c)), c, 0);
    EXPECT_TRUE(matches_opencv(f.view, luma_of(f.view), o)) << to_line(c);
  }
  EXPECT_GT(local, 200);
}

}  // namespace
}  // namespace ccl::test
