// Comparing a backend's result with the reference: one wording of "what differs" for
// the GPU tests and the benchmark's correctness guard.
#pragma once

#include <string>

#include "ccl/types.h"

namespace ccl::test {

/// Empty when `got` equals `want` byte for byte (size, level, count, table and, with
/// compare_labels, the label image); otherwise the first difference, in words.
std::string difference(const Result& got, const Result& want, bool compare_labels = true);

}  // namespace ccl::test
