// The C interface's device side with the CUDA runtime (c_api_device.h).
#include <cuda_runtime.h>

#include "c_api_columns.h"
#include "c_api_device.h"
#include "ccl/cuda_memory.h"

namespace ccl::capi {

namespace {

cudaStream_t as_stream(uintptr_t s) { return reinterpret_cast<cudaStream_t>(s); }

class CudaSide final : public DeviceSide {
 public:
  explicit CudaSide(int device) : device_(device), last_(false) {}

  void begin(uintptr_t stream) override {
    if (!marked_ || stream == last_stream_) return;
    cuda::DeviceScope scope(device_);
    CCL_CUDA_CHECK(cudaStreamWaitEvent(as_stream(stream), last_.get(), 0));
  }

  void end(uintptr_t stream) override {
    cuda::DeviceScope scope(device_);
    last_.record(as_stream(stream));
    last_stream_ = stream;
    marked_ = true;
  }

  const void* widen_rgb(const void* rgb, int64_t stride, int width, int height,
                        uintptr_t stream) override {
    cuda::DeviceScope scope(device_);
    const size_t pixels = size_t(width) * size_t(height);
    rgbx_.reserve(pixels * 4, "cudaMalloc (RGB widened to RGBx)");
    // A copy of 3-byte "rows" with a 4-byte destination pitch moves each pixel into
    // its RGBx slot; the fourth byte is never read (luma uses R, G and B).
    if (stride == int64_t(width) * 3) {
      cuda::check_copy(cudaMemcpy2DAsync(rgbx_.get(), 4, rgb, 3, 3, pixels,
                                         cudaMemcpyDeviceToDevice, as_stream(stream)),
                       "cudaMemcpy2DAsync (RGB to RGBx)");
    } else if (stride % 3 == 0) {
      // Padded rows whose stride is whole pixels: a 3-D copy, each row a slice.
      cudaMemcpy3DParms p = {};
      p.srcPtr = make_cudaPitchedPtr(const_cast<void*>(rgb), 3, 3, size_t(stride / 3));
      p.dstPtr = make_cudaPitchedPtr(rgbx_.get(), 4, 4, size_t(width));
      p.extent = make_cudaExtent(3, size_t(width), size_t(height));
      p.kind = cudaMemcpyDeviceToDevice;
      cuda::check_copy(cudaMemcpy3DAsync(&p, as_stream(stream)), "cudaMemcpy3DAsync (RGB to RGBx)");
    } else {
      for (int y = 0; y < height; ++y)
        cuda::check_copy(
            cudaMemcpy2DAsync(static_cast<uint8_t*>(rgbx_.get()) + size_t(y) * width * 4, 4,
                              static_cast<const uint8_t*>(rgb) + y * stride, 3, 3, size_t(width),
                              cudaMemcpyDeviceToDevice, as_stream(stream)),
            "cudaMemcpy2DAsync (RGB row to RGBx)");
    }
    return rgbx_.get();
  }

  void copy_labels(const uint32_t* src, int width, int height, void* dst, int64_t dst_stride,
                   bool dst_on_host, uintptr_t stream) override {
    cuda::DeviceScope scope(device_);
    const size_t row = size_t(width) * sizeof(uint32_t);
    // Unpadded rows (every array the Python package makes) go as one 1-D copy, which
    // the runtime queues in less host time than a 2-D one.
    if (size_t(dst_stride) == row)
      cuda::check_copy(cudaMemcpyAsync(dst, src, row * size_t(height), cudaMemcpyDefault,
                                       as_stream(stream)),
                       "cudaMemcpyAsync (label image)");
    else
      cuda::check_copy(cudaMemcpy2DAsync(dst, size_t(dst_stride), src, row, row,
                                         size_t(height), cudaMemcpyDefault, as_stream(stream)),
                       "cudaMemcpy2DAsync (label image)");
    if (dst_on_host) CCL_CUDA_CHECK(cudaStreamSynchronize(as_stream(stream)));
  }

  void device_columns(const ccl::Component* table, uint32_t n, int64_t* ints, double* floats,
                      uintptr_t stream) override {
    cuda::DeviceScope scope(device_);
    launch_column_rows(table, n, ints, floats, stream);
  }

 private:
  int device_;
  cuda::Event last_;
  uintptr_t last_stream_ = 0;
  bool marked_ = false;
  cuda::DeviceBuffer<uint8_t> rgbx_;
};

}  // namespace

std::unique_ptr<DeviceSide> DeviceSide::create(int device) {
  cuda::DeviceScope scope(device);
  return std::make_unique<CudaSide>(device);
}

const char* cuda_error_name(int code) { return cudaGetErrorName(cudaError_t(code)); }

bool cuda_pointer_device(uintptr_t pointer, int* device) {
  cudaPointerAttributes a = {};
  const cudaError_t err = cudaPointerGetAttributes(&a, reinterpret_cast<const void*>(pointer));
  if (err != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  if (a.type != cudaMemoryTypeDevice && a.type != cudaMemoryTypeManaged) return false;
  *device = a.device;
  return true;
}

}  // namespace ccl::capi
