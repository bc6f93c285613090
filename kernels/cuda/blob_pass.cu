// The blob pass (blob_pass.h): warps walk down bands of the output label image, a lane
// per column, with the labels around each pixel in registers and shuffles (blob_kernel
// says how), the sums of each lane's current component in registers, and the block's
// components in shared-memory slots before they reach the table. The bands reach one
// column and one row past the frame, since the Euler number counts every 2x2 window
// that meets the frame, by its bottom-right pixel.
#include "blob_pass.h"

#include <algorithm>
#include <climits>

#include "../src/blob_math.h"
#include "ccl/luma.h"
#include "chain.h"

namespace ccl::cuda {

namespace {

constexpr int kBlobWarps = 8;
constexpr int kBlobThreads = kBlobWarps * kWarpSize;
/// Columns on each side of a warp's own that it reads, and the columns it owns.
constexpr int kMargin = 2;
constexpr int kOwnedColumns = kWarpSize - 2 * kMargin;
/// Rows of a band: at least the few that fill the device, at most what keeps a lane's
/// sums within 32 bits (group_sums).
constexpr int kMinBandRows = 16;
constexpr int kMaxBandRows = 128;
/// Rows whose labels and luma a lane has loaded ahead of the row it works on.
constexpr int kAhead = 4;
/// Rows between the checks of the block's slots.
constexpr int kFlushRows = 16;
/// Components a block sums in shared memory at once; the slots are given back (flushed
/// to the table) when more than half of them are taken.
constexpr int kSlots = 256;
/// Blocks an SM holds at once (the register budget follows), and the warps per SM the
/// grid aims at.
constexpr int kBlobBlocksPerSm = 5;
constexpr int kWarpsPerSm = kBlobBlocksPerSm * kBlobWarps;

using ull = unsigned long long;

/// One warp group's (or one slot's) sums, as the table's Blob holds them.
struct Sums {
  ull sum, sum_sq, channel[3];
  uint32_t min, max, perimeter[3];
  int euler;
};

__device__ void add_to_table(Blob& b, const Sums& s, uint32_t properties) {
  if (properties & kPropertyIntensity) {
    atomicAdd(reinterpret_cast<ull*>(&b.intensity_sum), s.sum);
    atomicAdd(reinterpret_cast<ull*>(&b.intensity_sum_sq), s.sum_sq);
    atomicMin(&b.intensity_min, s.min);
    atomicMax(&b.intensity_max, s.max);
  }
  if (properties & kPropertyColor)
    for (int k = 0; k < 3; ++k) atomicAdd(reinterpret_cast<ull*>(&b.channel_sum[k]), s.channel[k]);
  if (properties & kPropertyPerimeter)
    for (int k = 0; k < 3; ++k)
      if (s.perimeter[k]) atomicAdd(&b.perimeter_counts[k], s.perimeter[k]);
  if (properties & kPropertyEuler && s.euler) atomicAdd(&b.euler, s.euler);
}

/// v into the 64-bit sum kept as two 32-bit words: shared memory adds 32-bit words
/// natively, and 64-bit ones in a compare-and-swap loop that every warp of the block
/// contends for when they meet the same component.
__device__ __forceinline__ void add_wide(uint32_t& lo, uint32_t& hi, ull v) {
  const uint32_t low = uint32_t(v), high = uint32_t(v >> 32);
  const uint32_t old = atomicAdd(&lo, low);
  const uint32_t carry = old + low < old ? 1u : 0u;  // the low word wrapped
  if (high + carry) atomicAdd(&hi, high + carry);
}

struct Slots {
  uint32_t id[kSlots];
  // 64-bit sums as low and high words (add_wide).
  uint32_t sum[2][kSlots], sum_sq[2][kSlots], channel[3][2][kSlots];
  uint32_t min[kSlots], max[kSlots], perimeter[3][kSlots];
  int euler[kSlots];
  uint32_t taken;

  __device__ void clear(int s) {
    id[s] = 0;
    sum[0][s] = sum[1][s] = sum_sq[0][s] = sum_sq[1][s] = 0;
    min[s] = UINT_MAX;
    max[s] = 0;
    euler[s] = 0;
    for (int k = 0; k < 3; ++k) channel[k][0][s] = channel[k][1][s] = perimeter[k][s] = 0;
  }
  __device__ ull wide(const uint32_t (&w)[2][kSlots], int s) const {
    return ull(w[1][s]) << 32 | w[0][s];
  }

  /// The slot of component `id` (taken now if free), or -1 when both of its places
  /// belong to others.
  __device__ int find(uint32_t cid) {
    int s = int(cid & (kSlots - 1));
    for (int probe = 0; probe < 2; ++probe, s = (s + kSlots / 2) & (kSlots - 1)) {
      const uint32_t owner = atomicCAS(&id[s], 0u, cid);
      if (owner == cid) return s;
      if (owner == 0) {
        atomicAdd(&taken, 1u);
        return s;
      }
    }
    return -1;
  }

  __device__ void add(int s, const Sums& v, uint32_t properties) {
    if (properties & kPropertyIntensity) {
      add_wide(sum[0][s], sum[1][s], v.sum);
      add_wide(sum_sq[0][s], sum_sq[1][s], v.sum_sq);
      atomicMin(&min[s], v.min);
      atomicMax(&max[s], v.max);
    }
    if (properties & kPropertyColor)
      for (int k = 0; k < 3; ++k) add_wide(channel[k][0][s], channel[k][1][s], v.channel[k]);
    if (properties & kPropertyPerimeter)
      for (int k = 0; k < 3; ++k) atomicAdd(&perimeter[k][s], v.perimeter[k]);
    if (v.euler) atomicAdd(&euler[s], v.euler);
  }

  /// By the whole block: every slot's sums to the table, and the slots freed.
  __device__ void flush(Blob* table, uint32_t properties, int thread) {
    for (int s = thread; s < kSlots; s += kBlobThreads) {
      if (id[s] == 0) continue;
      Sums v;
      v.sum = wide(sum, s);
      v.sum_sq = wide(sum_sq, s);
      v.min = min[s];
      v.max = max[s];
      v.euler = euler[s];
      for (int k = 0; k < 3; ++k) {
        v.channel[k] = wide(channel[k], s);
        v.perimeter[k] = perimeter[k][s];
      }
      add_to_table(table[id[s] - 1], v, properties);
      clear(s);
    }
  }
};

/// Sums of component `cid` go to its slot, or straight to the table.
__device__ __forceinline__ void deposit(Slots& slots, Blob* table, uint32_t cid, const Sums& v,
                                        uint32_t properties) {
  const int s = slots.find(cid);
  if (s >= 0)
    slots.add(s, v, properties);
  else
    add_to_table(table[cid - 1], v, properties);
}

/// A lane's sums of its current component over a band's rows (at most kMaxBandRows):
/// the plain sums fit 32 bits (below 2^27: group_sums adds 32 lanes' in 32 bits), the
/// perimeter classes a byte each. Kept small, since it lives in registers.
struct Run {
  uint32_t id = 0;  // the component the lane sums, 0: none yet
  uint32_t sum = 0, min = UINT_MAX, max = 0, channel[3] = {0, 0, 0};
  ull sum_sq = 0;
  uint32_t perimeter = 0;  // byte k: pixels of perimeter class k
  int euler = 0;

  __device__ void start(uint32_t cid) { *this = Run{}, id = cid; }

  __device__ Sums sums() const {
    Sums v{};
    v.sum = sum;
    v.sum_sq = sum_sq;
    v.min = min;
    v.max = max;
#pragma unroll
    for (int k = 0; k < 3; ++k) {
      v.channel[k] = channel[k];
      v.perimeter[k] = perimeter >> (8 * k) & 0xffu;
    }
    v.euler = euler;
    return v;
  }
};
static_assert(kMaxBandRows < 256, "a band's perimeter counts fit a byte");
static_assert(kMaxBandRows * 65535u < (1u << 27), "a band's sums fit group_sums' 2^27");

/// A lane's run summed over the lanes of the warp with the same component (lanes of
/// other components call this at the same time with their own `peers`).
__device__ Sums group_sums(const Run& r, unsigned peers, uint32_t properties) {
  Sums g{};
  if (properties & kPropertyIntensity) {
    g.sum = __reduce_add_sync(peers, r.sum);
    // Squares up to 2^39 per lane: in two parts.
    g.sum_sq = (ull(__reduce_add_sync(peers, uint32_t(r.sum_sq >> 27))) << 27) +
               __reduce_add_sync(peers, uint32_t(r.sum_sq & ((1u << 27) - 1)));
    g.min = __reduce_min_sync(peers, r.min);
    g.max = __reduce_max_sync(peers, r.max);
  }
  if (properties & kPropertyColor)
    for (int k = 0; k < 3; ++k) g.channel[k] = __reduce_add_sync(peers, r.channel[k]);
  if (properties & kPropertyPerimeter)
    for (int k = 0; k < 3; ++k)
      g.perimeter[k] = __reduce_add_sync(peers, r.perimeter >> (8 * k) & 0xffu);
  if (properties & kPropertyEuler) g.euler = __reduce_add_sync(peers, r.euler);
  return g;
}

/// The blob pass. A warp walks down a band of rows over 32 columns, of which it owns
/// the middle 28: the two on each side are what the perimeter test of an owned pixel
/// reads (whether its neighbours are boundary pixels, which reads their neighbours).
/// Each lane keeps the labels of five rows of its column in registers and gets its
/// neighbours' from the lanes beside it. A lane sums in registers the pixels of its
/// column's current component and hands the sums over only when another component
/// comes: a component covering the frame costs a few hand-overs per band, noise one per
/// run of a column. Hand-overs go to the block's slots in shared memory, which reach
/// the table when more than half are taken and at the end.
template <class Luma>
__global__ void __launch_bounds__(kBlobThreads, kBlobBlocksPerSm)
    blob_kernel(FrameGeometry geo, blob::Planes planes, const uint32_t* __restrict__ labels,
                Blob* __restrict__ table, uint32_t properties, int connectivity, int strips,
                int band_rows) {
  wait_for_previous_grid();
  __shared__ Slots slots;
  const int lane = threadIdx.x, warp = threadIdx.y;
  const int thread = warp * kWarpSize + lane;
  for (int s = thread; s < kSlots; s += kBlobThreads) slots.clear(s);
  if (thread == 0) slots.taken = 0;
  __syncthreads();

  const int strip = int(blockIdx.x) * kBlobWarps + warp;
  const int x = strip * kOwnedColumns - kMargin + lane;
  // Columns up to the width itself: the Euler windows whose right column is past it.
  const bool owned = strip < strips && lane >= kMargin && lane < kWarpSize - kMargin &&
                     x <= geo.width;
  const bool column_inside = strip < strips && x >= 0 && x < geo.width;
  const int y0 = int(blockIdx.y) * band_rows;
  // Rows up to the height itself, for the same reason: every warp of the block walks
  // the same rows, so that they can meet at barriers.
  const int y1 = min(y0 + band_rows, geo.height + 1);
  auto label_at = [&](int y) -> uint32_t {
    return column_inside && y >= 0 && y < geo.height ? labels[size_t(y) * geo.width + x] : 0u;
  };
  const bool perimeter = properties & kPropertyPerimeter;
  // Whether the pixel of label l with these labels above and below is a boundary pixel
  // (called by every lane: the left and right labels come from the lanes beside).
  auto boundary = [&](uint32_t above, uint32_t l, uint32_t below) -> uint32_t {
    const uint32_t left = __shfl_up_sync(kFullWarp, l, 1);
    const uint32_t right = __shfl_down_sync(kFullWarp, l, 1);
    return l && (above != l || below != l || left != l || right != l) ? 1u : 0u;
  };

  const bool intensity = properties & kPropertyIntensity;
  // A gray frame's channels are its value, the luma already read.
  const bool gray = planes.format == PixelFormat::Gray8 || planes.format == PixelFormat::Gray16LE;
  const bool color = properties & kPropertyColor;
  auto luma_at = [&](int y) -> uint32_t {
    return (intensity || (color && gray)) && column_inside && y < geo.height
               ? Luma::at(planes.plane[0] + size_t(y) * planes.stride[0], x)
               : 0u;
  };
  uint32_t up2 = label_at(y0 - 2), up = label_at(y0 - 1), mid = label_at(y0),
           down = label_at(y0 + 1);
  // The loads of the rows ahead are in flight while the rows before them are worked on:
  // a walk with one load per row would wait for memory every row.
  uint32_t ahead[kAhead], luma_ahead[kAhead];  // labels from row y + 2, luma from row y
#pragma unroll
  for (int i = 0; i < kAhead; ++i) {
    ahead[i] = label_at(y0 + 2 + i);
    luma_ahead[i] = luma_at(y0 + i);
  }
  uint32_t b_up = perimeter ? boundary(up2, up, mid) : 0u;
  uint32_t b_mid = perimeter ? boundary(up, mid, down) : 0u;
  Run run;
  for (int y = y0; y < y1; ++y) {
    const uint32_t down2 = ahead[0];
    const uint32_t value = luma_ahead[0];
#pragma unroll
    for (int i = 0; i + 1 < kAhead; ++i) {
      ahead[i] = ahead[i + 1];
      luma_ahead[i] = luma_ahead[i + 1];
    }
    ahead[kAhead - 1] = label_at(y + 2 + kAhead);
    luma_ahead[kAhead - 1] = luma_at(y + kAhead);
    const uint32_t b_down = perimeter ? boundary(mid, down, down2) : 0u;
    const uint32_t left = __shfl_up_sync(kFullWarp, mid, 1);
    const uint32_t left_up = __shfl_up_sync(kFullWarp, up, 1);
    int klass = -1;
    // Rows where the warp meets no boundary pixel (inside a component, or background)
    // skip the neighbours' exchange.
    if (perimeter && __any_sync(kFullWarp, owned && b_mid)) {
      const uint32_t flags = b_up | b_mid << 1 | b_down << 2;
      const uint32_t left_flags = __shfl_up_sync(kFullWarp, flags, 1);
      const uint32_t right_flags = __shfl_down_sync(kFullWarp, flags, 1);
      const uint32_t left_down = __shfl_up_sync(kFullWarp, down, 1);
      const uint32_t right = __shfl_down_sync(kFullWarp, mid, 1);
      const uint32_t right_up = __shfl_down_sync(kFullWarp, up, 1);
      const uint32_t right_down = __shfl_down_sync(kFullWarp, down, 1);
      if (owned && b_mid) {
        const uint32_t l = mid;
        const int n4 = (b_up && up == l) + (b_down && down == l) +
                       ((left_flags >> 1 & 1) && left == l) + ((right_flags >> 1 & 1) && right == l);
        const int nd = ((left_flags & 1) && left_up == l) + ((left_flags >> 2 & 1) && left_down == l) +
                       ((right_flags & 1) && right_up == l) +
                       ((right_flags >> 2 & 1) && right_down == l);
        klass = blob::perimeter_class(n4, nd);
      }
    }
    if (owned && mid) {
      if (mid != run.id) {
        if (run.id) deposit(slots, table, run.id, run.sums(), properties);
        run.start(mid);
      }
      if (intensity) {
        run.sum += value;
        run.sum_sq += ull(value * value);  // below 2^32
        run.min = min(run.min, value);
        run.max = max(run.max, value);
      }
      if (color) {
        uint32_t channels[3] = {value, value, value};
        if (!gray) planes.channels(x, y, channels);
#pragma unroll
        for (int k = 0; k < 3; ++k) run.channel[k] += channels[k];
      }
      // A byte per class: an array indexed by klass would live in local memory.
      if (klass >= 0) run.perimeter += 1u << (8 * klass);
    }
    // The 2x2 window whose bottom-right pixel is (x, y): each component in it adds its
    // coefficient. A window inside one component or the background (most of them)
    // adds nothing.
    const bool uniform = mid == up && mid == left && mid == left_up;
    if (properties & kPropertyEuler && owned && !uniform) {
      const uint32_t q[4] = {mid, up, left, left_up};
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        if (!q[i] || (i > 0 && q[0] == q[i]) || (i > 1 && q[1] == q[i]) || (i > 2 && q[2] == q[i]))
          continue;
        uint32_t code = 0;
#pragma unroll
        for (int j = 0; j < 4; ++j) code |= uint32_t(q[j] == q[i]) << j;
        const int e = blob::euler_coefficient(code, connectivity);
        if (e == 0) continue;
        if (q[i] == run.id) {
          run.euler += e;
        } else {
          Sums only{};
          only.euler = e;
          deposit(slots, table, q[i], only, kPropertyEuler);
        }
      }
    }
    up2 = up, up = mid, mid = down, down = down2;
    b_up = b_mid, b_mid = b_down;
    if ((y - y0) % kFlushRows == kFlushRows - 1) {
      __syncthreads();  // the rows' hand-overs are in
      const bool full = slots.taken > kSlots / 2;
      __syncthreads();  // every thread has read it before any later hand-over
      if (full) {
        slots.flush(table, properties, thread);
        if (thread == 0) slots.taken = 0;
        __syncthreads();  // freed before the next rows' hand-overs
      }
    }
  }
  // The lanes' last runs, summed over the lanes of each component first.
  const unsigned peers = __match_any_sync(kFullWarp, run.id);
  if (run.id) {
    const Sums g = __popc(peers) > 1 ? group_sums(run, peers, properties) : run.sums();
    if (lane == __ffs(peers) - 1) deposit(slots, table, run.id, g, properties);
  }
  __syncthreads();
  slots.flush(table, properties, thread);
  allow_next_grid();
}

}  // namespace

bool BlobPass::reserve(size_t capacity, int sm_count) {
  sm_count_ = std::max(sm_count, 1);
  return table_.reserve(std::max<size_t>(capacity, 1));
}

void BlobPass::poison(int byte, size_t components, cudaStream_t stream) {
  table_.fill_bytes(byte, components, stream);
}

void BlobPass::measure(const FrameGeometry& geo, const ImageView& image, const uint32_t* labels,
                       uint32_t properties, int connectivity, cudaStream_t stream,
                       bool chained) {
  // Strips of owned columns and bands of rows over the frame and one column and row
  // past it (the Euler windows there).
  const int strips = int(ceil_div(size_t(geo.width) + 1, kOwnedColumns));
  const unsigned block_columns = ceil_div(size_t(strips), kBlobWarps);
  const size_t band_warps = size_t(block_columns) * kBlobWarps;
  const size_t bands_wanted = std::max<size_t>(1, size_t(kWarpsPerSm) * sm_count_ / band_warps);
  const int band_rows = int(std::clamp<size_t>(ceil_div(size_t(geo.height) + 1, bands_wanted),
                                               kMinBandRows, kMaxBandRows));
  const dim3 grid(block_columns, ceil_div(size_t(geo.height) + 1, size_t(band_rows)));
  const blob::Planes planes = blob::Planes::of(image);
  with_luma(image.format, [&](auto luma) {
    launch("blob_kernel", blob_kernel<decltype(luma)>, grid, dim3(kWarpSize, kBlobWarps),
           stream, chained, geo, planes, labels, table_.get(), properties, connectivity, strips,
           band_rows);
  });
}

}  // namespace ccl::cuda
