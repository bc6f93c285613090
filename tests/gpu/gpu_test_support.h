// What the GPU tests share: skipping without a device, one engine for the process,
// byte-for-byte comparison with the CPU reference, references computed in parallel.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "ccl/cuda_engine.h"
#include "ccl/cuda_engine_testing.h"
#include "ccl/reference.h"
#include "ccl/types.h"
#include "compare.h"

/// Skips the current test, saying why, when no CUDA device can run the kernels.
#define CCL_REQUIRE_DEVICE()                                                 \
  do {                                                                       \
    std::string ccl_why_;                                                    \
    if (!ccl::cuda::device_usable(-1, &ccl_why_))                            \
      GTEST_SKIP() << "no usable CUDA device: " << ccl_why_;                 \
  } while (0)

namespace ccl::gpu_test {

/// The process's engine; outputs are poisoned (0xAB) before every frame.
cuda::Engine& engine();

using test::difference;

/// Labels `view` (host memory) twice on the GPU; both results must equal `want`.
/// Returns false (after reporting a failure naming `what`) when one does not.
bool expect_matches(const ImageView& view, const Options& options, const Result& want,
                    const std::string& what);

/// Runs the tasks on all cores; results in task order.
std::vector<Result> in_parallel(const std::vector<std::function<Result()>>& tasks);

/// The CPU reference of `view` under `options`.
Result reference(const ImageView& view, const Options& options);

Options make_options(Algorithm algorithm, int connectivity, ThresholdMode mode,
                     int threshold = 128);

std::string describe(const Options& options);

/// Every algorithm of the registry (ccl/algorithms.def), in its order: what the GPU
/// tests run, so that a new algorithm is tested without a line here.
std::vector<Algorithm> all_algorithms();

/// A gtest-safe name of `a` ("ha4", "labelequivalence", ...).
std::string test_name(Algorithm a);

}  // namespace ccl::gpu_test
