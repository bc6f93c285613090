// The CUDA work of the C interface (ccl/ccl.h) that is not the engine's: widening RGB
// to RGBx on the device, copying the label image into the caller's buffer, ordering a
// frame after the last one queued on another stream. c_api_cuda.cpp implements it
// with the CUDA runtime; c_api_nocuda.cpp, in builds without CUDA, reports that.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "ccl/types.h"

namespace ccl::capi {

/// One per CUDA engine (the handle's own, or a foreground model's): what it queued
/// last is ordered before the next frame on another stream, because the engine's
/// scratch (its label image, the widened RGB) is reused by every frame.
class DeviceSide {
 public:
  static std::unique_ptr<DeviceSide> create(int device);
  virtual ~DeviceSide() = default;

  /// Makes `stream` wait for the work end() marked on another stream.
  virtual void begin(uintptr_t stream) = 0;
  /// Marks the end of this frame's work on `stream`.
  virtual void end(uintptr_t stream) = 0;
  /// RGB (3 bytes per pixel, `stride` bytes per row, device memory) widened into the
  /// side's RGBx scratch on `stream`; returns it, 4 * width bytes per row.
  virtual const void* widen_rgb(const void* rgb, int64_t stride, int width, int height,
                                uintptr_t stream) = 0;
  /// width x height uint32 labels (row pitch 4 * width, host or device) into `dst`
  /// (`dst_stride` bytes per row, host or device), queued on `stream`; waits only when
  /// the destination is host memory.
  virtual void copy_labels(const uint32_t* src, int width, int height, void* dst,
                           int64_t dst_stride, bool dst_on_host, uintptr_t stream) = 0;
  /// The engine's device table (n components) as device columns (c_api_columns.h),
  /// queued on `stream`.
  virtual void device_columns(const ccl::Component* table, uint32_t n, int64_t* ints,
                              double* floats, uintptr_t stream) = 0;
};

/// "cudaErrorMemoryAllocation" for a cudaError_t value.
const char* cuda_error_name(int code);

/// The device holding `pointer`; false for host memory (or no CUDA).
bool cuda_pointer_device(uintptr_t pointer, int* device);

}  // namespace ccl::capi
