// The report's kernels (report.h): finishing and counting, the hand-over of the
// passing entries in label order, and for frames with more passing components than
// are reported, the sort by area and the gather of the largest.
#include "report.h"

#include <algorithm>
#include <cstring>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <string>
#include <utility>

#include "chain.h"
#include "ccl/cuda_memory.h"
#include "table_store.cuh"

namespace ccl::cuda {

namespace {

/// Threads of the report's kernels; the finishing and hand-over kernels run one block
/// per few SMs, each over one contiguous range of the table.
constexpr int kReportBlock = 256;
/// Most finish_kernel blocks: every report_kernel block reads all their counts.
constexpr int kMaxReportBlocks = 1024;
/// Areas a finishing block counts one by one: when every passing area is below this
/// (kSizeOrderWithoutWait), the largest are picked and ordered on the device.
constexpr uint32_t kCountedAreas = kSizeOrderWithoutWait;
/// Most components the report orders in the frame's kernels (the buffer they go to is
/// reserved for max_components of them); more are sorted after a second wait.
constexpr uint32_t kMostOrderedInFrame = 1u << 20;
/// Counted areas per report_kernel thread.
constexpr int kAreasPerThread = int(kCountedAreas) / kReportBlock;
static_assert(kCountedAreas % kReportBlock == 0, "whole areas per thread");

/// Maximum for cub::BlockReduce: cub::Max is gone from CUDA 13's CCL, and
/// cuda::maximum is missing from the CUDA 12 releases Jetson ships.
struct Larger {
  __device__ uint32_t operator()(uint32_t a, uint32_t b) const { return a > b ? a : b; }
};

/// The block's range of a table of n entries: contiguous, whole warps, in block order,
/// so that blocks counted in order give the label order of the passing entries.
__device__ __forceinline__ void block_range(uint32_t n, uint32_t& begin, uint32_t& end) {
  const uint32_t per_block = (n / gridDim.x + kWarpSize) / kWarpSize * kWarpSize;
  begin = min(n, blockIdx.x * per_block);
  end = min(n, begin + per_block);
}

/// Finishes the boxes (width and height from the maxima the features pass kept), and
/// counts per block the entries of at least min_area pixels, their largest area and
/// how many have each area below kCountedAreas.
__global__ void __launch_bounds__(kReportBlock)
    finish_kernel(const FrameInfo* info, Component* table, const Blob* blobs,
                  blob::Filter filter, uint32_t* block_counts, uint32_t* block_max,
                  uint32_t* block_areas, uint32_t* epoch) {
  wait_for_previous_grid();
  using Reduce = cub::BlockReduce<uint32_t, kReportBlock>;
  __shared__ typename Reduce::TempStorage reduce;
  __shared__ EntryStaging staging[kReportBlock / kWarpSize];
  __shared__ uint32_t areas[kCountedAreas];  // passing entries per area below the limit
  for (uint32_t a = threadIdx.x; a < kCountedAreas; a += kReportBlock) areas[a] = 0;
  __syncthreads();
  uint32_t begin, end;
  block_range(info->count, begin, end);
  const int lane = threadIdx.x % kWarpSize;
  const int warp = threadIdx.x / kWarpSize;
  Component* mine = reinterpret_cast<Component*>(staging[warp]);
  uint32_t passing = 0, largest = 0;
  for (uint32_t first = begin + uint32_t(warp) * kWarpSize; first < end; first += kReportBlock) {
    const uint32_t i = first + lane;
    uint32_t counted = UINT32_MAX;  // the entry's area when it passes and is counted
    if (i < end) {
      Component c = table[i];
      c.width = c.width - c.x + 1;
      c.height = c.height - c.y + 1;
      mine[lane] = c;
      if (filter.passes(c, blobs + i)) {
        ++passing;
        largest = max(largest, uint32_t(c.area));
        if (c.area < kCountedAreas) counted = uint32_t(c.area);
      }
    }
    // One atomic per area and warp: noise frames' entries share a few small areas.
    const unsigned peers = __match_any_sync(kFullWarp, counted);
    if (counted != UINT32_MAX && (peers & ((1u << lane) - 1)) == 0)
      atomicAdd(&areas[counted], uint32_t(__popc(peers)));
    store_staged_entries(staging[warp], table + first, min(end - first, uint32_t(kWarpSize)));
  }
  passing = Reduce(reduce).Sum(passing);
  __syncthreads();  // also the area counts
  largest = Reduce(reduce).Reduce(largest, Larger());
  uint32_t* row = block_areas + size_t(blockIdx.x) * kCountedAreas;
  for (uint32_t a = threadIdx.x; a < kCountedAreas; a += kReportBlock) row[a] = areas[a];
  if (threadIdx.x == 0) {
    block_counts[blockIdx.x] = passing;
    block_max[blockIdx.x] = largest;
    // number_roots_kernel, the epoch's only reader, is done with this frame.
    if (blockIdx.x == 0) *epoch += 1;
  }
  allow_next_grid();
}

/// Where size_order() puts the reported entries, in shared memory per counted area:
/// the passing entries of larger areas, those of earlier blocks, and those of this
/// block met so far.
struct AreaRanks {
  uint32_t above[kCountedAreas];
  uint32_t earlier[kCountedAreas];
  uint32_t seen[kCountedAreas];
  uint32_t cut_area, cut_take;  // the smallest reported area; how many of it
  uint32_t warps;               // the warps of a round that hold some of the largest
};

/// The largest max_components passing entries of the block's range, written at their
/// reported positions (larger area first, equal areas in label order) into `out`. Every
/// passing area is below kCountedAreas, so the finishing blocks' counts per area give
/// each entry its position: the entries of larger areas, plus those of its own area
/// in earlier blocks, plus those of its area before it in this block. The last are
/// ranked warp by warp, in label order (match_any within a warp).
__device__ void size_order(const Component* table, const Blob* blobs, uint32_t begin,
                           uint32_t end, const blob::Filter& filter, uint32_t max_components,
                           uint32_t largest, const uint32_t* block_areas, AreaRanks& ranks,
                           Component* out, Blob* out_blobs) {
  using Scan = cub::BlockScan<uint32_t, kReportBlock>;
  __shared__ typename Scan::TempStorage scan;
  static_assert(kAreasPerThread == 8, "two 16-byte loads per row and thread");
  const uint32_t first_area = threadIdx.x * kAreasPerThread;
  uint32_t total[kAreasPerThread] = {}, earlier[kAreasPerThread] = {};
  // Several rows' loads in flight at once: one row at a time would wait for L2 once
  // per finishing block. Areas above the largest passing one count nothing (and noise
  // frames' largest is small): only the threads below it read.
  const uint32_t rows = first_area <= largest ? gridDim.x : 0;
#pragma unroll 4
  for (uint32_t b = 0; b < rows; ++b) {
    const uint4* row =
        reinterpret_cast<const uint4*>(block_areas + size_t(b) * kCountedAreas + first_area);
    const uint4 lo = row[0], hi = row[1];
    const uint32_t v[kAreasPerThread] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
#pragma unroll
    for (int j = 0; j < kAreasPerThread; ++j) {
      total[j] += v[j];
      earlier[j] += b < blockIdx.x ? v[j] : 0;
    }
  }
  uint32_t mine = 0;
#pragma unroll
  for (int j = 0; j < kAreasPerThread; ++j) mine += total[j];
  uint32_t below_mine, all;  // entries of the threads with smaller areas; everyone's
  Scan(scan).ExclusiveSum(mine, below_mine, all);
  uint32_t above = all - below_mine - mine;  // entries of larger areas than this thread's
  for (int j = kAreasPerThread - 1; j >= 0; --j) {
    const uint32_t a = first_area + uint32_t(j);
    ranks.above[a] = above;
    ranks.earlier[a] = earlier[j];
    ranks.seen[a] = 0;
    if (above < max_components && max_components <= above + total[j]) {
      ranks.cut_area = a;
      ranks.cut_take = max_components - above;
    }
    above += total[j];
  }
  __syncthreads();

  const uint32_t cut = ranks.cut_area;
  const int lane = threadIdx.x % kWarpSize;
  const int warp = threadIdx.x / kWarpSize;
  for (uint32_t first = begin; first < end; first += kReportBlock) {
    const uint32_t i = first + threadIdx.x;
    // Only areas at or above the cut can be reported (the cut is a passing area).
    // Entries above max_area pass no test here by their size alone (and may exceed
    // the counted areas): the range decides first.
    const bool passes = i < end && filter.passes(table[i], blobs + i);
    const uint64_t area = passes ? table[i].area : 0;
    const uint32_t a = passes && area >= cut ? uint32_t(area) : UINT32_MAX;
    // Most rounds hold none of the largest: skip them, and in the others take turns
    // only among the warps that hold some.
    __syncthreads();  // everyone read the last round's warps
    if (threadIdx.x == 0) ranks.warps = 0;
    __syncthreads();
    const bool any = __any_sync(kFullWarp, a != UINT32_MAX);
    if (lane == 0 && any) atomicOr(&ranks.warps, 1u << warp);
    __syncthreads();
    const uint32_t warps = ranks.warps;
    if (warps == 0) continue;
    const unsigned peers = __match_any_sync(kFullWarp, a);
    const uint32_t before_me = __popc(peers & ((1u << lane) - 1));
    uint32_t seen = 0;
    for (uint32_t turn = warps; turn; turn &= turn - 1) {
      const int w = __ffs(int(turn)) - 1;
      if (warp == w && a != UINT32_MAX) seen = ranks.seen[a];
      __syncwarp();
      if (warp == w && a != UINT32_MAX && before_me == 0) ranks.seen[a] = seen + __popc(peers);
      __syncthreads();
    }
    if (a != UINT32_MAX) {
      const uint32_t rank = ranks.earlier[a] + seen + before_me;  // within area a
      if (a > cut || rank < ranks.cut_take) {
        out[ranks.above[a] + rank] = table[i];
        if (out_blobs) out_blobs[ranks.above[a] + rank] = blobs[i];
      }
    }
  }
}

/// Sums the finishing blocks' counts (every block needs the total, and its own
/// offset) and fills the header. When no more than max_components pass, every block
/// writes its passing entries in label order into host memory, as much of them as
/// `capacity` entries hold (read() makes room and runs this again for the rest). When
/// more pass and all their areas are below kCountedAreas, the largest are put in
/// order on the device (size_order, into `ordered`; hand_over_kernel copies them);
/// otherwise read() sorts.
__global__ void __launch_bounds__(kReportBlock)
    report_kernel(const FrameInfo* info, const Component* table, const Blob* blobs,
                  blob::Filter filter, uint32_t max_components, const uint32_t* block_counts,
                  const uint32_t* block_max, const uint32_t* block_areas,
                  Component* host_table, Blob* host_blobs, uint32_t capacity,
                  Component* ordered, Blob* ordered_blobs, uint32_t* ordered_flag,
                  ReportHeader* header, int fixed_level) {
  wait_for_previous_grid();
  using Reduce = cub::BlockReduce<uint32_t, kReportBlock>;
  using Scan = cub::BlockScan<uint32_t, kReportBlock>;
  __shared__ union {
    typename Reduce::TempStorage reduce;
    typename Scan::TempStorage scan;
  } temp;
  __shared__ uint32_t totals[3];
  __shared__ union {
    uint64_t staged[kReportBlock * kEntryWords];
    AreaRanks ranks;
  } work;

  uint32_t total = 0, before = 0, largest = 0;
  for (uint32_t j = threadIdx.x; j < gridDim.x; j += kReportBlock) {
    const uint32_t count = block_counts[j];
    total += count;
    before += j < blockIdx.x ? count : 0;
    largest = max(largest, block_max[j]);
  }
  total = Reduce(temp.reduce).Sum(total);
  __syncthreads();
  before = Reduce(temp.reduce).Sum(before);
  __syncthreads();
  largest = Reduce(temp.reduce).Reduce(largest, Larger());
  const uint32_t n = info->count;
  if (threadIdx.x == 0) {
    totals[0] = total;
    totals[1] = before;
    totals[2] = largest;
    if (blockIdx.x == 0) {
      header->count = n;
      header->passing = total;
      header->max_area = largest;
      header->level = fixed_level >= 0 ? uint32_t(fixed_level) : info->level;
      *ordered_flag = total > max_components && ordered != nullptr && largest < kCountedAreas;
    }
  }
  __syncthreads();
  uint32_t begin, end;
  block_range(n, begin, end);
  if (totals[0] > max_components) {
    if (totals[2] < kCountedAreas && ordered != nullptr && max_components > 0)
      size_order(table, blobs, begin, end, filter, max_components, totals[2], block_areas,
                 work.ranks, ordered, ordered_blobs);
    return;
  }

  uint32_t at = totals[1];
  for (uint32_t first = begin; first < end; first += kReportBlock) {
    const uint32_t i = first + threadIdx.x;
    const bool passes = i < end && filter.passes(table[i], blobs + i);
    uint32_t slot, round;
    Scan(temp.scan).ExclusiveSum(uint32_t(passes), slot, round);
    // A blob (64 bytes) per thread, straight from its entry: one line each.
    if (passes && host_blobs && at + slot < capacity) host_blobs[at + slot] = blobs[i];
    if (passes) {
      const uint64_t* words = reinterpret_cast<const uint64_t*>(table + i);
#pragma unroll
      for (int k = 0; k < kEntryWords; ++k) work.staged[slot * kEntryWords + k] = words[k];
    }
    __syncthreads();
    const uint32_t room = at < capacity ? min(round, capacity - at) : 0;
    uint64_t* out = reinterpret_cast<uint64_t*>(host_table + at);
    for (uint32_t k = threadIdx.x; k < room * kEntryWords; k += kReportBlock)
      out[k] = work.staged[k];
    at += round;
    __syncthreads();  // staged and the scan's storage are reused
  }
}

/// When report_kernel ordered the largest on the device: copies them, `count` entries
/// (as many as `capacity` holds), into host memory as consecutive words.
__global__ void __launch_bounds__(kReportBlock)
    hand_over_kernel(const uint32_t* ordered_flag, const Component* ordered,
                     const Blob* ordered_blobs, uint32_t count, Component* host_table,
                     Blob* host_blobs, uint32_t capacity) {
  wait_for_previous_grid();
  if (!*ordered_flag) return;
  const size_t words = size_t(min(count, capacity)) * kEntryWords;
  const uint64_t* in = reinterpret_cast<const uint64_t*>(ordered);
  uint64_t* out = reinterpret_cast<uint64_t*>(host_table);
  for (size_t k = size_t(blockIdx.x) * kReportBlock + threadIdx.x; k < words;
       k += size_t(gridDim.x) * kReportBlock)
    out[k] = in[k];
  if (!host_blobs) return;
  for (size_t k = size_t(blockIdx.x) * kReportBlock + threadIdx.x; k < min(count, capacity);
       k += size_t(gridDim.x) * kReportBlock)
    host_blobs[k] = ordered_blobs[k];
}

/// Sort keys of the whole table: the largest area gets 0, equal areas equal keys (the
/// stable sort keeps them in label order), entries that do not pass `after_all`.
__global__ void size_keys_kernel(const Component* table, const Blob* blobs, uint32_t n,
                                 blob::Filter filter, uint32_t max_area, uint32_t after_all,
                                 uint32_t* keys, uint32_t* indices) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const uint64_t area = table[i].area;
  keys[i] = filter.passes(table[i], blobs + i) ? max_area - uint32_t(area) : after_all;
  indices[i] = i;
}

/// The first n entries of the table in `order`, into host memory, a warp per 32.
__global__ void __launch_bounds__(kReportBlock)
    gather_kernel(const Component* table, const Blob* blobs, const uint32_t* order, uint32_t n,
                  Component* host_table, Blob* host_blobs) {
  __shared__ EntryStaging staging[kReportBlock / kWarpSize];
  const int lane = threadIdx.x % kWarpSize;
  const int warp = threadIdx.x / kWarpSize;
  const uint32_t first = (blockIdx.x * (kReportBlock / kWarpSize) + warp) * kWarpSize;
  if (first >= n) return;
  if (first + lane < n) {
    reinterpret_cast<Component*>(staging[warp])[lane] = table[order[first + lane]];
    if (host_blobs) host_blobs[first + lane] = blobs[order[first + lane]];
  }
  store_staged_entries(staging[warp], host_table + first, min(n - first, uint32_t(kWarpSize)));
}

}  // namespace

bool Reporter::reserve(size_t capacity, uint32_t max_components, int sm_count,
                       bool with_blobs) {
  capacity = std::max<size_t>(capacity, 1);
  // One block per SM: each walks its range of the table in rounds, so fewer blocks
  // would mean more rounds one after the other.
  blocks_ = unsigned(std::clamp(sm_count, 1, kMaxReportBlocks));
  bool moved = std::exchange(moved_, false);
  moved |= block_counts_.reserve(blocks_);
  moved |= block_max_.reserve(blocks_);
  moved |= block_areas_.reserve(size_t(blocks_) * kCountedAreas);
  moved |= ordered_flag_.reserve(1);
  // Only a frame with more passing components than max_components orders them here,
  // and no frame has more than `capacity`.
  if (max_components < capacity && max_components <= kMostOrderedInFrame) {
    moved |= ordered_.reserve(max_components);
    if (with_blobs) moved |= ordered_blobs_.reserve(max_components);
  }
  moved |= header_.reserve(1);
  // The host copy starts small and grows to what frames report (read()): most frames
  // report far fewer components than the worst case, which would pin W*H/2 entries.
  moved |= host_table_.reserve(std::min<size_t>(capacity, 1 << 16));
  if (with_blobs) moved |= host_blobs_.reserve(host_table_.capacity());
  table_capacity_ = std::max(table_capacity_, capacity);
  return moved;
}

void Reporter::poison(int byte, size_t components) {
  std::memset(header_.host(), byte, sizeof(ReportHeader));
  std::memset(static_cast<void*>(host_table_.host()), byte,
              std::min(components, host_table_.capacity()) * sizeof(Component));
  if (host_blobs_.capacity())
    std::memset(static_cast<void*>(host_blobs_.host()), byte,
                std::min(components, host_blobs_.capacity()) * sizeof(Blob));
}

void Reporter::prepare(const FrameInfo* info, Component* table, uint32_t* epoch,
                       int fixed_level, const Options& options, const Blob* blobs) {
  info_ = info;
  table_ = table;
  epoch_ = epoch;
  fixed_level_ = fixed_level;
  min_area_ = options.min_area;
  filter_ = blob::Filter::of(options);
  max_components_ = options.max_components;
  blobs_ = blobs;
}

Blob* Reporter::host_blobs() { return blobs_ ? host_blobs_.device() : nullptr; }

Blob* Reporter::ordered_blobs() const { return blobs_ ? ordered_blobs_.get() : nullptr; }

void Reporter::launch(cudaStream_t stream, bool chained) {
  cuda::launch("finish_kernel", finish_kernel, blocks_, kReportBlock, stream, chained, info_,
               table_, blobs_, filter_, block_counts_.get(), block_max_.get(),
               block_areas_.get(), epoch_);
  launch_report(stream, chained);
  launch_hand_over(stream, chained);
}

void Reporter::launch_report(cudaStream_t stream, bool chained) {
  cuda::launch("report_kernel", report_kernel, blocks_, kReportBlock, stream, chained, info_,
               static_cast<const Component*>(table_), blobs_, filter_, max_components_,
               static_cast<const uint32_t*>(block_counts_.get()),
               static_cast<const uint32_t*>(block_max_.get()),
               static_cast<const uint32_t*>(block_areas_.get()), host_table_.device(),
               host_blobs(), host_capacity(), ordered_target(),
               ordered_target() ? ordered_blobs() : nullptr, ordered_flag_.get(),
               header_.device(), fixed_level_);
}

void Reporter::launch_hand_over(cudaStream_t stream, bool chained) {
  cuda::launch("hand_over_kernel", hand_over_kernel, blocks_, kReportBlock, stream, chained,
               static_cast<const uint32_t*>(ordered_flag_.get()),
               static_cast<const Component*>(ordered_target()),
               static_cast<const Blob*>(ordered_blobs()), max_components_,
               host_table_.device(), host_blobs(), host_capacity());
}

Component* Reporter::ordered_target() const {
  return max_components_ <= ordered_.capacity() ? ordered_.get() : nullptr;
}

uint32_t Reporter::host_capacity() const {
  return uint32_t(std::min<size_t>(host_table_.capacity(), UINT32_MAX));
}

ReportedTable Reporter::read(cudaStream_t stream, cudaEvent_t sorted_mark) {
  const ReportHeader h = header();
  if (h.count > table_capacity_ || h.passing > h.count)
    throw Error("the device reported " + std::to_string(h.count) + " components, " +
                std::to_string(h.passing) + " of them passing, for a table of " +
                std::to_string(table_capacity_));
  const uint32_t reported = std::min(h.passing, max_components_);
  const bool by_size = h.passing > max_components_ && reported > 0;
  // report_kernel ordered them
  const bool ordered_here = by_size && h.max_area < kCountedAreas && ordered_target();
  sorted_ = false;
  if (reported > host_table_.capacity()) {
    // Room for frames like this one, and this one's entries again.
    moved_ |= host_table_.reserve(
        std::min(table_capacity_, std::max<size_t>(reported, 2 * host_table_.capacity())));
    if (blobs_) moved_ |= host_blobs_.reserve(host_table_.capacity());
    if (!by_size) launch_report(stream, false);
    if (ordered_here) launch_hand_over(stream, false);
    if (!by_size || ordered_here) CCL_CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  if (by_size && !ordered_here) {
    sort_and_gather(h.count, reported, h.max_area, stream);
    if (sorted_mark) CCL_CUDA_CHECK(cudaEventRecord(sorted_mark, stream));
    CCL_CUDA_CHECK(cudaStreamSynchronize(stream));
    sorted_ = true;
  }
  return ReportedTable{host_table_.host(), reported, blobs_ ? host_blobs_.host() : nullptr};
}

void Reporter::sort_and_gather(uint32_t count, uint32_t reported, uint32_t max_area,
                               cudaStream_t stream) {
  keys_.reserve(2 * size_t(count));
  values_.reserve(2 * size_t(count));
  // Passing entries have areas in [min_area, max_area], keys in 0 .. max_area - min_area.
  const uint32_t floor = uint32_t(std::min<uint64_t>(min_area_, max_area));
  const uint32_t after_all = max_area - floor + 1;
  const int bits = 32 - __builtin_clz(after_all);
  cub::DoubleBuffer<uint32_t> keys(keys_.get(), keys_.get() + count);
  cub::DoubleBuffer<uint32_t> values(values_.get(), values_.get() + count);
  cuda::launch("size_keys_kernel", size_keys_kernel, ceil_div(count, kReportBlock), kReportBlock,
         stream, false, static_cast<const Component*>(table_), blobs_, count, filter_, max_area,
         after_all, keys.Current(), values.Current());
  size_t bytes = 0;
  CCL_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys, values, count, 0, bits,
                                                 stream));
  sort_scratch_.reserve(bytes);
  CCL_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(sort_scratch_.get(), bytes, keys, values,
                                                 count, 0, bits, stream));
  const unsigned warps_per_block = kReportBlock / kWarpSize;
  cuda::launch("gather_kernel", gather_kernel, ceil_div(reported, size_t(warps_per_block) * kWarpSize),
         kReportBlock, stream, false, static_cast<const Component*>(table_), blobs_,
         static_cast<const uint32_t*>(values.Current()), reported, host_table_.device(),
         host_blobs());
}

}  // namespace ccl::cuda
