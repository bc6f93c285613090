#include "backend/mask_cuda.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>

namespace ccl::plugin::mask_cuda {

using ccl::cuda::check_copy;
using ccl::cuda::check_launch;

namespace {

// One thread per pixel of a row, 32 columns by 8 rows per block; rows are walked with
// a grid-stride loop because a rectangle may be taller than gridDim.y allows
// (W*H < 2^31, so H can reach 2^31 - 1).
constexpr int kTileX = 32, kTileY = 8;
constexpr unsigned kMaxGridY = 65535;

template <typename T>
__global__ void mask_kernel(const uint32_t* __restrict__ labels, int frame_width,
                            const uint32_t* __restrict__ ids, uint32_t n_ids, int x, int y,
                            int width, int height, T* __restrict__ mask) {
  const int c = int(blockIdx.x * blockDim.x + threadIdx.x);
  if (c >= width) return;
  for (int r = int(blockIdx.y * blockDim.y + threadIdx.y); r < height;
       r += int(gridDim.y * blockDim.y)) {
    const uint32_t l = labels[size_t(y + r) * size_t(frame_width) + size_t(x + c)];
    mask[size_t(r) * size_t(width) + size_t(c)] = T(l < n_ids ? ids[l] : 0u);
  }
}

}  // namespace

void launch(const uint32_t* d_labels, int frame_width, const uint32_t* d_ids, uint32_t n_ids,
            int x, int y, int width, int height, int bytes_per_pixel, uint8_t* d_mask,
            cudaStream_t stream) {
  if (width <= 0 || height <= 0) return;
  const dim3 block(kTileX, kTileY);
  const dim3 grid(unsigned((width + kTileX - 1) / kTileX),
                  std::min(unsigned((height + kTileY - 1) / kTileY), kMaxGridY));
  if (bytes_per_pixel == 1) {
    mask_kernel<uint8_t><<<grid, block, 0, stream>>>(d_labels, frame_width, d_ids, n_ids, x, y,
                                                     width, height, d_mask);
    check_launch("mask_kernel (8 bits)");
  } else {
    // DeviceBuffer<uint8_t> comes from cudaMalloc: aligned for any element type.
    mask_kernel<uint16_t><<<grid, block, 0, stream>>>(d_labels, frame_width, d_ids, n_ids, x, y,
                                                      width, height,
                                                      reinterpret_cast<uint16_t*>(d_mask));
    check_launch("mask_kernel (16 bits)");
  }
}

void MaskWriter::write(const uint32_t* d_labels, int frame_width, const uint32_t* ids,
                       size_t n_ids, int x, int y, int width, int height, int bytes_per_pixel,
                       uint8_t* mask, size_t stride, cudaStream_t stream) {
  if (width <= 0 || height <= 0) return;
  const size_t row_bytes = size_t(width) * size_t(bytes_per_pixel);
  // The id table through pinned memory, so that its copy stays asynchronous.
  ids_staging_.reserve(n_ids, "cudaHostAlloc (mask id table)");
  ids_.reserve(n_ids, "cudaMalloc (mask id table)");
  rect_.reserve(row_bytes * size_t(height), "cudaMalloc (mask rectangle)");
  std::memcpy(ids_staging_.get(), ids, n_ids * sizeof(uint32_t));
  check_copy(cudaMemcpyAsync(ids_.get(), ids_staging_.get(), n_ids * sizeof(uint32_t),
                             cudaMemcpyHostToDevice, stream),
             "cudaMemcpyAsync (mask id table)");
  launch(d_labels, frame_width, ids_.get(), uint32_t(n_ids), x, y, width, height,
         bytes_per_pixel, rect_.get(), stream);
  // Straight into the caller's rows: the mask is a plain GstBuffer in pageable memory,
  // which the driver stages itself; the stream is waited for below either way.
  check_copy(cudaMemcpy2DAsync(mask, stride, rect_.get(), row_bytes, row_bytes, size_t(height),
                               cudaMemcpyDeviceToHost, stream),
             "cudaMemcpy2DAsync (mask rectangle)");
  ccl::cuda::check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (mask)");
}

}  // namespace ccl::plugin::mask_cuda
