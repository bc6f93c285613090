// The analysis stage every algorithm shares: roots numbered 1..N in raster order
// (docs/CONTRACT.md, "Output"), then one pass that writes the output labels and accumulates every
// component's features run by run (Hennequin et al.'s CCA). The table's hand-over to
// the host is report.h's.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "ccl/cuda_memory.h"
#include "ccl/types.h"
#include "geometry.h"
#include "threshold.h"

namespace ccl::cuda {

class Analysis {
 public:
  /// Scratch for frames of `geo`, a device table of `capacity` components. Grows only.
  /// True when device memory that number() or measure() use moved.
  bool reserve(const FrameGeometry& geo, size_t capacity, int sm_count);
  /// Fills what a frame with up to `components` components uses with `byte`.
  void poison(int byte, size_t components, cudaStream_t stream);

  /// Before each frame's number(), outside any graph capture: clears the scan statuses
  /// when their epochs run out (or the memory is fresh). The frame's epoch itself lives
  /// on the device (epoch()), so that a captured number() stays valid.
  void begin_frame(cudaStream_t stream);

  /// Gives each root its id in one pass (block scan, then a decoupled look-back over
  /// the preceding blocks); each root's label becomes kIdTag | id, its table entry is
  /// started, and N lands in info->count. Never launched chained (numbering.cu says why).
  /// blobs: the frame's blob table (BlobPass), started here too; null without one.
  void number(const FrameGeometry& geo, const uint64_t* mask, uint32_t* labels,
              int connectivity, FrameInfo* info, cudaStream_t stream, Blob* blobs = nullptr,
              uint32_t properties = 0);

  /// Output labels (when `out` is not null) and the features of every component.
  /// chained: launched chained to the stream's previous kernel (chain.h).
  void measure(const FrameGeometry& geo, const uint64_t* mask, uint32_t* labels,
               uint32_t* out, cudaStream_t stream, bool chained);

  /// The frame's table: N entries, started by number(), summed by measure(); the
  /// bounding boxes hold (x min, y min, x max, y max) until the report finishes them.
  Component* device_table() const { return table_.get(); }
  size_t table_capacity() const { return table_.capacity(); }
  /// Frames whose numbering is over: the frame's last kernel that reads the table
  /// advances it (number() tells its own scan entries from older ones by it).
  uint32_t* epoch() const { return epoch_.get(); }

 private:
  unsigned count_blocks_ = 0;
  int feature_blocks_per_sm_ = 0;  // resident features_kernel blocks, asked once
  unsigned feature_blocks_ = 1;
  DeviceBuffer<uint64_t> status_;  // per-block scan status (look_back.cuh)
  DeviceBuffer<uint32_t> epoch_;   // frames published since status_ was cleared
  uint32_t frames_ = 0;            // host's count of the same; 0: status_ not cleared
  DeviceBuffer<Component> table_;
};

}  // namespace ccl::cuda
