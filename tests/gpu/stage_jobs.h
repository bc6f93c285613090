// GPU = CPU for frames that go through the foreground stage (the color range, the
// local threshold): each job's mask (Engine::copy_mask), label image, count and reported
// table must equal ccl::ForegroundStage + reference_label byte for byte, and every
// reported component must pass the area limits. Engines are poisoned before every frame
// (0xAB, or 0x01: a stale mask byte would read as foreground); frames come through
// label_host or from the test's own device buffers (enqueue, graphs replayed).
#pragma once

#include <cstddef>
#include <cstdint>
#include <array>
#include <string>
#include <vector>

#include "ccl/cuda_engine.h"  // cudaStream_t
#include "ccl/types.h"
#include "test_images.h"

namespace ccl::gpu_test {

/// Device copies of host frames' planes, padding included (so that the device rows carry
/// the same poison), in slot sets used in turn, as a buffer pool hands them out, so that
/// graphs see the same addresses again. Without the CUDA runtime it hands the host
/// view back.
class DevicePlanes {
 public:
  DevicePlanes() = default;
  DevicePlanes(const DevicePlanes&) = delete;
  DevicePlanes& operator=(const DevicePlanes&) = delete;
  ~DevicePlanes();
  /// Copies on `stream` (ordered before what is queued after it there).
  ImageView upload(const ImageView& host, size_t slot, cudaStream_t stream = nullptr);

 private:
  struct Buffer {
    void* data = nullptr;
    size_t bytes = 0;
  };
  std::vector<std::array<Buffer, 3>> slots_;
};

/// One frame to check: the frame, its options, and (optionally) a region.
struct Job {
  std::string name;
  test::Frame frame;
  Options options;
  std::vector<uint8_t> region;  // empty: none
  size_t region_stride = 0;
  bool device = false;  // enqueue from device buffers, not label_host
};

/// Checks the jobs on two engines (poison 0xAB and 0x01, in turn; `fixed`: the first
/// alone, its device frames always in the same buffers, so that graphs replay), CPU
/// references on all cores a batch at a time. Returns the number of replayed graphs;
/// reports up to 20 failures.
uint64_t check_all(const std::vector<Job>& jobs, bool fixed = false);

}  // namespace ccl::gpu_test
