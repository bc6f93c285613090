// Union-find on the label image, shared by every algorithm (HA4/HA8, KE4/KE8).
//
// The contract between the labeling algorithms and the shared analysis stage
// (numbering.cu, features_pass.cu): labels hold  parent raster index + 1  for union-find nodes and 0 for
// background. A root is the node whose label is its own index + 1. Unions always hang
// the larger root under the smaller and every parent precedes its child, so a
// component's root is its first pixel in raster order; consecutive output labels then
// follow from a scan over roots.
//
// Which pixels are nodes: every foreground pixel for Komura (compressed once before
// its reduction, not after it); for HA the start of every run piece inside each
// aligned 32- or 64-column window (a piece continuing a run points at the run's start).
// What the analysis needs, and both provide: every pixel that starts a run piece of a
// 64-column window is a node, and so is every component's first pixel.
//
// Numbering then overwrites each root's label with kIdTag | id (id = 1..N), so a walk
// from any node ends at the first tagged value it meets.
#pragma once

#include <cstdint>

namespace ccl::cuda {

/// Marks a root slot that holds the component's output id instead of a parent. Free
/// because raster indices + 1 stay below 2^31 (W*H < 2^31).
constexpr uint32_t kIdTag = 0x80000000u;
/// With kIdTag: the component is this root's run alone and its features are already in
/// the table (numbering.cu). Free because ids stay below 2^30 (at most W*H/2 components).
/// uf_find_ids returns it with the id; only a run's own start can meet it.
constexpr uint32_t kSoloTag = 0x40000000u;

/// How union-find reads and re-links parents. The label image in global memory uses
/// plain loads and stores: its finds and unions race benignly (a stale parent only
/// costs a retry) and atomicMin decides every link. A block's forest in shared memory
/// (HA strips) is touched only through atomics while its warps unite concurrently, so
/// that those unions are data-race free in the memory model's sense, which
/// compute-sanitizer's racecheck, watching shared memory, can then confirm.
struct PlainForest {
  uint32_t* parents;
  __device__ __forceinline__ uint32_t parent(uint32_t label) const { return parents[label - 1]; }
  /// Path halving: `to` is an ancestor, so the node stays in its tree.
  __device__ __forceinline__ void shortcut(uint32_t label, uint32_t to) const {
    parents[label - 1] = to;
  }
  __device__ __forceinline__ uint32_t link(uint32_t root, uint32_t to) const {
    return atomicMin(&parents[root - 1], to);
  }
};

struct AtomicForest {
  uint32_t* parents;
  __device__ __forceinline__ uint32_t parent(uint32_t label) const {
    return atomicOr(&parents[label - 1], 0u);
  }
  __device__ __forceinline__ void shortcut(uint32_t label, uint32_t to) const {
    atomicMin(&parents[label - 1], to);
  }
  __device__ __forceinline__ uint32_t link(uint32_t root, uint32_t to) const {
    return atomicMin(&parents[root - 1], to);
  }
};

__device__ __forceinline__ PlainForest forest_of(uint32_t* labels) { return {labels}; }
__device__ __forceinline__ const AtomicForest& forest_of(const AtomicForest& f) { return f; }

/// Follows parents to the root; returns the root's label (index + 1). For walks that
/// no other thread writes concurrently, or that tolerate stale parents.
__device__ __forceinline__ uint32_t uf_find(const uint32_t* labels, uint32_t label) {
  uint32_t parent = labels[label - 1];
  while (parent != label) {
    label = parent;
    parent = labels[label - 1];
  }
  return label;
}

/// Same, compressing the path it walked (halving), for kernels where writes are allowed.
template <class Forest>
__device__ __forceinline__ uint32_t uf_find_compress(const Forest& forest, uint32_t label) {
  uint32_t parent = forest.parent(label);
  while (parent != label) {
    const uint32_t grand = forest.parent(parent);
    if (grand != parent) forest.shortcut(label, grand);
    label = parent;
    parent = grand;
  }
  return label;
}

/// Merges the trees of labels a and b, hanging the larger root under the smaller.
/// Lock-free: retries when another thread re-parented a root in between. A stale read
/// only costs a retry: every parent stays in its node's tree and below the node.
/// The finds halve the paths they walk: strips and chunks are merged into chains of
/// roots that later unions would otherwise walk again and again. A halving store only
/// touches nodes that are no longer roots, so it can at worst undo a link that a
/// failed union attempt left behind, and that union goes on through the root it met.
/// `where` is a uint32_t* label image or a forest (PlainForest, AtomicForest).
template <class Where>
__device__ __forceinline__ void uf_union(const Where& where, uint32_t a, uint32_t b) {
  const auto& forest = forest_of(where);
  bool done;
  do {
    a = uf_find_compress(forest, a);
    b = uf_find_compress(forest, b);
    if (a == b) return;
    if (a > b) {
      const uint32_t t = a;
      a = b;
      b = t;
    }
    // b becomes a child of a only if b is still a root; otherwise b's current parent
    // (old) must still be merged with a, which the next round does.
    const uint32_t old = forest.link(b, a);
    done = (old == b);
    b = old;
  } while (!done);
}

/// After numbering: the output ids of the components that nodes `label` (0: none, id
/// 0) belong to. The N walks advance in lockstep, so that a thread waits once per step
/// for all of them rather than once per step of each. A walk longer than one step
/// writes the tagged id into its starting node, so later walks through it stop early
/// (a node may hold its component's tagged id as well as a parent: both lead to the
/// same id).
template <int N>
__device__ __forceinline__ void uf_find_ids(uint32_t* labels, const uint32_t (&label)[N],
                                            uint32_t (&id)[N]) {
  uint32_t v[N];
#pragma unroll
  for (int j = 0; j < N; ++j) v[j] = label[j] ? labels[label[j] - 1] : kIdTag;
#pragma unroll
  for (int j = 0; j < N; ++j)
    if (!(v[j] & kIdTag)) v[j] = labels[v[j] - 1];
  bool deep[N];
  bool walking = false;
#pragma unroll
  for (int j = 0; j < N; ++j) {
    deep[j] = !(v[j] & kIdTag);
    walking |= deep[j];
  }
  while (walking) {
    walking = false;
#pragma unroll
    for (int j = 0; j < N; ++j)
      if (!(v[j] & kIdTag)) {
        v[j] = labels[v[j] - 1];
        walking |= !(v[j] & kIdTag);
      }
  }
#pragma unroll
  for (int j = 0; j < N; ++j) {
    if (deep[j]) labels[label[j] - 1] = v[j];
    id[j] = v[j] & ~kIdTag;
  }
}

}  // namespace ccl::cuda
