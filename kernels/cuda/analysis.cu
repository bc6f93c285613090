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

/// The roots among the 64 pixels of mask word t (raster word order). A root is a
/// union-find node labeled with its own index + 1; only run starts whose neighbours
/// in the row above are all background can be one (a component's first pixel has no
/// foreground neighbour before it), so only those labels are read.
template <int Connectivity>
__device__ __forceinline__ uint64_t root_bits(const FrameGeometry& geo, const uint64_t* mask,
                                              const uint32_t* labels, long long t,
                                              uint32_t* base) {
  const int y = int(t / geo.words);
  const int w = int(t % geo.words);
  const uint64_t* row = mask + size_t(y) * geo.words;
  const uint64_t m = row[w];
  if (m == 0) return 0;
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
  *base = uint32_t(y) * uint32_t(geo.width) + 64u * uint32_t(w);
  uint64_t roots = 0;
  for_each_bit(candidates, [&](int c) {
    if (labels[*base + c] == *base + c + 1) roots |= uint64_t(1) << c;
  });
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
/// frame's epoch, whether the value is the block's own root count or the inclusive
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

/// One thread per mask word: finds its roots, numbers them in raster order (block scan
/// plus look-back across blocks), tags each root's label with its id and starts its
/// table entry. The last block leaves N in info->count.
template <int Connectivity>
__global__ void __launch_bounds__(kWordBlock)
    number_roots_kernel(FrameGeometry geo, const uint64_t* mask, uint32_t* labels,
                        long long words, uint64_t* status, uint32_t epoch, Component* table,
                        FrameInfo* info) {
  using Scan = cub::BlockScan<uint32_t, kWordBlock>;
  __shared__ typename Scan::TempStorage temp;
  __shared__ uint32_t block_prefix;
  const long long t = (long long)blockIdx.x * kWordBlock + threadIdx.x;
  uint32_t base = 0;
  uint64_t roots = t < words ? root_bits<Connectivity>(geo, mask, labels, t, &base) : 0;
  uint32_t before, aggregate;
  Scan(temp).ExclusiveSum(uint32_t(__popcll(roots)), before, aggregate);
  if (threadIdx.x < kWarpSize) {
    const uint32_t prefix = look_back(status, epoch, aggregate);
    if (threadIdx.x == 0) {
      block_prefix = prefix;
      if (blockIdx.x == gridDim.x - 1) info->count = prefix + aggregate;
    }
  }
  __syncthreads();
  uint32_t id = block_prefix + before;
  const int y = int(t / geo.words);
  const uint64_t solo = solo_runs<Connectivity>(geo, mask, t, roots);
  for_each_bit(roots, [&](int c) {
    ++id;
    Component entry{};
    entry.label = id;
    entry.y = y;  // the root is the component's first pixel: its row is the top
    if ((solo >> c) & 1) {
      const uint64_t m = mask[t];
      const uint32_t len = uint32_t(end_distance(m, c));
      const WindowRun run = WindowRun::of(uint32_t(c), len);
      const Moments sums = Moments::of_window(64u * uint32_t(t % geo.words), uint32_t(y),
                                              run.count, run.sum_c, run.sum_cc, uint32_t(c),
                                              uint32_t(c) + len - 1);
      sums.store_to(entry);
      labels[base + c] = kIdTag | kSoloTag | id;
    } else {
      entry.x = INT_MAX;  // accumulates the minimum x
      entry.width = -1;   // accumulates the maximum x
      entry.height = y;   // accumulates the maximum y
      labels[base + c] = kIdTag | id;
    }
    table[id - 1] = entry;
  });
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
template <bool kWriteLabels>
__global__ void __launch_bounds__(kWarpSize* kWindowWarps)
    features_kernel(FrameGeometry geo, const uint64_t* mask, uint32_t* labels, uint32_t* out,
                    Component* table, long long tasks, int segments_per_row) {
  __shared__ Moments block_sums[kWindowWarps];
  __shared__ uint32_t block_ids[kWindowWarps];
  const int lane = threadIdx.x;
  const int warp = threadIdx.y;

  Moments hot = Moments::none();  // lane 0: sums of component hot_id so far
  uint32_t hot_id = 0;
  const long long stride = (long long)gridDim.x * kWindowWarps;
  for (long long task = (long long)blockIdx.x * kWindowWarps + warp; task < tasks;
       task += stride) {
    const int y = int(task / segments_per_row);
    const int w_begin = int(task % segments_per_row) * kFeatureWindows;
    const int w_end = min(w_begin + kFeatureWindows, geo.words);
    const uint64_t* row = mask + size_t(y) * geo.words;
    const uint32_t row_base = uint32_t(y) * uint32_t(geo.width);
    for (int w = w_begin; w < w_end; ++w) {
      const uint64_t bits = row[w];
      const uint32_t x_window = 64u * uint32_t(w);
      uint32_t id[2] = {0, 0};     // at piece starts: the component's id, 0 if solo
      uint32_t label[2] = {0, 0};  // output label of each pixel
      if (bits != 0) {
        uint32_t found[2] = {0, 0};  // at piece starts: the id with its kSoloTag
#pragma unroll
        for (int k = 0; k < 2; ++k) {
          const int c = lane + 32 * k;
          if (bit(bits, c) && start_distance(bits, c) == 0)
            found[k] = uf_find_id(labels, row_base + x_window + uint32_t(c) + 1);
          id[k] = found[k] & kSoloTag ? 0 : found[k];
        }
        uint32_t counted[2];  // label[] without solo components: what the sums cover
#pragma unroll
        for (int k = 0; k < 2; ++k) {
          const int c = lane + 32 * k;
          const bool fg = bit(bits, c);
          const int source = fg ? c - start_distance(bits, c) : c;
          const uint32_t lo = __shfl_sync(kFullWarp, found[0], source & 31);
          const uint32_t hi = __shfl_sync(kFullWarp, found[1], source & 31);
          const uint32_t raw = fg ? (source < 32 ? lo : hi) : 0;
          label[k] = raw & ~kSoloTag;
          counted[k] = raw & kSoloTag ? 0 : raw;
        }
        const uint32_t dominant = dominant_label(counted);
        if (dominant != hot_id) {
          if (lane == 0 && hot_id != 0) hot.atomic_add_to(table[hot_id - 1]);
          hot = Moments::none();
          hot_id = dominant;
        }
#pragma unroll
        for (int k = 0; k < 2; ++k) {
          const unsigned group = __match_any_sync(kFullWarp, id[k]);
          uint32_t count = 0, sum_c = 0, sum_cc = 0, c_min = 0, c_max = 0;
          if (id[k] != 0) {
            const uint32_t c = uint32_t(lane + 32 * k);
            const uint32_t len = uint32_t(end_distance(bits, int(c)));
            const WindowRun run = WindowRun::of(c, len);
            count = __reduce_add_sync(group, run.count);
            sum_c = __reduce_add_sync(group, run.sum_c);
            sum_cc = __reduce_add_sync(group, run.sum_cc);
            c_min = __reduce_min_sync(group, c);
            c_max = __reduce_max_sync(group, c + len - 1);
          }
          const unsigned hot_lanes = __ballot_sync(kFullWarp, id[k] != 0 && id[k] == hot_id);
          if (hot_lanes) {
            const int from = __ffs(hot_lanes) - 1;
            const uint32_t n = __shfl_sync(kFullWarp, count, from);
            const uint32_t s1 = __shfl_sync(kFullWarp, sum_c, from);
            const uint32_t s2 = __shfl_sync(kFullWarp, sum_cc, from);
            const uint32_t lo = __shfl_sync(kFullWarp, c_min, from);
            const uint32_t hi = __shfl_sync(kFullWarp, c_max, from);
            if (lane == 0) hot.add(Moments::of_window(x_window, uint32_t(y), n, s1, s2, lo, hi));
          }
          if (id[k] != 0 && id[k] != hot_id && lane == __ffs(group) - 1)
            Moments::of_window(x_window, uint32_t(y), count, sum_c, sum_cc, c_min, c_max)
                .atomic_add_to(table[id[k] - 1]);
        }
      }
      if constexpr (kWriteLabels) {
#pragma unroll
        for (int k = 0; k < 2; ++k) {
          const uint32_t x = x_window + uint32_t(lane + 32 * k);
          if (x < uint32_t(geo.width)) out[row_base + x] = label[k];
        }
      }
    }
  }

  if (lane == 0) {
    block_ids[warp] = hot_id;
    block_sums[warp] = hot;
  }
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
/// the warp writes them out as consecutive 8-byte words, so the writes across the bus
/// are coalesced instead of 72-byte strided.
constexpr int kEntryWords = int(sizeof(Component) / sizeof(uint64_t));
static_assert(sizeof(Component) % sizeof(uint64_t) == 0, "Component must be whole words");

__global__ void __launch_bounds__(kWordBlock)
    publish_kernel(const FrameInfo* info, int fixed_level, Component* table,
                   Component* host_table, uint32_t host_capacity, HostHeader* header) {
  // Raw words: Component's member initializers rule out __shared__ Component[].
  __shared__ uint64_t staging[kWordBlock * kEntryWords];
  const uint32_t n = info->count;
  const int lane = threadIdx.x % kWarpSize;
  const int warp_in_block = threadIdx.x / kWarpSize;
  Component* mine = reinterpret_cast<Component*>(staging) + warp_in_block * kWarpSize;
  const uint32_t warps = gridDim.x * (kWordBlock / kWarpSize);
  for (uint32_t first = (blockIdx.x * (kWordBlock / kWarpSize) + warp_in_block) * kWarpSize;
       first < n; first += warps * kWarpSize) {
    const uint32_t i = first + lane;
    if (i < n) {
      Component c = table[i];
      c.width = c.width - c.x + 1;
      c.height = c.height - c.y + 1;
      table[i] = c;
      mine[lane] = c;
    }
    __syncwarp();
    const uint32_t to_host = first < host_capacity ? min(min(n, host_capacity) - first, 32u) : 0;
    const uint64_t* src = reinterpret_cast<const uint64_t*>(mine);
    uint64_t* dst = reinterpret_cast<uint64_t*>(host_table + first);
    for (uint32_t k = lane; k < to_host * kEntryWords; k += kWarpSize) dst[k] = src[k];
    __syncwarp();
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    header->count = n;
    header->level = fixed_level >= 0 ? uint32_t(fixed_level) : info->level;
  }
}

}  // namespace

void Analysis::reserve(const FrameGeometry& geo, size_t capacity, int sm_count) {
  count_blocks_ = ceil_div(geo.mask_words(), kWordBlock);
  publish_blocks_ = std::max(1, 4 * sm_count);
  feature_blocks_ = unsigned(std::max(1, kFeatureBlocksPerSm * sm_count));
  if (count_blocks_ > status_.capacity()) {
    status_.reserve(count_blocks_);
    epoch_ = 0;  // fresh memory: cleared before its first use
  }
  table_.reserve(std::max<size_t>(capacity, 1));
  header_.reserve(1);
  // The host copy starts small and grows to what frames need (read_table): most frames
  // have far fewer components than the worst case, which would pin W*H/2 entries.
  host_table_.reserve(std::min<size_t>(std::max<size_t>(capacity, 1), 1 << 16));
}

void Analysis::poison(int byte, size_t components, cudaStream_t stream) {
  // Not the scan statuses: the epoch already tells stale ones apart.
  table_.fill_bytes(byte, components, stream);
  std::memset(header_.host(), byte, sizeof(HostHeader));
  std::memset(static_cast<void*>(host_table_.host()), byte,
              std::min(components, host_table_.capacity()) * sizeof(Component));
}

void Analysis::number(const FrameGeometry& geo, const uint64_t* mask, uint32_t* labels,
                      int connectivity, FrameInfo* info, cudaStream_t stream) {
  const long long words = (long long)geo.mask_words();
  if (epoch_ == 0 || epoch_ == kEpochMask) {
    status_.fill_bytes(0, status_.capacity(), stream);
    epoch_ = 0;
  }
  ++epoch_;
  if (connectivity == 4)
    number_roots_kernel<4><<<count_blocks_, kWordBlock, 0, stream>>>(
        geo, mask, labels, words, status_.get(), epoch_, table_.get(), info);
  else
    number_roots_kernel<8><<<count_blocks_, kWordBlock, 0, stream>>>(
        geo, mask, labels, words, status_.get(), epoch_, table_.get(), info);
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
      header_.device());
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
