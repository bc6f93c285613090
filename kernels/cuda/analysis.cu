// The analysis stage's host side: its scratch (scan statuses, epochs, the table) and
// its two launches, the numbering (numbering.cu) and the features pass (features_pass.cu).
#include "analysis.h"

#include <algorithm>

#include "ccl/cuda_memory.h"
#include "features_pass.h"
#include "look_back.cuh"
#include "numbering.h"

namespace ccl::cuda {

bool Analysis::reserve(const FrameGeometry& geo, size_t capacity, int sm_count) {
  count_blocks_ = numbering_blocks(geo);
  // The features blocks that fit on the device at once: measure() caps its grid at a
  // few times that (FeaturesPolicy::kTilesPerResidentBlock).
  if (feature_blocks_per_sm_ == 0) feature_blocks_per_sm_ = features_blocks_per_sm();
  feature_blocks_ = unsigned(feature_blocks_per_sm_ * sm_count);
  bool moved = epoch_.reserve(1);
  moved |= status_.reserve(count_blocks_);
  if (moved) frames_ = 0;  // fresh memory: cleared before its first use
  moved |= table_.reserve(std::max<size_t>(capacity, 1));
  return moved;
}

void Analysis::poison(int byte, size_t components, cudaStream_t stream) {
  // Not the scan statuses: the epoch already tells stale ones apart.
  table_.fill_bytes(byte, components, stream);
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
                      int connectivity, FrameInfo* info, cudaStream_t stream, Blob* blobs,
                      uint32_t properties) {
  const uint32_t blob_min = properties & kPropertyIntensity ? UINT32_MAX : 0u;
  launch_numbering(geo, mask, labels, connectivity, status_.get(), epoch_.get(), table_.get(),
                   blobs, blob_min, info, stream);
}

void Analysis::measure(const FrameGeometry& geo, const uint64_t* mask, uint32_t* labels,
                       uint32_t* out, cudaStream_t stream, bool chained) {
  launch_features(geo, mask, labels, out, table_.get(), feature_blocks_, stream, chained);
}

}  // namespace ccl::cuda
