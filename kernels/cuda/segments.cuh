// Run (segment) operators on foreground bitmasks, after Hennequin et al., "A new
// direct connected component labeling and analysis algorithms for GPUs" (HA4, §IV-A,
// algorithms 1 and 7): a warp's ballot makes a bitmask of a window of 32 or 64
// columns, and each thread finds where its run starts and ends with one clz/ffs.
// One home for these operators: HA's strip labeling and border merging and the shared
// analysis pass all use them.
#pragma once

#include <cstdint>

#include "geometry.h"
#include "union_find.cuh"

namespace ccl::cuda {

/// Bit operations on a window word (bit c = column c of the window).
template <class Word>
struct WindowBits;

template <>
struct WindowBits<uint32_t> {
  static constexpr int kColumns = 32;
  __device__ static int clz(uint32_t v) { return __clz(v); }
  __device__ static int ffs(uint32_t v) { return __ffs(v); }
  __device__ static int popc(uint32_t v) { return __popc(v); }
};

template <>
struct WindowBits<uint64_t> {
  static constexpr int kColumns = 64;
  __device__ static int clz(uint64_t v) { return __clzll(v); }
  __device__ static int ffs(uint64_t v) { return __ffsll(v); }
  __device__ static int popc(uint64_t v) { return __popcll(v); }
};

template <class Word>
__device__ __forceinline__ bool bit(Word bits, int c) {
  return (bits >> c) & 1;
}

/// Distance from foreground column c back to the first column of its run inside the
/// window: 0 exactly at a run's start (Hennequin's start_distance).
template <class Word>
__device__ __forceinline__ int start_distance(Word bits, int c) {
  constexpr int kCols = WindowBits<Word>::kColumns;
  // Columns below c moved to the top; two shifts keep c == 0 defined.
  const Word below = (bits << (kCols - 1 - c)) << 1;
  return WindowBits<Word>::clz(Word(~below));
}

/// Length of the run from foreground column c to its end inside the window: the run's
/// length when c is its start (Hennequin's end_distance).
template <class Word>
__device__ __forceinline__ int end_distance(Word bits, int c) {
  constexpr int kCols = WindowBits<Word>::kColumns;
  const Word ones_from_c = ~(bits >> c);
  return ones_from_c == 0 ? kCols - c : WindowBits<Word>::ffs(ones_from_c) - 1;
}

/// Length of the run that reaches the window's last column (0 if that column is
/// background): how far a run continues into the next window.
template <class Word>
__device__ __forceinline__ int top_run_length(Word bits) {
  return WindowBits<Word>::clz(Word(~bits));
}

/// Columns where a run starts, given whether column -1 is foreground.
template <class Word>
__device__ __forceinline__ Word run_starts(Word bits, bool left) {
  return bits & ~((bits << 1) | Word(left));
}

/// The window of a warp: lane l holds columns l and (64-column windows) l + 32.
template <class Word>
__device__ __forceinline__ Word warp_window(bool col_lo, bool col_hi) {
  const Word lo = __ballot_sync(kFullWarp, col_lo);
  if constexpr (WindowBits<Word>::kColumns == 64)
    return lo | (Word(__ballot_sync(kFullWarp, col_hi)) << 32);
  else
    return lo;
}

/// Calls f(c) for each set bit c of `bits`, lowest first.
template <class Word, class F>
__device__ __forceinline__ void for_each_bit(Word bits, F&& f) {
  while (bits) {
    const int c = WindowBits<Word>::ffs(bits) - 1;
    bits &= bits - 1;
    f(c);
  }
}

/// One row's foreground bits in a window plus what is known of column -1: whether it
/// is foreground, and the raster index of a union-find node of the run through it.
template <class Word>
struct RowWindow {
  Word bits;
  bool left;
  uint32_t left_node;  // valid when left
  uint32_t base;       // raster index of column 0

  __device__ bool fg(int c) const { return c < 0 ? left : bit(bits, c); }
  /// A node of the run through foreground column c (-1 allowed): the window-local
  /// start of its piece, or column -1's node when the run comes from the left.
  __device__ uint32_t node(int c) const {
    if (c < 0) return left_node;
    const int s = c - start_distance(bits, c);
    return (s == 0 && left) ? left_node : base + uint32_t(s);
  }
};

/// Bit c = lane + 32 * half of a window word, for the lane's own columns. With `half` a
/// compile-time constant the shift is a 32-bit one; shifting a 64-bit word by a
/// variable amount costs several instructions, and these tests run per pixel.
template <class Word>
__device__ __forceinline__ bool lane_bit(Word bits, int half, int lane) {
  return (uint32_t(uint64_t(bits) >> (32 * half)) >> lane) & 1;
}

/// The columns at which unite_rows unites the run of `cur` (row y) with a run of `up`
/// (row y-1): one column per touching pair of runs, where one of the two starts.
/// 4-connectivity: both foreground and one of them starts there. 8-connectivity: the
/// later-starting run sees the other at c-1 or c (cur's start takes precedence;
/// `from_cur` marks those columns). Computed for the whole window at once, so that
/// windows and lanes with nothing to unite (most of them) skip the per-column work.
template <class Word>
struct UnionColumns {
  Word all;
  Word from_cur;  // 8-connectivity: cur's run starts at the column
};

template <int Connectivity, class Word>
__device__ __forceinline__ UnionColumns<Word> union_columns(const RowWindow<Word>& cur,
                                                            const RowWindow<Word>& up) {
  const Word cur_starts = run_starts(cur.bits, cur.left);
  const Word up_starts = run_starts(up.bits, up.left);
  if constexpr (Connectivity == 4) {
    return {cur.bits & up.bits & (cur_starts | up_starts), 0};
  } else {
    const Word up_near = up.bits | (up.bits << 1) | Word(up.left);     // up.fg(c - 1 or c)
    const Word cur_near = cur.bits | (cur.bits << 1) | Word(cur.left);  // cur.fg(c - 1 or c)
    const Word from_cur = cur_starts & up_near;
    return {from_cur | (up_starts & ~from_cur & cur_near), from_cur};
  }
}

/// Unites the runs of `cur` and `up` that touch at column c, a column of
/// union_columns(cur, up). The run that starts at c is its own node there; only the
/// other run's node needs looking up. `labels`: the label image (uint32_t*) or a
/// union-find forest (union_find.cuh).
template <int Connectivity, class Word, class Forest>
__device__ __forceinline__ void unite_runs_at(const Forest& labels, const RowWindow<Word>& cur,
                                              const RowWindow<Word>& up, int c, bool from_cur) {
  if constexpr (Connectivity == 4) {
    uf_union(labels, cur.node(c) + 1, up.node(c) + 1);
  } else if (from_cur) {
    uf_union(labels, cur.base + uint32_t(c) + 1, up.node(up.fg(c - 1) ? c - 1 : c) + 1);
  } else {
    uf_union(labels, up.base + uint32_t(c) + 1, cur.node(cur.fg(c - 1) ? c - 1 : c) + 1);
  }
}

/// Position of the n-th (from 0) set bit of v, n < popc(v): a binary search on counts.
__device__ __forceinline__ int nth_set_bit(uint32_t v, int n) {
  int position = 0;
#pragma unroll
  for (int width = 16; width >= 1; width /= 2) {
    const int below = __popc(v & ((1u << width) - 1));
    if (n >= below) {
      n -= below;
      v >>= width;
      position += width;
    }
  }
  return position;
}

/// Unites the runs of `cur` and `up` that touch at `columns` (union_columns). A
/// 32-column window gives lane l column l. A 64-column window deals its union
/// columns out one per lane: lanes taking columns l and l + 32 in two passes ran the
/// union loops twice whenever both halves had unions, each pass with few lanes.
template <int Connectivity, class Word, class Forest>
__device__ __forceinline__ void unite_at_columns(const Forest& labels, const RowWindow<Word>& cur,
                                                 const RowWindow<Word>& up,
                                                 const UnionColumns<Word>& columns, int lane) {
  if constexpr (WindowBits<Word>::kColumns == 32) {
    if (lane_bit(columns.all, 0, lane))
      unite_runs_at<Connectivity>(labels, cur, up, lane, lane_bit(columns.from_cur, 0, lane));
  } else {
    const uint32_t low = uint32_t(columns.all), high = uint32_t(columns.all >> 32);
    const int in_low = __popc(low), count = in_low + __popc(high);
    for (int j = lane; j < count; j += kWarpSize) {
      const int c = j < in_low ? nth_set_bit(low, j) : 32 + nth_set_bit(high, j - in_low);
      unite_runs_at<Connectivity>(labels, cur, up, c, bit(columns.from_cur, c));
    }
  }
}

/// Unites every pair of touching runs of `cur` (row y) and `up` (row y-1), each at one
/// column only.
template <int Connectivity, class Word, class Forest>
__device__ __forceinline__ void unite_rows(const Forest& labels, const RowWindow<Word>& cur,
                                           const RowWindow<Word>& up, int lane) {
  const UnionColumns<Word> columns = union_columns<Connectivity>(cur, up);
  if (columns.all != 0) unite_at_columns<Connectivity>(labels, cur, up, columns, lane);
}

/// Columns 0 .. n-1 of a window word (n up to the window's width).
template <class Word>
__device__ __forceinline__ Word columns_below(int n) {
  return n >= WindowBits<Word>::kColumns ? ~Word(0) : (Word(1) << n) - 1;
}

/// Position of the n-th (from 0) set bit of a window word, n < popc(v).
template <class Word>
__device__ __forceinline__ int nth_column(Word v, int n) {
  if constexpr (WindowBits<Word>::kColumns == 32) {
    return nth_set_bit(v, n);
  } else {
    const uint32_t low = uint32_t(v);
    const int in_low = __popc(low);
    return n < in_low ? nth_set_bit(low, n) : 32 + nth_set_bit(uint32_t(v >> 32), n - in_low);
  }
}

/// Union columns per window above which unite_new_runs unites 8-connected groups
/// instead of pairs. Below it a window's few pairs cost less than finding the groups
/// (measured against 8 and 12, PERF_NOTES.md step 46).
constexpr int kGroupUnionColumns = 4;

/// unite_rows for a `cur` whose runs starting in the window are new roots: HA's strips
/// create them in the same window step, and only this call and the next row's unions
/// link them. With 8-connectivity the two rows' pixels fall into groups, the runs of
/// cur | up (any pixels of neighbouring columns touch), and each group is one
/// connected piece. A group's anchor is its smallest node: column -1's node of the
/// row above, else its first run of `up`, else column -1's node of `cur`. The new runs
/// hang straight under it (one atomicMin, no finds), and only the group's older nodes
/// are united with it: in a dense window each run touches two or three runs of the
/// other row, and unite_rows walks both trees for every touching pair.
template <int Connectivity, class Word, class Forest>
__device__ __forceinline__ void unite_new_runs(const Forest& forest, const RowWindow<Word>& cur,
                                               const RowWindow<Word>& up, int lane) {
  constexpr int kCols = WindowBits<Word>::kColumns;
  const UnionColumns<Word> columns = union_columns<Connectivity>(cur, up);
  // Pairs of runs that both come from the left were united where they met before.
  if (columns.all == 0) return;
  // 4-connected groups are not the runs of cur | up: pixels of neighbouring columns
  // touch only within a row.
  if (Connectivity == 4 || WindowBits<Word>::popc(columns.all) <= kGroupUnionColumns) {
    unite_at_columns<Connectivity>(forest, cur, up, columns, lane);
    return;
  }
  const Word both = cur.bits | up.bits;
  const bool up_left_in = up.left && bit(both, 0);
  const bool cur_left_in = cur.left && bit(both, 0);
  const Word group_starts = both & ~((both << 1) | Word(cur.left || up.left));
  const Word fresh = run_starts(cur.bits, cur.left);
  const Word older = run_starts(up.bits, up.left);
  const int in_fresh = WindowBits<Word>::popc(fresh);
  const int in_older = WindowBits<Word>::popc(older);
  // Column -1's two pixels touch, so their nodes are one tree already when both are.
  const int count = in_fresh + in_older + int(cur_left_in && !up_left_in);

  // Anchor label (node + 1) of column c's group, 0 if the group has none.
  auto anchor_of = [&](int c) -> uint32_t {
    const Word from_start = group_starts & columns_below<Word>(c + 1);
    const Word after = group_starts & ~columns_below<Word>(c + 1);
    const bool from_left = from_start == 0;  // the group goes on left of the window
    if (from_left && up_left_in) return up.left_node + 1;
    const int first = from_left ? 0 : kCols - 1 - WindowBits<Word>::clz(from_start);
    const int end = after ? WindowBits<Word>::ffs(after) - 1 : kCols;
    const Word ups = up.bits & columns_below<Word>(end) & ~columns_below<Word>(first);
    if (ups) return up.base + uint32_t(WindowBits<Word>::ffs(ups) - 1) + 1;
    return from_left && cur_left_in ? cur.left_node + 1 : 0;
  };

  for (int j = lane; j < count; j += kWarpSize) {
    const bool is_fresh = j < in_fresh;
    const bool is_left = j == in_fresh + in_older;
    const int c = is_left ? 0 : nth_column(is_fresh ? fresh : older, is_fresh ? j : j - in_fresh);
    const uint32_t anchor = anchor_of(c);
    const uint32_t node = is_fresh  ? cur.base + uint32_t(c) + 1
                          : is_left ? cur.left_node + 1
                                    : up.base + uint32_t(c) + 1;
    if (anchor == 0 || anchor == node) continue;
    uint32_t other = node;
    if (is_fresh) {
      // The next row's unions may have linked the new root already: then its old
      // parent's tree and the anchor's are joined as well.
      other = forest.link(node, anchor);
      if (other == node) continue;
    }
    uf_union(forest, other, anchor);
  }
}

}  // namespace ccl::cuda
