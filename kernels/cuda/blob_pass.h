// The blob pass (Options::properties, ccl/blob.h): after the features pass has written
// the output labels, one kernel sums every component's intensity, colors, perimeter
// classes and Euler coefficients into a table of ccl::Blob beside the component
// table. Queued only when a frame asks for properties (or filters on them).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "ccl/cuda_memory.h"
#include "ccl/types.h"
#include "geometry.h"
#include "threshold.h"

namespace ccl::cuda {

class BlobPass {
 public:
  /// A table of `capacity` blobs. True when its memory moved.
  bool reserve(size_t capacity, int sm_count);
  void poison(int byte, size_t components, cudaStream_t stream);

  /// Adds into the table, whose entries the numbering started (Analysis::number), the
  /// blobs of the components of `labels` (the output label image, 1..N) over `image`'s
  /// planes (device memory): the Property bits `properties`, the Euler number for
  /// `connectivity`. chained: as chain.h.
  void measure(const FrameGeometry& geo, const ImageView& image, const uint32_t* labels,
               uint32_t properties, int connectivity, cudaStream_t stream, bool chained);

  /// The frame's blobs, in label order (info->count of them).
  Blob* device_table() const { return table_.get(); }

 private:
  DeviceBuffer<Blob> table_;
  int sm_count_ = 1;
};

}  // namespace ccl::cuda
