// What a labeling algorithm is to the engine: two stages that turn a frame into the
// union-find forest of union_find.cuh, after which every algorithm shares the same
// analysis (numbering, features) and report. One class per algorithm, one file each
// in labelers/, found through the registry (ccl/algorithms.def). How to add one:
// docs/ARCHITECTURE.md, "Adding a labeling algorithm".
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "ccl/cuda_engine.h"
#include "ccl/cuda_memory.h"
#include "ccl/types.h"
#include "foreground.cuh"
#include "geometry.h"

namespace ccl::cuda {

/// Everything a labeler's stages are launched with for one frame.
struct LabelingFrame {
  Foreground fg;         // the frame's luma plane and its threshold (foreground.cuh)
  FrameGeometry geo;     // W x H, mask layout (geometry.h)
  uint32_t* labels;      // W*H: the forest the stages leave (union_find.cuh)
  uint64_t* mask;        // geo.mask_words(): the foreground bits the local stage writes
  int connectivity;      // 4 or 8
  Tuning tuning;         // the engine's tuning (ccl/cuda_engine.h)
  int sm_count;          // the device's multiprocessors, for grids sized to fill it
  /// The merge's kernels may be launched chained to the kernel before them (chain.h):
  /// only the local stage's first kernel must not be.
  bool chained;
  /// scratch_bytes(geo, connectivity) bytes of device memory, 256-byte aligned,
  /// uninitialized (poisoned in tests); null when that is 0.
  void* scratch;
  /// One word of pinned host memory mapped into the device (host_flag: the host's
  /// address, device_flag: the kernels'), for labelers that iterate until a kernel
  /// reports no change (host_rounds()); may be null for the others.
  uint32_t* host_flag;
  uint32_t* device_flag;
  cudaStream_t stream;
};

/// A labeling algorithm. The stages must leave, for the analysis:
///  - the foreground mask: bit c of word w of row y = pixel (64 w + c, y), 0 past the
///    width, written by the local stage (the only stage that reads the frame);
///  - labels: 0 for background; for foreground pixels the union-find forest of
///    union_find.cuh: parent raster index + 1, every parent before its child, so that
///    each component's root is its first pixel in raster order. Every pixel that starts
///    a run inside an aligned 64-column window must be a node (its label is read);
///    other foreground pixels may hold anything non-zero.
/// Stateless: one instance serves every engine and thread; per-frame memory comes in
/// LabelingFrame. Every launch is checked (ccl/cuda_memory.h) and goes to frame.stream.
class Labeler {
 public:
  virtual ~Labeler() = default;

  /// Device scratch a frame needs besides labels and mask (LabelingFrame::scratch).
  virtual size_t scratch_bytes(const FrameGeometry&, int /*connectivity*/) const { return 0; }

  /// True when merge() waits on the host between rounds (algorithms that iterate until
  /// a kernel reports no change). Such frames are never captured into CUDA graphs, and
  /// Engine::enqueue returns only once their merge has converged.
  virtual bool host_rounds() const { return false; }

  /// First stage: reads the frame (thresholding it), writes the mask and a forest
  /// that is right within each tile, strip or whatever unit the algorithm works on.
  virtual void local(const LabelingFrame& frame) const = 0;

  /// Second stage: joins the local forests into one tree per component.
  virtual void merge(const LabelingFrame& frame) const = 0;
};

/// The host's side of a merge with host_rounds(): batches of rounds until one ends with
/// nothing changed. enqueue(first, count) queues rounds first .. first + count - 1
/// (numbered from 1) on frame.stream, then a kernel that makes *frame.device_flag
/// non-zero when the last of them changed something; the host clears the flag, waits
/// once per batch and reads it. Batches start at `first_batch` rounds and, `growing`,
/// each is as long as all before it, so that the hardest frames wait few times. Every
/// round that changes something joins two trees at least, so more rounds than pixels
/// mean a bug, not a hard frame: that throws ccl::Error naming `algorithm`.
template <class Enqueue>
void run_host_rounds(const LabelingFrame& frame, const char* algorithm, uint32_t first_batch,
                     bool growing, Enqueue&& enqueue) {
  if (!frame.host_flag || !frame.device_flag)
    throw Error(std::string(algorithm) + ": no host flag for its rounds");
  volatile uint32_t* changed = frame.host_flag;
  const size_t limit = frame.geo.pixels() + 2;
  for (uint32_t done = 0;;) {
    const uint32_t batch = growing ? std::max(first_batch, done) : first_batch;
    *changed = 0;
    enqueue(done + 1, batch);
    done += batch;
    const cudaError_t waited = cudaStreamSynchronize(frame.stream);
    if (waited != cudaSuccess)
      check(waited, (std::string(algorithm) + ": waiting for its rounds").c_str());
    if (*changed == 0) return;
    if (done >= limit)
      throw Error(std::string(algorithm) + ": labels still changing after " +
                  std::to_string(done) + " rounds");
  }
}

/// The labeler of each registry entry; every labelers/*.cu file defines its own
/// specialization (a missing one fails at link time).
template <Algorithm A>
const Labeler& labeler_of();

/// The labeler of `a` (registry lookup); throws ccl::Error outside the registry.
const Labeler& labeler(Algorithm a);

}  // namespace ccl::cuda
