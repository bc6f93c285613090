// The selection of reported components on the device (Options::min_area,
// max_components) against the CPU's (select_reported over the reference's table):
// label order when no more than max_components pass, the largest first (equal areas
// by label) when more do, whether the frame's kernels order them (small areas) or a
// sort after a second wait does, and through the growth of the host table.
#include <algorithm>
#include <random>

#include "gpu_test_support.h"
#include "test_images.h"

#ifdef CCL_TEST_WITH_CUDART
#include <cuda_runtime.h>
#endif

namespace ccl::gpu_test {
namespace {

struct Picked {
  uint64_t min_area;
  uint32_t max_components;
};

/// Selections around the frame's own numbers: every count and area at and next to
/// the boundaries where the device changes its path.
std::vector<Picked> selections(const Result& all) {
  const uint32_t n = all.num_components;
  uint64_t largest = 0;
  for (const Component& c : all.components) largest = std::max(largest, c.area);
  // {1, 70000} first: on a fresh engine's first frame of more components it reports
  // more than the host table first holds, by size.
  std::vector<Picked> picks = {
      {1, 70000}, {0, UINT32_MAX}, {2, UINT32_MAX}, {5, UINT32_MAX}, {largest, UINT32_MAX},
      {largest + 1, UINT32_MAX}, {0, 0}, {0, 1}, {0, 10}, {3, 100}, {2, 1000},
      {largest, 1}, {0, n > 0 ? n - 1 : 0}, {0, n}, {0, n + 1}, {4, n / 3},
  };
  return picks;
}

/// Frames of each way the device orders the largest: in the frame's own kernels (all
/// passing areas below kSizeOrderWithoutWait) or after a second wait, with a sort.
struct PathsSeen {
  int ordered_in_frame = 0, sorted_after = 0;
};

void expect_selections(cuda::Engine& engine, const std::string& what, const ImageView& view,
                       Options options, PathsSeen& seen) {
  const Result all = reference(view, options);
  for (const Picked& p : selections(all)) {
    options.min_area = p.min_area;
    options.max_components = p.max_components;
    Result want = all;
    select_reported(want.components, options);
    size_t passing = 0;
    uint64_t largest = 0;
    for (const Component& c : all.components)
      if (c.area >= p.min_area) {
        ++passing;
        largest = std::max(largest, c.area);
      }
    const bool by_size = passing > p.max_components && p.max_components > 0;
    const bool sorted = by_size && largest >= cuda::kSizeOrderWithoutWait;
    seen.ordered_in_frame += by_size && !sorted;
    seen.sorted_after += sorted;
    for (int run = 1; run <= 2; ++run) {
      Result got;
      engine.label_host(view, options, got);
      ASSERT_EQ(difference(got, want), "") << what << " (" << describe(options) << ", run " << run
                                           << ", " << passing << " pass)";
      EXPECT_EQ(engine.last_report_sorted(), sorted) << what << " (" << describe(options) << ")";
    }
  }
}

class DeviceSelection : public testing::TestWithParam<int> {};

TEST_P(DeviceSelection, MatchesTheHostSelection) {
  CCL_REQUIRE_DEVICE();
  const int connectivity = GetParam();
  // Its own engine, so that its host table starts small and has to grow here.
  cuda::Engine own;
  cuda::testing::set_poison_byte(own, 0xC3);
  PathsSeen seen;
  struct Image {
    int width, height;
    double density;
    int granularity;
  };
  // Noise of area-1 specks (ties everywhere), blobs, a frame with more components than
  // the host table first holds (65536), single rows and columns, one pixel.
  const Image images[] = {{1920, 1080, 0.5, 1}, {1920, 1080, 0.3, 4}, {1001, 777, 0.7, 2},
                          {640, 480, 0.1, 16},  {4096, 1, 0.5, 1},    {1, 3001, 0.4, 1},
                          {1, 1, 1.0, 1},       {333, 111, 0.0, 1}};
  uint32_t seed = 41;
  for (const Image& im : images) {
    const test::GrayImage gray = test::to_gray(
        test::yacclab_random(im.width, im.height, im.density, im.granularity, ++seed),
        std::to_string(im.width) + "x" + std::to_string(im.height) + " d" +
            std::to_string(im.density) + " g" + std::to_string(im.granularity));
    const test::Frame frame = test::make_frame(gray, PixelFormat::Gray8, seed % 5);
    for (Algorithm algorithm : all_algorithms()) {
      Options options = make_options(algorithm, connectivity, ThresholdMode::Above);
      options.write_labels = (seed % 2) == 0;
      expect_selections(own, gray.name, frame.view, options, seen);
      if (HasFatalFailure()) return;
    }
  }
  EXPECT_GT(seen.ordered_in_frame, 0) << "no frame took the path without a second wait";
  EXPECT_GT(seen.sorted_after, 0) << "no frame took the path with a sort";
}

INSTANTIATE_TEST_SUITE_P(Connectivity, DeviceSelection, testing::Values(4, 8),
                         [](const testing::TestParamInfo<int>& info) {
                           return "conn" + std::to_string(info.param);
                         });

#ifdef CCL_TEST_WITH_CUDART
// finish_in_place() shows the same components as finish() copies, where the device
// wrote them; the device's whole table stays in label order for the overlay.
TEST(DeviceSelection, InPlaceViewAndDeviceTable) {
  CCL_REQUIRE_DEVICE();
  const test::Frame frame = test::make_frame(
      test::to_gray(test::yacclab_random(1280, 720, 0.45, 1, 9), "noise"), PixelFormat::Gray8);
  const ImageView& host = frame.view;
  void* plane = nullptr;
  size_t pitch = 0;
  ASSERT_EQ(cudaMallocPitch(&plane, &pitch, size_t(host.width), host.height), cudaSuccess);
  ASSERT_EQ(cudaMemcpy2D(plane, pitch, host.planes[0], host.strides[0], size_t(host.width),
                         host.height, cudaMemcpyHostToDevice),
            cudaSuccess);
  ImageView device = host;
  device.space = MemorySpace::Device;
  device.planes[0] = plane;
  device.strides[0] = pitch;
  cuda::Engine own;
  cuda::testing::set_poison_byte(own, 0x5A);
  for (uint32_t max_components : {UINT32_MAX, 5000u, 64u}) {
    Options options = make_options(Algorithm::HA, 8, ThresholdMode::Above);
    options.min_area = 2;
    options.max_components = max_components;
    const Result all = reference(host, make_options(Algorithm::HA, 8, ThresholdMode::Above));
    Result want = all;
    select_reported(want.components, options);
    Result got;
    own.enqueue(device, options, nullptr);
    const TableView view = own.finish_in_place(got, false);
    EXPECT_EQ(got.num_components, all.num_components);
    EXPECT_TRUE(got.components.empty());
    ASSERT_EQ(view.size, want.components.size()) << max_components;
    EXPECT_TRUE(std::equal(view.begin(), view.end(), want.components.begin())) << max_components;
    std::vector<Component> table(all.num_components);
    ASSERT_EQ(cudaMemcpy(table.data(), own.device_components(), table.size() * sizeof(Component),
                         cudaMemcpyDeviceToHost),
              cudaSuccess);
    EXPECT_TRUE(table == all.components) << max_components;
  }
  cudaFree(plane);
}
#endif

}  // namespace
}  // namespace ccl::gpu_test
