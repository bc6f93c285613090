// Soak test of the cudaccl element: a real pipeline runs for many frames while the
// frame size changes (caps renegotiation) and, optionally, a second thread changes
// the element's properties; host memory (and device memory with CUDA) must not grow
// after a warm-up, and every frame must leave the element with one GstCclMeta whose
// count is exactly the number of components drawn.
//
//   appsrc (I420, own moving discs and sparse snow)
//     [! cudaupload]  ! cudaccl ! [cudadownload !] appsink
//
// The content is built so that its component count is known without labeling:
//  - disc frames: up to 8x4 discs, each kept inside its own grid cell with at least
//    a two-pixel gap to the next cell, so no two touch even 8-connected, and each
//    row span of a disc holds its centre column, so each disc is one component even
//    4-connected. Discs move, breathe, appear and vanish (tracks begin and end).
//  - snow frames (every sixth run of 60 frames): single pixels on the even grid
//    (2a, 2b), each set with probability 1/4; none touch, so each is a component.
// Background luma 16, foreground 235: every threshold in [16, 234] ("above") and
// Otsu's level separate them, so the count is exact whatever the property thread
// sets (threshold-mode "below" is left alone: it would count the background).
//
// Memory, sampled every --sample-every frames (CSV with --csv): host RSS, malloc's
// heap in use (mallinfo2) and, in a CUDA build with a device and a backend other
// than cpu or with CUDA memory, device memory. cudaMemGetInfo only knows the whole
// device, so another GPU program running beside the soak would show up as the
// element's growth; the growth check therefore takes this process's own figure from
// NVML, and the whole device's only where NVML cannot give it (no libnvidia-ml, or
// a container whose PID namespace hides this process from NVML's list). The run
// says at its start which one it checks; the CSV has both. Warm-up: the first 10%
// of frames, and at least one full cycle of both sizes and of the content. Bound,
// per series: max after the warm-up <= max during it + max(8 MiB, 2%)
// (--growth-mib, --growth-percent; see check_growth).
//
// --foreground background runs the background model instead, with light compensation
// and grouping (group-gap=0: no two drawn components' boxes touch). Its count is not
// known in advance: the first frame after a start or a size change is learned as the
// background, so a disc that then moves leaves a ghost where it stood until the model
// relearns the spot, and a disc that stops joins the background. Each frame must still
// carry its one meta, and over the run the model must find about what was drawn: the
// mean count per frame within a quarter and four times the mean drawn count.
//
// Exit status: 0 pass, 1 failure (growth, bus error, frame count not reached, a
// frame without its meta or with a wrong count), 2 bad arguments, 77 skipped
// (--memory cuda without cudaupload/cudadownload).
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/ccl/gstcclmeta.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <malloc.h>
#include <unistd.h>

#ifdef SOAK_HAVE_CUDA
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#endif

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdarg>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "meta_checks.h"
#include "process_memory.h"
#include "splitmix.h"

namespace {

using ccl::element_test::have_factory;
using ccl::element_test::plausible_component;
using ccl::test::heap_in_use;
using ccl::test::rss_bytes;

constexpr guint8 kBackground = 16;
constexpr guint8 kForeground = 235;
constexpr int kFps = 30;
constexpr int kCols = 8, kRows = 4;  // disc grid
constexpr long kSnowRun = 60;        // frames 300-359 of every 360 are snow
constexpr long kContentCycle = 6 * kSnowRun;
constexpr guint64 kMiB = 1024 * 1024;

struct Args {
  long frames = 100000;
  int width = 1920, height = 1080;
  int alt_width = 0, alt_height = 0;  // 0: two thirds of width/height
  long size_change_every = 10000;     // 0: never
  std::string memory = "system";
  std::string backend = "auto";
  std::string foreground = "threshold";
  bool change_properties = false;
  long sample_every = 1000;
  std::string csv;
  long warmup = -1;  // -1: automatic
  double growth_mib = 8.0, growth_percent = 2.0;
  guint64 seed = 1;
  long leak_bytes = 0;        // test of the test: leak this much per frame
  bool expect_growth = false;  // test of the test: pass only if growth is caught
  bool malloc_default = false;  // keep glibc's sliding mmap threshold
};

void usage() {
  std::fprintf(stderr,
      "usage: soak [--frames N] [--width W --height H] [--alt-width W --alt-height H]\n"
      "            [--size-change-every N] [--memory system|cuda] [--backend cpu|cuda|auto]\n"
      "            [--change-properties] [--sample-every N] [--csv PATH] [--warmup N]\n"
      "            [--foreground threshold|background]\n"
      "            [--growth-mib M] [--growth-percent P] [--seed S] [--malloc-default]\n"
      "            [--leak-bytes N] [--expect-growth]  (test of the test: leak N bytes a\n"
      "            frame; pass only when the growth is caught and nothing else failed)\n"
      "Needs GST_PLUGIN_PATH to reach the cudaccl plugin (meson devenv sets it).\n");
}

bool parse(int argc, char** argv, Args& a) {
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i];
    if (k == "--change-properties") { a.change_properties = true; continue; }
    if (k == "--expect-growth") { a.expect_growth = true; continue; }
    if (k == "--malloc-default") { a.malloc_default = true; continue; }
    if (k == "--help" || k == "-h") return false;
    if (k.rfind("--gst-", 0) == 0) continue;  // gst_init's own, as --gst-debug=...
    if (i + 1 >= argc) { std::fprintf(stderr, "soak: %s needs a value\n", k.c_str()); return false; }
    std::string v = argv[++i];
    char* end = nullptr;
    auto num = [&](long lo) {
      long n = std::strtol(v.c_str(), &end, 10);
      if (*end || n < lo) { std::fprintf(stderr, "soak: bad %s %s\n", k.c_str(), v.c_str()); throw 0; }
      return n;
    };
    auto real = [&]() {
      double d = std::strtod(v.c_str(), &end);
      if (*end || d < 0) { std::fprintf(stderr, "soak: bad %s %s\n", k.c_str(), v.c_str()); throw 0; }
      return d;
    };
    try {
      if (k == "--frames") a.frames = num(1);
      else if (k == "--width") a.width = (int) num(16);
      else if (k == "--height") a.height = (int) num(16);
      else if (k == "--alt-width") a.alt_width = (int) num(16);
      else if (k == "--alt-height") a.alt_height = (int) num(16);
      else if (k == "--size-change-every") a.size_change_every = num(0);
      else if (k == "--memory" && (v == "system" || v == "cuda")) a.memory = v;
      else if (k == "--backend" && (v == "cpu" || v == "cuda" || v == "auto")) a.backend = v;
      else if (k == "--foreground" && (v == "threshold" || v == "background")) a.foreground = v;
      else if (k == "--sample-every") a.sample_every = num(1);
      else if (k == "--csv") a.csv = v;
      else if (k == "--warmup") a.warmup = num(0);
      else if (k == "--growth-mib") a.growth_mib = real();
      else if (k == "--growth-percent") a.growth_percent = real();
      else if (k == "--seed") a.seed = (guint64) num(0);
      else if (k == "--leak-bytes") a.leak_bytes = num(0);
      else { std::fprintf(stderr, "soak: unknown option %s %s\n", k.c_str(), v.c_str()); return false; }
    } catch (int) {
      return false;
    }
  }
  // Even sizes: I420's chroma planes then cover the frame exactly.
  if (!a.alt_width) a.alt_width = a.width * 2 / 3;
  if (!a.alt_height) a.alt_height = a.height * 2 / 3;
  a.width &= ~1; a.height &= ~1; a.alt_width &= ~1; a.alt_height &= ~1;
  return true;
}

guint64 hash(guint64 seed, guint64 a, guint64 b, guint64 c = 0) {
  using ccl::test::splitmix64;
  return splitmix64(seed ^ splitmix64(a ^ splitmix64(b ^ splitmix64(c))));
}

// Draws frame `i` into the mapped I420 frame; returns its component count.
guint32 draw_frame(GstVideoFrame& f, long i, guint64 seed) {
  const int w = GST_VIDEO_FRAME_WIDTH(&f), h = GST_VIDEO_FRAME_HEIGHT(&f);
  guint8* y = (guint8*) GST_VIDEO_FRAME_PLANE_DATA(&f, 0);
  const int ys = GST_VIDEO_FRAME_PLANE_STRIDE(&f, 0);
  for (int p = 1; p < 3; ++p)
    std::memset(GST_VIDEO_FRAME_PLANE_DATA(&f, p), 128,
                (size_t) GST_VIDEO_FRAME_PLANE_STRIDE(&f, p) * GST_VIDEO_FRAME_COMP_HEIGHT(&f, p));
  for (int r = 0; r < h; ++r) std::memset(y + (size_t) r * ys, kBackground, w);

  guint32 count = 0;
  if (i % kContentCycle >= kContentCycle - kSnowRun) {  // snow: isolated pixels on the even grid
    for (int b = 0; 2 * b < h; ++b)
      for (int a = 0; 2 * a < w; ++a)
        if ((a == 0 && b == 0) || (hash(seed, i, a, b) & 3) == 0) {
          y[(size_t) 2 * b * ys + 2 * a] = kForeground;
          ++count;
        }
    return count;
  }

  // Discs, one per cell; the cell's border pixels stay background, so two discs
  // in neighbouring cells are at least two pixels apart.
  const int cw = w / kCols, ch = h / kRows;
  const int room = std::min(cw, ch) / 2 - 2;  // largest radius that fits
  for (int j = 0; j < kCols * kRows; ++j) {
    if (j != 0 && hash(seed, i / 40, j, 7) % 4 == 0) continue;  // vanished for a while
    const double t = (double) i;
    int r = std::max(0, (int) (room * (0.35 + 0.25 * std::sin(t * 0.05 + j))));
    const int slack = std::max(0, room - r);
    const int x0 = (j % kCols) * cw, y0 = (j / kCols) * ch;
    const int cx = x0 + cw / 2 + (int) (slack * std::sin(t * (0.02 + 0.003 * j) + 1.3 * j));
    const int cy = y0 + ch / 2 + (int) (slack * std::cos(t * (0.017 + 0.002 * j) + 0.7 * j));
    // Clamped to the cell's interior; each row span still holds cx, so the disc
    // stays one 4-connected component even if the clamp ever bites.
    const int lo_x = x0 + 1, hi_x = x0 + cw - 2, lo_y = y0 + 1, hi_y = y0 + ch - 2;
    if (cx < lo_x || cx > hi_x || cy < lo_y || cy > hi_y) continue;
    for (int dy = -r; dy <= r; ++dy) {
      const int row = cy + dy;
      if (row < lo_y || row > hi_y) continue;
      const int half = (int) std::sqrt((double) (r * r - dy * dy));
      const int a = std::max(lo_x, cx - half), b = std::min(hi_x, cx + half);
      std::memset(y + (size_t) row * ys + a, kForeground, b - a + 1);
    }
    ++count;
  }
  return count;
}

// Device memory in use on the whole device (every process), or -1 when not sampled.
std::atomic<bool> g_device_sampling{false};
gint64 device_used() {
#ifdef SOAK_HAVE_CUDA
  if (!g_device_sampling.load()) return -1;
  size_t free_b = 0, total_b = 0;
  if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) return -1;
  return (gint64) (total_b - free_b);
#else
  return -1;
#endif
}

#ifdef SOAK_HAVE_CUDA
// This process's device memory as NVML counts it. NVML is opened at run time, so
// that the soak neither links it nor needs its header (toolkits and containers do
// not always ship them); the declarations below follow nvml.h.
class NvmlProcessMemory {
 public:
  // Opens NVML on the device of that PCI bus id: "" when this process's figure can
  // be read, else why not (NVML is then closed again).
  std::string open(const char* pci_bus_id) {
    lib_ = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib_) return std::string("cannot load libnvidia-ml.so.1: ") + dlerror();
    auto init = (Ret (*)()) dlsym(lib_, "nvmlInit_v2");
    auto by_bus_id = (Ret (*)(const char*, void**)) dlsym(lib_, "nvmlDeviceGetHandleByPciBusId_v2");
    auto shutdown = (Ret (*)()) dlsym(lib_, "nvmlShutdown");
    error_string_ = (const char* (*)(Ret)) dlsym(lib_, "nvmlErrorString");
    // The newest the driver has; the unversioned one fills the older, shorter struct.
    const struct { const char* name; size_t stride; } lists[] = {
        {"nvmlDeviceGetComputeRunningProcesses_v3", sizeof(ProcessInfo)},
        {"nvmlDeviceGetComputeRunningProcesses_v2", sizeof(ProcessInfo)},
        {"nvmlDeviceGetComputeRunningProcesses", sizeof(ProcessInfoV1)}};
    for (const auto& l : lists)
      if ((list_ = (Ret (*)(void*, unsigned int*, void*)) dlsym(lib_, l.name))) {
        stride_ = l.stride;
        break;
      }
    if (!init || !by_bus_id || !shutdown || !list_)
      return close("libnvidia-ml.so.1 lacks nvmlInit_v2, nvmlDeviceGetHandleByPciBusId_v2, "
                   "nvmlShutdown or nvmlDeviceGetComputeRunningProcesses");
    if (Ret r = init()) return close("nvmlInit_v2: " + error(r));
    shutdown_ = shutdown;  // from here on, close() shuts NVML down
    if (Ret r = by_bus_id(pci_bus_id, &device_))
      return close(std::string("nvmlDeviceGetHandleByPciBusId_v2(") + pci_bus_id + "): " + error(r));
    std::string why;
    return bytes(&why) < 0 ? close(why) : "";
  }

  // This process's bytes on the device, or -1 (and *why) when NVML has no figure.
  gint64 bytes(std::string* why = nullptr) const {
    std::vector<unsigned char> buf;
    unsigned int n = 0;
    Ret r = kInsufficientSize;
    // The list may grow between the calls: room for a few more each time.
    for (int tries = 0; tries < 4 && r == kInsufficientSize; ++tries) {
      n += 8;
      buf.assign((size_t) n * stride_, 0);
      r = list_(device_, &n, buf.data());
    }
    if (r) {
      if (why) *why = "nvmlDeviceGetComputeRunningProcesses: " + error(r);
      return -1;
    }
    const unsigned int pid = (unsigned int) getpid();
    for (unsigned int k = 0; k < n; ++k) {
      ProcessInfoV1 p;  // the start every version shares
      std::memcpy(&p, buf.data() + (size_t) k * stride_, sizeof p);
      if (p.pid != pid) continue;
      if (p.usedGpuMemory != kNotAvailable) return (gint64) p.usedGpuMemory;
      if (why) *why = "NVML lists this process without a memory figure";
      return -1;
    }
    if (why)
      *why = "pid " + std::to_string(pid) + " is not among the " + std::to_string(n) +
             " processes NVML lists on the device (another PID namespace, as in a container?)";
    return -1;
  }

  std::string close(std::string why = "") {
    if (shutdown_) shutdown_();
    if (lib_) dlclose(lib_);
    lib_ = nullptr;
    shutdown_ = nullptr;
    list_ = nullptr;
    return why;
  }

 private:
  using Ret = int;  // nvmlReturn_t
  static constexpr Ret kInsufficientSize = 7;  // NVML_ERROR_INSUFFICIENT_SIZE
  static constexpr unsigned long long kNotAvailable = ~0ull;  // NVML_VALUE_NOT_AVAILABLE
  struct ProcessInfoV1 {  // nvmlProcessInfo_v1_t
    unsigned int pid;
    unsigned long long usedGpuMemory;
  };
  struct ProcessInfo {  // nvmlProcessInfo_t, alias nvmlProcessInfo_v2_t
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId, computeInstanceId;
  };

  std::string error(Ret r) const {
    return std::to_string(r) + (error_string_ ? std::string(" ") + error_string_(r) : "");
  }

  void* lib_ = nullptr;
  void* device_ = nullptr;  // nvmlDevice_t
  Ret (*shutdown_)() = nullptr;
  const char* (*error_string_)(Ret) = nullptr;
  Ret (*list_)(void*, unsigned int*, void*) = nullptr;
  size_t stride_ = 0;
};
NvmlProcessMemory g_nvml;
#endif

// This process's device memory (NVML), or -1 when not sampled or not listed.
std::atomic<bool> g_process_sampling{false};
gint64 device_process_used() {
#ifdef SOAK_HAVE_CUDA
  if (g_process_sampling.load()) return g_nvml.bytes();
#endif
  return -1;
}

struct Sample {
  long frame;
  int width, height;
  guint64 rss;
  guint64 heap;
  gint64 device;          // whole device
  gint64 device_process;  // this process
  guint32 count;
  double seconds;
};

struct State {
  Args args;
  long warmup = 0;
  std::vector<guint32> expected;  // component count drawn into each frame
  std::chrono::steady_clock::time_point t0;

  std::atomic<long> checked{0}, received{0}, bad{0};
  std::atomic<uint64_t> counted{0}, drawn{0};  // total_count and drawn count, summed
  std::atomic<guint> max_components_ever{1024};  // the element's default
  std::atomic<long> property_changes{0};
  std::atomic<bool> stop{false};

  std::mutex lock;  // samples, failure reports
  std::vector<Sample> samples;
  int reports = 0;
};

void size_of(const Args& a, long i, int& w, int& h) {
  const bool alt = a.size_change_every > 0 && (i / a.size_change_every) % 2 == 1;
  w = alt ? a.alt_width : a.width;
  h = alt ? a.alt_height : a.height;
}

void fail(State& s, long i, const char* fmt, ...) G_GNUC_PRINTF(3, 4);
void fail(State& s, long i, const char* fmt, ...) {
  s.bad++;
  std::lock_guard<std::mutex> g(s.lock);
  if (++s.reports > 10) return;
  va_list ap;
  va_start(ap, fmt);
  char msg[512];
  std::vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  std::fprintf(stderr, "soak: frame %ld: %s\n", i, msg);
}

// On cudaccl's source pad: the frame as the element leaves it (any memory).
GstPadProbeReturn check_frame(GstPad*, GstPadProbeInfo* info, gpointer data) {
  State& s = *static_cast<State*>(data);
  GstBuffer* buf = GST_PAD_PROBE_INFO_BUFFER(info);
  if (!buf || !GST_BUFFER_PTS_IS_VALID(buf)) return GST_PAD_PROBE_OK;
  const long i = (long) gst_util_uint64_scale_round(GST_BUFFER_PTS(buf), kFps, GST_SECOND);
  if (i < 0 || i >= s.args.frames) {
    fail(s, i, "timestamp out of range");
    return GST_PAD_PROBE_OK;
  }
  int w, h;
  size_of(s.args, i, w, h);

  gpointer it = nullptr;
  guint metas = 0;
  GstCclMeta* meta = nullptr;
  while (GstMeta* m = gst_buffer_iterate_meta_filtered(buf, &it, GST_CCL_META_API_TYPE)) {
    meta = (GstCclMeta*) m;
    ++metas;
  }
  if (metas != 1) {
    fail(s, i, "%u GstCclMeta on the buffer, want 1", metas);
  } else if ((int) meta->width != w || (int) meta->height != h) {
    fail(s, i, "meta says %ux%u, frame is %dx%d", meta->width, meta->height, w, h);
  } else if (s.args.foreground == "threshold" && meta->total_count != s.expected[i]) {
    fail(s, i, "total_count %u, drawn %u (%dx%d, threshold %u, %u-connected, %s)",
         meta->total_count, s.expected[i], w, h, meta->threshold, meta->connectivity,
         s.args.foreground.c_str());
  } else if (meta->n_components > meta->total_count ||
             meta->n_components > s.max_components_ever.load()) {
    fail(s, i, "%u reported of %u, max-components at most %u", meta->n_components,
         meta->total_count, s.max_components_ever.load());
  } else if ((s.args.foreground == "threshold" &&
              (meta->threshold < kBackground || meta->threshold >= kForeground)) ||
             (meta->connectivity != 4 && meta->connectivity != 8)) {
    fail(s, i, "threshold %u or connectivity %u implausible", meta->threshold, meta->connectivity);
  } else {
    for (guint c = 0; c < meta->n_components; ++c) {
      const GstCclComponent& k = meta->components[c];
      if (!plausible_component(k, w, h)) {
        fail(s, i, "component %u implausible: box %d,%d %dx%d area %" G_GUINT64_FORMAT
             " centroid %.1f,%.1f", c, k.x, k.y, k.width, k.height, k.area, k.centroid_x,
             k.centroid_y);
        break;
      }
    }
  }
  s.checked++;
  if (metas == 1) {
    s.counted += meta->total_count;
    s.drawn += s.expected[i];
  }
  if (s.args.leak_bytes > 0)  // touched, so that it is resident
    std::memset(g_malloc(s.args.leak_bytes), 1, s.args.leak_bytes);

  if (i % s.args.sample_every == 0 || i == s.warmup || i == s.args.frames - 1) {
    Sample sm{i, w, h, rss_bytes(), heap_in_use(), device_used(), device_process_used(),
              metas == 1 ? meta->total_count : 0,
              std::chrono::duration<double>(std::chrono::steady_clock::now() - s.t0).count()};
    std::lock_guard<std::mutex> g(s.lock);
    s.samples.push_back(sm);
  }
  return GST_PAD_PROBE_OK;
}

GstFlowReturn on_sample(GstAppSink* sink, gpointer data) {
  State& s = *static_cast<State*>(data);
  GstSample* sample = gst_app_sink_pull_sample(sink);
  if (!sample) return GST_FLOW_EOS;
  s.received++;
  gst_sample_unref(sample);
  return GST_FLOW_OK;
}

GstCaps* caps_for(int w, int h) {
  return gst_caps_new_simple("video/x-raw", "format", G_TYPE_STRING, "I420", "width", G_TYPE_INT, w,
                             "height", G_TYPE_INT, h, "framerate", GST_TYPE_FRACTION, kFps, 1,
                             nullptr);
}

// Pushes every frame from a buffer pool of the current size (so the host side's
// own memory stays flat), renegotiating at each size change, then EOS.
void feed(State& s, GstAppSrc* src) {
  GstBufferPool* pool = nullptr;
  int cur_w = 0, cur_h = 0;
  for (long i = 0; i < s.args.frames && !s.stop.load(); ++i) {
    int w, h;
    size_of(s.args, i, w, h);
    if (w != cur_w || h != cur_h) {
      if (pool) {
        gst_buffer_pool_set_active(pool, FALSE);
        gst_object_unref(pool);
      }
      GstCaps* caps = caps_for(w, h);
      GstVideoInfo vi;
      gst_video_info_from_caps(&vi, caps);
      pool = gst_video_buffer_pool_new();
      GstStructure* config = gst_buffer_pool_get_config(pool);
      gst_buffer_pool_config_set_params(config, caps, (guint) GST_VIDEO_INFO_SIZE(&vi), 2, 0);
      gst_buffer_pool_set_config(pool, config);
      gst_buffer_pool_set_active(pool, TRUE);
      gst_app_src_set_caps(src, caps);
      gst_caps_unref(caps);
      cur_w = w;
      cur_h = h;
    }
    GstBuffer* buf = nullptr;
    if (gst_buffer_pool_acquire_buffer(pool, &buf, nullptr) != GST_FLOW_OK) break;
    GstVideoInfo vi;
    GstCaps* caps = caps_for(w, h);
    gst_video_info_from_caps(&vi, caps);
    gst_caps_unref(caps);
    GstVideoFrame f;
    if (!gst_video_frame_map(&f, &vi, buf, GST_MAP_WRITE)) {
      gst_buffer_unref(buf);
      break;
    }
    s.expected[i] = draw_frame(f, i, s.args.seed);
    gst_video_frame_unmap(&f);
    GST_BUFFER_PTS(buf) = gst_util_uint64_scale(i, GST_SECOND, kFps);
    GST_BUFFER_DURATION(buf) = gst_util_uint64_scale(1, GST_SECOND, kFps);
    if (gst_app_src_push_buffer(src, buf) != GST_FLOW_OK) break;  // error or shutdown
  }
  gst_app_src_end_of_stream(src);
  if (pool) {
    gst_buffer_pool_set_active(pool, FALSE);
    gst_object_unref(pool);
  }
}

// Picks a nick of an enum or flags property (flags: a random combination).
std::string random_value_of(GObject* obj, const char* name, std::mt19937_64& rng) {
  GParamSpec* spec = g_object_class_find_property(G_OBJECT_GET_CLASS(obj), name);
  if (G_IS_PARAM_SPEC_ENUM(spec)) {
    GEnumClass* e = G_PARAM_SPEC_ENUM(spec)->enum_class;
    return e->values[rng() % e->n_values].value_nick;
  }
  GFlagsClass* fl = G_PARAM_SPEC_FLAGS(spec)->flags_class;
  std::string v;
  for (guint k = 0; k < fl->n_values; ++k)
    if (fl->values[k].value && rng() % 3 == 0)
      v += (v.empty() ? "" : "+") + std::string(fl->values[k].value_nick);
  return v.empty() ? "none" : v;
}

// Changes one property of the playing element every 1-3 ms, within values that
// keep the drawn count exact (see the header).
void change_properties(State& s, GstElement* ccl) {
  std::mt19937_64 rng(s.args.seed * 7919 + 1);
  GObject* obj = G_OBJECT(ccl);
  const guint max_components[] = {0, 1, 5, 64, 1024, 4096};
  const guint max_roi[] = {0, 8, 64, 1000};
  const guint max_lost[] = {0, 5, 15, 100};
  while (!s.stop.load()) {
    std::this_thread::sleep_for(std::chrono::microseconds(1000 + rng() % 2000));
    switch (rng() % 12) {
      case 0: g_object_set(obj, "threshold", (guint) (kBackground + rng() % (kForeground - kBackground)), nullptr); break;
      case 1: gst_util_set_object_arg(obj, "threshold-mode", rng() % 2 ? "above" : "otsu"); break;
      case 2: gst_util_set_object_arg(obj, "connectivity", random_value_of(obj, "connectivity", rng).c_str()); break;
      case 3: gst_util_set_object_arg(obj, "algorithm", random_value_of(obj, "algorithm", rng).c_str()); break;
      case 4: g_object_set(obj, "min-area", (guint) (1 + rng() % 200), nullptr); break;
      case 5: {
        const guint m = max_components[rng() % G_N_ELEMENTS(max_components)];
        // Raised before it is set: a frame may see the new value at once.
        guint prev = s.max_components_ever.load();
        while (m > prev && !s.max_components_ever.compare_exchange_weak(prev, m)) {}
        g_object_set(obj, "max-components", m, nullptr);
        break;
      }
      case 6: gst_util_set_object_arg(obj, "overlay", random_value_of(obj, "overlay", rng).c_str()); break;
      case 7: g_object_set(obj, "overlay-alpha", (double) (rng() % 101) / 100.0, nullptr); break;
      case 8: g_object_set(obj, "roi-meta", (gboolean) (rng() % 2), nullptr); break;
      case 9: g_object_set(obj, "max-roi-metas", max_roi[rng() % G_N_ELEMENTS(max_roi)], nullptr); break;
      case 10: g_object_set(obj, "post-messages", (gboolean) (rng() % 2), nullptr); break;
      case 11:
        if (rng() % 2) g_object_set(obj, "tracking", (gboolean) (rng() % 2), nullptr);
        else g_object_set(obj, "track-max-lost", max_lost[rng() % G_N_ELEMENTS(max_lost)], nullptr);
        break;
    }
    s.property_changes++;
  }
}

// Growth check of one series (RSS, heap or device use); prints the bound and the
// figures; returns false on growth. The base is the warm-up's high-water mark, not
// its last sample: how much a frame holds for a moment depends on the content and
// on the properties of the moment (4096 reported components with messages and ROI
// metas against none), so a peak after the warm-up is held against the peaks in it.
template <typename Value>
bool check_growth(const char* what, const State& s, Value value_of) {
  gint64 base = -1, at_end = -1, peak = -1, last = -1;
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  long n = 0;
  for (const Sample& sm : s.samples) {
    const gint64 v = value_of(sm);
    if (v < 0) continue;
    if (sm.frame <= s.warmup) base = std::max(base, v);
    if (sm.frame == s.warmup) at_end = v;
    if (sm.frame > s.warmup) {
      peak = std::max(peak, v);
      last = v;
      sx += sm.frame; sy += (double) v; sxx += (double) sm.frame * sm.frame;
      sxy += (double) sm.frame * (double) v; ++n;
    }
  }
  if (base < 0 || n == 0) {
    std::printf("soak: %s: not checked (no sample in and after the warm-up)\n", what);
    return true;
  }
  const double allowed = std::max(s.args.growth_mib * kMiB, base * s.args.growth_percent / 100.0);
  const double bound = (double) base + allowed;
  const double slope = n > 1 ? (n * sxy - sx * sy) / (n * sxx - sx * sx) : 0.0;  // bytes/frame
  const bool ok = (double) peak <= bound;
  std::printf("soak: %s: warm-up (frames 0-%ld) max %.2f MiB, at its end %.2f MiB; after it max "
              "%.2f MiB, end %.2f MiB, trend %+.1f KiB/1000 frames over %ld samples; bound %.2f + "
              "max(%.1f MiB, %.1f%%) = %.2f MiB: %s\n",
              what, s.warmup, base / (double) kMiB, at_end / (double) kMiB, peak / (double) kMiB,
              last / (double) kMiB, slope * 1000 / 1024, n, base / (double) kMiB,
              s.args.growth_mib, s.args.growth_percent, bound / kMiB, ok ? "ok" : "GROWTH");
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  State s;
  if (!parse(argc, argv, s.args)) {
    usage();
    return 2;
  }
  Args& a = s.args;
  // glibc raises its mmap threshold each time a large mmapped block is freed, after
  // which frame-sized buffers come from the heap and its high-water mark stays in
  // RSS: seen here as +30 MiB over 1000 1080p frames with a flat heap. A fixed
  // threshold (set before any thread starts) hands large blocks back when freed, so
  // that RSS follows what is in use. --malloc-default keeps glibc's behaviour.
  if (!a.malloc_default) mallopt(M_MMAP_THRESHOLD, 128 * 1024);
  gst_init(&argc, &argv);

  // Warm-up: the first 10% of frames, and at least until both sizes have run once
  // (the second size's allocations, and the first size's coming back, are done)
  // and one run of snow frames has passed (the most components, so the largest
  // buffers of the element and its tracker).
  if (a.warmup >= 0) s.warmup = a.warmup;
  else {
    s.warmup = std::max(a.frames / 10, kContentCycle);
    if (a.size_change_every > 0 && 2 * a.size_change_every < a.frames)
      s.warmup = std::max(s.warmup, 2 * a.size_change_every);
  }
  s.warmup = std::min(s.warmup, a.frames - 1);

  if (!have_factory("cudaccl")) {
    std::fprintf(stderr, "soak: no cudaccl element (GST_PLUGIN_PATH=%s); set GST_PLUGIN_PATH "
                 "to the build's plugin folder or use meson devenv\n",
                 g_getenv("GST_PLUGIN_PATH") ? g_getenv("GST_PLUGIN_PATH") : "unset");
    return 1;
  }
  const bool cuda_memory = a.memory == "cuda";
  if (cuda_memory && !(have_factory("cudaupload") && have_factory("cudadownload"))) {
    std::printf("soak: SKIP: --memory cuda needs cudaupload and cudadownload (GStreamer's nvcodec "
                "plugin, which registers them only where a CUDA driver and device are found); "
                "cudaupload %s, cudadownload %s\n",
                have_factory("cudaupload") ? "found" : "missing",
                have_factory("cudadownload") ? "found" : "missing");
    return 77;
  }

#ifdef SOAK_HAVE_CUDA
  if (cuda_memory || a.backend != "cpu") {
    // Creates this process's context before the first sample, so that it counts
    // in the warm-up, and before NVML is asked: NVML lists a process only once it
    // has a context on the device.
    cudaError_t e = cudaFree(nullptr);
    size_t f = 0, t = 0;
    if (e == cudaSuccess) e = cudaMemGetInfo(&f, &t);
    if (e == cudaSuccess) {
      g_device_sampling = true;
      int dev = 0;
      char bus_id[32] = "";  // NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE
      std::string why = "no PCI bus id of the CUDA device";
      if (cudaGetDevice(&dev) == cudaSuccess &&
          cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, dev) == cudaSuccess)
        why = g_nvml.open(bus_id);
      g_process_sampling = why.empty();
      if (why.empty()) std::printf("soak: device memory: this process's (NVML)\n");
      else std::printf("soak: device memory: whole device (cudaMemGetInfo, every process): %s\n",
                       why.c_str());
    } else {
      std::printf("soak: device memory not sampled: %s\n", cudaGetErrorString(e));
    }
  }
#else
  if (cuda_memory || a.backend != "cpu")
    std::printf("soak: device memory not sampled: built without CUDA\n");
#endif

  s.expected.assign(a.frames, 0);
  s.samples.reserve(a.frames / a.sample_every + 8);

  std::string desc = "appsrc name=src format=time is-live=false block=true max-bytes=0 "
                     "max-buffers=4 ! ";
  if (cuda_memory) desc += "cudaupload ! ";
  desc += "cudaccl name=ccl ";
  if (a.foreground == "background")
    desc += "foreground=background group-gap=0 light-compensation=true ";
  desc += "! ";
  if (cuda_memory) desc += "cudadownload ! ";
  desc += "appsink name=sink sync=false max-buffers=4";
  GError* err = nullptr;
  GstElement* pipeline = gst_parse_launch(desc.c_str(), &err);
  if (!pipeline) {
    std::fprintf(stderr, "soak: pipeline: %s\n", err ? err->message : "?");
    return 1;
  }
  GstElement* src = gst_bin_get_by_name(GST_BIN(pipeline), "src");
  GstElement* ccl = gst_bin_get_by_name(GST_BIN(pipeline), "ccl");
  GstElement* sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
  gst_util_set_object_arg(G_OBJECT(ccl), "backend", a.backend.c_str());

  GstAppSinkCallbacks cb = {};
  cb.new_sample = on_sample;
  gst_app_sink_set_callbacks(GST_APP_SINK(sink), &cb, &s, nullptr);
  GstPad* ccl_src = gst_element_get_static_pad(ccl, "src");
  gst_pad_add_probe(ccl_src, GST_PAD_PROBE_TYPE_BUFFER, check_frame, &s, nullptr);
  gst_object_unref(ccl_src);

  std::printf("soak: foreground %s\n", a.foreground.c_str());
  std::printf("soak: %ld frames I420 %dx%d%s, %s memory, backend %s, properties %s, "
              "samples every %ld frames, warm-up %ld frames, malloc mmap threshold %s\n",
              a.frames, a.width, a.height,
              a.size_change_every > 0
                  ? (" <-> " + std::to_string(a.alt_width) + "x" + std::to_string(a.alt_height) +
                     " every " + std::to_string(a.size_change_every) + " frames").c_str()
                  : "",
              a.memory.c_str(), a.backend.c_str(), a.change_properties ? "changing" : "fixed",
              a.sample_every, s.warmup, a.malloc_default ? "glibc's (sliding)" : "128 KiB");
  std::fflush(stdout);

  s.t0 = std::chrono::steady_clock::now();
  if (gst_element_set_state(pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE)
    std::fprintf(stderr, "soak: the pipeline did not start\n");

  std::thread feeder(feed, std::ref(s), GST_APP_SRC(src));
  std::thread changer;
  if (a.change_properties) changer = std::thread(change_properties, std::ref(s), ccl);

  // The bus: errors end the run; every other message is popped (and so freed), so
  // that post-messages=true does not pile messages up in the bus.
  GstBus* bus = gst_element_get_bus(pipeline);
  long errors = 0, warnings = 0, element_messages = 0, next_progress = a.frames / 10;
  bool eos = false;
  while (!eos && errors == 0) {
    GstMessage* m = gst_bus_timed_pop(bus, 200 * GST_MSECOND);
    if (s.checked.load() >= next_progress && next_progress > 0) {
      const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - s.t0).count();
      std::printf("soak: %ld/%ld frames, %.0f frames/s, RSS %.1f MiB\n", s.checked.load(), a.frames,
                  s.checked.load() / sec, rss_bytes() / (double) kMiB);
      std::fflush(stdout);
      next_progress += a.frames / 10;
    }
    if (!m) continue;
    switch (GST_MESSAGE_TYPE(m)) {
      case GST_MESSAGE_EOS: eos = true; break;
      case GST_MESSAGE_ERROR:
      case GST_MESSAGE_WARNING: {
        GError* e = nullptr;
        gchar* dbg = nullptr;
        const bool is_error = GST_MESSAGE_TYPE(m) == GST_MESSAGE_ERROR;
        if (is_error) gst_message_parse_error(m, &e, &dbg);
        else gst_message_parse_warning(m, &e, &dbg);
        if (is_error || warnings < 5)
          std::fprintf(stderr, "soak: %s from %s: %s (%s)\n", is_error ? "ERROR" : "warning",
                       GST_OBJECT_NAME(GST_MESSAGE_SRC(m)), e->message, dbg ? dbg : "");
        (is_error ? errors : warnings)++;
        g_clear_error(&e);
        g_free(dbg);
        break;
      }
      case GST_MESSAGE_ELEMENT: element_messages++; break;
      default: break;
    }
    gst_message_unref(m);
  }
  s.stop = true;
  if (changer.joinable()) changer.join();
  gst_element_set_state(pipeline, GST_STATE_NULL);  // unblocks the feeder after an error
  feeder.join();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - s.t0).count();

  gst_object_unref(bus);
  gst_object_unref(src);
  gst_object_unref(ccl);
  gst_object_unref(sink);
  gst_object_unref(pipeline);
#ifdef SOAK_HAVE_CUDA
  g_nvml.close();
#endif

  std::sort(s.samples.begin(), s.samples.end(),
            [](const Sample& x, const Sample& y) { return x.frame < y.frame; });
  if (!a.csv.empty()) {
    FILE* f = std::fopen(a.csv.c_str(), "w");
    if (f) {
      std::fprintf(f, "frame,width,height,rss_bytes,heap_bytes,device_used_bytes,"
                   "device_process_bytes,components,seconds\n");
      for (const Sample& sm : s.samples)
        std::fprintf(f, "%ld,%d,%d,%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%" G_GINT64_FORMAT
                     ",%" G_GINT64_FORMAT ",%u,%.3f\n", sm.frame, sm.width, sm.height, sm.rss,
                     sm.heap, sm.device, sm.device_process, sm.count, sm.seconds);
      std::fclose(f);
      std::printf("soak: %zu samples written to %s\n", s.samples.size(), a.csv.c_str());
    } else {
      std::fprintf(stderr, "soak: cannot write %s\n", a.csv.c_str());
    }
  }

  std::printf("soak: %.1f s, %.0f frames/s; frames received %ld/%ld, checked %ld, bad %ld; "
              "bus errors %ld, warnings %ld, element messages %ld; property changes %ld\n",
              seconds, s.received.load() / seconds, s.received.load(), a.frames, s.checked.load(),
              s.bad.load(), errors, warnings, element_messages, s.property_changes.load());

  bool grew = !check_growth("host RSS", s, [](const Sample& sm) { return (gint64) sm.rss; });
  if (heap_in_use() > 0)
    grew |= !check_growth("host heap in use", s, [](const Sample& sm) { return (gint64) sm.heap; });
  if (g_process_sampling.load())
    grew |= !check_growth("device memory of this process (NVML)", s,
                          [](const Sample& sm) { return sm.device_process; });
  else if (g_device_sampling.load())
    grew |= !check_growth("device memory of the whole device (cudaMemGetInfo, every process)", s,
                          [](const Sample& sm) { return sm.device; });
  bool ok = true;
  if (grew != a.expect_growth) {
    std::printf("soak: FAIL: %s\n", grew ? "memory grew after the warm-up"
                                          : "--expect-growth, but no growth was caught");
    ok = false;
  }
  if (errors) { std::printf("soak: FAIL: bus error\n"); ok = false; }
  if (s.received.load() != a.frames || s.checked.load() != a.frames) {
    std::printf("soak: FAIL: %ld of %ld frames reached the sink (%ld checked)\n", s.received.load(),
                a.frames, s.checked.load());
    ok = false;
  }
  if (s.bad.load()) { std::printf("soak: FAIL: %ld frames with a wrong or missing meta\n", s.bad.load()); ok = false; }
  if (a.foreground == "background") {
    const double found = double(s.counted.load()), drawn = double(s.drawn.load());
    std::printf("soak: background model: %.2f components a frame for %.2f drawn\n",
                found / double(std::max<long>(1, s.checked.load())),
                drawn / double(std::max<long>(1, s.checked.load())));
    if (found < drawn / 4 || found > drawn * 4) {
      std::printf("soak: FAIL: the model's count is far from what was drawn\n");
      ok = false;
    }
  }
  std::printf("soak: %s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
