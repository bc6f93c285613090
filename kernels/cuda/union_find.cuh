// Union-find on the label image, shared by every algorithm (HA4/HA8, KE4/KE8).
//
// The contract between the labeling algorithms and the shared analysis stage
// (labels.cuh): labels hold  root raster index + 1  for foreground pixels and 0 for
// background. A root is the pixel whose label is its own index + 1. Unions always hang
// the larger root under the smaller, so every component's root is its first pixel in
// raster order; consecutive output labels then follow from a scan over roots.
#pragma once

#include <cstdint>

namespace ccl::cuda {

/// Follows parents to the root; returns the root's label (index + 1).
__device__ __forceinline__ uint32_t uf_find(const uint32_t* labels, uint32_t label) {
  uint32_t parent = labels[label - 1];
  while (parent != label) {
    label = parent;
    parent = labels[label - 1];
  }
  return label;
}

/// Same, compressing the path it walked (halving), for kernels where writes are allowed.
__device__ __forceinline__ uint32_t uf_find_compress(uint32_t* labels, uint32_t label) {
  uint32_t parent = labels[label - 1];
  while (parent != label) {
    const uint32_t grand = labels[parent - 1];
    if (grand != parent) labels[label - 1] = grand;
    label = parent;
    parent = grand;
  }
  return label;
}

/// Merges the trees of labels a and b, hanging the larger root under the smaller.
/// Lock-free: retries when another thread re-parented a root in between.
__device__ __forceinline__ void uf_union(uint32_t* labels, uint32_t a, uint32_t b) {
  bool done;
  do {
    a = uf_find(labels, a);
    b = uf_find(labels, b);
    if (a == b) return;
    if (a > b) {
      const uint32_t t = a;
      a = b;
      b = t;
    }
    // b becomes a child of a only if b is still a root.
    const uint32_t old = atomicMin(&labels[b - 1], a);
    done = (old == b);
    b = old;
  } while (!done);
}

}  // namespace ccl::cuda
