// Concurrency tests of the cudaccl element: many instances in one process, property
// changes from another thread while frames flow, many start/stop cycles, and two
// elements labeling the same frames. Every case compares the GstCclMeta of each frame
// (counts, every field of every component, track fields included) with a run of the
// same pipeline alone, and a watchdog turns a deadlock into a failure instead of a hang.
//
// Pipelines: appsrc (frames generated here, deterministic) ! cudaccl ! appsink, or
// appsrc ! tee, two branches of queue ! cudaccl ! appsink.
//
// Backend: env CCL_TEST_BACKEND (cpu, the default, or cuda). Scale, the same in CI
// (CPU backend, about 5 s on 2 cores) and on a GPU machine: 16 pipelines at once, 1000
// property changes, 1000 start/stop cycles. Overrides: CCL_CONCURRENCY_PIPELINES,
// CCL_CONCURRENCY_CHANGES, CCL_CONCURRENCY_CYCLES, CCL_CONCURRENCY_WATCHDOG_S (seconds
// a case may go without progress, default 120). CCL_CONCURRENCY_LEAK_BYTES (the test
// of the test) leaks that much per start/stop cycle; the memory bound must catch it.
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>
#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "element_util.h"

namespace ccl::element_test {
namespace {

// ---------------------------------------------------------------------------------
// Scale and watchdog

long env_long(const char* name, long fallback) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  char* end = nullptr;
  const long n = std::strtol(v, &end, 10);
  return (*end || n < 1) ? fallback : n;
}

long pipelines_at_once() { return env_long("CCL_CONCURRENCY_PIPELINES", 16); }
long property_changes() { return env_long("CCL_CONCURRENCY_CHANGES", 1000); }
long start_stop_cycles() { return env_long("CCL_CONCURRENCY_CYCLES", 1000); }
long leak_bytes_per_cycle() { return env_long("CCL_CONCURRENCY_LEAK_BYTES", 0); }

// Steady-clock seconds of the last progress (a frame out, a cycle done).
std::atomic<int64_t> g_progress_s{0};
int64_t now_s() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
void progress() { g_progress_s = now_s(); }

// Ends the process with a message when a case makes no progress for the limit
// (CCL_CONCURRENCY_WATCHDOG_S, default 120 s): a deadlocked pipeline cannot be
// recovered from inside the process, so the case fails (the test program exits with
// status 3, naming it) rather than hanging until the harness' timeout. Progress, not
// the whole case's time, is timed, so the limit holds at any scale and speed.
class Watchdog {
 public:
  Watchdog() : limit_s_(env_long("CCL_CONCURRENCY_WATCHDOG_S", 120)) {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    name_ = info ? std::string(info->test_suite_name()) + "." + info->name() : "?";
    progress();
    thread_ = std::thread([this] {
      std::unique_lock<std::mutex> lock(mutex_);
      while (!done_cv_.wait_for(lock, std::chrono::seconds(1), [this] { return done_; })) {
        if (now_s() - g_progress_s.load() <= limit_s_) continue;
        std::fprintf(stderr,
                     "\n[watchdog] %s made no progress for %ld s: deadlock or hang; failing "
                     "the test program\n",
                     name_.c_str(), limit_s_);
        std::fflush(stderr);
        std::fflush(stdout);
        std::_Exit(3);
      }
    });
  }
  ~Watchdog() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    done_cv_.notify_all();
    thread_.join();
  }

 private:
  long limit_s_;
  std::string name_;
  std::mutex mutex_;
  std::condition_variable done_cv_;
  bool done_ = false;
  std::thread thread_;
};

// ---------------------------------------------------------------------------------
// Deterministic frames

uint64_t mix(uint64_t x) {  // splitmix64's finalizer
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Frame `i` of a stream: 4x4 blocks of a fixed random field (35% foreground) sliding
// two pixels right per frame, so components persist and tracks live across frames;
// foreground luma 160..255 and background 0..119 vary along ramps, so the threshold,
// its mode and Otsu's level all change what is found.
test::GrayImage scene(int width, int height, int i, uint32_t seed) {
  test::GrayImage g;
  g.name = "scene";
  g.width = width;
  g.height = height;
  g.pixels.resize(size_t(width) * size_t(height));
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      const uint64_t bx = uint64_t(x + 2 * i) / 4, by = uint64_t(y) / 4;
      const bool fg = mix(seed ^ mix(bx ^ mix(by))) % 100 < 35;
      g.pixels[size_t(y) * width + x] =
          uint8_t(fg ? 160 + (x + y) % 96 : (5 * x + 3 * y) % 120);
    }
  return g;
}

struct Stream {
  PixelFormat format = PixelFormat::Gray8;
  int width = 320, height = 240;
  int frames = 8;
  uint32_t seed = 1;
  size_t extra_stride = 0;
  std::string properties;  // of cudaccl, gst-launch syntax
};

std::vector<test::Frame> frames_of(const Stream& s) {
  std::vector<test::Frame> out;
  for (int i = 0; i < s.frames; ++i)
    out.push_back(test::make_frame(scene(s.width, s.height, i, s.seed), s.format, s.extra_stride));
  return out;
}

// ---------------------------------------------------------------------------------
// Metadata as text: every field (doubles exactly, as hex floats) but gpu_time, which
// is a measurement. Two frames' metadata are equal when their texts are.

std::string describe(GstBuffer* buf) {
  std::ostringstream s;
  gpointer it = nullptr;
  int metas = 0;
  while (GstMeta* m = gst_buffer_iterate_meta_filtered(buf, &it, GST_CCL_META_API_TYPE)) {
    const auto* meta = reinterpret_cast<const GstCclMeta*>(m);
    ++metas;
    char line[512];
    std::snprintf(line, sizeof line,
                  "meta %ux%u total %u reported %u threshold %u algorithm %d connectivity %u "
                  "tracking %d\n",
                  meta->width, meta->height, meta->total_count, meta->n_components,
                  meta->threshold, int(meta->algorithm), meta->connectivity,
                  int(meta->tracking));
    s << line;
    for (guint c = 0; c < meta->n_components; ++c) {
      const GstCclComponent& k = meta->components[c];
      std::snprintf(line, sizeof line,
                    "  %u box %d,%d %dx%d area %" G_GUINT64_FORMAT " sums %" G_GUINT64_FORMAT
                    " %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT
                    " %" G_GUINT64_FORMAT " centroid %a %a track %" G_GUINT64_FORMAT
                    " parent %" G_GUINT64_FORMAT " age %u unseen %u velocity %a %a "
                    "predicted %d,%d %dx%d\n",
                    k.label, k.x, k.y, k.width, k.height, k.area, k.sum_x, k.sum_y, k.sum_xx,
                    k.sum_xy, k.sum_yy, k.centroid_x, k.centroid_y, k.track_id, k.parent_id,
                    k.track_age, k.frames_unseen, k.velocity_x, k.velocity_y, k.predicted_x,
                    k.predicted_y, k.predicted_width, k.predicted_height);
      s << line;
    }
  }
  if (metas != 1) s << metas << " GstCclMeta on the buffer\n";
  return s.str();
}

// Empty when the buffer carries exactly one plausible GstCclMeta of a width x height
// frame (whatever the settings were), else what is wrong.
std::string invalid_meta(GstBuffer* buf, int width, int height) {
  gpointer it = nullptr;
  const GstCclMeta* meta = nullptr;
  int metas = 0;
  while (GstMeta* m = gst_buffer_iterate_meta_filtered(buf, &it, GST_CCL_META_API_TYPE)) {
    meta = reinterpret_cast<const GstCclMeta*>(m);
    ++metas;
  }
  std::ostringstream why;
  if (metas != 1) {
    why << metas << " GstCclMeta on the buffer, want 1";
    return why.str();
  }
  if (int(meta->width) != width || int(meta->height) != height)
    why << "meta of " << meta->width << "x" << meta->height;
  else if (meta->connectivity != 4 && meta->connectivity != 8)
    why << "connectivity " << meta->connectivity;
  else if (meta->threshold > 255)
    why << "threshold " << meta->threshold;
  else if (meta->n_components > meta->total_count)
    why << meta->n_components << " reported of " << meta->total_count;
  else if (meta->n_components > 0 && !meta->components)
    why << "no component array";
  if (!why.str().empty()) return why.str();
  for (guint c = 0; c < meta->n_components; ++c) {
    const GstCclComponent& k = meta->components[c];
    const bool box = k.width > 0 && k.height > 0 && k.x >= 0 && k.y >= 0 &&
                     k.x + k.width <= width && k.y + k.height <= height;
    const bool ok = box && k.label >= 1 && k.label <= meta->total_count && k.area >= 1 &&
                    k.area <= uint64_t(k.width) * uint64_t(k.height) &&
                    k.centroid_x >= k.x && k.centroid_x <= k.x + k.width - 1 &&
                    k.centroid_y >= k.y && k.centroid_y <= k.y + k.height - 1;
    const bool track_ok = meta->tracking ? k.track_id >= 1 && k.track_age >= 1
                                         : k.track_id == 0 && k.parent_id == 0 &&
                                               k.track_age == 0;
    if (!ok || !track_ok) {
      why << "component " << c << " implausible: label " << k.label << " box " << k.x << ","
          << k.y << " " << k.width << "x" << k.height << " area " << k.area << " track "
          << k.track_id << " age " << k.track_age << " (tracking " << meta->tracking << ")";
      return why.str();
    }
  }
  return "";
}

// gtest: two runs' per-frame metadata are equal; reports the first difference.
void expect_same(const std::vector<std::string>& want, const std::vector<std::string>& got,
                 const std::string& what) {
  if (want.size() != got.size()) {
    ADD_FAILURE() << what << ": " << got.size() << " frames, want " << want.size();
    return;
  }
  for (size_t i = 0; i < want.size(); ++i) {
    if (want[i] == got[i]) continue;
    std::istringstream a(want[i]), b(got[i]);
    std::string la, lb;
    int line = 0;
    while (true) {
      const bool ha = bool(std::getline(a, la)), hb = bool(std::getline(b, lb));
      if (!ha && !hb) break;
      if (!ha) la = "(none)";
      if (!hb) lb = "(none)";
      if (la != lb) break;
      ++line;
    }
    ADD_FAILURE() << what << ": frame " << i << " differs from the serial run at line " << line
                  << ":\n  serial: " << la << "\n  here:   " << lb;
    return;
  }
}

// ---------------------------------------------------------------------------------
// Pipelines

struct BusLog {
  std::mutex mutex;
  std::vector<std::string> errors;
};

GstBusSyncReply on_bus(GstBus*, GstMessage* msg, gpointer data) {
  auto* log = static_cast<BusLog*>(data);
  if (GST_MESSAGE_TYPE(msg) == GST_MESSAGE_ERROR) {
    GError* err = nullptr;
    gchar* debug = nullptr;
    gst_message_parse_error(msg, &err, &debug);
    std::lock_guard<std::mutex> g(log->mutex);
    log->errors.push_back(std::string(GST_OBJECT_NAME(msg->src)) + ": " +
                          (err ? err->message : "?") + " (" + (debug ? debug : "") + ")");
    g_clear_error(&err);
    g_free(debug);
  }
  // Nobody pops the bus: per-frame element messages would pile up otherwise. A sync
  // handler that drops a message owns it.
  gst_message_unref(msg);
  return GST_BUS_DROP;
}

// appsrc ! cudaccl ! appsink, or with `branches` == 2 appsrc ! tee and two branches
// queue ! cudaccl ! appsink, every cudaccl with the stream's properties.
class Pipeline {
 public:
  explicit Pipeline(const Stream& s, int branches = 1) {
    std::ostringstream launch;
    launch << "appsrc name=src format=time block=true max-bytes=4000000 ";
    const std::string ccl = "cudaccl backend=" + backend_under_test() + " " + s.properties;
    if (branches == 1) {
      launch << "! " << ccl << " name=ccl0 ! appsink name=sink0 sync=false max-buffers=64";
    } else {
      launch << "! tee name=t";
      for (int b = 0; b < branches; ++b)
        launch << " t. ! queue ! " << ccl << " name=ccl" << b << " ! appsink name=sink" << b
               << " sync=false max-buffers=64";
    }
    GError* error = nullptr;
    pipeline_ = gst_parse_launch(launch.str().c_str(), &error);
    if (!pipeline_ || error) {
      ADD_FAILURE() << "cannot create '" << launch.str()
                    << "': " << (error ? error->message : "?");
      g_clear_error(&error);
      return;
    }
    src_ = gst_bin_get_by_name(GST_BIN(pipeline_), "src");
    GstCaps* caps = gst_caps_from_string(caps_string(s.format, s.width, s.height).c_str());
    g_object_set(src_, "caps", caps, nullptr);
    gst_caps_unref(caps);
    for (int b = 0; b < branches; ++b) {
      const std::string n = std::to_string(b);
      sinks_.push_back(gst_bin_get_by_name(GST_BIN(pipeline_), ("sink" + n).c_str()));
      ccls_.push_back(gst_bin_get_by_name(GST_BIN(pipeline_), ("ccl" + n).c_str()));
    }
    GstBus* bus = gst_element_get_bus(pipeline_);
    gst_bus_set_sync_handler(bus, on_bus, &log_, nullptr);
    gst_object_unref(bus);
  }

  ~Pipeline() {
    if (!pipeline_) return;
    gst_element_set_state(pipeline_, GST_STATE_NULL);
    for (GstElement* e : sinks_) gst_object_unref(e);
    for (GstElement* e : ccls_) gst_object_unref(e);
    gst_object_unref(src_);
    GstBus* bus = gst_element_get_bus(pipeline_);
    gst_bus_set_sync_handler(bus, nullptr, nullptr, nullptr);
    gst_object_unref(bus);
    gst_object_unref(pipeline_);
  }

  bool ok() const { return pipeline_ != nullptr; }
  GstElement* ccl(int b = 0) const { return ccls_[size_t(b)]; }

  bool play() {
    return gst_element_set_state(pipeline_, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE;
  }
  bool stop() {
    return gst_element_set_state(pipeline_, GST_STATE_NULL) != GST_STATE_CHANGE_FAILURE;
  }

  // Pushes a copy of the frame, timestamped as frame `index` at 30 fps.
  bool push(const test::Frame& f, long index) {
    GstBuffer* buf = buffer_from_frame(f);
    GST_BUFFER_PTS(buf) = gst_util_uint64_scale(guint64(index), GST_SECOND, 30);
    GST_BUFFER_DURATION(buf) = gst_util_uint64_scale(1, GST_SECOND, 30);
    return gst_app_src_push_buffer(GST_APP_SRC(src_), buf) == GST_FLOW_OK;
  }
  // A serialized event, queued in order with the buffers.
  bool send(GstEvent* e) { return gst_element_send_event(src_, e); }
  void eos() { gst_app_src_end_of_stream(GST_APP_SRC(src_)); }

  // Next output buffer of branch b (to unref), or nullptr at EOS or after 30 s.
  GstBuffer* pull(int b = 0) {
    GstSample* sample =
        gst_app_sink_try_pull_sample(GST_APP_SINK(sinks_[size_t(b)]), 30 * GST_SECOND);
    if (!sample) return nullptr;
    GstBuffer* buf = gst_buffer_ref(gst_sample_get_buffer(sample));
    gst_sample_unref(sample);
    return buf;
  }
  bool at_eos(int b = 0) { return gst_app_sink_is_eos(GST_APP_SINK(sinks_[size_t(b)])); }

  std::vector<std::string> errors() {
    std::lock_guard<std::mutex> g(log_.mutex);
    return log_.errors;
  }

 private:
  GstElement* pipeline_ = nullptr;
  GstElement* src_ = nullptr;
  std::vector<GstElement*> sinks_, ccls_;
  BusLog log_;
};

// Plays the frames through a started pipeline and returns each branch's per-frame
// metadata (and, in `pixels`, a checksum of each output frame's bytes). Failures are
// reported with the context; the caller stops the pipeline.
std::vector<std::vector<std::string>> play_frames(Pipeline& p,
                                                  const std::vector<test::Frame>& frames,
                                                  int branches, const std::string& context,
                                                  std::vector<std::vector<uint64_t>>* pixels =
                                                      nullptr) {
  std::vector<std::vector<std::string>> out(static_cast<size_t>(branches));
  if (pixels) pixels->assign(size_t(branches), {});
  for (size_t i = 0; i < frames.size(); ++i)
    if (!p.push(frames[i], long(i))) {
      ADD_FAILURE() << context << ": push of frame " << i << " failed";
      break;
    }
  p.eos();
  for (int b = 0; b < branches; ++b) {
    for (size_t i = 0; i < frames.size(); ++i) {
      GstBuffer* buf = p.pull(b);
      if (!buf) {
        ADD_FAILURE() << context << ": branch " << b << " gave " << i << " of " << frames.size()
                      << " frames (errors: "
                      << (p.errors().empty() ? "none" : p.errors().front()) << ")";
        break;
      }
      const std::string why =
          invalid_meta(buf, frames[i].view.width, frames[i].view.height);
      if (!why.empty())
        ADD_FAILURE() << context << ": branch " << b << " frame " << i << ": " << why;
      out[size_t(b)].push_back(describe(buf));
      progress();
      if (pixels) {
        GstMapInfo map;
        uint64_t h = 0;
        if (gst_buffer_map(buf, &map, GST_MAP_READ)) {
          for (gsize k = 0; k < map.size; ++k) h = mix(h ^ map.data[k]);
          gst_buffer_unmap(buf, &map);
        }
        (*pixels)[size_t(b)].push_back(h);
      }
      gst_buffer_unref(buf);
    }
  }
  for (const std::string& e : p.errors()) ADD_FAILURE() << context << ": bus error " << e;
  return out;
}

// The per-frame metadata of the stream through one pipeline, alone.
std::vector<std::string> run_alone(const Stream& s, const std::vector<test::Frame>& frames,
                                   const std::string& context) {
  Pipeline p(s);
  if (!p.ok() || !p.play()) {
    ADD_FAILURE() << context << ": cannot start the serial pipeline";
    return {};
  }
  auto out = play_frames(p, frames, 1, context + " (serial)");
  p.stop();
  return out[0];
}

// Values of an enum property of cudaccl, by nick.
std::vector<std::string> enum_nicks(GstElement* e, const char* property) {
  std::vector<std::string> out;
  GParamSpec* ps = g_object_class_find_property(G_OBJECT_GET_CLASS(e), property);
  if (!ps || !G_IS_PARAM_SPEC_ENUM(ps)) return out;
  GEnumClass* k = G_PARAM_SPEC_ENUM(ps)->enum_class;
  for (guint i = 0; i < k->n_values; ++i) out.push_back(k->values[i].value_nick);
  return out;
}

std::vector<std::string> algorithms() {
  GstElement* e = gst_element_factory_make("cudaccl", nullptr);
  if (!e) return {};
  gst_object_ref_sink(e);
  auto out = enum_nicks(e, "algorithm");
  gst_object_unref(e);
  return out;
}

// Stream i of a set of concurrent ones: formats, sizes, padding and settings differ
// from one to the next, tracking is on (the default) throughout.
Stream varied_stream(int i) {
  const auto& formats = test::all_formats();
  const auto algos = algorithms();
  static const char* modes[] = {"above", "below", "otsu"};
  Stream s;
  s.format = formats[size_t(i) % formats.size()];
  s.width = 160 + 32 * (i % 5);
  s.height = 120 + 16 * (i % 3);
  s.frames = 10;
  s.seed = uint32_t(100 + i);
  s.extra_stride = size_t(i % 3) * 8;
  std::ostringstream p;
  p << "connectivity=" << (i % 2 ? 4 : 8) << " threshold=" << 100 + 10 * (i % 4)
    << " threshold-mode=" << modes[i % 3] << " min-area=" << 1 + (i % 4) * 3
    << " max-components=" << (i % 4 == 3 ? 40 : 1024) << " tracking=true";
  if (!algos.empty()) p << " algorithm=" << algos[size_t(i) % algos.size()];
  if (i % 4 == 1) p << " overlay=fill+boxes post-messages=true";
  s.properties = p.str();
  return s;
}

std::string describe_stream(const Stream& s) {
  std::ostringstream o;
  o << gst_video_format_to_string(gst_format(s.format)) << " " << s.width << "x" << s.height
    << " +" << s.extra_stride << " seed " << s.seed << " [" << s.properties << "]";
  return o.str();
}

// Bytes malloc has handed out and not had back: a leak shows here even where the
// allocator's caching hides it from RSS.
uint64_t heap_in_use() {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 33)
  const struct mallinfo2 m = mallinfo2();
  return uint64_t(m.uordblks) + uint64_t(m.hblkhd);
#else
  return 0;
#endif
}

uint64_t rss_bytes() {
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return 0;
  unsigned long size = 0, resident = 0;
  const int n = std::fscanf(f, "%lu %lu", &size, &resident);
  std::fclose(f);
  return n == 2 ? uint64_t(resident) * uint64_t(sysconf(_SC_PAGESIZE)) : 0;
}

// ---------------------------------------------------------------------------------
// 1. N element instances in one process, playing at once.

TEST(Concurrency, ManyPipelinesAtOnceEqualSerialRuns) {
  SKIP_UNLESS_BACKEND_RUNS();
  Watchdog watchdog;
  const int n = int(pipelines_at_once());
  std::printf("%d pipelines at once (backend %s)\n", n, backend_under_test().c_str());
  std::vector<Stream> streams;
  std::vector<std::vector<test::Frame>> frames;
  std::vector<std::vector<std::string>> serial;
  for (int i = 0; i < n; ++i) {
    streams.push_back(varied_stream(i));
    frames.push_back(frames_of(streams.back()));
    serial.push_back(run_alone(streams.back(), frames.back(), describe_stream(streams.back())));
  }
  if (HasFailure()) return;
  // Every stream's results differ from every other's, so that a frame or a meta
  // reaching the wrong pipeline would show.
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < i; ++j)
      ASSERT_NE(serial[size_t(i)], serial[size_t(j)]) << "streams " << j << " and " << i;

  // Each thread builds and starts its pipeline, then waits for all the others so
  // that the frames of every pipeline are labeled at the same time.
  std::vector<std::vector<std::string>> got(static_cast<size_t>(n));
  std::mutex m;
  std::condition_variable cv;
  int ready = 0;
  std::vector<std::thread> threads;
  for (int i = 0; i < n; ++i)
    threads.emplace_back([&, i] {
      Pipeline p(streams[size_t(i)]);
      const bool started = p.ok() && p.play();
      {
        std::unique_lock<std::mutex> lock(m);
        ++ready;
        cv.notify_all();
        cv.wait(lock, [&] { return ready == n; });
      }
      if (!started) {
        ADD_FAILURE() << "pipeline " << i << " did not start";
        return;
      }
      got[size_t(i)] = play_frames(p, frames[size_t(i)], 1,
                                   "pipeline " + std::to_string(i))[0];
      p.stop();
    });
  for (auto& t : threads) t.join();
  for (int i = 0; i < n; ++i)
    expect_same(serial[size_t(i)], got[size_t(i)],
                "pipeline " + std::to_string(i) + " " + describe_stream(streams[size_t(i)]));
}

// ---------------------------------------------------------------------------------
// 2. Random property changes from another thread while frames flow.

// Sets one mutable property of cudaccl to a random valid value.
std::string random_change(GstElement* e, std::mt19937& rng) {
  static const char* names[] = {"algorithm",     "connectivity",  "threshold",
                                "threshold-mode", "min-area",      "max-components",
                                "overlay",       "overlay-alpha", "roi-meta",
                                "max-roi-metas", "post-messages", "tracking",
                                "track-max-lost"};
  const char* name = names[rng() % G_N_ELEMENTS(names)];
  GParamSpec* ps = g_object_class_find_property(G_OBJECT_GET_CLASS(e), name);
  if (!ps) return std::string("no property ") + name;
  std::ostringstream what;
  what << name << "=";
  if (G_IS_PARAM_SPEC_ENUM(ps)) {
    GEnumClass* k = G_PARAM_SPEC_ENUM(ps)->enum_class;
    const gint v = k->values[rng() % k->n_values].value;
    g_object_set(e, name, v, nullptr);
    what << v;
  } else if (G_IS_PARAM_SPEC_FLAGS(ps)) {
    const guint v = guint(rng()) & G_PARAM_SPEC_FLAGS(ps)->flags_class->mask;
    g_object_set(e, name, v, nullptr);
    what << v;
  } else if (G_IS_PARAM_SPEC_UINT(ps)) {
    const GParamSpecUInt* u = G_PARAM_SPEC_UINT(ps);
    // Small values mostly (min-area, max-components and max-roi-metas matter there).
    const guint hi = std::min<guint>(u->maximum, std::max<guint>(u->minimum, 2000));
    const guint v = u->minimum + guint(rng() % (hi - u->minimum + 1));
    g_object_set(e, name, v, nullptr);
    what << v;
  } else if (G_IS_PARAM_SPEC_DOUBLE(ps)) {
    const gdouble v = double(rng() % 1001) / 1000.0;
    g_object_set(e, name, v, nullptr);
    what << v;
  } else if (G_IS_PARAM_SPEC_BOOLEAN(ps)) {
    const gboolean v = rng() & 1;
    g_object_set(e, name, v, nullptr);
    what << v;
  }
  return what.str();
}

TEST(Concurrency, RandomPropertyChangesWhilePlaying) {
  SKIP_UNLESS_BACKEND_RUNS();
  Watchdog watchdog;
  const long changes = property_changes();
  Stream s;
  s.format = PixelFormat::I420;
  s.width = 256;
  s.height = 192;
  s.frames = 12;
  s.seed = 7;
  s.properties = "threshold=128 threshold-mode=above connectivity=8 min-area=1 "
                 "max-components=1024 overlay=none overlay-alpha=0.5 roi-meta=true "
                 "max-roi-metas=64 post-messages=false tracking=true track-max-lost=15";
  const auto frames = frames_of(s);
  const auto serial = run_alone(s, frames, "base settings");
  if (HasFailure()) return;

  Pipeline p(s);
  ASSERT_TRUE(p.ok());
  ASSERT_TRUE(p.play());
  GstElement* ccl = p.ccl();
  // The algorithm of the base settings: the element's default, whatever it is.
  gint base_algorithm = 0;
  g_object_get(ccl, "algorithm", &base_algorithm, nullptr);

  std::atomic<bool> changing{true};
  std::atomic<long> done_changes{0};
  std::atomic<long> pushed{0};
  std::string last_change;
  // The changer: `changes` random settings, each after a random pause of up to
  // 1 ms, while the feeder below keeps frames flowing.
  std::thread changer([&] {
    std::mt19937 rng(2024);
    for (long c = 0; c < changes; ++c) {
      last_change = random_change(ccl, rng);
      ++done_changes;
      std::this_thread::sleep_for(std::chrono::microseconds(rng() % 1000));
    }
    changing = false;
  });

  // The consumer: every frame must carry one valid meta; frames from `marker` on
  // (pushed after the settings were set back and a new stream started) are kept.
  const long marker = 1L << 30;  // frame index; its PTS (a year) fits
  std::vector<std::string> after;
  std::atomic<long> checked{0};
  std::string first_invalid;
  std::set<std::string> settings_seen;  // as the metas tell them, during the changes
  std::thread consumer([&] {
    while (GstBuffer* buf = p.pull()) {
      const std::string why = invalid_meta(buf, s.width, s.height);
      if (!why.empty() && first_invalid.empty())
        first_invalid = "frame " + std::to_string(checked.load()) + ": " + why;
      const long index = long(gst_util_uint64_scale_round(GST_BUFFER_PTS(buf), 30, GST_SECOND));
      progress();
      if (index >= marker) {
        after.push_back(describe(buf));
      } else if (const GstCclMeta* m = gst_ccl_meta_get(buf)) {
        settings_seen.insert(std::to_string(m->threshold) + "/" + std::to_string(m->connectivity) +
                             "/" + std::to_string(m->tracking) + "/" +
                             std::to_string(int(m->algorithm)));
      }
      ++checked;
      gst_buffer_unref(buf);
    }
  });

  // The feeder (this thread): frames of the stream over and over until the changer
  // is through, at least the stream's length.
  for (long i = 0; changing || i < s.frames; ++i) {
    if (!p.push(frames[size_t(i % s.frames)], i)) {
      ADD_FAILURE() << "push of frame " << i << " failed";
      break;
    }
    ++pushed;
  }
  changer.join();
  std::printf("%ld property changes during %ld frames\n", done_changes.load(), pushed.load());

  // Back to the base settings, then a new stream (tracks start again at 1) of the
  // serial run's frames.
  gst_util_set_object_arg(G_OBJECT(ccl), "threshold", "128");
  gst_util_set_object_arg(G_OBJECT(ccl), "threshold-mode", "above");
  gst_util_set_object_arg(G_OBJECT(ccl), "connectivity", "8");
  g_object_set(ccl, "algorithm", base_algorithm, nullptr);
  gst_util_set_object_arg(G_OBJECT(ccl), "min-area", "1");
  gst_util_set_object_arg(G_OBJECT(ccl), "max-components", "1024");
  gst_util_set_object_arg(G_OBJECT(ccl), "overlay", "none");
  gst_util_set_object_arg(G_OBJECT(ccl), "overlay-alpha", "0.5");
  gst_util_set_object_arg(G_OBJECT(ccl), "roi-meta", "true");
  gst_util_set_object_arg(G_OBJECT(ccl), "max-roi-metas", "64");
  gst_util_set_object_arg(G_OBJECT(ccl), "post-messages", "false");
  gst_util_set_object_arg(G_OBJECT(ccl), "tracking", "true");
  gst_util_set_object_arg(G_OBJECT(ccl), "track-max-lost", "15");
  EXPECT_TRUE(p.send(gst_event_new_stream_start("concurrency-after-changes")))
      << "appsrc did not take the stream-start event";
  for (long i = 0; i < s.frames; ++i)
    if (!p.push(frames[size_t(i)], marker + i)) {
      ADD_FAILURE() << "push of frame " << i << " after the changes failed";
      break;
    }
  p.eos();
  consumer.join();
  EXPECT_TRUE(p.at_eos()) << "the stream did not reach the end";
  EXPECT_EQ(checked.load(), pushed.load() + s.frames) << "frames lost";
  EXPECT_EQ(first_invalid, "") << "after the change " << last_change;
  // The changes reached the frames: their metas tell of several settings.
  EXPECT_GT(settings_seen.size(), 5u) << "the property changes did not show in the metas";
  for (const std::string& e : p.errors()) ADD_FAILURE() << "bus error " << e;
  p.stop();
  expect_same(serial, after, "after the changes, base settings again");
}

// ---------------------------------------------------------------------------------
// 3. Many start/stop cycles of one pipeline.

TEST(Concurrency, StartStopCyclesKeepResultsAndMemory) {
  SKIP_UNLESS_BACKEND_RUNS();
  Watchdog watchdog;
  const long cycles = start_stop_cycles();
  Stream s;
  s.format = PixelFormat::NV12;
  s.width = 192;
  s.height = 144;
  s.frames = 3;
  s.seed = 11;
  s.properties = "connectivity=8 threshold-mode=otsu max-components=100 tracking=true";
  const auto frames = frames_of(s);
  const auto serial = run_alone(s, frames, "serial");
  if (HasFailure()) return;

  Pipeline p(s);
  ASSERT_TRUE(p.ok());
  // Memory after a warm-up of 10% of the cycles (at least 10) is the baseline; after
  // it, RSS may grow by max(8 MiB, 5%) and malloc's heap in use by max(4 MiB, 5%):
  // over 1000 cycles a leak of about 5 KiB a cycle exceeds the heap bound.
  const long warmup = std::max(10L, cycles / 10);
  const long leak = leak_bytes_per_cycle();
  uint64_t base_rss = 0, max_rss = 0, base_heap = 0, max_heap = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (long c = 0; c < cycles; ++c) {
    const std::string context = "cycle " + std::to_string(c);
    ASSERT_TRUE(p.play()) << context;
    const auto got = play_frames(p, frames, 1, context);
    ASSERT_TRUE(p.stop()) << context;
    expect_same(serial, got[0], context);
    if (HasFailure()) return;  // one report, not a thousand
    progress();
    if (leak > 0) std::memset(g_malloc(gsize(leak)), 1, size_t(leak));  // touched: resident
    const uint64_t rss = rss_bytes(), heap = heap_in_use();
    if (c + 1 == warmup) {
      base_rss = rss;
      base_heap = heap;
    }
    if (c + 1 > warmup) {
      max_rss = std::max(max_rss, rss);
      max_heap = std::max(max_heap, heap);
    }
  }
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%ld start/stop cycles of %d frames in %.1f s; after %ld cycles RSS %.1f MiB, "
              "heap %.1f MiB; at most %.1f MiB and %.1f MiB after\n",
              cycles, s.frames, secs, warmup, base_rss / 1048576.0, base_heap / 1048576.0,
              max_rss / 1048576.0, max_heap / 1048576.0);
  if (cycles > warmup) {
    const uint64_t rss_bound = std::max<uint64_t>(8u << 20, base_rss / 20);
    const uint64_t heap_bound = std::max<uint64_t>(4u << 20, base_heap / 20);
    const bool rss_grew = max_rss > base_rss + rss_bound;
    const bool heap_grew = base_heap > 0 && max_heap > base_heap + heap_bound;
    if (leak > 0) {  // the test of the test: the canary's leak must be caught
      EXPECT_TRUE(rss_grew && (heap_grew || base_heap == 0))
          << "a leak of " << leak << " bytes a cycle went unnoticed";
      return;
    }
    EXPECT_FALSE(rss_grew) << "RSS grew by " << (max_rss - base_rss) / 1048576.0
                           << " MiB over " << cycles - warmup << " cycles";
    EXPECT_FALSE(heap_grew) << "heap in use grew by " << (max_heap - base_heap) / 1048576.0
                            << " MiB over " << cycles - warmup << " cycles";
  }
}

// ---------------------------------------------------------------------------------
// 4. Two elements labeling the same frames on two branches of a tee.

TEST(Concurrency, TwoElementsOnTeeBranchesAgree) {
  SKIP_UNLESS_BACKEND_RUNS();
  Watchdog watchdog;
  Stream s;
  s.format = PixelFormat::RGBA;
  s.width = 320;
  s.height = 240;
  s.frames = 20;
  s.seed = 23;
  s.extra_stride = 16;
  // The overlay draws into the frame: each branch must draw into its own copy.
  s.properties = "connectivity=4 threshold=140 min-area=2 overlay=fill+boxes+trails";
  const auto frames = frames_of(s);
  const auto serial = run_alone(s, frames, "serial");
  if (HasFailure()) return;

  Pipeline p(s, 2);
  ASSERT_TRUE(p.ok());
  ASSERT_TRUE(p.play());
  std::vector<std::vector<uint64_t>> pixels;
  const auto got = play_frames(p, frames, 2, "tee", &pixels);
  p.stop();
  expect_same(serial, got[0], "branch 0");
  expect_same(serial, got[1], "branch 1");
  EXPECT_EQ(pixels[0], pixels[1]) << "the branches' overlays differ";
  // The overlay drew something: the output differs from the input frames.
  std::vector<uint64_t> input;
  for (const auto& f : frames) {
    GstBuffer* b = buffer_from_frame(f);
    GstMapInfo map;
    uint64_t h = 0;
    gst_buffer_map(b, &map, GST_MAP_READ);
    for (gsize k = 0; k < map.size; ++k) h = mix(h ^ map.data[k]);
    gst_buffer_unmap(b, &map);
    gst_buffer_unref(b);
    input.push_back(h);
  }
  EXPECT_NE(pixels[0], input) << "the overlay drew nothing";
}

}  // namespace
}  // namespace ccl::element_test

int main(int argc, char** argv) {
  gst_init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  std::string why;
  const bool cuda = ccl::element_test::cuda_usable(&why);
  std::printf("cudaccl concurrency tests: backend=%s; CUDA device %s%s\n",
              ccl::element_test::backend_under_test().c_str(), cuda ? "usable" : "not usable: ",
              cuda ? "" : why.c_str());
  const int rc = RUN_ALL_TESTS();
  gst_deinit();
  return rc;
}
