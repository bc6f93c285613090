// The local threshold (ForegroundModel::Local, issue 28) on the GPU against the CPU
// (ccl::ForegroundStage, itself checked against OpenCV's adaptiveThreshold by
// tests/reference/local_threshold_test.cpp on the same sets): every frame's mask
// (Engine::copy_mask), label image, count and reported table equal byte for byte.
// Engines are poisoned before every frame (0xAB, or 0x01: a stale mask byte would
// read as foreground; the row sums too); frames come through label_host and from the
// test's own device buffers (enqueue, graphs captured and replayed).
#include <algorithm>
#include <sstream>

#include "ccl/foreground.h"
#include "foreground_fuzz.h"  // mask_difference
#include "foreground_scenes.h"
#include "fuzz_frames.h"
#include "gpu_test_support.h"
#include "stage_jobs.h"
#include "local_threshold_images.h"
#include "test_images.h"

namespace ccl::gpu_test {
namespace {

using test::local_options;

std::string describe_local(const Options& o) {
  std::ostringstream s;
  s << "block " << o.local.block_size << " offset " << o.local.offset << ", " << describe(o);
  if (o.open_radius || o.close_radius) s << ", open " << o.open_radius << " close " << o.close_radius;
  if (o.max_area) s << ", max-area " << o.max_area;
  return s.str();
}

Job job(const std::string& name, test::Frame frame, const Options& o, bool device) {
  Job j;
  j.name = name + ", " + describe_local(o);
  j.frame = std::move(frame);
  j.options = o;
  j.device = device;
  return j;
}

const double kOffsets[] = {10, 0.5, -2.5, 7.3, 0, -7.3, 255, -255};

// ---- The sets of the CPU test.

TEST(LocalGpu, EveryBlockSizeOnSmallImages) {
  CCL_REQUIRE_DEVICE();
  const test::GrayImage images[] = {test::uneven_page(61, 43, 1), test::uneven_page(203, 37, 2),
                                    test::uneven_page(9, 300, 3)};
  std::vector<Job> jobs;
  size_t k = 0;
  for (const test::GrayImage& g : images)
    for (int b = 3; b <= 255; b += 2)
      for (ThresholdMode mode : {ThresholdMode::Above, ThresholdMode::Below}) {
        ++k;
        jobs.push_back(job(g.name, test::make_frame(g, PixelFormat::Gray8), local_options(b, kOffsets[k % 8], mode),
                           k % 3 == 0));
      }
  check_all(jobs);
}

TEST(LocalGpu, RoundingProbesMatchTheCpu) {
  CCL_REQUIRE_DEVICE();
  // The windows the CPU test builds to show OpenCV's rounding of the mean (vector and
  // tail columns, every block size): the device's single precision must round as the
  // CPU's does.
  test::LocalRng rng(7);
  std::vector<Job> jobs;
  for (int b = 3; b <= 255; b += 2) {
    const std::vector<test::Probe> probes = test::rounding_probes(b, 4, rng);
    for (bool tail : {false, true}) {
      std::vector<test::Probe> placed;
      const test::GrayImage g = tail ? test::tail_probes(b, probes, &placed) : test::vector_probes(b, probes, &placed);
      jobs.push_back(job(std::string(tail ? "tail" : "vector") + " probes", test::make_frame(g, PixelFormat::Gray8),
                         local_options(b, 0), b % 4 == 1));
    }
    if (jobs.size() >= 32) {
      check_all(jobs);
      jobs.clear();
    }
  }
  check_all(jobs);
}

TEST(LocalGpu, RealImagesMatchTheCpu) {
  CCL_REQUIRE_DEVICE();
  std::string why;
  const std::vector<test::GrayImage> images = test::real_images(&why);
  if (images.empty()) GTEST_SKIP() << "real test images unavailable: " << why;
  const int blocks[] = {3, 7, 15, 17, 31, 63, 101, 165, 201, 255};
  size_t i = 0;
  for (const test::GrayImage& g : images) {
    std::vector<Job> jobs;
    for (int b : blocks) {
      ++i;
      Options o = local_options(b, kOffsets[i % 6], i % 2 ? ThresholdMode::Above : ThresholdMode::Below);
      o.connectivity = i % 3 ? 8 : 4;
      o.algorithm = all_algorithms()[i % all_algorithms().size()];
      if (i % 4 == 1) o.open_radius = 1;
      if (i % 5 == 2) o.close_radius = 2;
      if (i % 7 == 3) o.min_area = 5, o.max_area = 5000;
      const PixelFormat format = test::all_formats()[i % test::all_formats().size()];
      jobs.push_back(job(g.name, test::make_frame(g, format, i % 3 ? 0 : 7), o, i % 2 == 0));
    }
    check_all(jobs);  // one image's frames in host memory at a time
  }
}

TEST(LocalGpu, FuzzedFramesAndPagesInEveryFormat) {
  CCL_REQUIRE_DEVICE();
  test::FuzzLimits limits;
  limits.max_side = 1400;
  limits.max_pixels = 1 << 20;
  limits.tracking = false;
  test::LocalRng rng(2026);
  std::vector<Job> jobs;
  for (uint64_t seed = 1; seed <= 600; ++seed) {
    const test::FuzzCase c = test::random_fuzz_case(seed, limits);
    Options o = test::fuzz_options(c);
    o.foreground = ForegroundModel::Local;
    o.mode = rng.range(0, 1) ? ThresholdMode::Above : ThresholdMode::Below;
    o.local.block_size = rng.range(0, 3) ? 2 * rng.range(1, 40) + 1 : 2 * rng.range(1, 127) + 1;
    o.local.offset = rng.range(0, 2) ? rng.range(-300, 300) / 10.0 : double(rng.range(-255, 255));
    o.open_radius = rng.range(0, 3) ? 0 : rng.range(1, 3);
    o.close_radius = rng.range(0, 3) ? 0 : rng.range(1, 3);
    if (!rng.range(0, 3)) o.min_area = uint64_t(rng.range(0, 20));
    if (!rng.range(0, 4)) o.max_area = uint64_t(rng.range(1, 2000));
    if (!rng.range(0, 6)) o.max_components = uint32_t(rng.range(0, 10));
    o.write_labels = rng.range(0, 5) != 0;
    const bool page = seed % 3 == 0;
    test::Frame frame = page ? test::make_frame(test::uneven_page(c.width, c.height, seed), c.format, size_t(c.padding))
                             : test::fuzz_frame(c, 0);
    Job j = job(test::to_line(c) + (page ? " (page)" : ""), std::move(frame), o, seed % 2 == 0);
    if (seed % 5 == 2) {
      j.region_stride = size_t(c.width) + size_t(seed % 7);
      j.region = test::blob_region(c.width, c.height, seed, j.region_stride);
      j.name += ", region";
    }
    jobs.push_back(std::move(j));
    if (jobs.size() == 100) {
      check_all(jobs);
      jobs.clear();
    }
  }
  check_all(jobs);
}

TEST(LocalGpu, EveryFormatPaddedStridesAlgorithmsAndConnectivities) {
  CCL_REQUIRE_DEVICE();
  const test::GrayImage g = test::uneven_page(157, 93, 11);
  std::vector<Job> jobs;
  size_t i = 0;
  for (PixelFormat format : test::all_formats())
    for (size_t padding : {size_t(0), size_t(3), size_t(17)})
      for (int b : {3, 11, 31, 101, 255}) {
        ++i;
        Options o = local_options(b, kOffsets[i % 8], i % 2 ? ThresholdMode::Below : ThresholdMode::Above);
        o.connectivity = i % 2 ? 4 : 8;
        o.algorithm = all_algorithms()[i % all_algorithms().size()];
        jobs.push_back(job(g.name, test::make_frame(g, format, padding), o, i % 2 == 1));
      }
  check_all(jobs);
}

TEST(LocalGpu, Gray16UsesTheHighByte) {
  CCL_REQUIRE_DEVICE();
  test::LocalRng rng(16);
  const test::GrayImage g = test::uneven_page(173, 67, 16);
  std::vector<Job> jobs;
  for (int b : {3, 31, 255})
    for (ThresholdMode mode : {ThresholdMode::Above, ThresholdMode::Below}) {
      test::Frame f = test::make_frame(g, PixelFormat::Gray16LE, 6);
      for (int y = 0; y < g.height; ++y)  // low bytes at random: only the high byte may decide
        for (int x = 0; x < g.width; ++x) f.storage[0][size_t(y) * f.view.strides[0] + 2 * size_t(x)] = uint8_t(rng.range(0, 255));
      jobs.push_back(job("gray16 random low bytes", std::move(f), local_options(b, 3.7, mode), b == 31));
    }
  check_all(jobs);
}

TEST(LocalGpu, FramesAtTheEdgesOfTheLaunchShapes) {
  CCL_REQUIRE_DEVICE();
  // Rows of one tile and of several (2048 columns a tile, 128 either side), column
  // tiles of 64, 128 and 256 rows (the height follows the window: block sizes up to 63,
  // 127 and 255) with windows longer than the frame, one pixel wide or high.
  const std::pair<int, int> sizes[] = {{1, 1},     {1, 700},   {700, 1},   {2, 3},     {3, 2},
                                       {1023, 5},  {1024, 7},  {1025, 9},  {2049, 33}, {5, 1500},
                                       {130, 129}, {257, 65},  {64, 255},  {2047, 6},  {2048, 4},
                                       {4097, 3},  {66, 256},  {67, 257},  {40, 513},  {3, 385}};
  std::vector<Job> jobs;
  size_t i = 0;
  for (auto [w, h] : sizes)
    for (int b : {3, 31, 33, 63, 65, 127, 129, 255}) {
      ++i;
      const test::GrayImage g = test::uneven_page(w, h, 100 + i);
      const PixelFormat format = test::all_formats()[i % test::all_formats().size()];
      jobs.push_back(job(g.name, test::make_frame(g, format, i % 2 ? 0 : 5), local_options(b, kOffsets[i % 8],
                         i % 3 ? ThresholdMode::Above : ThresholdMode::Below), i % 2 == 0));
    }
  check_all(jobs);
}

TEST(LocalGpu, LargeFrames) {
  CCL_REQUIRE_DEVICE();
  std::vector<Job> jobs;
  size_t i = 0;
  for (auto [w, h] : {std::pair<int, int>{1920, 1080}, {3840, 2160}})
    for (int b : {31, 255}) {
      ++i;
      const test::GrayImage g = test::uneven_page(w, h, 4000 + i);
      Options o = local_options(b, b == 31 ? 10 : 3.5);
      o.close_radius = int(i % 2);
      jobs.push_back(job(g.name, test::make_frame(g, i % 2 ? PixelFormat::NV12 : PixelFormat::RGBA), o, i % 2 == 0));
    }
  check_all(jobs);
}

TEST(LocalGpu, RegionAndCleanup) {
  CCL_REQUIRE_DEVICE();
  const test::GrayImage g = test::uneven_page(211, 131, 5);
  std::vector<Job> jobs;
  size_t i = 0;
  for (PixelFormat format : {PixelFormat::Gray8, PixelFormat::NV12, PixelFormat::BGRx, PixelFormat::I420})
    for (auto [open, close] : {std::pair<int, int>{0, 0}, {1, 0}, {0, 2}, {2, 3}}) {
      ++i;
      Options o = local_options(i % 2 ? 25 : 71, i % 2 ? 4.5 : -1.5, i % 2 ? ThresholdMode::Above : ThresholdMode::Below);
      o.open_radius = open;
      o.close_radius = close;
      o.min_area = 3;
      o.max_area = 400;
      Job j = job(g.name, test::make_frame(g, format, 5), o, i % 2 == 0);
      j.region_stride = size_t(g.width) + 3;
      j.region = test::blob_region(g.width, g.height, 77 + i, j.region_stride);
      jobs.push_back(std::move(j));
    }
  check_all(jobs);
}

TEST(LocalGpu, GraphsFollowTheLocalSettings) {
  CCL_REQUIRE_DEVICE();
  // The same device buffer under settings that differ only in the local threshold's
  // block size, offset or mode, again and again: graphs are captured and replayed,
  // and a key that missed one of them would replay another's launches.
  const test::GrayImage g = test::uneven_page(640, 360, 9);
  const Options base = local_options(31, 10);
  const Options others[] = {local_options(33, 10), local_options(31, 10.5), local_options(31, 12),
                            local_options(31, 10, ThresholdMode::Below), local_options(255, 10),
                            local_options(31, 9.2)};  // ceil(9.2) = 10: the same launches as base
  std::vector<Job> jobs;
  for (const Options& other : others)
    for (int round = 0; round < 3; ++round)
      for (const Options& o : {base, other}) jobs.push_back(job("graph keys", test::make_frame(g, PixelFormat::Gray8), o, true));
  const uint64_t replays = check_all(jobs, true);
#ifdef CCL_TEST_WITH_CUDART
  EXPECT_GT(replays, 0u) << "no graph was replayed";
#else
  (void)replays;
#endif
}

// ---- Small frames for compute-sanitizer (scripts/gpu-check: memcheck and racecheck run
// LocalSanitized.*): both passes in every format, tile and strip edges, the largest
// window, a region and cleanup, a graph captured and replayed.

TEST(LocalSanitized, SmallFramesEveryFormat) {
  CCL_REQUIRE_DEVICE();
  std::vector<Job> jobs;
  size_t i = 0;
  for (PixelFormat format : test::all_formats())
    for (auto [w, h] : {std::pair<int, int>{37, 29}, {1030, 3}, {3, 70}}) {
      ++i;
      const test::GrayImage g = test::uneven_page(w, h, 600 + i);
      Options o = local_options(i % 2 ? 255 : 5, 2.5, i % 3 ? ThresholdMode::Above : ThresholdMode::Below);
      o.close_radius = int(i % 2);
      Job j = job(g.name, test::make_frame(g, format, i % 2 ? 3 : 0), o, i % 2 == 0);
      if (i % 4 == 1) {
        j.region_stride = size_t(w);
        j.region = test::blob_region(w, h, i, j.region_stride);
      }
      jobs.push_back(std::move(j));
    }
  const test::GrayImage g = test::uneven_page(70, 40, 700);
  for (int k = 0; k < 4; ++k) jobs.push_back(job("replayed", test::make_frame(g, PixelFormat::Gray8), local_options(31, 10), true));
  check_all(jobs, true);
}

}  // namespace
}  // namespace ccl::gpu_test
