// The analytics mask on the device (CUDA backend, ccl_backend_write_mask): the kept
// label image of the last frame, mapped through a label -> id table, into a rectangle
// of the frame, then down into the caller's host mask. The CPU backend's
// write_mask is the same loop on the host; tests/element/mask_test.cpp holds both to
// the same bytes. Needs the CUDA runtime's headers (cuda_backend.cpp and
// mask_cuda.cu only).
#pragma once

#include <cstddef>
#include <cstdint>

#include "ccl/cuda_memory.h"

namespace ccl::plugin::mask_cuda {

/// Queues on `stream` the kernel that writes d_mask, `height` packed rows of
/// width * bytes_per_pixel bytes: pixel (c, r) is d_ids[l] for the label
/// l = d_labels[(y + r) * frame_width + x + c] when l < n_ids, else 0, narrowed to
/// bytes_per_pixel (1 or 2, native endian). Throws ccl::CudaError when the launch
/// fails.
void launch(const uint32_t* d_labels, int frame_width, const uint32_t* d_ids, uint32_t n_ids,
            int x, int y, int width, int height, int bytes_per_pixel, uint8_t* d_mask,
            cudaStream_t stream);

/// The scratch of one backend's masks, grown to the largest asked for (never shrunk):
/// the id table (pinned staging and device copy, 4 bytes per label) and the device
/// rectangle (width * height * bytes_per_pixel).
class MaskWriter {
 public:
  /// Uploads ids (n_ids entries, label -> id), runs launch() over d_labels (the
  /// frame's device label image, row pitch frame_width) and copies the rectangle into
  /// the host mask (rows `stride` bytes apart), all on `stream`; returns once the
  /// host mask is written. Throws ccl::CudaError on any CUDA failure.
  void write(const uint32_t* d_labels, int frame_width, const uint32_t* ids, size_t n_ids,
             int x, int y, int width, int height, int bytes_per_pixel, uint8_t* mask,
             size_t stride, cudaStream_t stream);

 private:
  cuda::PinnedBuffer<uint32_t> ids_staging_;
  cuda::DeviceBuffer<uint32_t> ids_;
  cuda::DeviceBuffer<uint8_t> rect_;
};

}  // namespace ccl::plugin::mask_cuda
