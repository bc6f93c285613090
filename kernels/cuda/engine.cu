// The engine: owns the scratch of one frame size and queues the stages on the
// caller's stream. Sequence per frame, no host synchronization inside (but for the
// labelers that iterate with host rounds, labeler.h):
//   threshold (Otsu only: histogram + level; fixed levels are kernel arguments)
//   local labeling (the algorithm's Labeler::local; the threshold is fused in here)
//   merging (the algorithm's Labeler::merge)
//   analysis (root numbering, output labels + features)
//   blob pass (Options::properties or blob filters only: intensity, colors, perimeter
//     classes and Euler coefficients per component, blob_pass.h)
//   report (table finished; the reported entries written into mapped pinned host memory)
// The component count is unknown to the host while it queues the frame, so no copy of
// "N entries" can be queued; instead the report's kernels, which know N, write the
// count, the level used and the reported entries straight into mapped host memory.
// finish() waits for one event and reads them there (frames reporting the largest of
// more passing components than are reported wait once more, for a sort: report.h).
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <vector>

#include "analysis.h"
#include "blob_pass.h"
#include "ccl/blob.h"
#include "foreground_stage.h"
#include "ccl/cuda_memory.h"
#include "graph_exec.h"
#include "ccl/cuda_engine.h"
#include "ccl/cuda_engine_testing.h"
#include "geometry.h"
#include "labeler.h"
#include "report.h"
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
// kSorted: after the sort of frames reporting their largest components (report.h).
enum Mark { kStart, kThresholded, kLocal, kMerged, kAnalyzed, kPublished, kSorted, kMarks };

/// Everything a frame's labeling kernels are launched with, but the engine's scratch
/// addresses: two frames with equal keys queue identical launches, so a graph captured
/// from one replays the other. Graphs are dropped whenever scratch memory moves.
struct GraphKey {
  const void* plane;
  size_t stride;
  uint64_t min_area;
  int width, height, format;
  int algorithm, connectivity, mode, threshold, write_labels, wide_windows, chained;
  uint32_t max_components;
  int with_report;  // the report's kernels are part of the graph (not profiling)
  // The foreground stage: its planes, cleanup, region and the model's step parameters
  // (which change every frame until the learning rate settles).
  const void* chroma[2];
  size_t chroma_strides[2];
  uint64_t max_area;
  int foreground, open_radius, close_radius, mask_stage;
  const void* region;
  bg::StepParams step;
  ColorOptions color;  // ForegroundModel::Color's bounds (plain ints: no padding)
  int local_block, local_delta;  // ForegroundModel::Local's window and integer offset
  uint32_t properties;           // the blob pass's Property bits
  double blob_bounds[6];         // the blob filters

  GraphKey(const ImageView& image, const Options& o, const Tuning& t, bool report,
           bool masked, const void* region_mask, const bg::StepParams& params) {
    std::memset(static_cast<void*>(this), 0, sizeof(*this));  // padding compares too
    plane = image.planes[0];
    stride = image.strides[0];
    width = image.width;
    height = image.height;
    format = int(image.format);
    algorithm = int(o.algorithm);
    connectivity = o.connectivity;
    mode = int(o.mode);
    threshold = o.mode == ThresholdMode::Otsu ? 0 : o.threshold;
    write_labels = o.write_labels;
    wide_windows = t.ha_wide_windows;
    chained = t.chained_launches;
    min_area = o.min_area;
    max_components = o.max_components;
    with_report = report;
    for (int p = 0; p < 2; ++p) {
      chroma[p] = image.planes[p + 1];
      chroma_strides[p] = image.strides[p + 1];
    }
    max_area = o.max_area;
    foreground = int(o.foreground);
    open_radius = o.open_radius;
    close_radius = o.close_radius;
    mask_stage = masked;
    region = region_mask;
    step = params;  // no padding (background_model.h), so memcmp sees only its fields
    if (o.foreground == ForegroundModel::Color) color = o.color;
    if (o.foreground == ForegroundModel::Local) {
      local_block = o.local.block_size;
      local_delta = local::params(o.local, o.mode, image.width).delta;
    }
    properties = o.properties;
    const double bounds[6] = {o.min_circularity, o.max_circularity, o.min_intensity,
                              o.max_intensity,   o.min_eccentricity, o.max_eccentricity};
    std::copy(bounds, bounds + 6, blob_bounds);
  }
  bool operator==(const GraphKey& o) const { return std::memcmp(this, &o, sizeof(*this)) == 0; }
};

/// Graphs kept per engine: a CUDA memory pool hands the element a few buffers in turn.
constexpr size_t kCachedGraphs = 4;
/// Keys of the last frames remembered: a frame whose key is among them is captured, so
/// a pool's buffers coming round in turn get graphs, and one-off frames cost no capture.
constexpr size_t kRecentKeys = kCachedGraphs;

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
  bool can_chain = false;  // compute capability 9.0 or newer (chain.h)
  Tuning tuning;
  int poison = -1;

  // Scratch, sized for the largest frame seen (allocated only when that grows).
  DeviceBuffer<uint32_t> labels;  // union-find forest (union_find.cuh)
  DeviceBuffer<uint32_t> output;  // label image 1..N (only when labels are written)
  DeviceBuffer<uint64_t> mask;    // foreground bits (geometry.h)
  DeviceBuffer<FrameInfo> info;
  DeviceBuffer<uint8_t> uploads[3];  // label_host's copy of the planes it needs
  DeviceBuffer<uint8_t> labeler_scratch;  // Labeler::scratch_bytes (labeler.h)
  MappedBuffer<uint32_t> host_flag;       // for labelers with host rounds
  OtsuStage otsu;
  ForegroundPass foreground;
  Analysis analysis;
  BlobPass blobs;
  Reporter report;

  Event done{false};
  std::array<std::unique_ptr<Event>, kMarks> marks;
  Profiling profiling_level = Profiling::Off;
  StageTimes times;

  // Captured labeling sequences, most recently used last. A sequence is captured when
  // a frame repeats the key of one of the last kRecentKeys frames.
  struct CachedGraph {
    GraphKey key;
    GraphExec exec;
  };
  std::vector<CachedGraph> graphs;
  std::unique_ptr<Stream> capture_stream;  // only records: launches go to the caller's
  std::vector<GraphKey> recent_keys;  // oldest first
  uint64_t replays = 0;

  // The frame in flight.
  bool pending = false;
  bool wrote_labels = false;
  bool wrote_mask = false;  // the frame's foreground went through ForegroundPass
  bg::StepParams step{};    // the model's parameters of the frame being queued
  // Options::group_gap: the device hands over every piece, the host groups them and
  // then applies the frame's own area limits (grouping.cpp).
  Options grouping;
  std::vector<Component> groups;
  std::vector<Blob> group_blobs;
  bool with_blobs = false;  // the frame in flight has blobs
  FrameGeometry geo;
  cudaStream_t stream = nullptr;

  void mark(Mark m, cudaStream_t s) {
    const bool stage_mark = m != kStart && m != kAnalyzed && m != kPublished && m != kSorted;
    if (profiling_level == Profiling::Stages ||
        (profiling_level == Profiling::Labeling && !stage_mark))
      marks[m]->record(s);
  }

  /// All the frame's scratch, so that queuing its kernels allocates nothing.
  void reserve(const ImageView& image, const FrameGeometry& g, const Options& options) {
    bool moved = labels.reserve(g.pixels());
    moved |= mask.reserve(g.mask_words());
    moved |= info.reserve(1);
    // The blob pass reads the output labels, asked for or not.
    if (options.write_labels || options.properties) moved |= output.reserve(g.pixels());
    if (options.mode == ThresholdMode::Otsu) moved |= otsu.reserve(image);
    moved |= foreground.reserve(image, options);
    const Labeler& labeler = cuda::labeler(options.algorithm);
    moved |= labeler_scratch.reserve(labeler.scratch_bytes(g, options.connectivity));
    if (labeler.host_rounds()) host_flag.reserve(1);
    const size_t components = worst_case_components(g, options.connectivity);
    moved |= analysis.reserve(g, components, sm_count);
    if (options.properties) moved |= blobs.reserve(components, sm_count);
    moved |= report.reserve(components, options.max_components, sm_count, options.properties != 0);
    if (moved) graphs.clear();  // they point at freed memory
  }

  /// Whether the kernels that Tuning::chained_launches names are launched chained
  /// (chain.h): the device has it and the tuning asks for it.
  bool chained() const { return can_chain && tuning.chained_launches; }

  /// Threshold, local labeling, merging and analysis on stream s, and with_report the
  /// report's kernels after them.
  /// Whether the frame's foreground is written as a mask of its own (foreground_stage.h).
  bool mask_stage(const Options& options) const {
    return options.mask_stage() || foreground.has_region();
  }

  void queue_labeling(const ImageView& image, const FrameGeometry& geo, const Options& options,
                      bool with_report, cudaStream_t s) {
    const bool threshold = options.foreground == ForegroundModel::Threshold;
    if (threshold && options.mode == ThresholdMode::Otsu) otsu.enqueue(image, info.get(), s);
    Foreground fg = make_foreground(image, options, info.get());
    if (mask_stage(options)) fg = foreground.enqueue(image, options, fg, step, s);
    mark(kThresholded, s);
    // A stage mark between two kernels (Profiling::Stages) leaves the second one
    // waiting for the first to finish, as the marks need.
    const LabelingFrame frame{fg,
                              geo,
                              labels.get(),
                              mask.get(),
                              options.connectivity,
                              tuning,
                              sm_count,
                              chained(),
                              labeler_scratch.get(),
                              host_flag.host(),
                              host_flag.device(),
                              s};
    const Labeler& labeler = cuda::labeler(options.algorithm);
    labeler.local(frame);
    mark(kLocal, s);
    labeler.merge(frame);
    mark(kMerged, s);
    analysis.number(geo, mask.get(), labels.get(), options.connectivity, info.get(), s,
                    options.properties ? blobs.device_table() : nullptr, options.properties);
    const bool labels_out = options.write_labels || options.properties;
    analysis.measure(geo, mask.get(), labels.get(), labels_out ? output.get() : nullptr, s,
                     chained());
    if (options.properties)
      blobs.measure(geo, image, output.get(), options.properties, options.connectivity, s,
                    chained());
    if (with_report) report.launch(s, chained());
  }

  /// The graph to replay for `key`, capturing one when a recent frame had the same key;
  /// null when the kernels are to be launched one by one.
  const GraphExec* graph_for(const GraphKey& key, const ImageView& image,
                             const FrameGeometry& geo, const Options& options) {
    if (!tuning.graphs || profiling_level == Profiling::Stages ||
        cuda::labeler(options.algorithm).host_rounds())
      return nullptr;
    for (size_t i = 0; i < graphs.size(); ++i)
      if (graphs[i].key == key) {
        std::rotate(graphs.begin() + i, graphs.begin() + i + 1, graphs.end());
        return &graphs.back().exec;
      }
    if (std::find(recent_keys.begin(), recent_keys.end(), key) == recent_keys.end())
      return nullptr;
    if (!capture_stream) capture_stream = std::make_unique<Stream>(cudaStreamNonBlocking);
    const cudaStream_t cs = capture_stream->get();
    // Thread-local: other threads' CUDA calls (another element's engine) go on as usual.
    CCL_CUDA_CHECK(cudaStreamBeginCapture(cs, cudaStreamCaptureModeThreadLocal));
    try {
      queue_labeling(image, geo, options, key.with_report, cs);
    } catch (...) {
      GraphExec::abandon_capture(cs);
      throw;
    }
    GraphExec exec = GraphExec::end_capture(cs);
    if (graphs.size() == kCachedGraphs) graphs.erase(graphs.begin());
    graphs.push_back(CachedGraph{key, std::move(exec)});
    return &graphs.back().exec;
  }

  void remember(const GraphKey& key) {
    if (recent_keys.size() == kRecentKeys) recent_keys.erase(recent_keys.begin());
    recent_keys.push_back(key);
  }

  /// Poisons what frame `g` will use (not the whole capacity: a small frame after a
  /// large one would pay for the large one).
  void fill_all(int byte, const FrameGeometry& g, const Options& options, cudaStream_t s) {
    labels.fill_bytes(byte, g.pixels(), s);
    output.fill_bytes(byte, g.pixels(), s);
    mask.fill_bytes(byte, g.mask_words(), s);
    info.fill_bytes(byte, 1, s);
    labeler_scratch.fill_bytes(
        byte, cuda::labeler(options.algorithm).scratch_bytes(g, options.connectivity), s);
    foreground.poison(byte, g.width, g.height, s);
    // Host buffers the previous frame's kernels wrote: that frame must be finished.
    if (pending) CCL_CUDA_CHECK(cudaEventSynchronize(done.get()));
    const size_t components = worst_case_components(g, options.connectivity);
    analysis.poison(byte, components, s);
    if (options.properties) blobs.poison(byte, components, s);
    report.poison(byte, components);
  }

  float elapsed(Mark from, Mark to) const {
    float ms = 0;
    CCL_CUDA_CHECK(cudaEventElapsedTime(&ms, marks[from]->get(), marks[to]->get()));
    return ms;
  }
};

Engine::Engine(int device_id) : impl_(std::make_unique<Impl>()) {
  std::string why;
  if (!faults::arm_from_environment(&why)) throw Error("CCL_FAULT_INJECT: " + why);
  if (!device_usable(device_id, &why)) throw Error("no usable CUDA device: " + why);
  impl_->device = resolve_device(device_id);
  DeviceScope scope(impl_->device);
  CCL_CUDA_CHECK(
      cudaDeviceGetAttribute(&impl_->sm_count, cudaDevAttrMultiProcessorCount, impl_->device));
  int major = 0;
  CCL_CUDA_CHECK(
      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, impl_->device));
  impl_->can_chain = major >= 9;
}

Engine::~Engine() = default;

void Engine::enqueue(const ImageView& image, const Options& requested, cudaStream_t stream) {
  validate(image, requested);
  Options options = requested;
  // The properties asked for and those the filters read.
  options.properties = needed_properties(requested);
  if (requested.group_gap >= 0) {
    // Pieces below min_area may make a group above it, and the largest groups are not
    // made of the largest pieces: the selection waits for the groups.
    options.min_area = 0;
    options.max_area = 0;
    options.max_components = UINT32_MAX;
    options.min_circularity = options.max_circularity = 0;
    options.min_intensity = options.max_intensity = 0;
    options.min_eccentricity = options.max_eccentricity = 0;
  }
  if (image.space != MemorySpace::Device)
    throw Error("Engine::enqueue needs an image in device memory (label_host uploads one)");
  Impl& d = *impl_;
  DeviceScope scope(d.device);
  const FrameGeometry geo(image.width, image.height);
  const bool masked = d.mask_stage(options);
  // A refused frame leaves the model as it was.
  if (masked) d.foreground.check(image);
  d.reserve(image, geo, options);
  d.step = d.foreground.begin_frame(image, options);
  if (d.poison >= 0) d.fill_all(d.poison, geo, options, stream);

  d.analysis.begin_frame(stream);
  const int level = options.foreground != ForegroundModel::Threshold ? 0
                    : options.mode == ThresholdMode::Otsu         ? -1
                                                                  : options.threshold;
  d.report.prepare(d.info.get(), d.analysis.device_table(), d.analysis.epoch(), level, options,
                   options.properties ? d.blobs.device_table() : nullptr);
  d.mark(kStart, stream);
  // Unprofiled frames run the report in the same graph: one launch for the frame. With
  // profiling, the events that time the labeling and the report sit between them.
  const bool report_in_graph = d.profiling_level == Profiling::Off;
  const GraphKey key(image, options, d.tuning, report_in_graph, masked, d.foreground.region(),
                     d.step);
  if (const GraphExec* graph = d.graph_for(key, image, geo, options)) {
    graph->launch(stream);
    ++d.replays;
  } else {
    d.queue_labeling(image, geo, options, report_in_graph, stream);
  }
  d.remember(key);
  d.mark(kAnalyzed, stream);
  if (!report_in_graph) d.report.launch(stream, d.chained());
  d.mark(kPublished, stream);
  d.done.record(stream);

  d.pending = true;
  d.grouping = requested;
  d.with_blobs = options.properties != 0;
  d.wrote_labels = options.write_labels;
  d.wrote_mask = masked;
  d.geo = geo;
  d.stream = stream;
}

void Engine::finish(Result& out, bool copy_labels) {
  const TableView table = finish_in_place(out, copy_labels);
  out.components.assign(table.data, table.data + table.size);
  if (table.blobs)
    out.blobs.assign(table.blobs, table.blobs + table.size);
  else
    out.blobs.clear();
}

TableView Engine::finish_in_place(Result& out, bool copy_labels) {
  Impl& d = *impl_;
  if (!d.pending) throw Error("Engine::finish called without a frame in flight");
  DeviceScope scope(d.device);
  d.pending = false;
  CCL_CUDA_CHECK(cudaEventSynchronize(d.done.get()));
  const bool timed = d.profiling_level != Profiling::Off;
  const ReportedTable table =
      d.report.read(d.stream, timed ? d.marks[kSorted]->get() : nullptr);
  out.width = d.geo.width;
  out.height = d.geo.height;
  out.threshold_used = int(d.report.header().level);
  out.num_components = d.report.header().count;
  out.components.clear();
  out.blobs.clear();
  out.group_of.clear();
  if (copy_labels && d.wrote_labels) {
    out.labels.resize(d.geo.pixels());
    check_copy(cudaMemcpyAsync(out.labels.data(), d.output.get(),
                               d.geo.pixels() * sizeof(uint32_t), cudaMemcpyDeviceToHost,
                               d.stream),
               "cudaMemcpyAsync (label image)");
    CCL_CUDA_CHECK(cudaStreamSynchronize(d.stream));
  } else {
    out.labels.clear();
  }
  if (timed) {
    const Mark end = d.report.sorted() ? kSorted : kPublished;
    d.times = StageTimes{};
    d.times.labeling = d.elapsed(kStart, kAnalyzed);
    d.times.copy = d.elapsed(kAnalyzed, end);
    d.times.total = d.elapsed(kStart, end);
  }
  if (d.profiling_level == Profiling::Stages) {
    d.times.threshold = d.elapsed(kStart, kThresholded);
    d.times.local = d.elapsed(kThresholded, kLocal);
    d.times.merge = d.elapsed(kLocal, kMerged);
    d.times.analysis = d.elapsed(kMerged, kAnalyzed);
  }
  if (d.grouping.group_gap >= 0) {
    d.groups.assign(table.entries, table.entries + table.size);
    d.group_blobs.clear();
    if (table.blobs) d.group_blobs.assign(table.blobs, table.blobs + table.size);
    select_reported(d.groups, d.group_blobs, d.grouping, &out.num_components, &out.group_of);
    return TableView{d.groups.data(), uint32_t(d.groups.size()),
                     table.blobs ? d.group_blobs.data() : nullptr};
  }
  return TableView{table.entries, table.size, table.blobs};
}

const uint32_t* Engine::device_labels() const { return impl_->output.get(); }

const Component* Engine::device_components() const { return impl_->analysis.device_table(); }

const Blob* Engine::device_blobs() const {
  return impl_->with_blobs ? impl_->blobs.device_table() : nullptr;
}

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
  // Each plane keeps its row stride on the device, so kernels see it as given.
  // The background model and the color range read a color frame's chroma planes too.
  const int planes = options.reads_all_planes() ? plane_count(host_image.format) : 1;
  ImageView device_image = host_image;
  device_image.space = MemorySpace::Device;
  device_image.planes[1] = device_image.planes[2] = nullptr;
  for (int p = 0; p < planes; ++p) {
    const PlaneSize size = plane_size(host_image.format, host_image.width, host_image.height, p);
    const size_t stride = host_image.strides[p];
    d.uploads[p].reserve(stride * (size.rows - 1) + size.row_bytes);
    check_copy(cudaMemcpy2DAsync(d.uploads[p].get(), stride, host_image.planes[p], stride,
                                 size.row_bytes, size.rows, cudaMemcpyHostToDevice, stream),
               "cudaMemcpy2DAsync (plane upload)");
    device_image.planes[p] = d.uploads[p].get();
  }
  enqueue(device_image, options, stream);
  finish(out, options.write_labels);
}

void Engine::reset_foreground() { impl_->foreground.reset(); }

void Engine::set_region(const uint8_t* region, int width, int height, size_t stride) {
  Impl& d = *impl_;
  DeviceScope scope(d.device);
  // A frame in flight may still read the old region.
  if (d.pending) CCL_CUDA_CHECK(cudaEventSynchronize(d.done.get()));
  d.foreground.set_region(region, width, height, stride);
  d.graphs.clear();  // captured with the old region's address and presence
}

bool Engine::has_region() const { return impl_->foreground.has_region(); }

const uint8_t* Engine::device_mask() const {
  return impl_->wrote_mask ? impl_->foreground.mask() : nullptr;
}

size_t Engine::device_mask_pitch() const { return ForegroundPass::pitch(impl_->geo.width); }

void Engine::copy_mask(std::vector<uint8_t>& out) {
  Impl& d = *impl_;
  DeviceScope scope(d.device);
  const FrameGeometry& g = d.geo;
  out.assign(g.pixels(), 0);
  if (d.wrote_mask) {
    check_copy(cudaMemcpy2DAsync(out.data(), size_t(g.width), d.foreground.mask(),
                                 ForegroundPass::pitch(g.width), size_t(g.width), size_t(g.height),
                                 cudaMemcpyDeviceToHost, d.stream),
               "cudaMemcpy2DAsync (foreground mask)");
    CCL_CUDA_CHECK(cudaStreamSynchronize(d.stream));
    return;
  }
  std::vector<uint64_t> words(g.mask_words());
  check_copy(cudaMemcpyAsync(words.data(), d.mask.get(), words.size() * sizeof(uint64_t),
                             cudaMemcpyDeviceToHost, d.stream),
             "cudaMemcpyAsync (foreground bits)");
  CCL_CUDA_CHECK(cudaStreamSynchronize(d.stream));
  for (int y = 0; y < g.height; ++y)
    for (int x = 0; x < g.width; ++x)
      out[size_t(y) * g.width + x] = (words[size_t(y) * g.words + (x >> 6)] >> (x & 63)) & 1;
}

void Engine::set_profiling(Profiling level) {
  Impl& d = *impl_;
  if (level != Profiling::Off && !d.marks[0]) {
    DeviceScope scope(d.device);
    for (auto& m : d.marks) m = std::make_unique<Event>(true);
  }
  d.profiling_level = level;
}

StageTimes Engine::stage_times() const { return impl_->times; }

void Engine::set_tuning(const Tuning& tuning) { impl_->tuning = tuning; }

Tuning Engine::tuning() const { return impl_->tuning; }

bool Engine::last_report_sorted() const { return impl_->report.sorted(); }

struct EngineTestAccess {
  static Engine::Impl& impl(Engine& e) { return *e.impl_; }
  static const Engine::Impl& impl(const Engine& e) { return *e.impl_; }
};

namespace testing {

uint64_t graph_replays(const Engine& engine) { return EngineTestAccess::impl(engine).replays; }

void set_poison_byte(Engine& engine, int byte) {
  EngineTestAccess::impl(engine).poison = byte >= 0 && byte <= 255 ? byte : -1;
}

}  // namespace testing

int Engine::device_id() const { return impl_->device; }

}  // namespace ccl::cuda
