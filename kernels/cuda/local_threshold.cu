#include "local_threshold.h"

#include "ccl/luma.h"
#include "geometry.h"

namespace ccl::cuda {

namespace {

constexpr int kRowThreads = 256;
/// Columns whose row sums one block writes: four per thread.
constexpr int kRowTile = 4 * kRowThreads;
/// Columns read on either side of a tile: more than the largest radius.
constexpr int kHalo = 128;
constexpr int kSpan = kRowTile + 2 * kHalo;
constexpr int kSpanPerThread = kSpan / kRowThreads;
static_assert(kSpan % kRowThreads == 0, "each thread scans the same number of columns");
static_assert(kHalo > local::kMaxRadius, "a window must fit in the span");

/// Pass 2's block: kColumnWarps warps stacked down a tile of columns (a lane takes two
/// columns, so a warp reads 128 contiguous bytes per row), each warp kColumnRows rows.
/// Short runs and a 64-row tile leave ~250k threads at 1080p (the old strips: ~35k).
constexpr int kColumnWarps = 16;
constexpr int kColumnRows = 4;
constexpr int kColumnTile = kColumnWarps * kColumnRows;
constexpr int kColumnThreads = kColumnWarps * kWarpSize;

/// Pass 1: row window sums and luma of kRowTile columns of one row. The span's luma
/// goes through a block-wide prefix sum in shared memory, so a window sum is the
/// difference of two prefixes. A 1D grid over (row, tile): any height fits.
template <class Luma>
__global__ void __launch_bounds__(kRowThreads)
    row_sums_kernel(const uint8_t* frame, size_t stride, int width, unsigned tiles, int radius,
                    uint16_t* sums, size_t sums_pitch, uint8_t* luma_out, size_t luma_pitch) {
  __shared__ __align__(4) uint8_t luma[kSpan];
  __shared__ uint32_t prefix[kSpan + 1];  // prefix[i]: sum of luma[0 .. i-1]
  __shared__ uint32_t warp_sums[kRowThreads / kWarpSize];
  const int y = int(blockIdx.x / tiles);
  const int x0 = int(blockIdx.x - unsigned(y) * tiles) * kRowTile, base = x0 - kHalo;
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

  const int x = x0 + 4 * threadIdx.x;
  if (x >= width) return;
  const int e = kHalo + 4 * threadIdx.x;  // span index of column x
  uint32_t s[4];
#pragma unroll
  for (int k = 0; k < 4; ++k) s[k] = prefix[e + k + radius + 1] - prefix[e + k - radius];
  *reinterpret_cast<uint2*>(sums + size_t(y) * sums_pitch + x) =
      make_uint2(s[0] | (s[1] << 16), s[2] | (s[3] << 16));
  // Columns past the width hold the edge's luma in the span; the mask's padding gets 0.
  uint32_t l = *reinterpret_cast<const uint32_t*>(luma + e);
  const int valid = width - x;
  if (valid < 4) l &= (1u << (8 * valid)) - 1u;
  *reinterpret_cast<uint32_t*>(luma_out + size_t(y) * luma_pitch + x) = l;
}

/// Pass 2: kColumnTile rows of 64 columns per block. The warps share the sum of the
/// tile's first window (each takes every kColumnWarps-th row of it) and each adds up
/// how its kColumnRows rows change the window (rows in minus rows out, reads it keeps
/// to slide with), so a warp's first window is the shared sum plus the changes of the
/// warps above it: per thread about 2r / kColumnWarps + 2 * kColumnRows reads, and
/// no serial walk down a long strip. Rows outside the frame repeat its first or last
/// (clamped indices, as the CPU). Sums are uint32 and may wrap in the changes: the
/// window sums themselves are exact (< 2^24). Reads the luma that pass 1 left in the
/// mask and overwrites it with the decision (and the region).
__global__ void __launch_bounds__(kColumnThreads)
    column_kernel(const uint16_t* sums, size_t sums_pitch, int width, int height,
                  unsigned column_blocks, local::Params p, const uint8_t* region,
                  uint8_t* mask, size_t pitch) {
  __shared__ uint2 shares[kColumnWarps][kWarpSize];   // each warp's part of the first window
  __shared__ uint2 changes[kColumnWarps][kWarpSize];  // each warp's in minus out
  const int lane = threadIdx.x % kWarpSize, warp = threadIdx.x / kWarpSize;
  const int y0 = int(blockIdx.x / column_blocks) * kColumnTile;
  const int x = 2 * int((blockIdx.x % column_blocks) * kWarpSize + lane);
  const int r = p.radius, last = height - 1, ys = y0 + warp * kColumnRows;
  // Lanes past the width read nothing but stay for the barrier.
  const bool inside = x < width;
  auto row_sums = [&](int row) {  // the row sums of columns x and x + 1
    row = min(max(row, 0), last);
    return inside ? __ldg(reinterpret_cast<const uint32_t*>(sums + size_t(row) * sums_pitch + x))
                  : 0u;
  };
  uint32_t a = 0, b = 0;  // window sums of columns x and x + 1
  for (int j = y0 - r + warp; j <= y0 + r; j += kColumnWarps) {
    const uint32_t w = row_sums(j);
    a += w & 0xffffu;
    b += w >> 16;
  }
  uint32_t in[kColumnRows], gone[kColumnRows], da = 0, db = 0;
#pragma unroll
  for (int k = 0; k < kColumnRows; ++k) {
    in[k] = row_sums(ys + k + r + 1);
    gone[k] = row_sums(ys + k - r);
    da += (in[k] & 0xffffu) - (gone[k] & 0xffffu);
    db += (in[k] >> 16) - (gone[k] >> 16);
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
  if (!inside) return;
  const bool second = x + 1 < width;
#pragma unroll
  for (int k = 0; k < kColumnRows; ++k) {
    const int y = ys + k;
    if (y >= height) break;
    uint16_t* m = reinterpret_cast<uint16_t*>(mask + size_t(y) * pitch + x);
    const uint32_t l = *m;
    uint32_t out = local::is_foreground(l & 0xffu, local::window_mean(a, x, p), p) ? 1u : 0u;
    if (second && local::is_foreground(l >> 8, local::window_mean(b, x + 1, p), p)) out |= 0x100u;
    if (region) out &= *reinterpret_cast<const uint16_t*>(region + size_t(y) * pitch + x);
    *m = uint16_t(out);
    a += (in[k] & 0xffffu) - (gone[k] & 0xffffu);
    b += (in[k] >> 16) - (gone[k] >> 16);
  }
}

}  // namespace

size_t LocalThreshold::sums_pitch(int width) { return (size_t(width) + 63) / 64 * 64; }

bool LocalThreshold::reserve(const ImageView& image) {
  return sums_.reserve(sums_pitch(image.width) * size_t(image.height),
                       "cudaMalloc (local threshold sums)");
}

void LocalThreshold::enqueue(const ImageView& image, const Options& options,
                             const uint8_t* region, uint8_t* mask, size_t pitch,
                             cudaStream_t stream) {
  const int w = image.width, h = image.height;
  const local::Params p = local::params(options.local, options.mode, w);
  const size_t sp = sums_pitch(w);
  const unsigned tiles = ceil_div(size_t(w), kRowTile);
  with_luma(image.format, [&](auto luma) {
    row_sums_kernel<decltype(luma)><<<tiles * unsigned(h), kRowThreads, 0, stream>>>(
        static_cast<const uint8_t*>(image.planes[0]), image.strides[0], w, tiles, p.radius,
        sums_.get(), sp, mask, pitch);
  });
  check_launch("local row_sums_kernel");
  const unsigned column_blocks = ceil_div(ceil_div(size_t(w), 2), kWarpSize);
  const unsigned tiles_down = ceil_div(size_t(h), kColumnTile);
  column_kernel<<<column_blocks * tiles_down, kColumnThreads, 0, stream>>>(
      sums_.get(), sp, w, h, column_blocks, p, region, mask, pitch);
  check_launch("local column_kernel");
}

void LocalThreshold::poison(int byte, int width, int height, cudaStream_t stream) {
  sums_.fill_bytes(byte, sums_pitch(width) * size_t(height), stream);
}

}  // namespace ccl::cuda
