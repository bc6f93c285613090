// What tests and checking tools (the GPU suite, ccl_bench's verification) ask of the
// engine beyond its API: hooks that would only confuse an application.
#pragma once

#include <cstdint>

#include "ccl/cuda_engine.h"

namespace ccl::cuda::testing {

/// With byte in 0..255, every scratch and output buffer of `engine` (device and pinned
/// host) is filled with it before each frame's work, so that stale values cannot pass
/// for results; -1 (the default) turns it off.
void set_poison_byte(Engine& engine, int byte);

/// Frames so far whose labeling ran as a replayed CUDA graph (Tuning::graphs).
uint64_t graph_replays(const Engine& engine);

}  // namespace ccl::cuda::testing
