// Fault injection, for testing how failures are handled: the k-th device
// allocation, pinned host allocation, kernel launch or copy made after arming fails as
// if CUDA had failed (ccl::CudaError naming a CUDA error), once. The engine's RAII
// buffers, launches and copies (ccl/cuda_memory.h) and the element's CUDA backend
// count their operations here; unarmed, a count costs one relaxed atomic load.
//
// Armed from a test (arm()) or from the environment: CCL_FAULT_INJECT="kind:k[,kind:k]"
// with kind one of device-alloc, pinned-alloc, launch, copy, read by every new
// ccl::cuda::Engine (so a process can set it between element starts). Each engine
// (or element) of a process shares the counters. Never armed in normal use.
#pragma once

#include <cstdint>
#include <string>

namespace ccl::faults {

enum class Fault { DeviceAlloc, PinnedAlloc, Launch, Copy };
constexpr int kFaultKinds = 4;

/// "device-alloc", "pinned-alloc", "launch", "copy".
const char* to_string(Fault kind);

/// The k-th operation of `kind` from now on fails (k >= 1); k = 0 disarms `kind`.
void arm(Fault kind, uint64_t k);

/// Disarms every kind.
void disarm_all();

/// Arms from text "kind:k[,kind:k...]" (empty: nothing); false, arming nothing, with
/// the reason in *why for any other text.
bool arm_from_text(const std::string& text, std::string* why);

/// When CCL_FAULT_INJECT is set: arms from it, replacing what was armed (empty:
/// disarms all); false with *why when it cannot be parsed (then nothing is armed).
/// Unset: leaves the counters as they are.
bool arm_from_environment(std::string* why);

/// Counts one operation of `kind`: true when it is the one that must fail.
bool fail_here(Fault kind);

}  // namespace ccl::faults
