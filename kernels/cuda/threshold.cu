#include "threshold.h"

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_histogram.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include "ccl/luma.h"
#include "ccl/cuda_memory.h"

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

/// Otsu's level with one thread per split t: the lower class's count and sum come
/// from block scans of the histogram, each thread scores its split with the CPU's
/// otsu_score, and an argmax with ties to the smallest t picks the level, so the
/// result is ccl::otsu_level's by construction. A valid split scores at least
/// n0 * n1 > 0 (the class means differ by at least 1), so a best score of 0 means
/// there is no split and the histogram's only value is the level.
constexpr int kOtsuThreads = 256;
static_assert(kOtsuThreads == 256, "one thread per histogram bin");

struct OtsuBest {
  unsigned __int128 score;
  int t;
};

struct BetterSplit {
  __device__ OtsuBest operator()(const OtsuBest& a, const OtsuBest& b) const {
    if (a.score != b.score) return a.score > b.score ? a : b;
    return a.t < b.t ? a : b;
  }
};

__global__ void __launch_bounds__(kOtsuThreads)
    otsu_level_kernel(const uint32_t* histogram, PixelFormat format, FrameInfo* info) {
  using Scan = cub::BlockScan<uint64_t, kOtsuThreads>;
  using Reduce = cub::BlockReduce<OtsuBest, kOtsuThreads>;
  __shared__ union {
    typename Scan::TempStorage scan;
    typename Reduce::TempStorage reduce;
  } temp;
  const int t = threadIdx.x;
  const uint64_t h = histogram[t];
  uint64_t n0, total, sum0, sum_total;
  Scan(temp.scan).InclusiveSum(h, n0, total);
  __syncthreads();
  Scan(temp.scan).InclusiveSum(uint64_t(t) * h, sum0, sum_total);
  __syncthreads();
  OtsuBest mine{0, t};
  if (t < 255) mine.score = otsu_score(n0, sum0, total, sum_total);
  const OtsuBest best = Reduce(temp.reduce).Reduce(mine, BetterSplit{});
  if (t == 0) {
    const int level = best.score != 0 ? best.t : otsu_single_value(histogram);
    info->level = uint32_t(level);
    info->scaled_level = scaled_level(level, format);
  }
}

/// Calls f(samples, row_samples, rows, row_stride_bytes): the luma8 samples of `image`
/// as CUB's pitched histogram reads them.
template <class F>
void with_luma8_samples(const ImageView& image, F&& f) {
  const auto* base = static_cast<const uint8_t*>(image.planes[0]);
  if (luma_bytes_per_pixel(image.format) == 1) {
    // The plane's bytes are luma8 already: CUB reads them directly, rows pitched.
    f(base, image.width, image.height, image.strides[0]);
  } else {
    int shift = 0;
    while ((1ll << shift) < image.width) ++shift;
    auto samples = thrust::make_transform_iterator(
        thrust::make_counting_iterator<long long>(0),
        Luma8At{base, image.strides[0], image.format, shift});
    f(samples, image.width, image.height, size_t(1) << shift);
  }
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

bool OtsuStage::reserve(const ImageView& image) {
  bool moved = histogram_.reserve(256);
  with_luma8_samples(image, [&](auto samples, long long row_samples, long long rows,
                                size_t row_stride_bytes) {
    size_t bytes = 0;
    CCL_CUDA_CHECK(cub::DeviceHistogram::HistogramEven(nullptr, bytes, samples,
                                                       histogram_.get(), 257, 0, 256,
                                                       row_samples, rows, row_stride_bytes));
    moved |= temp_.reserve(bytes ? bytes : 1);  // a null buffer would mean "query the size"
  });
  return moved;
}

void OtsuStage::enqueue(const ImageView& image, FrameInfo* info, cudaStream_t stream) {
  with_luma8_samples(image, [&](auto samples, long long row_samples, long long rows,
                                size_t row_stride_bytes) {
    size_t bytes = temp_.capacity();
    CCL_CUDA_CHECK(cub::DeviceHistogram::HistogramEven(temp_.get(), bytes, samples,
                                                       histogram_.get(), 257, 0, 256,
                                                       row_samples, rows, row_stride_bytes,
                                                       stream));
  });
  otsu_level_kernel<<<1, kOtsuThreads, 0, stream>>>(histogram_.get(), image.format, info);
  check_launch("otsu_level_kernel");
}

}  // namespace ccl::cuda
