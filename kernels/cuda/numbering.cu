// Root numbering: every component's root (its first pixel, union_find.cuh) gets its
// id 1..N in raster order in one pass, a block scan over mask words plus a decoupled
// look-back over the preceding blocks (look_back.cuh). Each root's label becomes
// kIdTag | id and its table entry is started; components that are one run alone are
// finished here (kSoloTag).
#include "numbering.h"

#include <cub/block/block_scan.cuh>

#include "analysis_policy.h"
#include "ccl/cuda_memory.h"
#include "chain.h"
#include "look_back.cuh"
#include "moments.cuh"
#include "segments.cuh"
#include "table_store.cuh"
#include "union_find.cuh"

namespace ccl::cuda {

namespace {

/// The roots among the 64 pixels m of mask word t (raster word order). A root is a
/// union-find node labeled with its own index + 1; only run starts whose neighbours
/// in the row above are all background can be one (a component's first pixel has no
/// foreground neighbour before it), so only those labels are read.
template <class Policy, int Connectivity>
__device__ __forceinline__ uint64_t root_bits(const FrameGeometry& geo, const uint64_t* mask,
                                              const uint32_t* labels, long long t, uint64_t m) {
  if (m == 0) return 0;
  const int y = int(t / geo.words);
  const int w = int(t % geo.words);
  const uint64_t* row = mask + size_t(y) * geo.words;
  uint64_t candidates = run_starts(m, w > 0 && (row[w - 1] >> 63));
  if (y > 0) {
    const uint64_t* above = row - geo.words;
    const uint64_t n = above[w];
    uint64_t blocked = n;
    if constexpr (Connectivity == 8) {
      blocked |= (n << 1) | (w > 0 ? above[w - 1] >> 63 : 0);
      blocked |= (n >> 1) | (w + 1 < geo.words ? above[w + 1] << 63 : 0);
    }
    candidates &= ~blocked;
  }
  const uint32_t base = uint32_t(y) * uint32_t(geo.width) + 64u * uint32_t(w);
  // Candidates are read kRootReads at a time, so that the thread waits for memory once
  // per group rather than once per candidate.
  constexpr int kRootReads = Policy::kRootReads;
  uint64_t roots = 0;
  while (candidates) {
    int c[kRootReads];
#pragma unroll
    for (int j = 0; j < kRootReads; ++j) {
      c[j] = candidates ? __ffsll(static_cast<long long>(candidates)) - 1 : -1;
      candidates &= candidates - 1;
    }
    uint32_t label[kRootReads];
#pragma unroll
    for (int j = 0; j < kRootReads; ++j) label[j] = c[j] >= 0 ? labels[base + c[j]] : 0;
#pragma unroll
    for (int j = 0; j < kRootReads; ++j)
      if (c[j] >= 0 && label[j] == base + uint32_t(c[j]) + 1) roots |= uint64_t(1) << c[j];
  }
  return roots;
}

/// Among `roots` (run starts of mask word t that are components' first pixels), those
/// whose run is the whole component: it ends inside the word (or at the next word's
/// background) and no pixel of the row below touches it. Nothing above or to the left
/// can touch a component's first run, so these are complete once numbered: numbering
/// writes their features and the features pass leaves them alone (kSoloTag), which
/// spares most components of sparse images their atomics.
template <int Connectivity>
__device__ __forceinline__ uint64_t solo_runs(const FrameGeometry& geo, const uint64_t* mask,
                                              long long t, uint64_t roots) {
  if (roots == 0) return 0;
  const int y = int(t / geo.words);
  const int w = int(t % geo.words);
  const uint64_t* row = mask + size_t(y) * geo.words;
  const uint64_t m = row[w];
  const uint64_t next = w + 1 < geo.words ? row[w + 1] : 0;
  uint64_t below = 0, below_prev = 0, below_next = 0;
  if (y + 1 < geo.height) {
    const uint64_t* under = row + geo.words;
    below = under[w];
    if constexpr (Connectivity == 8) {
      below_prev = w > 0 ? under[w - 1] : 0;
      below_next = w + 1 < geo.words ? under[w + 1] : 0;
    }
  }
  uint64_t solo = 0;
  for_each_bit(roots, [&](int c) {
    const int len = end_distance(m, c);
    if (c + len == 64 && (next & 1)) return;  // the run goes on in the next word
    const uint64_t span = (len == 64 ? ~uint64_t(0) : (uint64_t(1) << len) - 1) << c;
    uint64_t touch = below & span;
    if constexpr (Connectivity == 8) {
      touch |= below & ((span << 1) | (span >> 1));
      if (c == 0) touch |= below_prev >> 63;
      if (c + len == 64) touch |= below_next & 1;
    }
    if (touch == 0) solo |= uint64_t(1) << c;
  });
  return solo;
}

/// Most roots one warp's 32 mask words can hold: a word has at most 32 run starts.
constexpr int kWarpRootSlots = kWarpSize * 32;

/// The table entry of the root listed as `code` (number_roots_kernel's list) of the
/// warp whose first mask word is warp_t, given its id and the mask word it lies in;
/// tags the root's label with it. A solo root's entry is complete; the others
/// accumulate (x min, width = x max, height = y max) in the features pass.
__device__ __forceinline__ Component start_entry(const FrameGeometry& geo, uint64_t bits,
                                                 uint32_t* labels, long long warp_t,
                                                 uint32_t code, uint32_t id) {
  const long long word = warp_t + (code >> 7);
  const uint32_t c = code & 63;
  const int y = int(word / geo.words);
  const uint32_t x_word = 64u * uint32_t(word % geo.words);
  const uint32_t root = uint32_t(y) * uint32_t(geo.width) + x_word + c;
  Component entry{};
  entry.label = id;
  entry.y = y;  // the root is the component's first pixel: its row is the top
  if (code & 64) {
    const uint32_t len = uint32_t(end_distance(bits, int(c)));
    const WindowRun run = WindowRun::of(c, len);
    Moments::of_window(x_word, uint32_t(y), run.count, run.sum_c, run.sum_cc, c, c + len - 1)
        .store_to(entry);
    labels[root] = kIdTag | kSoloTag | id;
  } else {
    entry.x = INT_MAX;
    entry.width = -1;
    entry.height = y;
    labels[root] = kIdTag | id;
  }
  return entry;
}

/// One thread per mask word: finds its roots, numbers them in raster order (block scan
/// plus look-back across blocks), tags each root's label with its id and starts its
/// table entry. The last block leaves N in info->count.
/// A warp's roots have consecutive ids, so the warp lists them in shared memory, then
/// starts their entries 32 at a time (one per lane) and stores them as one contiguous
/// block. A thread writing its own word's entries one after another (up to 32 of them)
/// scattered partial sectors and left sparse frames bound by those writes.
template <class Policy, int Connectivity>
__global__ void __launch_bounds__(Policy::kBlockThreads)
    number_roots_kernel(FrameGeometry geo, const uint64_t* mask, uint32_t* labels,
                        long long words, uint64_t* status, const uint32_t* published,
                        Component* table, Blob* blobs, uint32_t blob_min, FrameInfo* info) {
  using Scan = cub::BlockScan<uint32_t, Policy::kBlockThreads>;
  __shared__ typename Scan::TempStorage temp;
  __shared__ uint32_t block_prefix;
  // Per warp: (lane << 7) | (solo << 6) | column of each root, in raster order.
  __shared__ uint16_t slots[Policy::kBlockThreads / kWarpSize][kWarpRootSlots];
  __shared__ EntryStaging staging[Policy::kBlockThreads / kWarpSize];
  const int lane = threadIdx.x % kWarpSize;
  const long long t = (long long)blockIdx.x * Policy::kBlockThreads + threadIdx.x;
  const uint64_t m = t < words ? mask[t] : 0;
  const uint64_t roots = t < words ? root_bits<Policy, Connectivity>(geo, mask, labels, t, m) : 0;
  uint32_t before, aggregate;
  Scan(temp).ExclusiveSum(uint32_t(__popcll(roots)), before, aggregate);
  if (threadIdx.x < kWarpSize) {
    const uint32_t prefix = look_back(status, *published + 1, aggregate);
    if (threadIdx.x == 0) {
      block_prefix = prefix;
      if (blockIdx.x == gridDim.x - 1) info->count = prefix + aggregate;
    }
  }
  const uint64_t solo = solo_runs<Connectivity>(geo, mask, t, roots);
  const uint32_t warp_first = __shfl_sync(kFullWarp, before, 0);
  const uint32_t warp_roots =
      __shfl_sync(kFullWarp, before + uint32_t(__popcll(roots)), kWarpSize - 1) - warp_first;
  uint16_t* list = slots[threadIdx.x / kWarpSize];
  uint32_t at = before - warp_first;
  for_each_bit(roots, [&](int c) {
    list[at++] = uint16_t((lane << 7) | int((solo >> c) & 1) << 6 | c);
  });
  __syncthreads();  // block_prefix, and the warp's list

  const long long warp_t = t - lane;
  Component* staged = reinterpret_cast<Component*>(staging[threadIdx.x / kWarpSize]);
  for (uint32_t first = 0; first < warp_roots; first += kWarpSize) {
    const uint32_t i = first + lane;
    const uint32_t code = i < warp_roots ? list[i] : 0;
    // The root's mask word is the one its listing lane read: no second load.
    const uint64_t bits = __shfl_sync(kFullWarp, m, int(code >> 7));
    if (i < warp_roots)
      staged[lane] = start_entry(geo, bits, labels, warp_t, code, block_prefix + warp_first + i + 1);
    store_staged_entries(staging[threadIdx.x / kWarpSize],
                         table + block_prefix + warp_first + first,
                         min(warp_roots - first, uint32_t(kWarpSize)));
    // The blob pass adds into these (one 64-byte line per lane, the warp's contiguous).
    static_assert(offsetof(Blob, intensity_min) == 40 && sizeof(Blob) == 64, "Blob's words");
    if (blobs && i < warp_roots) {
      uint4* b = reinterpret_cast<uint4*>(blobs + block_prefix + warp_first + i);
      b[0] = b[1] = make_uint4(0, 0, 0, 0);
      b[2] = make_uint4(0, 0, blob_min, 0);  // intensity_min, intensity_max
      b[3] = make_uint4(0, 0, 0, 0);
    }
  }
  allow_next_grid();
}

}  // namespace

unsigned numbering_blocks(const FrameGeometry& geo) {
  return ceil_div(geo.mask_words(), NumberingPolicy::kBlockThreads);
}

void launch_numbering(const FrameGeometry& geo, const uint64_t* mask, uint32_t* labels,
                      int connectivity, uint64_t* status, const uint32_t* epoch,
                      Component* table, Blob* blobs, uint32_t blob_min, FrameInfo* info,
                      cudaStream_t stream) {
  using P = NumberingPolicy;
  const long long words = (long long)geo.mask_words();
  // Not chained: chained after the merge, frames with many components took up to 40 %
  // longer; with the merge's blocks triggering after a barrier that loss went, but 4K
  // frames lost 1-5 % (PERF_NOTES.md, steps 34-35).
  launch("number_roots_kernel",
         connectivity == 4 ? number_roots_kernel<P, 4> : number_roots_kernel<P, 8>,
         numbering_blocks(geo), P::kBlockThreads, stream, false, geo, mask, labels, words, status,
         epoch, table, blobs, blob_min, info);
}

}  // namespace ccl::cuda
