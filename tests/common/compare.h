// Comparing a backend's result with the reference: one wording of "what differs" for
// the GPU tests and the benchmark's correctness guard.
#pragma once

#include <string>

#include "ccl/tracker.h"
#include "ccl/types.h"

namespace ccl::test {

/// Empty when `got` equals `want` byte for byte (size, level, count, table and, with
/// compare_labels, the label image); otherwise the first difference, in words.
std::string difference(const Result& got, const Result& want, bool compare_labels = true);

/// Empty when two tracks of a component are equal in every field; otherwise the first
/// field that differs (with both ids when it is the id).
std::string track_difference(const TrackInfo& got, const TrackInfo& want);

}  // namespace ccl::test
