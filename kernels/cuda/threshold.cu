#include "threshold.h"

#include <cub/device/device_histogram.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include "ccl/luma.h"
#include "check.h"

namespace ccl::cuda {

namespace {

/// luma8 of the pixel at virtual sample index i = y * 2^shift + x: CUB's pitched
/// histogram addresses rows as row * row_stride_samples + column, and a power-of-two
/// stride turns that back into (x, y) without a division.
struct Luma8At {
  const uint8_t* base;
  size_t stride;
  PixelFormat format;
  int shift;

  __device__ uint8_t operator()(long long i) const {
    const int y = int(i >> shift);
    const int x = int(i & ((1ll << shift) - 1));
    return uint8_t(luma8(luma_at(base + size_t(y) * stride, x, format), format));
  }
};

__global__ void otsu_level_kernel(const uint32_t* histogram, PixelFormat format, FrameInfo* info) {
  const int level = otsu_level(histogram);
  info->level = uint32_t(level);
  info->scaled_level = scaled_level(level, format);
}

template <class Samples>
void histogram_into(DeviceBuffer<uint8_t>& temp, uint32_t* histogram, Samples samples,
                    long long row_samples, long long rows, size_t row_stride_bytes,
                    cudaStream_t stream) {
  size_t bytes = 0;
  CCL_CUDA_CHECK(cub::DeviceHistogram::HistogramEven(
      nullptr, bytes, samples, histogram, 257, 0, 256, row_samples, rows, row_stride_bytes,
      stream));
  temp.reserve(bytes ? bytes : 1);  // a null buffer would mean "query the size"
  CCL_CUDA_CHECK(cub::DeviceHistogram::HistogramEven(
      temp.get(), bytes, samples, histogram, 257, 0, 256, row_samples, rows, row_stride_bytes,
      stream));
}

}  // namespace

Foreground make_foreground(const ImageView& image, const Options& options,
                           const FrameInfo* info) {
  Foreground fg{};
  fg.base = static_cast<const uint8_t*>(image.planes[0]);
  fg.stride = image.strides[0];
  fg.format = image.format;
  if (options.mode == ThresholdMode::Otsu) {
    fg.mode = ThresholdMode::Above;
    fg.level = &info->scaled_level;
  } else {
    fg.mode = options.mode;
    fg.level = nullptr;
    fg.fixed_level = scaled_level(options.threshold, image.format);
  }
  return fg;
}

void OtsuStage::enqueue(const ImageView& image, FrameInfo* info, cudaStream_t stream) {
  histogram_.reserve(256);
  const auto* base = static_cast<const uint8_t*>(image.planes[0]);
  if (luma_bytes_per_pixel(image.format) == 1) {
    // The plane's bytes are luma8 already: CUB reads them directly, rows pitched.
    histogram_into(temp_, histogram_.get(), base, image.width, image.height,
                   image.strides[0], stream);
  } else {
    int shift = 0;
    while ((1ll << shift) < image.width) ++shift;
    auto samples = thrust::make_transform_iterator(
        thrust::make_counting_iterator<long long>(0),
        Luma8At{base, image.strides[0], image.format, shift});
    histogram_into(temp_, histogram_.get(), samples, image.width, image.height,
                   size_t(1) << shift, stream);
  }
  otsu_level_kernel<<<1, 1, 0, stream>>>(histogram_.get(), image.format, info);
  check_launch("otsu_level_kernel");
}

}  // namespace ccl::cuda
