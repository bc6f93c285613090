// The engine: owns the scratch of one frame size and queues the stages on the
// caller's stream. Sequence per frame, no host synchronization inside:
//   threshold (Otsu only: histogram + level; fixed levels are kernel arguments)
//   local labeling (HA strips / KE initialization; the threshold is fused in here)
//   merging (HA strip and chunk borders / KE compression, reduction)
//   analysis (root numbering, output labels + features)
//   publish (table finished and written into mapped pinned host memory)
// The component count is unknown to the host while it queues the frame, so no copy of
// "N entries" can be queued; instead the publish kernel, which knows N, writes the
// count, the level used and the table straight into mapped host memory. finish()
// waits for one event and reads them there.
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <memory>

#include "analysis.h"
#include "buffers.h"
#include "ccl/cuda_engine.h"
#include "check.h"
#include "geometry.h"
#include "ha.h"
#include "komura.h"
#include "threshold.h"

namespace ccl::cuda {

namespace {

__global__ void probe_kernel() {}

/// Most components a W x H frame can have: isolated pixels on a checkerboard (4-way)
/// or on every other row and column (8-way).
size_t worst_case_components(const FrameGeometry& geo, int connectivity) {
  if (connectivity == 4) return (geo.pixels() + 1) / 2;
  return size_t((geo.width + 1) / 2) * size_t((geo.height + 1) / 2);
}

int resolve_device(int device_id) {
  if (device_id >= 0) return device_id;
  int current = 0;
  CCL_CUDA_CHECK(cudaGetDevice(&current));
  return current;
}

// Stage boundaries recorded when profiling (StageTimes' fields in order).
enum Mark { kStart, kThresholded, kLocal, kMerged, kAnalyzed, kPublished, kMarks };

}  // namespace

bool compiled_with_cuda() { return true; }

bool device_usable(int device_id, std::string* why) {
  auto fail = [&](const std::string& reason) {
    if (why) *why = reason;
    return false;
  };
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess)
    return fail(std::string("cudaGetDeviceCount: ") + cudaGetErrorName(err) + " (" +
                cudaGetErrorString(err) + ")");
  if (count == 0) return fail("no CUDA device");
  try {
    const int id = resolve_device(device_id);
    if (id >= count)
      return fail("no CUDA device " + std::to_string(id) + " (" + std::to_string(count) +
                  " present)");
    DeviceScope scope(id);
    // The build carries machine code for some architectures only (plus PTX of the
    // first): ask the runtime whether this device can load it.
    cudaFuncAttributes attributes;
    err = cudaFuncGetAttributes(&attributes, probe_kernel);
    if (err != cudaSuccess) {
      cudaDeviceProp prop{};
      cudaGetDeviceProperties(&prop, id);
      return fail("CUDA device " + std::to_string(id) + " (" + prop.name + ", sm_" +
                  std::to_string(prop.major) + std::to_string(prop.minor) +
                  ") cannot run this build's kernels: " + cudaGetErrorName(err) + " (" +
                  cudaGetErrorString(err) + ")");
    }
  } catch (const Error& e) {
    return fail(e.what());
  }
  return true;
}

struct Engine::Impl {
  int device = 0;
  int sm_count = 1;
  Tuning tuning;
  int poison = -1;
  bool profiling = false;

  // Scratch, sized for the largest frame seen (allocated only when that grows).
  DeviceBuffer<uint32_t> labels;  // union-find forest (union_find.cuh)
  DeviceBuffer<uint32_t> output;  // label image 1..N (only when labels are written)
  DeviceBuffer<uint64_t> mask;    // foreground bits (geometry.h)
  DeviceBuffer<FrameInfo> info;
  DeviceBuffer<uint8_t> upload;   // label_host's copy of the luma plane
  OtsuStage otsu;
  Analysis analysis;

  Event done{false};
  std::array<std::unique_ptr<Event>, kMarks> marks;
  StageTimes times;

  // The frame in flight.
  bool pending = false;
  bool wrote_labels = false;
  FrameGeometry geo;
  cudaStream_t stream = nullptr;

  void mark(Mark m, cudaStream_t s) {
    if (profiling) marks[m]->record(s);
  }

  void reserve(const FrameGeometry& g, const Options& options) {
    labels.reserve(g.pixels());
    mask.reserve(g.mask_words());
    info.reserve(1);
    if (options.write_labels) output.reserve(g.pixels());
    analysis.reserve(g, worst_case_components(g, options.connectivity), sm_count);
  }

  /// Poisons what frame `g` will use (not the whole capacity: a small frame after a
  /// large one would pay for the large one).
  void fill_all(int byte, const FrameGeometry& g, const Options& options, cudaStream_t s) {
    labels.fill_bytes(byte, g.pixels(), s);
    output.fill_bytes(byte, g.pixels(), s);
    mask.fill_bytes(byte, g.mask_words(), s);
    info.fill_bytes(byte, 1, s);
    // Host buffers the previous frame's kernels wrote: that frame must be finished.
    if (pending) CCL_CUDA_CHECK(cudaEventSynchronize(done.get()));
    analysis.poison(byte, worst_case_components(g, options.connectivity), s);
  }

  float elapsed(Mark from, Mark to) const {
    float ms = 0;
    CCL_CUDA_CHECK(cudaEventElapsedTime(&ms, marks[from]->get(), marks[to]->get()));
    return ms;
  }
};

Engine::Engine(int device_id) : impl_(std::make_unique<Impl>()) {
  std::string why;
  if (!device_usable(device_id, &why)) throw Error("no usable CUDA device: " + why);
  impl_->device = resolve_device(device_id);
  DeviceScope scope(impl_->device);
  CCL_CUDA_CHECK(
      cudaDeviceGetAttribute(&impl_->sm_count, cudaDevAttrMultiProcessorCount, impl_->device));
}

Engine::~Engine() = default;

void Engine::enqueue(const ImageView& image, const Options& options, cudaStream_t stream) {
  validate(image, options);
  if (image.space != MemorySpace::Device)
    throw Error("Engine::enqueue needs an image in device memory (label_host uploads one)");
  Impl& d = *impl_;
  DeviceScope scope(d.device);
  const FrameGeometry geo(image.width, image.height);
  d.reserve(geo, options);
  if (d.poison >= 0) d.fill_all(d.poison, geo, options, stream);

  d.mark(kStart, stream);
  if (options.mode == ThresholdMode::Otsu) d.otsu.enqueue(image, d.info.get(), stream);
  d.mark(kThresholded, stream);

  const Foreground fg = make_foreground(image, options, d.info.get());
  const int conn = options.connectivity;
  if (options.algorithm == Algorithm::HA) {
    ha_label_strips(fg, geo, d.labels.get(), d.mask.get(), conn, d.tuning.ha_wide_windows,
                    stream);
    d.mark(kLocal, stream);
    ha_merge_borders(geo, d.mask.get(), d.labels.get(), conn, stream);
  } else {
    ke_initialize(fg, geo, d.labels.get(), d.mask.get(), conn, stream);
    d.mark(kLocal, stream);
    ke_compress(geo, d.labels.get(), stream);
    // No second compression: the analysis walks only from run starts, and its
    // walks leave ids behind them, so flattening every pixel first costs more than
    // the few longer walks it would save.
    ke_reduce(geo, d.mask.get(), d.labels.get(), conn, stream);
  }
  d.mark(kMerged, stream);

  d.analysis.number(geo, d.mask.get(), d.labels.get(), conn, d.info.get(), stream);
  d.analysis.measure(geo, d.mask.get(), d.labels.get(),
                     options.write_labels ? d.output.get() : nullptr, stream);
  d.mark(kAnalyzed, stream);
  d.analysis.publish(d.info.get(), options.mode == ThresholdMode::Otsu ? -1 : options.threshold,
                     stream);
  d.mark(kPublished, stream);
  d.done.record(stream);

  d.pending = true;
  d.wrote_labels = options.write_labels;
  d.geo = geo;
  d.stream = stream;
}

void Engine::finish(Result& out, bool copy_labels) {
  Impl& d = *impl_;
  if (!d.pending) throw Error("Engine::finish called without a frame in flight");
  DeviceScope scope(d.device);
  d.pending = false;
  CCL_CUDA_CHECK(cudaEventSynchronize(d.done.get()));
  out.width = d.geo.width;
  out.height = d.geo.height;
  out.threshold_used = d.analysis.level();
  out.num_components = d.analysis.count();
  d.analysis.read_table(out.components);
  if (copy_labels && d.wrote_labels) {
    out.labels.resize(d.geo.pixels());
    CCL_CUDA_CHECK(cudaMemcpyAsync(out.labels.data(), d.output.get(),
                                   d.geo.pixels() * sizeof(uint32_t), cudaMemcpyDeviceToHost,
                                   d.stream));
    CCL_CUDA_CHECK(cudaStreamSynchronize(d.stream));
  } else {
    out.labels.clear();
  }
  if (d.profiling) {
    d.times.threshold = d.elapsed(kStart, kThresholded);
    d.times.local = d.elapsed(kThresholded, kLocal);
    d.times.merge = d.elapsed(kLocal, kMerged);
    d.times.analysis = d.elapsed(kMerged, kAnalyzed);
    d.times.copy = d.elapsed(kAnalyzed, kPublished);
    d.times.total = d.elapsed(kStart, kPublished);
  }
}

const uint32_t* Engine::device_labels() const { return impl_->output.get(); }

const Component* Engine::device_components() const { return impl_->analysis.device_table(); }

const uint32_t* Engine::device_component_count() const {
  return impl_->info.get() ? &impl_->info.get()->count : nullptr;
}

void Engine::label_host(const ImageView& host_image, const Options& options, Result& out,
                        cudaStream_t stream) {
  validate(host_image, options);
  if (host_image.space != MemorySpace::Host)
    throw Error("Engine::label_host needs an image in host memory");
  Impl& d = *impl_;
  DeviceScope scope(d.device);
  // The luma plane keeps its row stride on the device, so kernels see it as given.
  const size_t row_bytes = size_t(host_image.width) * luma_bytes_per_pixel(host_image.format);
  const size_t stride = host_image.strides[0];
  d.upload.reserve(stride * size_t(host_image.height - 1) + row_bytes);
  CCL_CUDA_CHECK(cudaMemcpy2DAsync(d.upload.get(), stride, host_image.planes[0], stride,
                                   row_bytes, host_image.height, cudaMemcpyHostToDevice, stream));
  ImageView device_image = host_image;
  device_image.space = MemorySpace::Device;
  device_image.planes[0] = d.upload.get();
  device_image.planes[1] = device_image.planes[2] = nullptr;
  enqueue(device_image, options, stream);
  finish(out, options.write_labels);
}

void Engine::set_profiling(bool on) {
  Impl& d = *impl_;
  if (on && !d.marks[0]) {
    DeviceScope scope(d.device);
    for (auto& m : d.marks) m = std::make_unique<Event>(true);
  }
  d.profiling = on;
}

StageTimes Engine::stage_times() const { return impl_->times; }

void Engine::set_tuning(const Tuning& tuning) { impl_->tuning = tuning; }

Tuning Engine::tuning() const { return impl_->tuning; }

void Engine::set_poison_byte(int byte) { impl_->poison = byte >= 0 && byte <= 255 ? byte : -1; }

int Engine::device_id() const { return impl_->device; }

}  // namespace ccl::cuda
