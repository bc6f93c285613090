#include "local_threshold.h"

#include "ccl/luma.h"
#include "chain.h"
#include "geometry.h"

namespace ccl::cuda {

namespace {

constexpr int kRowThreads = 256;
/// Columns read on either side of a tile: more than the largest radius.
constexpr int kHalo = 128;
static_assert(kHalo > local::kMaxRadius, "a window must fit in the span");

/// Pass 1's shape for kCols columns per thread. 8 (a block per 2048 columns of a row):
/// the 1080 blocks of a 1080p frame nearly all fit on the GPU at once, where blocks of
/// 1024 columns took three rounds, and the halo is an eighth of the span instead of a
/// fifth.
template <int kCols>
struct RowShape {
  static constexpr int kTile = kCols * kRowThreads;  // columns whose sums a block writes
  static constexpr int kSpan = kTile + 2 * kHalo;
  static constexpr int kPerThread = kSpan / kRowThreads;
  static_assert(kSpan % kRowThreads == 0, "each thread scans the same number of columns");
  static_assert(kCols == 8, "stores of 16 bytes of sums");
};

/// Pass 2's block: kColumnWarps warps stacked down a tile of columns (a lane takes two
/// columns, so a warp reads 128 contiguous bytes per row).
constexpr int kColumnWarps = 16;
constexpr int kColumnThreads = kColumnWarps * kWarpSize;

/// Pass 1: row window sums and luma of kCols * kRowThreads columns of one row. The
/// span's luma goes through a block-wide prefix sum in shared memory, so a window sum
/// is the difference of two prefixes. A 1D grid over (row, tile): any height fits.
template <class Luma, int kCols>
__global__ void __launch_bounds__(kRowThreads)
    row_sums_kernel(const uint8_t* frame, size_t stride, int width, unsigned tiles, int radius,
                    uint16_t* sums, size_t sums_pitch, uint8_t* luma_out, size_t luma_pitch) {
  using Shape = RowShape<kCols>;
  constexpr int kSpan = Shape::kSpan, kSpanPerThread = Shape::kPerThread;
  __shared__ __align__(16) uint8_t luma[kSpan];
  __shared__ uint32_t prefix[kSpan + 1];  // prefix[i]: sum of luma[0 .. i-1]
  __shared__ uint32_t warp_sums[kRowThreads / kWarpSize];
  const int y = int(blockIdx.x / tiles);
  const int x0 = int(blockIdx.x - unsigned(y) * tiles) * Shape::kTile, base = x0 - kHalo;
  const uint8_t* row = frame + size_t(y) * stride;
  // Coalesced loads; columns outside the frame repeat its edge (BORDER_REPLICATE).
  for (int k = 0; k < kSpanPerThread; ++k) {
    const int e = threadIdx.x + k * kRowThreads;
    luma[e] = uint8_t(local::luma_byte<Luma>(row, min(max(base + e, 0), width - 1)));
  }
  __syncthreads();
  // Each thread scans kSpanPerThread consecutive values: its total, the warp's
  // inclusive scan of the totals, then the warps' totals before it.
  const int first = threadIdx.x * kSpanPerThread;
  const int lane = threadIdx.x % kWarpSize, warp = threadIdx.x / kWarpSize;
  uint32_t own = 0;
  for (int k = 0; k < kSpanPerThread; ++k) own += luma[first + k];
  uint32_t inclusive = own;
  for (int d = 1; d < kWarpSize; d *= 2) {
    const uint32_t v = __shfl_up_sync(kFullWarp, inclusive, d);
    if (lane >= d) inclusive += v;
  }
  if (lane == kWarpSize - 1) warp_sums[warp] = inclusive;
  __syncthreads();
  uint32_t running = inclusive - own;
  for (int w = 0; w < warp; ++w) running += warp_sums[w];
  if (threadIdx.x == 0) prefix[0] = 0;
  for (int k = 0; k < kSpanPerThread; ++k) {
    running += luma[first + k];
    prefix[first + k + 1] = running;
  }
  __syncthreads();
  allow_next_grid();  // a column pass chained to this one may be scheduled (chain.h)

  const int x = x0 + kCols * threadIdx.x;
  if (x >= width) return;
  const int e = kHalo + kCols * threadIdx.x;  // span index of column x
  // Two columns' sums (each at most 255 * 255) per word, four columns' luma per word.
  uint32_t s[kCols / 2], l[kCols / 4];
#pragma unroll
  for (int k = 0; k < kCols / 2; ++k) {
    const int c = e + 2 * k;
    s[k] = (prefix[c + radius + 1] - prefix[c - radius]) |
           ((prefix[c + radius + 2] - prefix[c + 1 - radius]) << 16);
  }
  // Columns past the width hold the edge's luma in the span; the mask's padding gets 0.
#pragma unroll
  for (int k = 0; k < kCols / 4; ++k) {
    const int valid = width - x - 4 * k;
    const uint32_t v = *reinterpret_cast<const uint32_t*>(luma + e + 4 * k);
    l[k] = valid >= 4 ? v : valid <= 0 ? 0u : v & ((1u << (8 * valid)) - 1u);
  }
  uint16_t* sums_out = sums + size_t(y) * sums_pitch + x;
  uint8_t* mask_out = luma_out + size_t(y) * luma_pitch + x;
  // The sums' pitch is a multiple of 64 columns; the mask's only of 4 bytes, so its
  // words go one by one, none past the one that holds the last column.
  if constexpr (kCols == 4) {
    *reinterpret_cast<uint2*>(sums_out) = make_uint2(s[0], s[1]);
  } else {
    *reinterpret_cast<uint4*>(sums_out) = make_uint4(s[0], s[1], s[2], s[3]);
  }
#pragma unroll
  for (int k = 0; k < kCols / 4; ++k)
    if (k == 0 || x + 4 * k < width) reinterpret_cast<uint32_t*>(mask_out)[k] = l[k];
}

/// Pass 2: a block per 64 columns of a tile of kColumnWarps * kRows rows. The warps
/// share the sum of the tile's first window and each adds up how its kRows rows change
/// the window (rows in minus rows out), so a warp's first window is the shared sum
/// plus the changes of the warps above it; then each slides down its rows. Rows outside
/// the frame repeat its first or last (clamped indices, as the CPU). Sums are uint32
/// and may wrap in the changes: the window sums themselves are exact (< 2^24).
///  - The tile's first window costs no reads of its own. Warp w reads the rows that
///    leave its windows anyway (ys - r .. ys - r + kRows - 1, to slide), so the tile
///    reads rows y0 - r .. y0 - r + tile - 1 that way, and the first window, rows
///    y0 - r .. y0 + r, is the first 2r + 1 of them. The host picks the smallest kRows
///    whose tile is a window tall; a shorter tile would read the window's rows past
///    its own, every kColumnWarps-th to a warp.
///  - The luma of all the warp's rows is loaded with the first sums, before anything
///    waits: it sits in the mask that the thread overwrites later, so a load after a
///    store could not be moved ahead of it, and each row would wait for memory. (The
///    region is another buffer than the mask, __restrict__ says so: its loads may move
///    ahead of the stores.)
/// Taller tiles read the sums that slide the window again after the barrier (the same
/// thread's loads of a moment before, from L1) rather than keep them: 2 kRows more
/// registers would cost resident blocks. Each row of sums thus comes from L2 twice
/// (in and out) whatever the block size. Launched chained to the row pass (chain.h)
/// where the device can, so that its blocks are scheduled while the row pass ends.
template <int kRows>
__global__ void __launch_bounds__(kColumnThreads, 2)
    column_tile_kernel(const uint16_t* sums, size_t sums_pitch, int width, int height,
                       unsigned column_blocks, local::Params p,
                       const uint8_t* __restrict__ region, uint8_t* __restrict__ mask,
                       size_t pitch) {
  wait_for_previous_grid();  // the row pass's sums and luma (launched chained to it)
  constexpr int kTile = kColumnWarps * kRows;
  constexpr int kKept = kRows <= 4 ? kRows : 1;  // sums kept in registers to slide with
  __shared__ uint2 shares[kColumnWarps][kWarpSize];   // each warp's part of the first window
  __shared__ uint2 changes[kColumnWarps][kWarpSize];  // each warp's in minus out
  const int lane = threadIdx.x % kWarpSize, warp = threadIdx.x / kWarpSize;
  const int y0 = int(blockIdx.x / column_blocks) * kTile;
  const int x = 2 * int((blockIdx.x % column_blocks) * kWarpSize + lane);
  const int r = p.radius, last = height - 1, ys = y0 + warp * kRows;
  const bool inside = x < width;  // lanes past the width read nothing but stay for the barrier
  // The row sums of columns x and x + 1 as words of a plane, indexed in 32 bits (a
  // frame has fewer than 2^31 pixels): fewer registers per load in flight.
  const uint32_t* column = reinterpret_cast<const uint32_t*>(sums + x);
  const uint32_t words = uint32_t(sums_pitch / 2);
  auto row_sums = [&](int row) {
    row = min(max(row, 0), last);
    return inside ? __ldg(column + uint32_t(row) * words) : 0u;
  };
  // The warp's rows inside the frame; bytes x and x + 1 of the k-th at mine + k * pitch.
  const int rows = inside ? min(kRows, height - ys) : 0;
  uint8_t* mine = mask + size_t(ys) * pitch + x;
  uint32_t luma[kRows / 2];  // two rows' pairs of bytes per word
#pragma unroll
  for (int k = 0; k < kRows; k += 2) {
    const uint32_t l0 = k < rows ? *reinterpret_cast<const uint16_t*>(mine + k * pitch) : 0u;
    const uint32_t l1 = k + 1 < rows ? *reinterpret_cast<const uint16_t*>(mine + (k + 1) * pitch) : 0u;
    luma[k / 2] = l0 | (l1 << 16);
  }
  // a, b: this warp's share of the first window of columns x and x + 1 (the tile's
  // leaving rows whose index among them is under 2r + 1); da, db: how the warp's rows
  // change the window.
  const int window = 2 * r + 1;
  uint32_t a = 0, b = 0, da = 0, db = 0;
  uint32_t kept_in[kKept], kept_gone[kKept];
#pragma unroll
  for (int k = 0; k < kRows; ++k) {
    const uint32_t gone = row_sums(ys + k - r), in = row_sums(ys + k + r + 1);
    if (k < kKept) {
      kept_in[k] = in;
      kept_gone[k] = gone;
    }
    if (warp * kRows + k < window) {
      a += gone & 0xffffu;
      b += gone >> 16;
    }
    da += (in & 0xffffu) - (gone & 0xffffu);
    db += (in >> 16) - (gone >> 16);
  }
  // The window's rows past the tile's leaving rows (only when the tile is shorter
  // than a window); unrolled so that several loads are in flight at once.
#pragma unroll 4
  for (int j = y0 - r + kTile + warp; j <= y0 + r; j += kColumnWarps) {
    const uint32_t w = row_sums(j);
    a += w & 0xffffu;
    b += w >> 16;
  }
  shares[warp][lane] = make_uint2(a, b);
  changes[warp][lane] = make_uint2(da, db);
  __syncthreads();
  a = b = 0;
#pragma unroll
  for (int w = 0; w < kColumnWarps; ++w) {
    const uint2 s = shares[w][lane], c = changes[w][lane];
    a += s.x + (w < warp ? c.x : 0u);
    b += s.y + (w < warp ? c.y : 0u);
  }
  const bool second = x + 1 < width;
#pragma unroll
  for (int k = 0; k < kRows; ++k) {
    if (k >= rows) break;
    const uint32_t l = k % 2 ? luma[k / 2] >> 16 : luma[k / 2] & 0xffffu;
    uint32_t out = local::is_foreground(l & 0xffu, local::window_mean(a, x, p), p) ? 1u : 0u;
    if (second && local::is_foreground(l >> 8, local::window_mean(b, x + 1, p), p)) out |= 0x100u;
    if (region) out &= *reinterpret_cast<const uint16_t*>(region + size_t(ys + k) * pitch + x);
    *reinterpret_cast<uint16_t*>(mine + k * pitch) = uint16_t(out);
    const uint32_t gone = k < kKept ? kept_gone[k] : row_sums(ys + k - r);
    const uint32_t in = k < kKept ? kept_in[k] : row_sums(ys + k + r + 1);
    a += (in & 0xffffu) - (gone & 0xffffu);
    b += (in >> 16) - (gone >> 16);
  }
}

/// column_tile_kernel's rows per warp for radius r: the smallest tile of at least a
/// window's 2r + 1 rows (64, 128 or 256).
int warp_rows(int radius) {
  const int window = 2 * radius + 1;
  return window <= 4 * kColumnWarps ? 4 : window <= 8 * kColumnWarps ? 8 : 16;
}

}  // namespace

size_t LocalThreshold::sums_pitch(int width) { return (size_t(width) + 63) / 64 * 64; }

bool LocalThreshold::reserve(const ImageView& image) {
  if (can_chain_ < 0) {
    int device = 0, major = 0;
    CCL_CUDA_CHECK(cudaGetDevice(&device));
    CCL_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    can_chain_ = major >= 9 ? 1 : 0;
  }
  return sums_.reserve(sums_pitch(image.width) * size_t(image.height),
                       "cudaMalloc (local threshold sums)");
}

void LocalThreshold::enqueue(const ImageView& image, const Options& options,
                             const uint8_t* region, uint8_t* mask, size_t pitch,
                             cudaStream_t stream) {
  const int w = image.width, h = image.height;
  const local::Params p = local::params(options.local, options.mode, w);
  const size_t sp = sums_pitch(w);
  with_luma(image.format, [&](auto luma) {
    using Luma = decltype(luma);
    const uint8_t* plane = static_cast<const uint8_t*>(image.planes[0]);
    const unsigned tiles = ceil_div(size_t(w), RowShape<8>::kTile);
    row_sums_kernel<Luma, 8><<<tiles * unsigned(h), kRowThreads, 0, stream>>>(
        plane, image.strides[0], w, tiles, p.radius, sums_.get(), sp, mask, pitch);
  });
  check_launch("local row_sums_kernel");
  const unsigned column_blocks = ceil_div(ceil_div(size_t(w), 2), kWarpSize);
  const int rows = warp_rows(p.radius);
  const unsigned blocks =
      column_blocks * ceil_div(size_t(h), size_t(kColumnWarps) * size_t(rows));
  const bool chained = can_chain_ > 0;
  auto start = [&](auto kernel) {
    launch("local column_tile_kernel", kernel, dim3(blocks), dim3(kColumnThreads), stream,
           chained, static_cast<const uint16_t*>(sums_.get()), sp, w, h, column_blocks, p,
           region, mask, pitch);
  };
  if (rows == 4) start(column_tile_kernel<4>);
  else if (rows == 8) start(column_tile_kernel<8>);
  else start(column_tile_kernel<16>);
}

void LocalThreshold::poison(int byte, int width, int height, cudaStream_t stream) {
  sums_.fill_bytes(byte, sums_pitch(width) * size_t(height), stream);
}

}  // namespace ccl::cuda
