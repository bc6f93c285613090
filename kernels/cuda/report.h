// The frame's report: finishes the component table, picks the components the options
// report (min-area, max-components: largest first, equal areas by label) and hands
// them to the host. Only the reported entries cross the bus, so the copy and every
// host step after it scale with what is reported, not with what the frame holds.
//
// On the stream, with no host synchronization (launch()):
//   finish_kernel  bounding boxes finished; per block of the table, the entries that
//                  pass min-area, their largest area, and how many have each area
//                  below kSizeOrderWithoutWait
//   report_kernel  the total that pass; when it is at most max_components, every block
//                  writes its passing entries, in label order, into mapped host memory;
//                  when more pass and all their areas are below kSizeOrderWithoutWait,
//                  the counts per area give each of the largest its position (larger
//                  areas first, equal areas in label order) in a device buffer (up
//                  to 2^20 of them)
//   hand_over_kernel  that buffer, when used, into mapped host memory
// When more pass than max_components and some are larger, the order needs a sort whose
// length only the device knew: after the host has read the header, read() sorts the
// table by area (a stable radix sort, so equal areas stay in label order) and gathers
// the largest into mapped host memory, a second wait that only such frames pay.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "ccl/cuda_memory.h"
#include "ccl/cuda_engine.h"
#include "ccl/types.h"
#include "../src/blob_math.h"
#include "threshold.h"

namespace ccl::cuda {

/// What the device leaves in mapped host memory for read().
struct ReportHeader {
  uint32_t count;     // components in the frame
  uint32_t passing;   // of those, the ones within [min_area, max_area]
  uint32_t max_area;  // the largest passing area (areas are below 2^31)
  uint32_t level;     // threshold level used
};

/// The reported table of a frame, in mapped host memory until the next launch().
struct ReportedTable {
  const Component* entries = nullptr;
  uint32_t size = 0;
  const Blob* blobs = nullptr;  // beside the entries, when the frame has blobs
};

class Reporter {
 public:
  /// Scratch for tables of up to `capacity` components, of which up to max_components
  /// are reported. True when memory the kernels use moved since the last call (here or
  /// when read() made room): graphs that captured launch() must go.
  /// with_blobs: the frames have blobs (BlobPass) to hand over too.
  bool reserve(size_t capacity, uint32_t max_components, int sm_count, bool with_blobs);
  /// Fills the header and the host table's first `components` entries with `byte`.
  void poison(int byte, size_t components);

  /// The frame to report, before its launch() is queued or replayed: its table and
  /// count (info) as the stream computes them; fixed_level < 0: the level is Otsu's,
  /// from info. The kernels advance `epoch` once per frame (Analysis::epoch()).
  /// blobs: the frame's blob table (BlobPass) beside `table`, or null; its entries
  /// travel with the reported components, and the blob filters read it.
  void prepare(const FrameInfo* info, Component* table, uint32_t* epoch, int fixed_level,
               const Options& options, const Blob* blobs);
  /// Queues the report's kernels (or records them into a graph being captured).
  /// chained: the first is launched chained to the stream's previous kernel (chain.h).
  void launch(cudaStream_t stream, bool chained);

  /// Once the stream has passed launch()'s work: the header.
  const ReportHeader& header() const { return *header_.host(); }

  /// The reported table, in the order of Options' contract; sorts and gathers first
  /// when more components passed than are reported, records `sorted_mark` (when not
  /// null) after that on the stream, and waits for it.
  ReportedTable read(cudaStream_t stream, cudaEvent_t sorted_mark);

  /// True when read() of the last frame waited for a sort on the device (more passed
  /// than are reported, some of them of kSizeOrderWithoutWait pixels or more).
  bool sorted() const { return sorted_; }

 private:
  void launch_report(cudaStream_t stream, bool chained);
  void launch_hand_over(cudaStream_t stream, bool chained);
  uint32_t host_capacity() const;
  /// Where report_kernel may order the largest: null when the buffer cannot hold
  /// max_components (read() sorts those frames instead).
  Component* ordered_target() const;
  bool moved_ = false;  // host_table_ reallocated since reserve() last said so
  void sort_and_gather(uint32_t count, uint32_t reported, uint32_t max_area, cudaStream_t stream);

  unsigned blocks_ = 1;
  DeviceBuffer<uint32_t> block_counts_;  // per finish_kernel block: passing entries
  DeviceBuffer<uint32_t> block_max_;     // per finish_kernel block: largest passing area
  DeviceBuffer<uint32_t> block_areas_;   // per block and area below the limit: passing
  DeviceBuffer<Component> ordered_;      // the largest, in order (report_kernel)
  DeviceBuffer<Blob> ordered_blobs_;     // their blobs, when the frame has blobs
  DeviceBuffer<uint32_t> ordered_flag_;  // whether report_kernel ordered them
  MappedBuffer<ReportHeader> header_;
  MappedBuffer<Component> host_table_;
  MappedBuffer<Blob> host_blobs_;  // beside host_table_, as large, once a frame had blobs
  size_t table_capacity_ = 0;
  // The frame queued last (read() reuses its arguments).
  const FrameInfo* info_ = nullptr;
  Component* table_ = nullptr;
  uint32_t* epoch_ = nullptr;
  int fixed_level_ = 0;
  uint64_t min_area_ = 0;
  blob::Filter filter_{};  // what a reported entry must meet (area range, blob filters)
  const Blob* blobs_ = nullptr;
  /// The blobs' host copy when the frame has blobs (grown to the host table), else null.
  Blob* host_blobs();
  Blob* ordered_blobs() const;
  uint32_t max_components_ = 0;
  bool sorted_ = false;  // the last read() sorted
  // The sort of frames with more passing components than are reported.
  DeviceBuffer<uint32_t> keys_, values_;  // two halves each: cub::DoubleBuffer
  DeviceBuffer<uint8_t> sort_scratch_;
  size_t sort_scratch_bytes_ = 0;
};

}  // namespace ccl::cuda
