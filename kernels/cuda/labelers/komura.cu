// Komura equivalence after Y. Komura, "GPU-based cluster-labeling algorithm without
// the use of conventional iteration" (CPC 2015), and its 8-way form with the reduction
// decision tree of S. Allegretti et al., "Optimizing GPU-based connected components
// labeling algorithms" (IPAS 2018), algorithms 3 and 4.
#include "chain.h"
#include "ccl/cuda_memory.h"
#include "labeler.h"
#include "mask_store.cuh"
#include "segments.cuh"
#include "union_find.cuh"

namespace ccl::cuda {

namespace {

/// Foreground of row y at columns x0-1 .. x0+32 as bits 0..33 (bit 1 + i = column
/// x0 + i), evaluated by the whole warp: lane l reads column x0 + l, lane 0 column
/// x0-1 and, when the row below needs its north-east, lane 31 column x0+32.
template <int Connectivity, class Luma>
__device__ __forceinline__ uint64_t tile_row(const Foreground& fg, const FrameGeometry& geo,
                                             uint32_t level, int x0, int y) {
  const int lane = threadIdx.x;
  const bool in = y >= 0 && y < geo.height;
  const bool p = in && x0 + lane < geo.width && fg.test<Luma>(x0 + lane, y, level);
  bool side = false;
  if (lane == 0)
    side = in && x0 > 0 && fg.test<Luma>(x0 - 1, y, level);
  else if (Connectivity == 8 && lane == 31)
    side = in && x0 + 32 < geo.width && fg.test<Luma>(x0 + 32, y, level);
  const uint32_t cols = __ballot_sync(kFullWarp, p);
  const uint32_t sides = __ballot_sync(kFullWarp, side);
  return (uint64_t(cols) << 1) | (sides & 1u) | (uint64_t(sides >> 31) << 33);
}

/// 32 x kTileRows pixels per block, one warp per row; each pixel is thresholded once
/// (plus a one-pixel halo) and its neighbours come from the rows' ballots in shared
/// memory. Priority by raster index: NW < N < NE < W (Allegretti et al. §III).
template <int Connectivity, class Luma>
__global__ void __launch_bounds__(kWarpSize* kTileRows)
    ke_init_kernel(Foreground fg, FrameGeometry geo, uint32_t* labels, uint64_t* mask,
                   unsigned tiles_x) {
  __shared__ uint64_t rows[kTileRows + 1];  // rows[0]: the row above the tile
  const int lane = threadIdx.x;
  const int ty = threadIdx.y;
  const int x0 = int(blockIdx.x % tiles_x) * 32;
  const int y0 = int(blockIdx.x / tiles_x) * kTileRows;
  const int y = y0 + ty;
  const uint32_t level = fg.load_level();

  const uint64_t own = tile_row<Connectivity, Luma>(fg, geo, level, x0, y);
  if (lane == 0) {
    rows[ty + 1] = own;
    if (y < geo.height) store_mask_half(mask, geo.words, geo.width, y, x0, uint32_t(own >> 1));
  }
  if (ty == 0) {
    const uint64_t halo = tile_row<Connectivity, Luma>(fg, geo, level, x0, y0 - 1);
    if (lane == 0) rows[0] = halo;
  }
  __syncthreads();
  allow_next_grid();  // the little left to do overlaps the next kernel's launch

  const int x = x0 + lane;
  if (y >= geo.height || x >= geo.width) return;
  const uint32_t i = uint32_t(y) * uint32_t(geo.width) + uint32_t(x);
  const uint32_t w = uint32_t(geo.width);
  const uint64_t up = rows[ty];
  const int j = lane + 1;  // this column's bit
  uint32_t label = 0;
  if (bit(own, j)) {
    uint32_t parent = i;
    if (Connectivity == 8 && bit(up, j - 1))
      parent = i - w - 1;
    else if (bit(up, j))
      parent = i - w;
    else if (Connectivity == 8 && bit(up, j + 1))
      parent = i - w + 1;
    else if (bit(own, j - 1))
      parent = i - 1;
    label = parent + 1;
  }
  labels[i] = label;
}

__global__ void __launch_bounds__(kWordBlock) ke_compress_kernel(uint32_t* labels, uint32_t n) {
  wait_for_previous_grid();
  const uint32_t i = blockIdx.x * kWordBlock + threadIdx.x;
  if (i >= n) return;
  const uint32_t label = labels[i];
  if (label == 0) return;
  const uint32_t root = uf_find(labels, label);
  if (root != label) labels[i] = root;
}

/// One thread per 64-bit mask word of rows 1..H-1. The reduction's condition for all
/// 64 pixels at once, as bit operations on the word and its neighbours:
/// 4-way: west and north both foreground (initialization took north, west is missing);
/// 8-way: north background and either NW and NE foreground (unite with NE) or NW
/// background and W foreground (unite with W) -- the three of the sixteen
/// neighbourhoods that no other pixel's initialization covers.
template <int Connectivity>
__global__ void __launch_bounds__(kWordBlock)
    ke_reduce_kernel(FrameGeometry geo, const uint64_t* mask, uint32_t* labels, long long words) {
  wait_for_previous_grid();
  const long long t = (long long)blockIdx.x * kWordBlock + threadIdx.x;
  if (t >= words) return;
  const int y = int(t / geo.words) + 1;
  const int wi = int(t % geo.words);
  const uint64_t* row = mask + size_t(y) * geo.words;
  const uint64_t* above = row - geo.words;
  const uint64_t m = row[wi];
  if (m == 0) return;
  const uint64_t n = above[wi];
  const uint64_t west = (m << 1) | (wi > 0 ? row[wi - 1] >> 63 : 0);
  const uint32_t w = uint32_t(geo.width);
  const uint32_t base = uint32_t(y) * w + 64u * uint32_t(wi);
  if constexpr (Connectivity == 4) {
    for_each_bit(m & west & n, [&](int c) { uf_union(labels, base + c + 1, base + c); });
  } else {
    const uint64_t nw = (n << 1) | (wi > 0 ? above[wi - 1] >> 63 : 0);
    const uint64_t ne = (n >> 1) | (wi + 1 < geo.words ? above[wi + 1] << 63 : 0);
    const uint64_t open_north = m & ~n;
    for_each_bit(open_north & nw & ne,
                 [&](int c) { uf_union(labels, base + c + 1, base + c - w + 2); });
    for_each_bit(open_north & ~nw & west,
                 [&](int c) { uf_union(labels, base + c + 1, base + c); });
  }
}

void ke_initialize(const Foreground& fg, const FrameGeometry& geo, uint32_t* labels,
                   uint64_t* mask, int connectivity, cudaStream_t stream) {
  const unsigned tiles_x = ceil_div(geo.width, 32);
  const unsigned tiles = tiles_x * ceil_div(geo.height, kTileRows);
  const dim3 block(kWarpSize, kTileRows);
  with_luma(fg.format, [&](auto luma) {
    using Luma = decltype(luma);
    if (connectivity == 4)
      ke_init_kernel<4, Luma><<<tiles, block, 0, stream>>>(fg, geo, labels, mask, tiles_x);
    else
      ke_init_kernel<8, Luma><<<tiles, block, 0, stream>>>(fg, geo, labels, mask, tiles_x);
  });
  check_launch("ke_init_kernel");
}

void ke_compress(const FrameGeometry& geo, uint32_t* labels, cudaStream_t stream, bool chained) {
  launch("ke_compress_kernel", ke_compress_kernel, ceil_div(geo.pixels(), kWordBlock), kWordBlock,
         stream, chained, labels, uint32_t(geo.pixels()));
}

void ke_reduce(const FrameGeometry& geo, const uint64_t* mask, uint32_t* labels,
               int connectivity, cudaStream_t stream, bool chained) {
  const long long words = (long long)(geo.height - 1) * geo.words;
  if (words == 0) return;
  const unsigned blocks = ceil_div(size_t(words), kWordBlock);
  launch("ke_reduce_kernel", connectivity == 4 ? ke_reduce_kernel<4> : ke_reduce_kernel<8>, blocks,
         kWordBlock, stream, chained, geo, mask, labels, words);
}

class Komura final : public Labeler {
 public:
  void local(const LabelingFrame& f) const override {
    ke_initialize(f.fg, f.geo, f.labels, f.mask, f.connectivity, f.stream);
  }
  void merge(const LabelingFrame& f) const override {
    ke_compress(f.geo, f.labels, f.stream, f.chained);
    // No second compression: the analysis walks only from run starts, and its walks
    // leave ids behind them, so flattening every pixel first costs more than the few
    // longer walks it would save.
    ke_reduce(f.geo, f.mask, f.labels, f.connectivity, f.stream, f.chained);
  }
};

}  // namespace

template <>
const Labeler& labeler_of<Algorithm::Komura>() {
  static const Komura instance;
  return instance;
}

}  // namespace ccl::cuda
