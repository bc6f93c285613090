// The GPU = CPU harness of the foreground stage's tests (stage_jobs.h).
#include "stage_jobs.h"

#include <algorithm>
#include <array>
#include <functional>
#include <future>
#include <thread>

#include "ccl/foreground.h"
#include "foreground_fuzz.h"  // mask_difference
#include "gpu_test_support.h"

#ifdef CCL_TEST_WITH_CUDART
#include <cuda_runtime.h>
#endif

namespace ccl::gpu_test {
namespace {

/// The CPU's answer for a job.
struct Want {
  Result result;
  BinaryImage mask;
  std::string error;
};

Want cpu_side(const Job& j) {
  Want w;
  try {
    ForegroundStage stage;
    if (!j.region.empty())
      stage.set_region(j.region.data(), j.frame.view.width, j.frame.view.height, j.region_stride);
    reference_label(j.frame.view, j.options, stage, w.result, &w.mask);
  } catch (const std::exception& e) {
    w.error = e.what();
  }
  return w;
}


/// Runs the job on `engine` and compares with `want`; empty when equal.
std::string gpu_side(cuda::Engine& engine, DevicePlanes& planes, size_t slot, const Job& j,
                     const Want& want) {
  if (!want.error.empty()) return "CPU: " + want.error;
  try {
    const ImageView& v = j.frame.view;
    // Only around frames with a region: setting one (even none) drops the engine's graphs.
    if (!j.region.empty()) engine.set_region(j.region.data(), v.width, v.height, j.region_stride);
    Result got;
    if (j.device) {
      engine.enqueue(planes.upload(v, slot), j.options, nullptr);
      engine.finish(got, j.options.write_labels);
    } else {
      engine.label_host(v, j.options, got);
    }
    std::vector<uint8_t> mask;
    engine.copy_mask(mask);
    if (!j.region.empty()) engine.set_region(nullptr, 0, 0);
    if (!engine.device_mask())
      return std::string("no device mask for a ") + to_string(j.options.foreground) + " frame";
    std::string diff = test::mask_difference(mask, want.mask);
    if (diff.empty()) diff = difference(got, want.result);
    if (diff.empty())
      for (const Component& c : got.components)
        if (!j.options.area_passes(c.area))
          return "reported component " + std::to_string(c.label) + " of area " + std::to_string(c.area) +
                 " is outside the limits";
    return diff;
  } catch (const std::exception& e) {
    if (engine.has_region()) engine.set_region(nullptr, 0, 0);
    return std::string("GPU: ") + e.what();
  }
}

}  // namespace

#ifdef CCL_TEST_WITH_CUDART
DevicePlanes::~DevicePlanes() {
  for (auto& slot : slots_)
    for (Buffer& b : slot) cudaFree(b.data);
}

ImageView DevicePlanes::upload(const ImageView& host, size_t slot, cudaStream_t stream) {
  if (slots_.size() <= slot) slots_.resize(slot + 1);
  ImageView device = host;
  device.space = MemorySpace::Device;
  for (int p = 0; p < plane_count(host.format); ++p) {
    const size_t bytes = host.strides[p] * plane_size(host.format, host.width, host.height, p).rows;
    Buffer& b = slots_[slot][size_t(p)];
    if (b.bytes < bytes) {
      cudaFree(b.data);
      b = Buffer{};
      if (cudaMalloc(&b.data, bytes) != cudaSuccess) throw Error("cudaMalloc (test planes)");
      b.bytes = bytes;
    }
    if (cudaMemcpyAsync(b.data, host.planes[p], bytes, cudaMemcpyHostToDevice, stream) != cudaSuccess)
      throw Error("cudaMemcpyAsync (test planes)");
    device.planes[p] = b.data;
  }
  return device;
}
#else
DevicePlanes::~DevicePlanes() = default;
ImageView DevicePlanes::upload(const ImageView& host, size_t, cudaStream_t) { return host; }
#endif

uint64_t check_all(const std::vector<Job>& jobs, bool fixed) {
  cuda::Engine engines[2];
  cuda::testing::set_poison_byte(engines[0], 0xAB);
  cuda::testing::set_poison_byte(engines[1], 0x01);
  DevicePlanes planes[2];
  const uint64_t replays_before =
      cuda::testing::graph_replays(engines[0]) + cuda::testing::graph_replays(engines[1]);
  const size_t batch = std::max<size_t>(4, 2 * std::thread::hardware_concurrency());
  size_t failures = 0;
  for (size_t first = 0; first < jobs.size(); first += batch) {
    const size_t last = std::min(jobs.size(), first + batch);
    std::vector<std::future<Want>> wants;
    for (size_t i = first; i < last; ++i) wants.push_back(std::async(std::launch::async, cpu_side, std::cref(jobs[i])));
    for (size_t i = first; i < last; ++i) {
      const Want want = wants[i - first].get();
      const Job& j = jobs[i];
      const size_t e = fixed ? 0 : i % 2, slot = fixed ? 0 : (i / 2) % 3;
      const std::string diff = gpu_side(engines[e], planes[e], slot, j, want);
      if (!diff.empty() && failures++ < 20)
        ADD_FAILURE() << j.name << " (" << to_string(j.frame.view.format) << " " << j.frame.view.width
                      << "x" << j.frame.view.height << ", stride " << j.frame.view.strides[0]
                      << (j.device ? ", device buffers" : ", label_host") << "): " << diff;
    }
  }
  EXPECT_EQ(failures, 0u) << "of " << jobs.size() << " frames";
  return cuda::testing::graph_replays(engines[0]) + cuda::testing::graph_replays(engines[1]) - replays_before;
}

}  // namespace ccl::gpu_test
