// Timing of one engine configuration on one device-resident frame, and of the
// device's copy bandwidth (the ceiling that effective GB/s is read against).
#pragma once

#include <cstdint>

#include "ccl/cuda_engine.h"
#include "ccl/types.h"
#include "stats.h"

namespace bench {

struct RunPlan {
  int warmup = 5;
  int runs = 50;       // event-timed repetitions of each of the three event loops
  int host_runs = 10;  // wall-clock repetitions of enqueue + finish
};

/// Microseconds, min and median over the repetitions.
struct Measurement {
  // Events around enqueue() without stage profiling: everything the engine queues,
  // the component table's copy to pinned host memory included.
  Spread total;
  // Events before and after the labeling only (ccl::cuda::Profiling::Labeling): labels
  // + features + consecutive labels, the table copy after it excluded; what the anchors table
  // compares against, timed as its references were (events around their launches).
  // The table copy's time comes from the same loop.
  Spread labeling, copy;
  // With events between the stages as well (Profiling::Stages, no graph): the per-stage
  // times, and the labeling they add up to, which those events make a little longer.
  Spread threshold, local, merge, analysis, staged;
  // Host wall clock of enqueue() + finish(): the frame as a caller waits for it.
  Spread host;
  uint32_t components = 0;
  uint32_t reported = 0;  // of those, the ones the options report (copied to the host)
};

/// Runs the plan: warm-up, then the three timing loops. `image` is in device memory.
Measurement measure(ccl::cuda::Engine& engine, const ccl::ImageView& image,
                    const ccl::Options& options, cudaStream_t stream, const RunPlan& plan);

/// Device-to-device cudaMemcpy bandwidth in GB/s (bytes read + bytes written) of a
/// buffer well beyond the L2, median of `runs`.
double copy_bandwidth_gbs(size_t bytes, int runs);

}  // namespace bench
