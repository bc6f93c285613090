// The engine's behaviour around the labeling: input checks, features-only frames,
// frame size changes, device memory on a caller's stream, fixed levels, profiling.
#include <random>

#include "gpu_test_support.h"
#include "test_images.h"

#ifdef CCL_TEST_WITH_CUDART
#include <cuda_runtime.h>
#endif

namespace ccl::gpu_test {
namespace {

test::GrayImage random_image(int width, int height, double density, int granularity,
                             uint32_t seed) {
  return test::to_gray(test::yacclab_random(width, height, density, granularity, seed),
                       "random_" + std::to_string(width) + "x" + std::to_string(height));
}

/// Many gray levels (noise on a gradient), so that every level splits it differently.
test::GrayImage gray_levels(int width, int height, uint32_t seed) {
  std::mt19937 gen(seed);
  test::GrayImage g;
  g.name = "gray_levels";
  g.width = width;
  g.height = height;
  g.pixels.resize(size_t(width) * height);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      g.pixels[size_t(y) * width + x] = uint8_t((x * 255 / width + y * 3 + gen() % 96) % 256);
  return g;
}

TEST(GpuEngine, RefusesFramesOf2To31Pixels) {
  CCL_REQUIRE_DEVICE();
  uint8_t dummy = 0;
  ImageView view;
  view.width = 65536;
  view.height = 32768;
  view.space = MemorySpace::Device;
  view.planes[0] = &dummy;  // never read: the size is refused first
  view.strides[0] = 65536;
  EXPECT_THROW(engine().enqueue(view, Options{}, nullptr), Error);
  view.space = MemorySpace::Host;
  Result out;
  EXPECT_THROW(engine().label_host(view, Options{}, out), Error);
}

TEST(GpuEngine, RefusesHostMemoryInEnqueueAndBadOptions) {
  CCL_REQUIRE_DEVICE();
  const test::Frame frame = test::make_frame(random_image(64, 16, 0.5, 1, 3), PixelFormat::Gray8);
  EXPECT_THROW(engine().enqueue(frame.view, Options{}, nullptr), Error);
  Options bad;
  bad.connectivity = 6;
  Result out;
  EXPECT_THROW(engine().label_host(frame.view, bad, out), Error);
  Result none;
  cuda::Engine fresh;
  EXPECT_THROW(fresh.finish(none, true), Error);
}

TEST(GpuEngine, FeaturesOnlyFramesMatchTheReferenceTable) {
  CCL_REQUIRE_DEVICE();
  const test::Frame frame =
      test::make_frame(random_image(1000, 777, 0.55, 1, 9), PixelFormat::NV12, 3);
  for (Algorithm algorithm : all_algorithms())
    for (int conn : {4, 8}) {
      Options options = make_options(algorithm, conn, ThresholdMode::Above);
      options.write_labels = false;
      const Result want = reference(frame.view, options);
      ASSERT_TRUE(want.labels.empty());
      expect_matches(frame.view, options, want, "features only");
    }
}

TEST(GpuEngine, FollowsFrameSizeChanges) {
  CCL_REQUIRE_DEVICE();
  cuda::Engine own;  // starts without scratch and must grow and shrink with the frames
  cuda::testing::set_poison_byte(own, 0x5C);
  const std::pair<int, int> sizes[] = {{640, 480}, {3840, 2160}, {17, 5}, {1, 1},
                                       {1920, 1080}, {4097, 3}, {640, 480}};
  uint32_t seed = 20;
  for (auto [w, h] : sizes)
    for (int conn : {4, 8}) {
      const test::Frame frame = test::make_frame(random_image(w, h, 0.45, 1, ++seed), PixelFormat::Gray8);
      const Options options = make_options(Algorithm::HA, conn, ThresholdMode::Above);
      const Result want = reference(frame.view, options);
      for (Algorithm algorithm : all_algorithms()) {
        Result got;
        own.label_host(frame.view, make_options(algorithm, conn, ThresholdMode::Above), got);
        EXPECT_EQ(difference(got, want), "") << w << "x" << h << " " << conn << "-way";
      }
    }
}

// More than 65535 HA strips of 4 rows, the most a grid's y dimension holds: a launch
// that counted strips or rows in y would leave rows unlabeled here.
TEST(GpuEngine, FramesTallerThanOneGridOfStrips) {
  CCL_REQUIRE_DEVICE();
  const test::Frame frame =
      test::make_frame(random_image(3, 270001, 0.5, 1, 31), PixelFormat::Gray8);
  for (Algorithm algorithm : all_algorithms())
    for (int conn : {4, 8}) {
      const Options options = make_options(algorithm, conn, ThresholdMode::Above);
      expect_matches(frame.view, options, reference(frame.view, options), "3x270001");
    }
}

// Chained launches (on by default where the device has them) and launches one after
// the other must give the same frames: each chained kernel waits for its predecessor
// before touching memory. Many small components (d=0.3, g=1) keep every kernel busy
// while the next one is being scheduled. Profiling off chains publish too, Labeling
// puts an event before it, Stages launches without a graph and with events between
// the stages; the third frame of each setting replays a graph where there is one.
TEST(GpuEngine, ChainedAndUnchainedLaunchesAgree) {
  CCL_REQUIRE_DEVICE();
  const test::Frame frame =
      test::make_frame(random_image(1920, 1080, 0.3, 1, 41), PixelFormat::Gray8);
  for (bool chained : {true, false})
    for (cuda::Profiling profiling :
         {cuda::Profiling::Off, cuda::Profiling::Labeling, cuda::Profiling::Stages}) {
      cuda::Engine own;
      cuda::testing::set_poison_byte(own, 0x6B);
      cuda::Tuning tuning;
      tuning.chained_launches = chained;
      own.set_tuning(tuning);
      own.set_profiling(profiling);
      for (Algorithm algorithm : all_algorithms())
        for (int conn : {4, 8}) {
          const Options options = make_options(algorithm, conn, ThresholdMode::Above);
          const Result want = reference(frame.view, options);
          for (int repeat = 0; repeat < 3; ++repeat) {
            Result got;
            own.label_host(frame.view, options, got);
            EXPECT_EQ(difference(got, want), "")
                << describe(options) << (chained ? ", chained" : ", unchained")
                << ", profiling " << int(profiling) << ", frame " << repeat;
          }
        }
    }
}

TEST(GpuEngine, FixedLevelsAtTheEdgesOfTheRange) {
  CCL_REQUIRE_DEVICE();
  const test::GrayImage image = gray_levels(333, 217, 5);
  for (PixelFormat format : {PixelFormat::Gray8, PixelFormat::Gray16LE, PixelFormat::BGRx}) {
    const test::Frame frame = test::make_frame(image, format, 7);
    for (int level : {0, 1, 127, 128, 200, 254, 255})
      for (ThresholdMode mode : {ThresholdMode::Above, ThresholdMode::Below})
        for (int conn : {4, 8}) {
          const Result want = reference(frame.view, make_options(Algorithm::HA, conn, mode, level));
          for (Algorithm algorithm : all_algorithms())
            expect_matches(frame.view, make_options(algorithm, conn, mode, level), want,
                           "gray levels");
        }
  }
}

TEST(GpuEngine, OtsuOnGrayLevels) {
  CCL_REQUIRE_DEVICE();
  for (uint32_t seed : {1u, 2u, 3u}) {
    const test::GrayImage image = gray_levels(1280 + int(seed), 720, seed);
    for (PixelFormat format : test::all_formats()) {
      const test::Frame frame = test::make_frame(image, format, seed);
      const Options options = make_options(Algorithm::HA, 8, ThresholdMode::Otsu);
      expect_matches(frame.view, options, reference(frame.view, options), "otsu gray levels");
    }
  }
}

TEST(GpuEngine, ProfilingReportsStageTimes) {
  CCL_REQUIRE_DEVICE();
  cuda::Engine own;
  own.set_profiling(true);
  const test::Frame frame = test::make_frame(random_image(2048, 2048, 0.5, 4, 1), PixelFormat::Gray8);
  for (Algorithm algorithm : all_algorithms()) {
    Result out;
    own.label_host(frame.view, make_options(algorithm, 8, ThresholdMode::Otsu), out);
    const cuda::StageTimes t = own.stage_times();
    EXPECT_GT(t.threshold, 0.f);
    EXPECT_GT(t.local, 0.f);
    EXPECT_GT(t.merge, 0.f);
    EXPECT_GT(t.analysis, 0.f);
    EXPECT_GT(t.copy, 0.f);
    EXPECT_GE(t.total, t.local + t.analysis);
  }
}

#ifdef CCL_TEST_WITH_CUDART
// The element's path: a frame already on the device with its own pitch, the caller's
// stream, and the device-side outputs that later kernels (overlay) read.
TEST(GpuEngine, DeviceFramesOnTheCallersStream) {
  CCL_REQUIRE_DEVICE();
  const test::Frame frame = test::make_frame(random_image(1001, 513, 0.6, 1, 77), PixelFormat::RGBx);
  const ImageView& host = frame.view;
  void* plane = nullptr;
  size_t pitch = 0;
  ASSERT_EQ(cudaMallocPitch(&plane, &pitch, size_t(host.width) * 4, host.height), cudaSuccess);
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  ASSERT_EQ(cudaMemcpy2DAsync(plane, pitch, host.planes[0], host.strides[0], size_t(host.width) * 4,
                              host.height, cudaMemcpyHostToDevice, stream),
            cudaSuccess);
  ImageView device = host;
  device.space = MemorySpace::Device;
  device.planes[0] = plane;
  device.strides[0] = pitch;
  for (Algorithm algorithm : all_algorithms()) {
    const Options options = make_options(algorithm, 8, ThresholdMode::Otsu);
    const Result want = reference(host, options);
    cuda::Engine& e = engine();
    Result got;
    e.enqueue(device, options, stream);
    e.finish(got, true);
    EXPECT_EQ(difference(got, want), "");

    std::vector<uint32_t> labels(want.labels.size());
    std::vector<Component> table(want.num_components);
    uint32_t count = 0;
    ASSERT_EQ(cudaMemcpy(labels.data(), e.device_labels(), labels.size() * 4, cudaMemcpyDeviceToHost), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(table.data(), e.device_components(), table.size() * sizeof(Component), cudaMemcpyDeviceToHost), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(&count, e.device_component_count(), 4, cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_EQ(count, want.num_components);
    EXPECT_TRUE(labels == want.labels);
    EXPECT_TRUE(table == want.components);
  }
  cudaStreamDestroy(stream);
  cudaFree(plane);
}

// Repeated frames run as replayed CUDA graphs. A replay that kept anything of the frame
// it was captured from (the input, the level, the numbering's epoch) would show as a
// wrong result here: every frame has new content, in one of three input buffers that
// come round in turn as a buffer pool's do.
TEST(GpuEngine, ReplayedGraphsFollowNewContentInEachBuffer) {
  CCL_REQUIRE_DEVICE();
  const int width = 777, height = 301;
  void* planes[3] = {nullptr, nullptr, nullptr};
  size_t pitch = 0;
  for (void*& p : planes)
    ASSERT_EQ(cudaMallocPitch(&p, &pitch, size_t(width), height), cudaSuccess);
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  cuda::Engine own;
  cuda::testing::set_poison_byte(own, 0x3D);
  const int order[] = {0, 1, 2, 0, 1, 2, 2, 0, 1, 0};
  uint32_t seed = 500;
  for (Algorithm algorithm : all_algorithms())
    for (int conn : {4, 8})
      for (ThresholdMode mode : {ThresholdMode::Above, ThresholdMode::Otsu}) {
        const uint64_t replays_before = cuda::testing::graph_replays(own);
        for (int buffer : order) {
          ++seed;
          const test::GrayImage image =
              mode == ThresholdMode::Otsu ? gray_levels(width, height, seed)
                                          : random_image(width, height, 0.5, 1 + seed % 3, seed);
          const test::Frame frame = test::make_frame(image, PixelFormat::Gray8);
          ASSERT_EQ(cudaMemcpy2DAsync(planes[buffer], pitch, frame.view.planes[0],
                                      frame.view.strides[0], size_t(width), height,
                                      cudaMemcpyHostToDevice, stream),
                    cudaSuccess);
          ImageView device = frame.view;
          device.space = MemorySpace::Device;
          device.planes[0] = planes[buffer];
          device.strides[0] = pitch;
          const Options options = make_options(algorithm, conn, mode);
          Result got;
          own.enqueue(device, options, stream);
          own.finish(got, true);
          EXPECT_EQ(difference(got, reference(frame.view, options)), "")
              << describe(options) << ", buffer " << buffer << ", seed " << seed;
        }
        // Each buffer's graph is captured on its second frame and used from then on:
        // every frame but the first of each buffer. Algorithms with host rounds have no
        // graphs.
        EXPECT_EQ(cuda::testing::graph_replays(own) - replays_before,
                  cuda::waits_on_host(algorithm) ? 0u : 7u)
            << describe(make_options(algorithm, conn, mode));
      }
  cudaStreamDestroy(stream);
  for (void* p : planes) cudaFree(p);
}
#endif

}  // namespace
}  // namespace ccl::gpu_test
