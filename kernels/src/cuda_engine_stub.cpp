// The CUDA engine's entry points in a build without nvcc: no device is ever usable.
#include "ccl/cuda_engine.h"
#include "ccl/cuda_engine_testing.h"

namespace ccl::cuda {

namespace {
constexpr const char* kNoCuda = "cudaccl was built without CUDA support (nvcc was not found)";
}

bool compiled_with_cuda() { return false; }

bool waits_on_host(Algorithm) { return false; }

bool device_usable(int, std::string* why) {
  if (why) *why = kNoCuda;
  return false;
}

struct Engine::Impl {};

Engine::Engine(int) { throw Error(kNoCuda); }
Engine::~Engine() = default;
void Engine::enqueue(const ImageView&, const Options&, cudaStream_t) { throw Error(kNoCuda); }
void Engine::finish(Result&, bool) { throw Error(kNoCuda); }
TableView Engine::finish_in_place(Result&, bool) { throw Error(kNoCuda); }
const uint32_t* Engine::device_labels() const { return nullptr; }
const Component* Engine::device_components() const { return nullptr; }
const Blob* Engine::device_blobs() const { return nullptr; }
const uint32_t* Engine::device_component_count() const { return nullptr; }
void Engine::label_host(const ImageView&, const Options&, Result&, cudaStream_t) {
  throw Error(kNoCuda);
}
void Engine::reset_foreground() {}
void Engine::set_region(const uint8_t*, int, int, size_t) { throw Error(kNoCuda); }
bool Engine::has_region() const { return false; }
const uint8_t* Engine::device_mask() const { return nullptr; }
size_t Engine::device_mask_pitch() const { return 0; }
void Engine::copy_mask(std::vector<uint8_t>&) { throw Error(kNoCuda); }
void Engine::set_profiling(Profiling) {}
StageTimes Engine::stage_times() const { return {}; }
void Engine::set_tuning(const Tuning&) {}
Tuning Engine::tuning() const { return {}; }
bool Engine::last_report_sorted() const { return false; }
int Engine::device_id() const { return -1; }

namespace testing {
uint64_t graph_replays(const Engine&) { return 0; }
void set_poison_byte(Engine&, int) {}
}  // namespace testing

}  // namespace ccl::cuda
