// cudaccl engine: the fast CPU labeler (multi-threaded, run based) that serves the
// production CPU paths (the C interface's CPU backend, ccl-label). It gives exactly what
// the sequential reference (ccl/reference.h, the oracle of every test) gives.
#pragma once

#include "ccl/foreground.h"
#include "ccl/reference.h"
#include "ccl/types.h"

namespace ccl {

/// Labels a binary image exactly as label_binary does (labels 1..N in raster order of
/// each component's first pixel, the full component table in label order), with
/// `threads` threads (0: CCL_CPU_THREADS when set, else the CPUs the process may run on
/// (its affinity), fewer for small images;
/// otherwise that many, at most one per row). Rows are split into stripes; each thread
/// finds its stripe's runs and joins them with union-find, the stripes are joined at
/// their borders, and each run's label, pixels and closed-form moments are written in
/// parallel. Reentrant: concurrent calls from different threads are fine (each calling
/// thread keeps a scratch workspace of its own).
void label_binary_fast(const BinaryImage& binary, int connectivity, Result& out,
                       int threads = 0);

/// reference_label (threshold, label, report) with label_binary_fast.
void label_frame_cpu(const ImageView& image, const Options& options, Result& out,
                     int threads = 0);

/// reference_label with a foreground stage (ccl/foreground.h) with label_binary_fast.
/// `mask`, if not null, receives the stage's mask.
void label_frame_cpu(const ImageView& image, const Options& options, ForegroundStage& stage,
                     Result& out, BinaryImage* mask = nullptr, int threads = 0);

}  // namespace ccl
