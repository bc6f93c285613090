// The color range (ForegroundModel::Color, issue 28) on the GPU against the CPU
// (ccl::ForegroundStage, itself checked against OpenCV by
// tests/reference/color_range_test.cpp on the same sets, color_cases.h): every frame's
// mask (Engine::copy_mask), label image, count and reported table must be equal byte
// for byte. Engines are poisoned before every frame (0xAB, or 0x01: a stale mask byte
// would read as foreground); frames come through label_host and from the test's own
// device buffers (enqueue, graphs replayed), with regions, every algorithm and both
// connectivities (the harness: stage_jobs.h).
#include <algorithm>
#include <sstream>

#include "ccl/foreground.h"
#include "color_cases.h"
#include "color_images.h"
#include "foreground_fuzz.h"  // mask_difference
#include "foreground_scenes.h"
#include "gpu_test_support.h"
#include "stage_jobs.h"
#include "test_images.h"


namespace ccl::gpu_test {
namespace {

std::string range_text(const ColorOptions& c) {
  std::ostringstream s;
  s << "H " << c.low[0] << ".." << c.high[0] << " S " << c.low[1] << ".." << c.high[1] << " V "
    << c.low[2] << ".." << c.high[2];
  return s.str();
}

// ---- The sets of the CPU test.

TEST(ColorGpu, RealImagesMatchTheCpu) {
  CCL_REQUIRE_DEVICE();
  std::string why;
  const std::vector<test::RgbImage> images = test::real_color_images(&why);
  if (images.empty()) GTEST_SKIP() << "real color images unavailable: " << why;
  std::vector<Job> jobs;
  size_t k = 0;
  for (const test::RgbImage& image : images) {
    const test::ColorImage color = test::to_color_image(image);
    for (PixelFormat format : test::color_formats())
      for (const test::NamedRange& range : test::color_ranges()) {
        const size_t run = k++;
        Job j;
        j.options = test::real_image_options(run, range.color);
        j.name = image.name + " " + range.name + " (" + describe(j.options) + ", open " +
                 std::to_string(j.options.open_radius) + " close " + std::to_string(j.options.close_radius) + ")";
        j.frame = test::to_frame(color, format, test::color_padding(run, format));
        j.device = run % 3 == 1;
        jobs.push_back(std::move(j));
      }
    // Keep the host memory of one image's frames at a time.
    check_all(jobs);
    jobs.clear();
  }
}

TEST(ColorGpu, RandomCasesMatchTheCpu) {
  CCL_REQUIRE_DEVICE();
  // The CPU test's 600 seeds, then as many more, through both paths; some with a
  // region, some reporting only their largest components.
  std::vector<Job> jobs;
  for (int i = 0; i < 1200; ++i) {
    const uint64_t seed = uint64_t(0xC010A000 + i);
    const test::ColorFuzzCase c = test::random_color_case(seed);
    Job j;
    j.name = test::describe(c);
    j.frame = test::color_case_frame(c);
    j.options = c.options;
    j.device = i % 2 == 1;
    if (i % 5 == 2) {
      j.region_stride = size_t(c.width) + size_t(i % 7);
      j.region = test::blob_region(c.width, c.height, seed, j.region_stride);
      j.name += " region";
    }
    if (i % 7 == 3) {
      j.options.max_components = uint32_t(i % 4);
      j.name += " max_components=" + std::to_string(j.options.max_components);
    }
    jobs.push_back(std::move(j));
    if (jobs.size() == 200) {
      check_all(jobs);
      jobs.clear();
    }
  }
  check_all(jobs);
}

TEST(ColorGpu, EveryAlgorithmBothConnectivitiesEveryFormat) {
  CCL_REQUIRE_DEVICE();
  std::vector<Job> jobs;
  size_t k = 0;
  for (Algorithm a : all_algorithms())
    for (int conn : {4, 8})
      for (PixelFormat format : test::color_formats()) {
        test::SceneSpec spec;
        spec.width = 401 + int(k % 3);
        spec.height = 233 + int(k % 2);
        spec.seed = 900 + k;
        spec.objects = 9;
        const test::ColorImage img = test::Scene(spec).frame(int(k % 5));
        Job j;
        j.options.foreground = ForegroundModel::Color;
        j.options.algorithm = a;
        j.options.connectivity = conn;
        // Saturated colors of any hue but the background's: the scene's objects.
        j.options.color = k % 2 ? test::hsv_range(0, 90, 40, 179, 255, 255)
                                : test::hsv_range(150, 60, 30, 60, 255, 255);
        j.options.close_radius = int(k % 3);
        j.frame = test::to_frame(img, format, test::color_padding(k, format));
        j.device = k % 2 == 0;
        j.name = test_name(a) + " " + std::to_string(conn) + "-way " + range_text(j.options.color);
        jobs.push_back(std::move(j));
        ++k;
      }
  check_all(jobs);
}

// ---- Graph replay: frames that differ only in their bounds must not share a graph.

TEST(ColorGpu, GraphsReplayWithTheFramesBounds) {
  CCL_REQUIRE_DEVICE();
  for (PixelFormat format : {PixelFormat::NV12, PixelFormat::RGBA, PixelFormat::I420, PixelFormat::BGRx}) {
    test::SceneSpec spec;
    spec.width = 640;
    spec.height = 360;
    spec.seed = 77;
    spec.objects = 12;
    const test::Frame frame = test::to_frame(test::Scene(spec).frame(3), format);
    const ColorOptions ranges[] = {test::hsv_range(0, 90, 40, 179, 255, 255),
                                   test::hsv_range(170, 60, 30, 20, 255, 255),
                                   test::hsv_range(20, 60, 30, 170, 255, 255),
                                   test::hsv_range(0, 0, 0, 179, 80, 255)};
    std::vector<Job> jobs;
    // Each range twice in a row, then round again: the same planes, size and format,
    // only the bounds change (the second frame captures a graph, later rounds replay
    // the cached ones).
    for (int round = 0; round < 3; ++round)
      for (const ColorOptions& r : ranges)
        for (int again = 0; again < 2; ++again) {
          Job j;
          j.options.foreground = ForegroundModel::Color;
          j.options.color = r;
          j.options.open_radius = round == 2 ? 1 : 0;
          j.frame = frame;
          j.device = true;
          j.name = std::string("graphs ") + range_text(r) + " round " + std::to_string(round);
          jobs.push_back(j);
        }
    // Between them, the other models on the same buffers.
    Job threshold = jobs.front();
    threshold.options = Options{};
    threshold.options.close_radius = 1;
    threshold.name = "threshold between color frames";
    jobs.insert(jobs.begin() + 4, {threshold, threshold});
    Job background = jobs.front();
    background.options = Options{};
    background.options.foreground = ForegroundModel::Background;
    background.name = "background between color frames";
    jobs.insert(jobs.begin() + 12, {background, background});
    const uint64_t replays = check_all(jobs, true);
    EXPECT_GT(replays, 0u) << to_string(format) << ": no graph was replayed";
  }
}

// ---- Large frames and what the engine refuses.

TEST(ColorGpu, FourKFramesMatchTheCpu) {
  CCL_REQUIRE_DEVICE();
  test::SceneSpec spec;
  spec.width = 3840;
  spec.height = 2160;
  spec.seed = 2026;
  spec.objects = 12;
  const test::ColorImage img = test::Scene(spec).frame(5);
  std::vector<Job> jobs;
  for (PixelFormat format : {PixelFormat::NV12, PixelFormat::RGBA}) {
    Job j;
    j.options.foreground = ForegroundModel::Color;
    j.options.color = test::hsv_range(150, 60, 30, 60, 255, 255);
    j.options.close_radius = 2;
    j.frame = test::to_frame(img, format);
    j.name = std::string("4K ") + to_string(format);
    j.device = format == PixelFormat::NV12;
    jobs.push_back(std::move(j));
  }
  check_all(jobs);
}

TEST(ColorGpu, GrayFramesAreRefused) {
  CCL_REQUIRE_DEVICE();
  const test::GrayImage g = test::to_gray(test::yacclab_random(33, 17, 0.5, 1, 7), "noise");
  cuda::Engine engine;
  for (PixelFormat format : {PixelFormat::Gray8, PixelFormat::Gray16LE}) {
    const test::Frame f = test::make_frame(g, format);
    Options o;
    o.foreground = ForegroundModel::Color;
    Result r;
    try {
      engine.label_host(f.view, o, r);
      ADD_FAILURE() << to_string(format) << " was taken";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(to_string(format)), std::string::npos) << e.what();
    }
  }
  // The engine goes on with a color frame afterwards.
  test::SceneSpec spec;
  const test::Frame f = test::to_frame(test::Scene(spec).frame(0), PixelFormat::NV12);
  Job j;
  j.options.foreground = ForegroundModel::Color;
  j.options.color = test::hsv_range(0, 90, 40, 179, 255, 255);
  j.frame = f;
  j.name = "after refused gray frames";
  check_all({j});
}

// ---- Small frames for compute-sanitizer (memcheck, racecheck): the color kernel of
// every reader, odd sizes and padding, a region with and without cleanup, device
// buffers and graph replay, on frames small enough for the tools' slowdown.

TEST(ColorSanitized, EveryFormatSmallFrames) {
  CCL_REQUIRE_DEVICE();
  std::vector<Job> jobs;
  size_t k = 0;
  for (PixelFormat format : test::color_formats())
    for (auto [w, h] : {std::pair{1, 1}, std::pair{5, 3}, std::pair{67, 45}, std::pair{33, 2}}) {
      test::SceneSpec spec;
      spec.width = w;
      spec.height = h;
      spec.seed = 40 + k;
      spec.objects = 3;
      Job j;
      j.options.foreground = ForegroundModel::Color;
      j.options.color = k % 2 ? test::hsv_range(0, 60, 30, 179, 255, 255) : test::hsv_range(150, 40, 20, 60, 255, 255);
      j.options.close_radius = int(k % 3 == 1);
      j.frame = test::to_frame(test::Scene(spec).frame(1), format, test::color_padding(k, format));
      j.device = k % 2 == 0;
      if (k % 4 == 1) {
        j.region_stride = size_t(w) + 3;
        j.region = test::blob_region(w, h, 5 + k, j.region_stride);
      }
      j.name = "sanitized " + range_text(j.options.color);
      for (int again = 0; again < 3; ++again) jobs.push_back(j);  // captured, then replayed
      ++k;
    }
  check_all(jobs, true);
}

}  // namespace
}  // namespace ccl::gpu_test
