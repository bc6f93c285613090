// The foreground stage on the GPU against ccl::ForegroundStage, frame by frame over
// sequences (issue 26): one engine and one CPU stage see the same frames, and every
// frame's mask (Engine::copy_mask), label image, count and reported table must be
// equal byte for byte. The model is stateful, so a difference in one frame's state
// that leaves its mask alone shows in a later frame's: sequences, not single frames,
// are the unit here. Each sequence gets its own engine (the process's shared one must
// not carry a model or a region into other tests), poisoned, and sequences run on
// several threads at once, since the CPU side sets the pace.
#include <algorithm>
#include <array>
#include <cctype>
#include <future>
#include <iterator>
#include <sstream>
#include <thread>

#include "ccl/foreground.h"
#include "foreground_fuzz.h"
#include "foreground_scenes.h"
#include "gpu_test_support.h"
#include "stage_jobs.h"  // DevicePlanes
#include "test_images.h"

#ifdef CCL_TEST_WITH_CUDART
#include <cuda_runtime.h>
#endif

namespace ccl::gpu_test {
namespace {

// ---- Sequences: what a test asks for, step by step.

struct Shot {
  enum Kind {
    Frame,       // label scene frame t in `format` on both sides and compare
    Refused,     // the same, but both sides must refuse it (ccl::Error)
    Reset,       // Engine::reset_foreground and ForegroundStage::reset
    SetRegion,   // blob_region(region_seed) of the scene's size on both
    ClearRegion,
  };
  Kind kind = Frame;
  int scene = 0;
  int t = 0;
  PixelFormat format = PixelFormat::Gray8;
  size_t padding = 0;
  Options options;
  uint64_t region_seed = 0;
};

struct Sequence {
  std::string name;
  std::vector<test::SceneSpec> scenes;
  std::vector<Shot> shots;
  int poison = 0xAB;
  /// Frames come from the test's own device planes, `buffers` sets of them in turn
  /// as a buffer pool hands them out, through enqueue/finish (label_host otherwise).
  bool device_buffers = false;
  int buffers = 3;
  cuda::Profiling profiling = cuda::Profiling::Off;
  bool graphs = true, chained = true;
  /// Replayed graphs the sequence must show at least; algorithms with host rounds
  /// never replay, and must show none.
  uint64_t min_replays = 0;

  int add_scene(const test::SceneSpec& spec) {
    scenes.push_back(spec);
    return int(scenes.size()) - 1;
  }
  /// `count` frames of scene `scene` from time `first`.
  Sequence& frames(int scene, int first, int count, PixelFormat format, size_t padding,
                   const Options& options, Shot::Kind kind = Shot::Frame) {
    for (int k = 0; k < count; ++k) {
      Shot s;
      s.kind = kind;
      s.scene = scene;
      s.t = first + k;
      s.format = format;
      s.padding = padding;
      s.options = options;
      shots.push_back(s);
    }
    return *this;
  }
  Sequence& reset() {
    Shot s;
    s.kind = Shot::Reset;
    shots.push_back(s);
    return *this;
  }
  Sequence& region(int scene, uint64_t seed) {
    Shot s;
    s.kind = Shot::SetRegion;
    s.scene = scene;
    s.region_seed = seed;
    shots.push_back(s);
    return *this;
  }
  Sequence& no_region() {
    Shot s;
    s.kind = Shot::ClearRegion;
    shots.push_back(s);
    return *this;
  }
};

std::string describe_fg(const Options& o) {
  std::ostringstream s;
  s << describe(o) << ", " << to_string(o.foreground);
  if (o.foreground == ForegroundModel::Background) {
    const BackgroundOptions& b = o.background;
    s << " history " << b.history << " rate " << b.learning_rate << " var "
      << b.variance_threshold << (b.detect_shadows ? " shadows" : " no-shadows");
  }
  if (o.open_radius || o.close_radius) s << ", open " << o.open_radius << " close " << o.close_radius;
  if (o.max_area) s << ", max-area " << o.max_area;
  return s.str();
}

#ifdef CCL_TEST_WITH_CUDART
class TestStream {
 public:
  TestStream() {
    if (cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking) != cudaSuccess)
      throw Error("cudaStreamCreateWithFlags");
  }
  ~TestStream() { cudaStreamDestroy(stream_); }
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};
#endif

/// The model's frame count after each frame as the documented rules give it: a new
/// size, a new format (even one of the same channels: BGRA after RGBA would swap two),
/// a reset and a threshold frame start it over. The CPU stage is checked against it, and a model's first frame must
/// have an empty mask on both sides.
struct ModelClock {
  int width = 0, height = 0;
  PixelFormat format = PixelFormat::Gray8;
  uint64_t frames = 0;

  void advance(const ImageView& v, const Options& o) {
    if (o.foreground != ForegroundModel::Background) {
      frames = 0;
      return;
    }
    if (v.width != width || v.height != height || v.format != format) frames = 0;
    width = v.width;
    height = v.height;
    format = v.format;
    ++frames;
  }
};

struct Outcome {
  std::string failure;  // empty: every frame matched
  int frames = 0;       // frames compared
  int fresh = 0;        // model frames that started a model (empty masks)
  uint64_t replays = 0;
};

Outcome run_sequence(const Sequence& seq) {
  Outcome out;
  std::string where = seq.name;
  try {
    cuda::Engine engine;
    cuda::testing::set_poison_byte(engine, seq.poison);
    cuda::Tuning tuning;
    tuning.graphs = seq.graphs;
    tuning.chained_launches = seq.chained;
    engine.set_tuning(tuning);
    engine.set_profiling(seq.profiling);
    ForegroundStage stage;
    std::vector<test::Scene> scenes;
    for (const test::SceneSpec& s : seq.scenes) scenes.emplace_back(s);
    cudaStream_t stream = nullptr;
#ifdef CCL_TEST_WITH_CUDART
    TestStream own_stream;
    stream = own_stream.get();
    DevicePlanes planes;
#endif
    ModelClock clock;
    const uint64_t replays_before = cuda::testing::graph_replays(engine);
    // Frames of algorithms with host rounds never replay; the others may.
    int host_round_frames = 0, graph_frames = 0;
    std::vector<uint8_t> gpu_mask;
    int frame_index = 0;
    for (size_t i = 0; i < seq.shots.size(); ++i) {
      const Shot& shot = seq.shots[i];
      where = seq.name + ", step " + std::to_string(i);
      switch (shot.kind) {
        case Shot::Reset:
          engine.reset_foreground();
          stage.reset();
          clock.frames = 0;
          continue;
        case Shot::SetRegion: {
          const test::SceneSpec& s = seq.scenes[size_t(shot.scene)];
          const size_t stride = size_t(s.width) + shot.region_seed % 5;
          const std::vector<uint8_t> region =
              test::blob_region(s.width, s.height, shot.region_seed, stride);
          engine.set_region(region.data(), s.width, s.height, stride);
          stage.set_region(region.data(), s.width, s.height, stride);
          continue;
        }
        case Shot::ClearRegion:
          engine.set_region(nullptr, 0, 0);
          stage.set_region(nullptr, 0, 0);
          continue;
        case Shot::Frame:
        case Shot::Refused:
          break;
      }
      const Options& o = shot.options;
      ++(cuda::waits_on_host(o.algorithm) ? host_round_frames : graph_frames);
      const test::Frame frame =
          test::to_frame(scenes[size_t(shot.scene)].frame(shot.t), shot.format, shot.padding);
      where += " (frame t=" + std::to_string(shot.t) + ", " + to_string(shot.format) + " " +
               std::to_string(frame.view.width) + "x" + std::to_string(frame.view.height) +
               " stride " + std::to_string(frame.view.strides[0]) + ", " + describe_fg(o) + ")";
      ImageView device = frame.view;
#ifdef CCL_TEST_WITH_CUDART
      if (seq.device_buffers) device = planes.upload(frame.view, frame_index % seq.buffers, stream);
#endif
      ++frame_index;
      auto gpu = [&](Result& got) {
        if (device.space == MemorySpace::Device) {
          engine.enqueue(device, o, stream);
          engine.finish(got, o.write_labels);
        } else {
          engine.label_host(frame.view, o, got, stream);
        }
      };
      if (shot.kind == Shot::Refused) {
        Result want, got;
        bool cpu_refused = false, gpu_refused = false;
        try {
          reference_label(frame.view, o, stage, want);
        } catch (const Error&) {
          cpu_refused = true;
        }
        try {
          gpu(got);
        } catch (const Error&) {
          gpu_refused = true;
        }
        if (!cpu_refused || !gpu_refused) {
          out.failure = where + ": refused by " + (cpu_refused ? "the CPU only" : gpu_refused ? "the GPU only" : "neither side");
          return out;
        }
        continue;
      }
      Result want, got;
      BinaryImage mask;
      reference_label(frame.view, o, stage, want, &mask);
      clock.advance(frame.view, o);
      if (o.foreground == ForegroundModel::Background) {
        if (stage.frames() != clock.frames) {
          out.failure = where + ": the CPU model is at frame " + std::to_string(stage.frames()) +
                        " instead of " + std::to_string(clock.frames);
          return out;
        }
        if (clock.frames == 1) {
          ++out.fresh;
          if (std::any_of(mask.pixels.begin(), mask.pixels.end(), [](uint8_t v) { return v != 0; })) {
            out.failure = where + ": a model's first frame has foreground on the CPU";
            return out;
          }
        }
      }
      gpu(got);
      engine.copy_mask(gpu_mask);
      const bool masked = o.mask_stage() || stage.has_region();
      if ((engine.device_mask() != nullptr) != masked) {
        out.failure = where + ": device_mask() is " +
                      (masked ? "null for a frame with a mask stage" : "set for a fused threshold");
        return out;
      }
      std::string diff = test::mask_difference(gpu_mask, mask);
      if (diff.empty()) diff = difference(got, want);
      if (diff.empty())
        for (const Component& c : got.components)
          if (!o.area_passes(c.area)) diff = "reported component " + std::to_string(c.label) +
                                             " of area " + std::to_string(c.area) + " is outside the limits";
      if (!diff.empty()) {
        out.failure = where + ": " + diff;
        return out;
      }
      ++out.frames;
    }
    out.replays = cuda::testing::graph_replays(engine) - replays_before;
    where = seq.name;
    if (graph_frames == 0 && out.replays > 0)
      out.failure = seq.name + ": " + std::to_string(out.replays) +
                    " graph replays with an algorithm that waits on the host";
    else if (host_round_frames == 0 && out.replays < seq.min_replays)
      out.failure = seq.name + ": " + std::to_string(out.replays) + " graph replays, expected at least " +
                    std::to_string(seq.min_replays);
  } catch (const std::exception& e) {
    out.failure = where + ": " + e.what();
  }
  return out;
}

/// Runs the sequences (on several threads unless `parallel` is false) and reports each
/// failure under the sequence's name.
std::vector<Outcome> run_all(const std::vector<Sequence>& seqs, bool parallel = true) {
  std::vector<Outcome> outcomes(seqs.size());
  const size_t workers = parallel ? std::clamp<size_t>(std::thread::hardware_concurrency(), 1, 8) : 1;
  for (size_t first = 0; first < seqs.size(); first += workers) {
    std::vector<std::future<Outcome>> batch;
    const size_t last = std::min(seqs.size(), first + workers);
    for (size_t i = first; i < last; ++i)
      batch.push_back(std::async(std::launch::async, run_sequence, std::cref(seqs[i])));
    for (size_t i = first; i < last; ++i) outcomes[i] = batch[i - first].get();
  }
  for (const Outcome& o : outcomes) EXPECT_EQ(o.failure, "");
  return outcomes;
}

// ---- Building blocks.

/// With a rate of 0.1 or more the mode a new pixel value starts falls within the
/// background's share of the weight, and the shadow test (as MOG2's) takes the pixel
/// for a shadow of that mode: nothing is foreground. Sequences with short histories or
/// high rates turn shadows off for some of their frames, so that their masks hold
/// objects to label.
Options model_options(Algorithm algorithm, int connectivity) {
  Options o;
  o.algorithm = algorithm;
  o.connectivity = connectivity;
  o.foreground = ForegroundModel::Background;
  return o;
}

Algorithm algorithm_at(size_t i) {
  const std::vector<Algorithm> all = all_algorithms();
  return all[i % all.size()];
}

/// Row padding that differs from case to case: none, whole pixels, odd bytes.
size_t padding_for(size_t i, PixelFormat format) {
  switch (i % 3) {
    case 0: return 0;
    case 1: return size_t(luma_bytes_per_pixel(format)) * (3 + i % 7);
    default: return 1 + 2 * (i % 11);
  }
}

test::SceneSpec scene(int width, int height, uint64_t seed, int objects = 5, int noise = 3) {
  test::SceneSpec s;
  s.width = width;
  s.height = height;
  s.seed = seed;
  s.objects = objects;
  s.noise = noise;
  return s;
}

const std::pair<int, int> kOddSizes[] = {{317, 203}, {161, 97}, {640, 361}, {255, 129},
                                         {129, 255}, {403, 77}, {97, 301}, {1001, 63}};

std::string format_name(const testing::TestParamInfo<PixelFormat>& info) {
  std::string n = to_string(info.param);
  n.erase(std::remove_if(n.begin(), n.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); }), n.end());
  return n;
}

// ---- Every format: the model's settings, one sequence each.

class ForegroundModelSequences : public testing::TestWithParam<PixelFormat> {};

TEST_P(ForegroundModelSequences, MatchTheCpuFrameByFrame) {
  CCL_REQUIRE_DEVICE();
  const PixelFormat format = GetParam();
  const size_t fi = size_t(std::find(test::all_formats().begin(), test::all_formats().end(), format) -
                           test::all_formats().begin());
  std::vector<Sequence> seqs;
  size_t v = 0;
  auto next = [&](const std::string& what, int objects = 5, int noise = 3) -> Sequence& {
    const size_t k = fi + v;
    Sequence s;
    s.name = std::string(to_string(format)) + " " + what;
    const auto [w, h] = kOddSizes[k % std::size(kOddSizes)];
    s.add_scene(scene(w, h, 1000 + 37 * k, objects, noise));
    s.poison = std::array<int, 4>{0xAB, 0x01, 0x00, 0xFF}[k % 4];
    seqs.push_back(std::move(s));
    ++v;
    return seqs.back();
  };
  // The k-th sequence's algorithm and connectivity rotate with the format, so that the
  // suite crosses every algorithm with both connectivities and many settings.
  auto options = [&]() {
    const size_t k = fi + v;
    return model_options(algorithm_at(k), k % 2 ? 4 : 8);
  };
  auto pad = [&]() { return padding_for(fi + v, format); };

  {  // MOG2's defaults: history 500, the rate 1/(2n) still falling
    const Options o = options();
    const size_t p = pad();
    next("default model").frames(0, 0, 14, format, p, o);
  }
  {  // frozen after the first frame
    Options o = options();
    o.background.learning_rate = 0;
    const size_t p = pad();
    next("frozen").frames(0, 0, 10, format, p, o);
  }
  {  // fixed rates, changed midway (the model goes on)
    Options o = options();
    const size_t p = pad();
    Sequence& s = next("fixed rates");
    o.background.learning_rate = 0.05;
    s.frames(0, 0, 6, format, p, o);
    o.background.learning_rate = 0.5;
    o.background.detect_shadows = false;
    s.frames(0, 6, 5, format, p, o);
    o.background.learning_rate = 1.0;
    s.frames(0, 11, 3, format, p, o);
  }
  {  // a short history, many objects and strong noise: modes replaced and pruned
    Options o = options();
    o.background.history = 5;
    o.background.detect_shadows = false;
    const size_t p = pad();
    Sequence& s = next("history 5", 14, 10);
    s.frames(0, 0, 14, format, p, o);
    o.background.detect_shadows = true;
    s.frames(0, 14, 6, format, p, o);
  }
  {  // shadows off, then on
    Options o = options();
    o.background.history = 20;
    o.background.detect_shadows = false;
    const size_t p = pad();
    Sequence& s = next("shadows off/on");
    s.frames(0, 0, 6, format, p, o);
    o.background.detect_shadows = true;
    s.frames(0, 6, 4, format, p, o);
  }
  {  // variance thresholds from 1 to 255
    Options o = options();
    o.background.history = 10;
    o.background.detect_shadows = fi % 2 == 0;
    const size_t p = pad();
    Sequence& s = next("variance thresholds", 6, 6);
    int t = 0;
    for (double var : {1.0, 4.0, 16.0, 50.0, 255.0}) {
      o.background.variance_threshold = var;
      s.frames(0, t, 3, format, p, o);
      t += 3;
    }
  }
  {  // cleanup radii 0..3, 12 and the largest, one setting a frame
    Options o = options();
    o.background.history = 8;
    o.background.detect_shadows = false;
    const size_t p = pad();
    Sequence& s = next("cleanup radii", 8);
    const std::pair<int, int> radii[] = {{0, 0}, {1, 0}, {0, 1}, {1, 1}, {2, 3}, {3, 2},
                                         {3, 3}, {0, 12}, {12, 0}, {2, kMaxCleanupRadius}};
    int t = 0;
    for (auto [open, close] : radii) {
      o.open_radius = open;
      o.close_radius = close;
      s.frames(0, t++, 1, format, p, o);
    }
  }
  {  // features only, area limits, a region
    Options o = options();
    o.background.history = 6;
    o.background.detect_shadows = false;
    o.close_radius = 1;
    o.write_labels = false;
    o.min_area = 20;
    o.max_area = 5000;
    o.max_components = 3;
    const size_t p = pad();
    Sequence& s = next("features only, limits, region");
    s.region(0, 77 + fi).frames(0, 0, 8, format, p, o);
  }
  {  // tiny frames: one pixel, one row, one column
    const size_t p = pad();
    for (auto [w, h] : {std::pair{1, 1}, std::pair{1, 37}, std::pair{53, 1}, std::pair{3, 2}}) {
      Options o = options();
      o.background.history = 3;
      o.background.detect_shadows = false;
      o.close_radius = w * h % 3;
      Sequence& s = next("tiny " + std::to_string(w) + "x" + std::to_string(h));
      s.scenes[0] = scene(w, h, 31 * w + h, 2, 20);
      s.frames(0, 0, 7, format, p, o);
    }
  }
  run_all(seqs);
}

INSTANTIATE_TEST_SUITE_P(Formats, ForegroundModelSequences, testing::ValuesIn(test::all_formats()),
                         format_name);

// ---- Every algorithm, both connectivities, through a sequence with every event.

using Variant = std::tuple<Algorithm, int>;

class ForegroundAlgorithms : public testing::TestWithParam<Variant> {};

TEST_P(ForegroundAlgorithms, ModelCleanupRegionResetOnDeviceBuffers) {
  CCL_REQUIRE_DEVICE();
  const auto [algorithm, conn] = GetParam();
  const size_t k = size_t(algorithm) * 2 + (conn == 4);
  const PixelFormat format = test::all_formats()[k % test::all_formats().size()];
  Sequence s;
  s.name = test_name(algorithm) + " " + std::to_string(conn) + "-way " + to_string(format);
  s.add_scene(scene(401, 233, 500 + k, 7, 4));
  s.device_buffers = true;
  s.poison = 0x01;  // a stale mask byte would read as foreground
  Options o = model_options(algorithm, conn);
  o.background.history = 40;
  o.background.detect_shadows = false;  // shadows would hide the first frames after each start
  o.open_radius = 1;
  o.close_radius = 2;
  const size_t p = padding_for(k, format);
  s.frames(0, 0, 3, format, p, o).region(0, 900 + k).frames(0, 3, 3, format, p, o);
  s.reset().frames(0, 6, 3, format, p, o).no_region().frames(0, 9, 3, format, p, o);
  run_all({s});
}

std::string variant_name(const testing::TestParamInfo<Variant>& info) {
  const auto [algorithm, conn] = info.param;
  return test_name(algorithm) + "_" + std::to_string(conn);
}

INSTANTIATE_TEST_SUITE_P(Gpu, ForegroundAlgorithms,
                         testing::Combine(testing::ValuesIn(all_algorithms()), testing::Values(4, 8)),
                         variant_name);

// ---- The threshold model with cleanup, and the fused threshold in between.

TEST(ForegroundGpu, ThresholdWithCleanupInEveryFormatAndMode) {
  CCL_REQUIRE_DEVICE();
  std::vector<Sequence> seqs;
  size_t k = 0;
  for (PixelFormat format : test::all_formats())
    for (ThresholdMode mode : {ThresholdMode::Above, ThresholdMode::Below, ThresholdMode::Otsu}) {
      Sequence s;
      s.name = std::string("threshold ") + to_string(format) + " " + to_string(mode);
      const auto [w, h] = kOddSizes[k % std::size(kOddSizes)];
      s.add_scene(scene(w, h, 3000 + k, 6, 5));
      s.poison = k % 2 ? 0x01 : 0xAB;
      Options o = make_options(algorithm_at(k), k % 2 ? 8 : 4, mode, 90 + int(k * 7 % 80));
      const size_t p = padding_for(k, format);
      const std::pair<int, int> radii[] = {{1, 0}, {0, 2}, {3, 1}, {0, 0}, {2, 12}};
      int t = 0;
      for (auto [open, close] : radii) {
        o.open_radius = open;
        o.close_radius = close;
        s.frames(0, t++, 1, format, p, o);
      }
      seqs.push_back(std::move(s));
      ++k;
    }
  run_all(seqs);
}

// ---- The region: set, cleared, replaced, with and without cleanup, forcing a mask
// stage on a plain threshold.

TEST(ForegroundGpu, RegionSetClearedAndReplaced) {
  CCL_REQUIRE_DEVICE();
  std::vector<Sequence> seqs;
  const PixelFormat formats[] = {PixelFormat::NV12, PixelFormat::BGRA, PixelFormat::Gray16LE,
                                 PixelFormat::I420};
  for (size_t k = 0; k < std::size(formats); ++k) {
    const PixelFormat f = formats[k];
    Sequence s;
    s.name = std::string("region ") + to_string(f);
    s.add_scene(scene(333 + int(k), 211, 4000 + k, 8, 3));
    Options model = model_options(algorithm_at(k + 1), k % 2 ? 4 : 8);
    model.background.history = 12;
    model.close_radius = int(k % 3);
    Options threshold = make_options(algorithm_at(k + 2), 8, k % 2 ? ThresholdMode::Otsu : ThresholdMode::Below, 120);
    const size_t p = padding_for(k, f);
    s.region(0, 11 + k).frames(0, 0, 4, f, p, model).no_region().frames(0, 4, 3, f, p, model);
    s.region(0, 22 + k).frames(0, 7, 3, f, p, model).region(0, 33 + k).frames(0, 10, 3, f, p, model);
    // A threshold frame with a region: written as a mask of its own, which restarts the model.
    s.frames(0, 13, 2, f, p, threshold).no_region().frames(0, 15, 1, f, p, threshold);
    s.region(0, 44 + k).frames(0, 16, 4, f, p, model);
    seqs.push_back(std::move(s));
  }
  run_all(seqs);
}

// ---- What restarts the model: a reset, a threshold frame, a new size, a new format;
// what does not: new settings, a new row padding.

TEST(ForegroundGpu, ResetsAndThresholdFramesRestartTheModel) {
  CCL_REQUIRE_DEVICE();
  std::vector<Sequence> seqs;
  const PixelFormat formats[] = {PixelFormat::Gray8, PixelFormat::NV12, PixelFormat::RGBx};
  for (size_t k = 0; k < std::size(formats); ++k) {
    const PixelFormat f = formats[k];
    Sequence s;
    s.name = std::string("resets ") + to_string(f);
    s.add_scene(scene(287, 163, 5000 + k, 6, 4));
    Options model = model_options(algorithm_at(k), 8);
    model.background.history = 30;
    Options otsu = make_options(algorithm_at(k + 3), 4, ThresholdMode::Otsu);
    Options fixed = make_options(algorithm_at(k + 4), 8, ThresholdMode::Above, 100);
    fixed.close_radius = 1;
    const size_t p = padding_for(k + 1, f);
    s.frames(0, 0, 4, f, p, model).reset().frames(0, 4, 3, f, p, model);
    s.reset().reset().frames(0, 7, 2, f, p, model);                 // twice in a row
    s.frames(0, 9, 1, f, p, otsu).frames(0, 10, 3, f, p, model);     // fused threshold
    s.frames(0, 13, 1, f, p, fixed).frames(0, 14, 3, f, p, model);   // threshold + cleanup
    seqs.push_back(std::move(s));
  }
  for (const Outcome& r : run_all(seqs)) EXPECT_EQ(r.fresh, 5) << "model starts seen";
}

TEST(ForegroundGpu, SizeAndFormatChangesRestartTheModelWhereTheyMust) {
  CCL_REQUIRE_DEVICE();
  Sequence s;
  s.name = "size and format changes";
  const int a = s.add_scene(scene(321, 187, 6001, 6, 3));
  const int b = s.add_scene(scene(160, 90, 6002, 3, 3));
  const int c = s.add_scene(scene(322, 187, 6003, 6, 3));  // one column more
  Options o = model_options(Algorithm::HA, 8);
  o.background.history = 16;
  o.close_radius = 1;
  s.frames(a, 0, 4, PixelFormat::Gray8, 0, o);
  s.frames(b, 0, 3, PixelFormat::Gray8, 0, o);    // smaller: restarts
  s.frames(a, 4, 3, PixelFormat::Gray8, 5, o);    // back: restarts
  s.frames(a, 7, 2, PixelFormat::Gray8, 0, o);    // padding alone: goes on
  s.frames(c, 0, 2, PixelFormat::Gray8, 0, o);    // one column more: restarts
  s.frames(c, 2, 2, PixelFormat::Gray16LE, 2, o); // another format, one channel still: restarts
  s.frames(c, 4, 3, PixelFormat::NV12, 0, o);     // three channels: restarts
  s.frames(c, 7, 2, PixelFormat::I420, 3, o);     // the same channels, other planes: restarts
  s.frames(c, 9, 3, PixelFormat::RGBA, 0, o);     // no chroma: restarts
  s.frames(c, 12, 2, PixelFormat::BGRx, 4, o);    // R and B swapped: restarts
  s.frames(c, 14, 2, PixelFormat::BGRx, 0, o);    // padding alone: goes on
  s.frames(a, 9, 3, PixelFormat::BGRx, 0, o);     // another size: restarts
  const std::vector<Outcome> r = run_all({s});
  EXPECT_EQ(r[0].fresh, 10) << "model starts seen";
}

// A frame both sides refuse (a region of another size) must leave the model as it
// was: the frames after it still match, and the model goes on.
TEST(ForegroundGpu, RefusedFramesLeaveTheModelAsItWas) {
  CCL_REQUIRE_DEVICE();
  std::vector<Sequence> seqs;
  for (int variant = 0; variant < 2; ++variant) {
    Sequence s;
    s.name = variant ? "refused frame of another size" : "refused frame of the model's size";
    const int a = s.add_scene(scene(300, 200, 7001, 6, 3));
    const int b = s.add_scene(scene(150, 100, 7002, 3, 3));
    Options o = model_options(Algorithm::HA, 8);
    o.background.history = 40;
    s.frames(a, 0, 4, PixelFormat::NV12, 0, o);
    if (variant == 0) {
      s.region(b, 5).frames(a, 4, 1, PixelFormat::NV12, 0, o, Shot::Refused);
    } else {
      s.region(a, 5).frames(b, 0, 1, PixelFormat::NV12, 0, o, Shot::Refused);
    }
    s.no_region().frames(a, 5, 5, PixelFormat::NV12, 0, o);
    seqs.push_back(std::move(s));
  }
  const std::vector<Outcome> r = run_all(seqs);
  for (const Outcome& o : r) EXPECT_EQ(o.fresh, 1);
}

TEST(ForegroundGpu, RegionOfAnotherSizeIsRefusedByBoth) {
  CCL_REQUIRE_DEVICE();
  Sequence s;
  s.name = "region of another size";
  const int a = s.add_scene(scene(200, 120, 7101, 4, 3));
  const int b = s.add_scene(scene(201, 120, 7102, 4, 3));
  Options threshold = make_options(Algorithm::HA, 8, ThresholdMode::Above, 128);
  s.region(b, 9).frames(a, 0, 1, PixelFormat::Gray8, 0, threshold, Shot::Refused);
  s.no_region().frames(a, 1, 2, PixelFormat::Gray8, 0, threshold);
  run_all({s});
}

// ---- Reported components: min_area, max_area and max_components on model masks, in
// label order and by size (the sort after a second wait included: objects of more
// than kSizeOrderWithoutWait pixels).

TEST(ForegroundGpu, AreaLimitsOnModelMasks) {
  CCL_REQUIRE_DEVICE();
  struct Limits {
    uint64_t min_area, max_area;
    uint32_t max_components;
  };
  const Limits limits[] = {{0, 0, UINT32_MAX}, {1, 0, UINT32_MAX},  {20, 0, UINT32_MAX},
                           {0, 50, UINT32_MAX}, {10, 2000, UINT32_MAX}, {0, 0, 3},
                           {5, 3000, 2},       {0, 100000, 1},       {0, 1, UINT32_MAX},
                           {3000, 2000, 5},    {0, 0, 0},            {2, 2048, 4},
                           {0, 2047, 7},       {2049, 0, 2}};
  std::vector<Sequence> seqs;
  for (int conn : {4, 8})
    for (PixelFormat f : {PixelFormat::RGBA, PixelFormat::Gray8}) {
      Sequence s;
      s.name = std::string("area limits ") + to_string(f) + " " + std::to_string(conn) + "-way";
      s.add_scene(scene(640, 360, 8000 + conn, 30, 6));
      Options o = model_options(algorithm_at(size_t(conn) + (f == PixelFormat::RGBA)), conn);
      o.background.history = 5;
      o.background.detect_shadows = false;
      o.close_radius = 1;
      s.frames(0, 0, 3, f, 0, o);
      int t = 3;
      for (const Limits& l : limits) {
        o.min_area = l.min_area;
        o.max_area = l.max_area;
        o.max_components = l.max_components;
        s.frames(0, t++, 1, f, 0, o);
      }
      seqs.push_back(std::move(s));
    }
  run_all(seqs);
}

// max_area alone, on a fused threshold (no mask stage): the device's selection equals
// select_reported over the reference's whole table.
TEST(ForegroundGpu, MaxAreaAloneMatchesSelectReported) {
  CCL_REQUIRE_DEVICE();
  cuda::Engine own;
  cuda::testing::set_poison_byte(own, 0x7E);
  const test::Scene scn(scene(700, 411, 8100, 25, 2));
  size_t k = 0;
  for (PixelFormat format : {PixelFormat::Gray8, PixelFormat::RGBx, PixelFormat::I420})
    for (int conn : {4, 8}) {
      const test::Frame frame = test::to_frame(scn.frame(int(k)), format, padding_for(k, format));
      Options all = make_options(algorithm_at(k), conn, k % 2 ? ThresholdMode::Otsu : ThresholdMode::Above, 110);
      ++k;
      ASSERT_FALSE(all.mask_stage());
      const Result whole = reference(frame.view, all);
      std::vector<uint64_t> areas;
      for (const Component& c : whole.components) areas.push_back(c.area);
      std::sort(areas.begin(), areas.end());
      ASSERT_FALSE(areas.empty());
      const uint64_t largest = areas.back(), median = areas[areas.size() / 2];
      const std::pair<uint64_t, uint32_t> others[] = {{0, UINT32_MAX}, {2, UINT32_MAX}, {median, 5}, {0, 1}};
      for (uint64_t max_area : {uint64_t(1), uint64_t(2), median, largest - 1, largest, largest + 1,
                                uint64_t(2047), uint64_t(2048), uint64_t(1) << 40})
        for (auto [min_area, max_components] : others) {
          Options o = all;
          o.max_area = max_area;
          o.min_area = min_area;
          o.max_components = max_components;
          Result want = whole;
          select_reported(want.components, o);
          for (const Component& c : want.components) ASSERT_LE(c.area, max_area);
          Result got;
          own.label_host(frame.view, o, got);
          EXPECT_EQ(difference(got, want), "")
              << to_string(format) << " " << describe_fg(o) << " min-area " << min_area;
          // The plain reference applies the same rule.
          EXPECT_EQ(difference(reference(frame.view, o), want), "") << describe_fg(o);
        }
    }
}

// ---- Graph replays: the model's parameters change every frame until the rate
// settles, so early frames must not replay a graph of other parameters, and later
// ones must replay and still follow the frames.

TEST(ForegroundGpu, GraphReplaysFollowTheModel) {
  CCL_REQUIRE_DEVICE();
  std::vector<Sequence> seqs;
  size_t k = 0;
  for (Algorithm algorithm : all_algorithms())
    for (bool device : {false, true}) {
      const PixelFormat f = test::all_formats()[(k * 3) % test::all_formats().size()];
      Sequence s;
      s.name = std::string("replays ") + test_name(algorithm) + (device ? " device pool " : " label_host ") +
               to_string(f);
      s.add_scene(scene(257, 143, 9000 + k, 5, 3));
      s.device_buffers = device;
      s.buffers = 3;
      s.poison = 0xAB;
      Options o = model_options(algorithm, k % 2 ? 8 : 4);
      o.background.history = 8;  // the rate settles at the 4th frame
      o.background.detect_shadows = k % 3 == 0;
      o.close_radius = int(k % 2);
      const size_t p = padding_for(k, f);
      s.frames(0, 0, 12, f, p, o);
      o.background.learning_rate = 0.1;  // a fixed rate from here on
      s.frames(0, 12, 10, f, p, o);
      s.region(0, 50 + k).frames(0, 22, 8, f, p, o);  // new region: graphs dropped
#ifdef CCL_TEST_WITH_CUDART
      // label_host: one key a frame once the rate settles, replayed from its second
      // frame; a pool of 3: each buffer's key comes round every 3rd frame.
      s.min_replays = device ? 10 : 18;
#else
      s.min_replays = 18;  // device pools fall back to label_host
#endif
      seqs.push_back(std::move(s));
      ++k;
    }
  run_all(seqs);
}

// ---- Real images as the background.

TEST(ForegroundGpu, RealImageBackgrounds) {
  CCL_REQUIRE_DEVICE();
  std::string why;
  const std::vector<test::GrayImage> images = test::real_images(&why);
  if (images.empty()) GTEST_SKIP() << "no real images: " << why;
  // Eight spread over the library: fax pages (mostly saturated white) as well as
  // photographs and textures.
  std::vector<Sequence> seqs;
  const size_t count = std::min<size_t>(8, images.size());
  for (size_t k = 0; k < count; ++k) {
    const test::GrayImage& img = images[k * images.size() / count];
    const PixelFormat f = test::all_formats()[(k * 5 + 2) % test::all_formats().size()];
    Sequence s;
    s.name = "real " + img.name + " " + to_string(f);
    test::SceneSpec spec = scene(std::min(img.width, 641), std::min(img.height, 479), 9500 + k, 6, 3);
    spec.backdrop = &img;
    s.add_scene(spec);
    Options o = model_options(algorithm_at(k), k % 2 ? 4 : 8);
    o.close_radius = 2;
    o.background.detect_shadows = k % 3 != 0;
    s.frames(0, 0, 10, f, padding_for(k, f), o);
    seqs.push_back(std::move(s));
  }
  run_all(seqs);
}

// ---- Launch modes: events between the stages (no graph), chained launches off,
// graphs off.

TEST(ForegroundGpu, ProfilingAndLaunchModes) {
  CCL_REQUIRE_DEVICE();
  std::vector<Sequence> seqs;
  for (int mode = 0; mode < 4; ++mode) {
    Sequence s;
    s.name = "launch mode " + std::to_string(mode);
    s.add_scene(scene(500, 281, 9700 + mode, 6, 3));
    s.profiling = mode == 0 ? cuda::Profiling::Stages : mode == 1 ? cuda::Profiling::Labeling : cuda::Profiling::Off;
    s.chained = mode != 2;
    s.graphs = mode != 3;
    s.device_buffers = mode % 2 == 1;
    Options o = model_options(algorithm_at(size_t(mode)), 8);
    o.background.history = 4;
    o.background.detect_shadows = false;
    o.open_radius = 1;
    o.close_radius = 1;
    s.frames(0, 0, 8, PixelFormat::NV12, 0, o);
    seqs.push_back(std::move(s));
  }
  run_all(seqs);
}

// ---- gpu_fuzz's generator on fixed seeds, so that its kinds of case run in the suite
// too.

Sequence from_fuzz_case(const test::ForegroundFuzzCase& c) {
  Sequence s;
  s.name = to_line(c);
  s.add_scene(test::foreground_scene(c));
  const Options o = test::foreground_options(c);
  for (int t = 0; t < c.frames; ++t) {
    if (t == 0 && c.region) s.region(0, c.region);
    if (t == c.region_clear) s.no_region();
    if (t == c.reset) s.reset();
    s.frames(0, t, 1, c.format, size_t(c.padding), o);
  }
  return s;
}

TEST(ForegroundGpu, FuzzGeneratorOnFixedSeeds) {
  CCL_REQUIRE_DEVICE();
  std::vector<Sequence> seqs;
  for (uint64_t seed = 1; seed <= 40; ++seed)
    seqs.push_back(from_fuzz_case(test::random_foreground_case(seed * 7919, 640)));
  run_all(seqs);
}

// ---- Small cases for compute-sanitizer (scripts/gpu-check: memcheck and racecheck run
// ForegroundSanitized.*): every foreground kernel, a region, a reset, graph capture and
// replay, on frames small enough for the tools' slowdown.

TEST(ForegroundSanitized, ModelCleanupRegionAndReplays) {
  CCL_REQUIRE_DEVICE();
  std::vector<Sequence> seqs;
  {
    Sequence s;
    s.name = "sanitized NV12 model";
    s.add_scene(scene(67, 45, 11, 3, 3));
    Options o = model_options(Algorithm::HA, 8);
    o.background.history = 3;
    o.background.detect_shadows = false;
    o.open_radius = 1;
    o.close_radius = 2;
    s.frames(0, 0, 3, PixelFormat::NV12, 3, o).region(0, 4).frames(0, 3, 4, PixelFormat::NV12, 3, o);
    s.reset().frames(0, 7, 2, PixelFormat::NV12, 3, o);
    seqs.push_back(std::move(s));
  }
  {
    Sequence s;
    s.name = "sanitized RGBA device pool";
    s.add_scene(scene(45, 31, 12, 2, 2));
    s.device_buffers = true;
    s.buffers = 2;
    Options o = model_options(algorithm_at(1), 4);
    o.background.learning_rate = 0.2;
    o.background.detect_shadows = false;
    o.close_radius = 1;
    s.frames(0, 0, 8, PixelFormat::RGBA, 4, o);
    seqs.push_back(std::move(s));
  }
  run_all(seqs, false);
}

TEST(ForegroundSanitized, ThresholdCleanupThenModel) {
  CCL_REQUIRE_DEVICE();
  Sequence s;
  s.name = "sanitized GRAY16 threshold then model";
  s.add_scene(scene(33, 29, 13, 2, 4));
  Options otsu = make_options(Algorithm::HA, 8, ThresholdMode::Otsu);
  otsu.open_radius = 1;
  otsu.close_radius = 1;
  Options o = model_options(Algorithm::HA, 4);
  o.background.history = 2;
  o.background.detect_shadows = false;
  o.max_area = 40;
  s.frames(0, 0, 2, PixelFormat::Gray16LE, 2, otsu).frames(0, 2, 4, PixelFormat::Gray16LE, 2, o);
  s.frames(0, 6, 2, PixelFormat::I420, 1, o);
  run_all({s}, false);
}

}  // namespace
}  // namespace ccl::gpu_test
