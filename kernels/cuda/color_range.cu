#include "color_range.h"

#include "../src/color_range.h"
#include "ccl/cuda_memory.h"
#include "geometry.h"

namespace ccl::cuda {

namespace {

/// One factor table entry per thread fills the tables: the block must have 256.
constexpr int kColorBlock = 256;
/// Mask bytes per thread, written as one word.
constexpr int kPixelsPerThread = 4;

/// Four neighbouring pixels of a row per thread, one 32-bit mask word. HSV needs two
/// divisions per pixel; OpenCV's rounding of them is what the tables hold, so each
/// block builds them in shared memory (one entry per thread, once) and the pixels
/// only multiply.
template <class Reader>
__global__ void __launch_bounds__(kColorBlock)
    color_range_kernel(color::Planes frame, int width, int height, unsigned words_per_row,
                       color::Range range, const uint8_t* region, uint8_t* mask, size_t pitch) {
  __shared__ int32_t saturation[256], hue[256];
  saturation[threadIdx.x] = color::saturation_factor(int32_t(threadIdx.x));
  hue[threadIdx.x] = color::hue_factor(int32_t(threadIdx.x));
  __syncthreads();
  // A 1D grid over the rows' words: any height fits (a 2D grid stops at 65535 rows).
  const size_t word = size_t(blockIdx.x) * kColorBlock + threadIdx.x;
  const int y = int(word / words_per_row);
  if (y >= height) return;
  const int x0 = kPixelsPerThread * int(word - size_t(y) * words_per_row);
  uint32_t out = 0;
#pragma unroll
  for (int k = 0; k < kPixelsPerThread; ++k) {
    const int x = x0 + k;
    if (x >= width) break;
    if (color::classify<Reader>(frame, x, y, range, saturation, hue)) out |= 1u << (8 * k);
  }
  const size_t o = size_t(y) * pitch + x0;
  if (region) out &= *reinterpret_cast<const uint32_t*>(region + o);  // bytes 0 or 1
  *reinterpret_cast<uint32_t*>(mask + o) = out;
}

}  // namespace

void enqueue_color_range(const ImageView& image, const ColorOptions& options,
                         const uint8_t* region, uint8_t* mask, size_t pitch,
                         cudaStream_t stream) {
  const unsigned words_per_row = ceil_div(size_t(image.width), kPixelsPerThread);
  const size_t words = size_t(words_per_row) * size_t(image.height);
  const color::Planes planes = color::planes_of(image);
  const color::Range range = color::make_range(options);
  color::with_reader(image.format, [&](auto reader) {
    color_range_kernel<decltype(reader)><<<ceil_div(words, kColorBlock), kColorBlock, 0, stream>>>(
        planes, image.width, image.height, words_per_row, range, region, mask, pitch);
  });
  check_launch("color_range_kernel");
}

}  // namespace ccl::cuda
