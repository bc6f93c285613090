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
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

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

#include "app_pipeline.h"
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
      if (pixels) (*pixels)[size_t(b)].push_back(checksum(buf));
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
    input.push_back(checksum(b));
    gst_buffer_unref(b);
  }
  EXPECT_NE(pixels[0], input) << "the overlay drew nothing";
}

}  // namespace
}  // namespace ccl::element_test
