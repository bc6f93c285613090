// Root numbering (one pass: block scan plus decoupled look-back), the features
// pass after Hennequin et al. §IV-C/D (only run starts walk to the root; the rest of
// the run takes its id by __shfl_sync), and the table's hand-over.
#include "analysis.h"

#include <algorithm>
#include <cstring>
#include <cub/block/block_scan.cuh>

#include "check.h"
#include "moments.cuh"
#include "segments.cuh"
#include "union_find.cuh"

namespace ccl::cuda {

namespace {

/// The roots among the 64 pixels m of mask word t (raster word order). A root is a
/// union-find node labeled with its own index + 1; only run starts whose neighbours
/// in the row above are all background can be one (a component's first pixel has no
/// foreground neighbour before it), so only those labels are read.
template <int Connectivity>
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
  constexpr int kRootReads = 4;
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

/// A block's entry in the numbering's single-pass scan (decoupled look-back): the
/// frame's epoch (frames since the statuses were cleared, counted on the device),
/// whether the value is the block's own root count or the inclusive
/// count up to it, and the value, in one 64-bit word so that readers never see a flag
/// without its value. The epoch tells this frame's entries from older ones, so the
/// statuses need no reset between frames.
constexpr uint64_t kStatusAggregate = 1ull << 62;
constexpr uint64_t kStatusInclusive = 2ull << 62;
constexpr uint32_t kEpochMask = (1u << 30) - 1;

__device__ __forceinline__ uint64_t status_word(uint64_t flag, uint32_t epoch, uint32_t value) {
  return flag | (uint64_t(epoch & kEpochMask) << 32) | value;
}

/// Roots counted before this block, by warp 0: publishes the block's aggregate, walks
/// back over the preceding blocks 32 at a time until one with an inclusive count, then
/// publishes this block's inclusive count.
__device__ __forceinline__ uint32_t look_back(uint64_t* status, uint32_t epoch,
                                              uint32_t aggregate) {
  const int lane = threadIdx.x;
  const long long tile = blockIdx.x;
  if (tile == 0) {
    if (lane == 0) atomicExch(reinterpret_cast<unsigned long long*>(status),
                              status_word(kStatusInclusive, epoch, aggregate));
    return 0;
  }
  if (lane == 0)
    atomicExch(reinterpret_cast<unsigned long long*>(status + tile),
               status_word(kStatusAggregate, epoch, aggregate));
  uint32_t prefix = 0;
  for (long long last = tile - 1;; last -= kWarpSize) {
    const long long at = last - lane;
    uint64_t word;
    bool ready;
    do {
      word = at >= 0 ? *reinterpret_cast<volatile uint64_t*>(status + at)
                     : status_word(kStatusInclusive, epoch, 0);
      ready = (word >> 62) != 0 && uint32_t(word >> 32 & kEpochMask) == (epoch & kEpochMask);
    } while (!__all_sync(kFullWarp, ready));
    const unsigned inclusive = __ballot_sync(kFullWarp, (word >> 62) == 2);
    // Lanes up to the nearest inclusive block (lowest lane) count; the rest are before it.
    const unsigned counted = inclusive ? (inclusive & -inclusive) * 2 - 1 : kFullWarp;
    const uint32_t value = (counted >> lane) & 1 ? uint32_t(word) : 0;
    prefix += __reduce_add_sync(kFullWarp, value);
    if (inclusive) break;
  }
  if (lane == 0)
    atomicExch(reinterpret_cast<unsigned long long*>(status + tile),
               status_word(kStatusInclusive, epoch, prefix + aggregate));
  return prefix;
}

/// Most roots one warp's 32 mask words can hold: a word has at most 32 run starts.
constexpr int kWarpRootSlots = kWarpSize * 32;

constexpr int kEntryWords = int(sizeof(Component) / sizeof(uint64_t));
static_assert(sizeof(Component) % sizeof(uint64_t) == 0, "Component must be whole words");

/// Shared memory in which a warp assembles 32 table entries (raw words: Component's
/// member initializers rule out __shared__ Component[]).
using EntryStaging = uint64_t[kWarpSize * kEntryWords];

/// The warp copies the first n (<= 32) entries it staged to dst as consecutive 8-byte
/// words, so each store instruction covers 256 contiguous bytes; lanes storing their
/// own 72-byte entries would touch 32 sectors per instruction instead of 8.
__device__ __forceinline__ void store_staged_entries(const EntryStaging& staged, Component* dst,
                                                     uint32_t n) {
  __syncwarp();
  uint64_t* out = reinterpret_cast<uint64_t*>(dst);
  for (uint32_t k = threadIdx.x % kWarpSize; k < n * kEntryWords; k += kWarpSize)
    out[k] = staged[k];
  __syncwarp();
}

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
template <int Connectivity>
__global__ void __launch_bounds__(kWordBlock)
    number_roots_kernel(FrameGeometry geo, const uint64_t* mask, uint32_t* labels,
                        long long words, uint64_t* status, const uint32_t* published,
                        Component* table, FrameInfo* info) {
  using Scan = cub::BlockScan<uint32_t, kWordBlock>;
  __shared__ typename Scan::TempStorage temp;
  __shared__ uint32_t block_prefix;
  // Per warp: (lane << 7) | (solo << 6) | column of each root, in raster order.
  __shared__ uint16_t slots[kWordBlock / kWarpSize][kWarpRootSlots];
  __shared__ EntryStaging staging[kWordBlock / kWarpSize];
  const int lane = threadIdx.x % kWarpSize;
  const long long t = (long long)blockIdx.x * kWordBlock + threadIdx.x;
  const uint64_t m = t < words ? mask[t] : 0;
  const uint64_t roots = t < words ? root_bits<Connectivity>(geo, mask, labels, t, m) : 0;
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
  }
}

/// The label covering most pixels of one half (32 columns) of a window: a warp vote.
__device__ __forceinline__ uint32_t dominant_label(const uint32_t (&label)[2]) {
  const int lane = threadIdx.x;
  uint32_t score = 0;  // (pixels with this label in the half << 6) | column
#pragma unroll
  for (int k = 0; k < 2; ++k) {
    const unsigned same = __match_any_sync(kFullWarp, label[k]);
    if (label[k]) score = max(score, (uint32_t(__popc(same)) << 6) | uint32_t(lane + 32 * k));
  }
  const uint32_t column = __reduce_max_sync(kFullWarp, score) & 63;
  const uint32_t lo = __shfl_sync(kFullWarp, label[0], column & 31);
  const uint32_t hi = __shfl_sync(kFullWarp, label[1], column & 31);
  return column < 32 ? lo : hi;
}

/// Per window: each run piece's start finds its id (uf_find_id) and every lane takes
/// the id of its piece's start by __shfl_sync (Hennequin et al. algorithms 5 and 6).
/// The pieces' closed-form sums are reduced over the lanes that share an id
/// (__match_any_sync groups), so a component costs one set of atomics per window half,
/// not one per run. The window's dominant component is not added at all: lane 0 keeps
/// its sums while it stays dominant, and warps of a block that end on the same one
/// combine before the block adds it once. A component covering the frame thus sees a
/// few atomics per block instead of a few per window.
/// Warps loop over row segments of kFeatureWindows windows (grid-stride), so the
/// number of blocks, not of segments, bounds the atomics on a large component.
/// A window whose piece starts all found one component skips the groups and the vote:
/// two warp reductions add it to 32-bit sums of the segment (the pass is bound by the
/// instructions it issues, and large components are made of such windows).
/// Resident blocks per SM the features pass is compiled for (at most 40 registers a
/// thread, a few bytes spilled): 48 registers left room for 5 blocks, and the pass is
/// bound by how many warps keep its issue slots busy (measured, PERF_NOTES.md).
constexpr int kFeatureBlocksPerSm = 6;

template <bool kWriteLabels>
__global__ void __launch_bounds__(kWarpSize* kWindowWarps, kFeatureBlocksPerSm)
    features_kernel(FrameGeometry geo, const uint64_t* mask, uint32_t* labels, uint32_t* out,
                    Component* table, long long tasks, int segments_per_row) {
  __shared__ Moments block_sums[kWindowWarps];
  __shared__ uint32_t block_ids[kWindowWarps];
  const int lane = threadIdx.x;
  const int warp = threadIdx.y;

  // Lane 0's sums of component hot_id so far, kept in shared memory rather than in
  // registers that every lane would reserve: the pass needs all the warps it can get.
  Moments& hot = block_sums[warp];
  if (lane == 0) hot = Moments::none();
  uint32_t hot_id = 0;
  // Lane 0's sums move on to component `next` when it is not hot_id.
  auto make_hot = [&](uint32_t next) {
    if (next == hot_id) return;
    if (lane == 0) {
      if (hot_id != 0) hot.atomic_add_to(table[hot_id - 1]);
      hot = Moments::none();
    }
    hot_id = next;
  };
  const long long stride = (long long)gridDim.x * kWindowWarps;
  for (long long task = (long long)blockIdx.x * kWindowWarps + warp; task < tasks;
       task += stride) {
    const int y = int(task / segments_per_row);
    const int w_begin = int(task % segments_per_row) * kFeatureWindows;
    const int w_end = min(w_begin + kFeatureWindows, geo.words);
    const uint64_t* row = mask + size_t(y) * geo.words;
    const uint32_t row_base = uint32_t(y) * uint32_t(geo.width);
    // Windows holding one component alone (most windows of large components) add up
    // in 32-bit sums over the segment, columns counted from its start (at most 256 of
    // them: sum c^2 < 2^23), and reach the 64-bit moments once per segment and id.
    const uint32_t x_segment = 64u * uint32_t(w_begin);
    uint32_t seg_id = 0, seg_n = 0, seg_c = 0, seg_cc = 0, seg_min = 0, seg_max = 0;
    auto flush_segment = [&] {
      if (seg_n == 0) return;
      make_hot(seg_id);
      if (lane == 0)
        hot.add(Moments::of_window(x_segment, uint32_t(y), seg_n, seg_c, seg_cc, seg_min,
                                   seg_max));
      seg_n = seg_c = seg_cc = 0;
    };
    for (int w = w_begin; w < w_end; ++w) {
      const uint64_t bits = row[w];
      const uint32_t x_window = 64u * uint32_t(w);
      uint32_t label[2] = {0, 0};  // output label of each pixel
      if (bits != 0) {
        const uint64_t starts = run_starts(bits, false);  // piece starts
        bool start[2];
        uint32_t found[2] = {0, 0};  // at piece starts: the id with its kSoloTag
#pragma unroll
        for (int k = 0; k < 2; ++k) {
          start[k] = lane_bit(starts, k, lane);
          if (start[k])
            found[k] = uf_find_id(labels, row_base + x_window + uint32_t(lane + 32 * k) + 1);
        }
        // The first foreground column starts a piece; if every piece start found its id,
        // the window holds that component alone.
        const int c_first = __ffsll(static_cast<long long>(bits)) - 1;
        const uint32_t first_lo = __shfl_sync(kFullWarp, found[0], c_first & 31);
        const uint32_t first_hi = __shfl_sync(kFullWarp, found[1], c_first & 31);
        const uint32_t only = c_first < 32 ? first_lo : first_hi;
        if (__all_sync(kFullWarp, (!start[0] || found[0] == only) && (!start[1] || found[1] == only))) {
#pragma unroll
          for (int k = 0; k < 2; ++k) label[k] = lane_bit(bits, k, lane) ? only & ~kSoloTag : 0;
          if (!(only & kSoloTag)) {
            if (only != seg_id) flush_segment();
            seg_id = only;
            const uint32_t off = x_window - x_segment;
            const uint32_t c_lo = off + uint32_t(lane), c_hi = c_lo + 32;
            const bool fg_lo = lane_bit(bits, 0, lane), fg_hi = lane_bit(bits, 1, lane);
            const uint32_t n = uint32_t(__popcll(bits));
            if (seg_n == 0) seg_min = off + uint32_t(c_first);
            seg_n += n;
            seg_c += __reduce_add_sync(kFullWarp, (fg_lo ? c_lo : 0u) + (fg_hi ? c_hi : 0u));
            seg_cc += __reduce_add_sync(kFullWarp,
                                        (fg_lo ? c_lo * c_lo : 0u) + (fg_hi ? c_hi * c_hi : 0u));
            seg_max = off + uint32_t(63 - __clzll(static_cast<long long>(bits)));
          }
        } else {
          flush_segment();
          uint32_t id[2], counted[2];  // at piece starts / every pixel; 0 if solo
#pragma unroll
          for (int k = 0; k < 2; ++k) {
            const int c = lane + 32 * k;
            const bool fg = lane_bit(bits, k, lane);
            const int source = fg ? c - start_distance(bits, c) : c;
            const uint32_t lo = __shfl_sync(kFullWarp, found[0], source & 31);
            const uint32_t hi = __shfl_sync(kFullWarp, found[1], source & 31);
            const uint32_t raw = fg ? (source < 32 ? lo : hi) : 0;
            label[k] = raw & ~kSoloTag;
            counted[k] = raw & kSoloTag ? 0 : raw;
            id[k] = found[k] & kSoloTag ? 0 : found[k];
          }
          make_hot(dominant_label(counted));
#pragma unroll
          for (int k = 0; k < 2; ++k) {
            const unsigned group = __match_any_sync(kFullWarp, id[k]);
            uint32_t count = 0, sum_c = 0, sum_cc = 0, c_min = 0, c_max = 0;
            if (id[k] != 0) {
              const uint32_t c = uint32_t(lane + 32 * k);
              const uint32_t len = uint32_t(end_distance(bits, int(c)));
              const WindowRun run = WindowRun::of(c, len);
              // A window's count (<= 64) and sum of c (<= 2016) add up in one word. The
              // group's pieces lie in column order with its lanes: the lowest lane
              // starts the leftmost, the highest ends the rightmost.
              const uint32_t packed = __reduce_add_sync(group, run.count | (run.sum_c << 8));
              count = packed & 0xffu;
              sum_c = packed >> 8;
              sum_cc = __reduce_add_sync(group, run.sum_cc);
              c_min = uint32_t(__ffs(group) - 1 + 32 * k);
              c_max = __shfl_sync(group, c + len - 1, 31 - __clz(group));
            }
            const unsigned hot_lanes = __ballot_sync(kFullWarp, id[k] != 0 && id[k] == hot_id);
            if (hot_lanes) {
              const int from = __ffs(hot_lanes) - 1;
              const uint32_t n = __shfl_sync(kFullWarp, count, from);
              const uint32_t s1 = __shfl_sync(kFullWarp, sum_c, from);
              const uint32_t s2 = __shfl_sync(kFullWarp, sum_cc, from);
              const uint32_t lo = __shfl_sync(kFullWarp, c_min, from);
              const uint32_t hi = __shfl_sync(kFullWarp, c_max, from);
              if (lane == 0)
                hot.add(Moments::of_window(x_window, uint32_t(y), n, s1, s2, lo, hi));
            }
            if (id[k] != 0 && id[k] != hot_id && lane == __ffs(group) - 1)
              Moments::of_window(x_window, uint32_t(y), count, sum_c, sum_cc, c_min, c_max)
                  .atomic_add_to(table[id[k] - 1]);
          }
        }
      }
      if constexpr (kWriteLabels) {
        const bool whole = x_window + 64 <= uint32_t(geo.width);
#pragma unroll
        for (int k = 0; k < 2; ++k) {
          const uint32_t x = x_window + uint32_t(lane + 32 * k);
          if (whole || x < uint32_t(geo.width)) out[row_base + x] = label[k];
        }
      }
    }
    flush_segment();
  }

  if (lane == 0) block_ids[warp] = hot_id;
  __syncthreads();
  if (lane == 0 && warp == 0) {
    for (int i = 0; i < kWindowWarps; ++i) {
      const uint32_t cid = block_ids[i];
      if (cid == 0) continue;
      Moments sum = block_sums[i];
      for (int j = i + 1; j < kWindowWarps; ++j)
        if (block_ids[j] == cid) {
          sum.add(block_sums[j]);
          block_ids[j] = 0;
        }
      sum.atomic_add_to(table[cid - 1]);
    }
  }
}

/// Finishes the table (width/height from the accumulated maxima) and copies it into
/// mapped host memory. Each warp takes 32 entries: one per lane to finish them, then
/// the warp writes them out as consecutive words (store_staged_entries), so the writes
/// across the bus are coalesced.
__global__ void __launch_bounds__(kWordBlock)
    publish_kernel(const FrameInfo* info, int fixed_level, Component* table,
                   Component* host_table, uint32_t host_capacity, HostHeader* header,
                   uint32_t* published) {
  __shared__ EntryStaging staging[kWordBlock / kWarpSize];
  const uint32_t n = info->count;
  const int lane = threadIdx.x % kWarpSize;
  const int warp_in_block = threadIdx.x / kWarpSize;
  Component* mine = reinterpret_cast<Component*>(staging[warp_in_block]);
  const uint32_t warps = gridDim.x * (kWordBlock / kWarpSize);
  for (uint32_t first = (blockIdx.x * (kWordBlock / kWarpSize) + warp_in_block) * kWarpSize;
       first < n; first += warps * kWarpSize) {
    const uint32_t i = first + lane;
    if (i < n) {
      Component c = table[i];
      c.width = c.width - c.x + 1;
      c.height = c.height - c.y + 1;
      mine[lane] = c;
    }
    store_staged_entries(staging[warp_in_block], table + first, min(n - first, 32u));
    const uint32_t to_host = first < host_capacity ? min(min(n, host_capacity) - first, 32u) : 0;
    store_staged_entries(staging[warp_in_block], host_table + first, to_host);
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    header->count = n;
    header->level = fixed_level >= 0 ? uint32_t(fixed_level) : info->level;
    *published += 1;  // number_roots_kernel, the only reader, is done with this frame
  }
}

}  // namespace

bool Analysis::reserve(const FrameGeometry& geo, size_t capacity, int sm_count) {
  count_blocks_ = ceil_div(geo.mask_words(), kWordBlock);
  publish_blocks_ = std::max(1, 4 * sm_count);
  if (feature_blocks_per_sm_ == 0) {
    // The features pass loops over the frame with exactly the blocks that fit on the
    // device at once: a partial second wave would leave most SMs idle at its end.
    int labels_written = 0, features_only = 0;
    CCL_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &labels_written, features_kernel<true>, kWarpSize * kWindowWarps, 0));
    CCL_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &features_only, features_kernel<false>, kWarpSize * kWindowWarps, 0));
    feature_blocks_per_sm_ = std::max(1, std::min(labels_written, features_only));
  }
  feature_blocks_ = unsigned(feature_blocks_per_sm_ * sm_count);
  bool moved = epoch_.reserve(1);
  moved |= status_.reserve(count_blocks_);
  if (moved) frames_ = 0;  // fresh memory: cleared before its first use
  moved |= table_.reserve(std::max<size_t>(capacity, 1));
  header_.reserve(1);
  // The host copy starts small and grows to what frames need (read_table): most frames
  // have far fewer components than the worst case, which would pin W*H/2 entries.
  host_table_.reserve(std::min<size_t>(std::max<size_t>(capacity, 1), 1 << 16));
  return moved;
}

void Analysis::poison(int byte, size_t components, cudaStream_t stream) {
  // Not the scan statuses: the epoch already tells stale ones apart.
  table_.fill_bytes(byte, components, stream);
  std::memset(header_.host(), byte, sizeof(HostHeader));
  std::memset(static_cast<void*>(host_table_.host()), byte,
              std::min(components, host_table_.capacity()) * sizeof(Component));
}

void Analysis::begin_frame(cudaStream_t stream) {
  // Epochs 1 .. kEpochMask - 1; a status word of 0 is never ready.
  if (frames_ == 0 || frames_ == kEpochMask - 1) {
    status_.fill_bytes(0, status_.capacity(), stream);
    epoch_.fill_bytes(0, 1, stream);
    frames_ = 0;
  }
  ++frames_;
}

void Analysis::number(const FrameGeometry& geo, const uint64_t* mask, uint32_t* labels,
                      int connectivity, FrameInfo* info, cudaStream_t stream) {
  const long long words = (long long)geo.mask_words();
  if (connectivity == 4)
    number_roots_kernel<4><<<count_blocks_, kWordBlock, 0, stream>>>(
        geo, mask, labels, words, status_.get(), epoch_.get(), table_.get(), info);
  else
    number_roots_kernel<8><<<count_blocks_, kWordBlock, 0, stream>>>(
        geo, mask, labels, words, status_.get(), epoch_.get(), table_.get(), info);
  check_launch("number_roots_kernel");
}

void Analysis::measure(const FrameGeometry& geo, const uint64_t* mask, uint32_t* labels,
                       uint32_t* out, cudaStream_t stream) {
  const int segments = (geo.words + kFeatureWindows - 1) / kFeatureWindows;
  const long long tasks = (long long)segments * geo.height;
  const dim3 block(kWarpSize, kWindowWarps);
  const unsigned blocks = std::min(ceil_div(size_t(tasks), kWindowWarps), feature_blocks_);
  if (out)
    features_kernel<true><<<blocks, block, 0, stream>>>(geo, mask, labels, out, table_.get(),
                                                        tasks, segments);
  else
    features_kernel<false><<<blocks, block, 0, stream>>>(geo, mask, labels, nullptr,
                                                         table_.get(), tasks, segments);
  check_launch("features_kernel");
}

void Analysis::publish(const FrameInfo* info, int fixed_level, cudaStream_t stream) {
  publish_kernel<<<publish_blocks_, kWordBlock, 0, stream>>>(
      info, fixed_level, table_.get(), host_table_.device(), uint32_t(host_table_.capacity()),
      header_.device(), epoch_.get());
  check_launch("publish_kernel");
}

void Analysis::read_table(std::vector<Component>& table) {
  const uint32_t n = count();
  if (n > table_.capacity())
    throw Error("component count " + std::to_string(n) + " exceeds the table's capacity " +
                std::to_string(table_.capacity()));
  table.resize(n);
  const size_t in_host = std::min<size_t>(n, host_table_.capacity());
  std::memcpy(table.data(), host_table_.host(), in_host * sizeof(Component));
  if (in_host < n) {
    // More components than the host copy holds: fetch the rest (the stream is idle,
    // finish() waited) and make room for frames like this one.
    CCL_CUDA_CHECK(cudaMemcpy(table.data() + in_host, table_.get() + in_host,
                              (n - in_host) * sizeof(Component), cudaMemcpyDeviceToHost));
    host_table_.reserve(std::min(table_.capacity(), std::max<size_t>(n, 2 * in_host)));
  }
}

}  // namespace ccl::cuda
