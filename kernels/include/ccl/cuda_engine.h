// The CUDA backend of the engine (docs/CONTRACT.md). Declared without CUDA headers so
// that CPU-only code (the plugin, tests) can include it; in a build without CUDA the
// functions report that no device is usable and Engine's constructor throws.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ccl/types.h"

// Same type as the runtime's cudaStream_t, without including cuda_runtime.h.
typedef struct CUstream_st* cudaStream_t;

namespace ccl::cuda {

struct EngineTestAccess;

/// True when this build has CUDA support compiled in.
bool compiled_with_cuda();

/// True when device `device_id` (-1: the current/first device) can run the kernels;
/// otherwise false with the reason (no driver, no device, CUDA error text) in *why.
bool device_usable(int device_id, std::string* why);

/// True when `a` iterates until a kernel reports no change, with a round trip to the
/// host per round: Engine::enqueue then returns only once the frame's labeling has
/// converged (the analysis and report are still queued), and its frames are never
/// replayed as CUDA graphs. False for algorithms whose launches depend only on the
/// frame size, and in builds without CUDA.
bool waits_on_host(Algorithm a);

/// GPU times of the last frame, in milliseconds (0 where a stage did not run or was
/// not timed). Filled only when profiling is enabled (see Profiling).
struct StageTimes {
  float threshold = 0;   // histogram + Otsu; the foreground stage (model, cleanup) when it runs
  float local = 0;       // strip (HA) / initialization (KE) labeling
  float merge = 0;       // border merging / reduction
  float analysis = 0;    // root numbering + relabel + features
  float labeling = 0;    // threshold through analysis: labels, features, consecutive ids
  float copy = 0;        // the report: table finished, reported entries to pinned host memory
                         // (with the sort of frames reporting their largest components)
  float total = 0;
};

/// What Engine::set_profiling times. Every event recorded between kernels costs GPU
/// time of its own (about a microsecond), so the lighter level serves measurements of
/// the whole labeling and the heavier one the breakdown.
enum class Profiling {
  Off,
  /// Events before and after the labeling and after the table copy only: labeling,
  /// copy and total; the frame may still run as one CUDA graph.
  Labeling,
  /// Also between the stages (threshold, local, merge, analysis); kernels are launched
  /// one by one, never as a graph, so that the events can sit between them.
  Stages,
};

/// Settings that change how the engine works, never what it returns (benchmarks, tests).
struct Tuning {
  /// HA: 64 columns per warp step, two pixels per thread (Hennequin et al. §IV-E);
  /// false: 32 columns, one pixel per thread.
  bool ha_wide_windows = true;
  /// Replays a frame's labeling kernels as one CUDA graph when the frame repeats the
  /// size, settings, input buffer and scratch of one of the last few frames (so the few
  /// buffers of a pool each get one), which saves a launch per kernel on the device and
  /// on the host; false: every kernel is launched on its own each frame.
  bool graphs = true;
  /// Launches the merge (KE: compression and reduction), the features pass and the
  /// table's hand-over chained to the kernel before each (programmatic dependent
  /// launch, devices of compute capability 9.0 and newer), so that its launch overlaps
  /// the end of the previous kernel; ignored on older devices. The first kernel and the
  /// numbering are never chained. false: each kernel is launched once the previous one
  /// has finished.
  bool chained_launches = true;
};

/// Frames whose passing components all have fewer pixels than this get their largest
/// max_components picked and ordered by the frame's own kernels; otherwise finish()
/// waits once more, for a sort (Engine::last_report_sorted()).
constexpr uint32_t kSizeOrderWithoutWait = 2048;

/// Labels frames already in device memory. Owns its scratch memory, sized on the
/// first frame and re-sized only when the frame size grows; every launch goes to the
/// stream given to enqueue(). Not thread safe: one Engine per stream.
class Engine {
 public:
  /// Binds to device `device_id` (-1: current). Throws ccl::Error if unusable.
  explicit Engine(int device_id = -1);
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  /// Queues threshold, labeling, features and the report on `stream`: the component
  /// count and the components `options` reports (Options::min_area, max_components),
  /// selected on the device and written into pinned host memory. `image.space` must be
  /// MemorySpace::Device. No host synchronization happens here. The count, level and
  /// table land in pinned host memory that the next frame reuses: finish() this frame
  /// before enqueueing the next.
  void enqueue(const ImageView& image, const Options& options, cudaStream_t stream);

  /// Waits for the last enqueue() and fills `out` (count, threshold used, reported
  /// components). With copy_labels the label image is also downloaded into out.labels.
  void finish(Result& out, bool copy_labels);

  /// finish() without copying the reported components: out.components is left empty
  /// and the view shows them where the device wrote them (pinned host memory), valid
  /// until the next enqueue().
  TableView finish_in_place(Result& out, bool copy_labels);

  /// Device label image of the last frame: width*height uint32, row pitch = width,
  /// 0 = background, 1..N. Valid once the stream reaches the end of enqueue()'s work,
  /// and only if options.write_labels was true.
  const uint32_t* device_labels() const;

  /// Device copy of the last frame's whole component table (num_components entries in
  /// label order, reported or not, ccl::Component layout) and the device-side count,
  /// for kernels that follow (overlay) on the same stream without a host round trip.
  const Component* device_components() const;
  const uint32_t* device_component_count() const;

  /// With Options::properties (or a blob filter): the last frame's blobs beside
  /// device_components() (num_components entries in label order, ccl::Blob layout),
  /// device memory valid like it; null for a frame without blobs.
  const Blob* device_blobs() const;

  /// Uploads a host image (luma plane only, plus the others when with_all_planes),
  /// labels it and waits: the convenient path for tests and the CPU-memory element.
  void label_host(const ImageView& host_image, const Options& options, Result& out,
                  cudaStream_t stream = nullptr);

  /// The background model (Options::foreground) forgets everything: the next frame is
  /// learned as the background. It also starts over by itself when the frame size,
  /// format or model changes, and when a frame uses no model in between.
  void reset_foreground();

  /// Pixels where `region` is 0 are never foreground (applied after the cleanup).
  /// width x height bytes of host memory, `stride` per row (0: width), uploaded now;
  /// null clears it. A frame of another size than the region's throws ccl::Error.
  void set_region(const uint8_t* region, int width, int height, size_t stride = 0);
  bool has_region() const;

  /// The last frame's foreground mask, when it was written as a pass of its own
  /// (Options::mask_stage() or a region): height rows of device_mask_pitch() bytes, the
  /// first width of each 0 or 1 (the rest unspecified), device memory, valid like
  /// device_labels(); null when the labelers tested the threshold as they read the frame.
  const uint8_t* device_mask() const;
  size_t device_mask_pitch() const;

  /// Downloads the last frame's foreground into `mask` (width*height bytes, 0 or 1),
  /// from device_mask() or, for a fused threshold, from the labelers' bit mask; waits.
  void copy_mask(std::vector<uint8_t>& mask);

  void set_profiling(Profiling level);
  /// true: Profiling::Stages, false: Profiling::Off.
  void set_profiling(bool on) { set_profiling(on ? Profiling::Stages : Profiling::Off); }
  StageTimes stage_times() const;

  void set_tuning(const Tuning& tuning);
  Tuning tuning() const;

  /// Whether the last finish() waited a second time, for a sort on the device: more
  /// components passed min_area than max_components, so the largest were picked, and
  /// some had kSizeOrderWithoutWait pixels or more (below that, the frame's own kernels
  /// order them).
  bool last_report_sorted() const;

  int device_id() const;

 private:
  friend struct EngineTestAccess;  // ccl/cuda_engine_testing.h
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ccl::cuda
