#include "overlay/overlay_cuda.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <string>

#include "ccl/cuda_memory.h"

namespace ccl::overlay::cuda {

using ccl::cuda::check;
using ccl::cuda::check_launch;

namespace {

// Launch geometry in one place. Rows are walked with a grid-stride loop because a
// frame may be taller than gridDim.y allows (W*H < 2^31, so H can reach 2^31 - 1).
constexpr int kTileX = 32, kTileY = 8;
constexpr int kMarkThreads = 128;
constexpr unsigned kMaxGridY = 65535;

dim3 tile_grid(int width, int height) {
  const unsigned gx = unsigned((width + kTileX - 1) / kTileX);
  const unsigned gy = std::min(unsigned((height + kTileY - 1) / kTileY), kMaxGridY);
  return dim3(gx, gy);
}

// One block per mark or trail segment; its threads share the shape's pixels.
template <typename Shape>
__global__ void rasterize_kernel(const Shape* shapes, uint32_t flags, int width, int height,
                                 uint32_t* owner) {
  const Shape m = shapes[blockIdx.x];
  const uint32_t n = mark_pixel_count(m, flags);
  for (uint32_t i = threadIdx.x; i < n; i += blockDim.x) {
    int x, y;
    if (mark_pixel(m, flags, i, width, height, &x, &y))
      atomicMax(owner + size_t(y) * size_t(width) + size_t(x), m.label);
  }
}

__global__ void draw_luma_kernel(Target t, Scene s) {
  const int x = int(blockIdx.x * blockDim.x + threadIdx.x);
  if (x >= t.width) return;
  for (int y = int(blockIdx.y * blockDim.y + threadIdx.y); y < t.height;
       y += int(gridDim.y * blockDim.y))
    draw_pixel(t, s, x, y);
}

__global__ void draw_chroma_kernel(Target t, Scene s, int cw, int ch) {
  const int cx = int(blockIdx.x * blockDim.x + threadIdx.x);
  if (cx >= cw) return;
  for (int cy = int(blockIdx.y * blockDim.y + threadIdx.y); cy < ch;
       cy += int(gridDim.y * blockDim.y))
    draw_chroma(t, s, cx, cy);
}

}  // namespace

void rasterize_marks(const Mark* d_marks, uint32_t n_marks, const Segment* d_segments,
                     uint32_t n_segments, uint32_t flags, int width, int height,
                     uint32_t* d_owner, cudaStream_t stream) {
  check(cudaMemsetAsync(d_owner, 0, size_t(width) * size_t(height) * sizeof(uint32_t), stream),
        "clearing the mark buffer");
  if (n_marks && (flags & (kBoxes | kCentroids))) {
    rasterize_kernel<<<n_marks, kMarkThreads, 0, stream>>>(d_marks, flags, width, height,
                                                           d_owner);
    check_launch("rasterize_kernel (marks)");
  }
  // Segments whatever the flags: the caller lists only those asked for (trails, event
  // shapes), as on the host.
  if (n_segments) {
    rasterize_kernel<<<n_segments, kMarkThreads, 0, stream>>>(d_segments, flags, width, height,
                                                              d_owner);
    check_launch("rasterize_kernel (segments)");
  }
}

void draw(const Target& d_target, const Scene& d_scene, cudaStream_t stream) {
  const dim3 block(kTileX, kTileY);
  draw_luma_kernel<<<tile_grid(d_target.width, d_target.height), block, 0, stream>>>(d_target,
                                                                                     d_scene);
  check_launch("draw_luma_kernel");
  if (!has_chroma(d_target.format)) return;
  const int cw = chroma_width(d_target.width), ch = chroma_height(d_target.height);
  draw_chroma_kernel<<<tile_grid(cw, ch), block, 0, stream>>>(d_target, d_scene, cw, ch);
  check_launch("draw_chroma_kernel");
}

}  // namespace ccl::overlay::cuda
