// gpu_fuzz: random frames (tests/common/fuzz_frames.h) labeled by the CUDA engine, with
// its buffers poisoned before every frame, and by the CPU reference; count, level,
// full component table and label image must be equal byte for byte, and with tracking
// a ccl::Tracker fed each side's tables must give the same tracks.
//
// Mixed into the same stream of cases (--foreground-percent of them, 10 by default):
// foreground sequences (foreground_fuzz.h), 2 to 20 frames of a moving color scene
// through one engine's foreground stage and one ccl::ForegroundStage, with random
// model settings, cleanup radii, a region, a reset; every frame's mask, count, table
// and label image must be equal.
//
//   gpu_fuzz [--seed N] [--frames N] [--budget-seconds S] [--out DIR] [--max-side N]
//            [--checkers N] [--foreground-percent P]
//   gpu_fuzz --case "<line printed on a mismatch>"
//
// Cases are prepared (frames and references) on the cores the checkers leave, while
// --checkers threads (3 by default), each with its own engine and stream, label them
// on the GPU at once; the summary says how long checkers waited for cases and workers
// prepared them, so a run shows which side held it back. A mismatch prints its
// one-line reproducer and writes the frame's luma as PGM to --out. The last line reads
// "N frames, M mismatches, seed S" (N counts cases, a sequence as one; the line before
// it counts the foreground sequences among them); the exit status is 1 when M > 0, 0
// otherwise (and 77, "skipped", saying why, without a usable device).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "ccl/cuda_engine.h"
#include "ccl/cuda_engine_testing.h"
#include "ccl/reference.h"
#include "ccl/tracker.h"
#include "ccl/types.h"
#include "compare.h"
#include "ccl/foreground.h"
#include "foreground_fuzz.h"
#include "foreground_scenes.h"
#include "fuzz_frames.h"
#include "splitmix.h"

namespace {

using namespace ccl;
using Clock = std::chrono::steady_clock;

struct Args {
  uint64_t seed = 0;
  bool seed_given = false;
  uint64_t frames = 10000;
  double budget_seconds = 0;  // 0: none
  std::string out = "gpu_fuzz_out";
  std::string case_line;
  int max_side = 4096;
  size_t checkers = 3;  // threads labeling on the GPU, each with its own engine
  int foreground_percent = 10;  // of the cases, foreground sequences
};

// Foreground sequences stay at most this large a side: each prepared one holds up to
// 20 frames with their masks and labels while it waits for a checker.
constexpr int kForegroundMaxWidth = 1280, kForegroundMaxHeight = 720;

// A case with its frames and the reference's results, ready for the GPU: a labeling
// case (c), or a foreground sequence (fc, with the CPU stage's masks).
struct Prepared {
  bool foreground = false;
  test::FuzzCase c;
  test::ForegroundFuzzCase fc;
  std::vector<test::Frame> frames;
  std::vector<Result> want;
  std::vector<BinaryImage> masks;
  std::string error;  // the reference threw (a bug of the generator or reference)

  std::string line() const { return foreground ? test::to_line(fc) : test::to_line(c); }
};

// What happens before frame t of a foreground sequence, the same on both sides: the
// region is set before the first frame, maybe cleared later, the model maybe reset.
template <class SetRegion, class Reset>
void foreground_events(const test::ForegroundFuzzCase& c, int t, const std::vector<uint8_t>& region,
                       size_t stride, SetRegion&& set_region, Reset&& reset) {
  if (t == 0 && !region.empty()) set_region(region.data(), c.width, c.height, stride);
  if (t == c.region_clear) set_region(nullptr, 0, 0, 0);
  if (t == c.reset) reset();
}

/// The case's options plus blob analysis on a third of the cases and blob filters on
/// some, chosen from the seed so that a case's line replays them.
Options with_blobs(Options o, uint64_t seed) {
  const uint64_t pick = (seed * 0x9E3779B97F4A7C15ull) >> 32;
  if (pick % 3 == 0) o.properties = uint32_t(pick >> 3) % kAllProperties + 1;
  switch ((pick >> 8) % 8) {
    case 0: o.min_circularity = 0.05 * double((pick >> 12) % 20); break;
    case 1: o.max_eccentricity = 0.5 + 0.05 * double((pick >> 12) % 10); break;
    case 2: o.min_intensity = double((pick >> 12) % 256); break;
    case 3:
      o.max_circularity = 0.5 + 0.1 * double((pick >> 12) % 10);
      o.min_eccentricity = 0.02 * double((pick >> 16) % 50);
      break;
    default: break;
  }
  return o;
}

Prepared prepare_foreground(const test::ForegroundFuzzCase& c) {
  Prepared p;
  p.foreground = true;
  p.fc = c;
  try {
    const Options options = test::foreground_options(c);
    const test::Scene scene(test::foreground_scene(c));
    ForegroundStage stage;
    size_t stride = 0;
    const std::vector<uint8_t> region = test::foreground_region(c, &stride);
    for (int t = 0; t < c.frames; ++t) {
      foreground_events(
          c, t, region, stride,
          [&](const uint8_t* r, int w, int h, size_t s) { stage.set_region(r, w, h, s); },
          [&] { stage.reset(); });
      p.frames.push_back(test::foreground_frame(scene, c, t));
      p.want.emplace_back();
      p.masks.emplace_back();
      reference_label(p.frames.back().view, options, stage, p.want.back(), &p.masks.back());
    }
  } catch (const std::exception& e) {
    p.error = std::string("reference: ") + e.what();
  }
  return p;
}

Prepared prepare(const test::FuzzCase& c) {
  Prepared p;
  p.c = c;
  try {
    const Options options = with_blobs(test::fuzz_options(c), c.seed);
    for (int t = 0; t < test::fuzz_frame_count(c); ++t) {
      p.frames.push_back(test::fuzz_frame(c, t));
      p.want.emplace_back();
      reference_label(p.frames.back().view, options, p.want.back());
    }
  } catch (const std::exception& e) {
    p.error = std::string("reference: ") + e.what();
  }
  return p;
}

std::string track_difference(const std::vector<TrackInfo>& got,
                             const std::vector<TrackInfo>& want) {
  if (got.size() != want.size())
    return std::to_string(got.size()) + " tracks instead of " + std::to_string(want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    const TrackInfo &g = got[i], &w = want[i];
    if (g.id != w.id || g.parent_id != w.parent_id || g.age != w.age ||
        g.frames_unseen != w.frames_unseen || g.velocity_x != w.velocity_x ||
        g.velocity_y != w.velocity_y || g.predicted_x != w.predicted_x ||
        g.predicted_y != w.predicted_y || g.predicted_width != w.predicted_width ||
        g.predicted_height != w.predicted_height) {
      std::ostringstream s;
      s << "track of component " << i + 1 << ": id " << g.id << " parent " << g.parent_id
        << " age " << g.age << " unseen " << g.frames_unseen << " v " << g.velocity_x << ","
        << g.velocity_y << " predicted " << g.predicted_x << "," << g.predicted_y << " "
        << g.predicted_width << "x" << g.predicted_height << " instead of id " << w.id
        << " parent " << w.parent_id << " age " << w.age << " unseen " << w.frames_unseen
        << " v " << w.velocity_x << "," << w.velocity_y << " predicted " << w.predicted_x
        << "," << w.predicted_y << " " << w.predicted_width << "x" << w.predicted_height;
      return s.str();
    }
  }
  return "";
}

// The frame's luma as an 8-bit PGM (the generator's gray image: what every format encodes).
void write_pgm(const std::string& path, const test::GrayImage& g) {
  std::ofstream f(path, std::ios::binary);
  f << "P5\n" << g.width << " " << g.height << "\n255\n";
  f.write(reinterpret_cast<const char*>(g.pixels.data()), std::streamsize(g.pixels.size()));
}

// A foreground sequence's frame as the scene drew it (RGB), and the CPU's mask (0/255).
void write_foreground_files(const std::string& base, const Prepared& p, int frame) {
  const test::ColorImage img = test::Scene(test::foreground_scene(p.fc)).frame(frame);
  std::ofstream f(base + ".ppm", std::ios::binary);
  f << "P6\n" << img.width << " " << img.height << "\n255\n";
  f.write(reinterpret_cast<const char*>(img.rgb.data()), std::streamsize(img.rgb.size()));
  if (size_t(frame) < p.masks.size()) {
    test::GrayImage m;
    m.width = img.width;
    m.height = img.height;
    for (uint8_t v : p.masks[size_t(frame)].pixels) m.pixels.push_back(v ? 255 : 0);
    write_pgm(base + "-cpu-mask.pgm", m);
  }
}

// Runs a prepared foreground sequence through `engine` (shared with the other cases:
// its model starts over and its region is cleared again whatever happens).
std::string check_foreground(cuda::Engine& engine, const Prepared& p, int* frame) {
  struct ClearRegion {
    cuda::Engine& e;
    ~ClearRegion() {
      try {
        e.set_region(nullptr, 0, 0);
      } catch (...) {
      }
    }
  } clear_region{engine};
  const test::ForegroundFuzzCase& c = p.fc;
  const Options options = test::foreground_options(c);
  size_t stride = 0;
  const std::vector<uint8_t> region = test::foreground_region(c, &stride);
  std::vector<uint8_t> mask;
  try {
    engine.set_region(nullptr, 0, 0);
    engine.reset_foreground();
    for (size_t t = 0; t < p.frames.size(); ++t) {
      *frame = int(t);
      foreground_events(
          c, int(t), region, stride,
          [&](const uint8_t* r, int w, int h, size_t s) { engine.set_region(r, w, h, s); },
          [&] { engine.reset_foreground(); });
      Result got;
      engine.label_host(p.frames[t].view, options, got);
      engine.copy_mask(mask);
      std::string diff = test::mask_difference(mask, p.masks[t]);
      if (diff.empty()) diff = test::difference(got, p.want[t]);
      if (!diff.empty()) return diff;
    }
  } catch (const std::exception& e) {
    return std::string("engine: ") + e.what();
  }
  return "";
}

// Labels the prepared case on the GPU; empty when everything matches, otherwise what
// differs (and *frame, which frame of a sequence).
std::string check(cuda::Engine& engine, const Prepared& p, int* frame) {
  *frame = 0;
  if (!p.error.empty()) return p.error;
  if (p.foreground) return check_foreground(engine, p, frame);
  const Options options = with_blobs(test::fuzz_options(p.c), p.c.seed);
  Tracker on_gpu, on_reference;
  std::vector<TrackInfo> gpu_tracks, ref_tracks;
  for (size_t t = 0; t < p.frames.size(); ++t) {
    *frame = int(t);
    Result got;
    try {
      engine.label_host(p.frames[t].view, options, got);
    } catch (const std::exception& e) {
      return std::string("engine: ") + e.what();
    }
    const std::string diff = test::difference(got, p.want[t]);
    if (!diff.empty()) return diff;
    if (p.c.frames > 0) {
      on_gpu.update(p.c.width, p.c.height, got.components, gpu_tracks);
      on_reference.update(p.c.width, p.c.height, p.want[t].components, ref_tracks);
      const std::string tracks = track_difference(gpu_tracks, ref_tracks);
      if (!tracks.empty()) return tracks;
    }
  }
  return "";
}

// The engine's buffers only grow. Labeling the worst case first (the largest frame as a
// one-pixel checkerboard, the most components 4-connected, with every algorithm, both
// connectivities and Otsu's level) makes this process's device memory flat from the
// start, so that a soak sampling the whole device beside the fuzz sees no growth of it.
void grow_to_largest(cuda::Engine& engine, int side) {
  std::vector<uint8_t> board(size_t(side) * size_t(side));
  for (int y = 0; y < side; ++y)
    for (int x = 0; x < side; ++x) board[size_t(y) * side + x] = (x + y) % 2 ? 255 : 0;
  const ImageView view = ImageView::gray8(board.data(), side, side);
  for (const AlgorithmInfo& a : algorithms())
    for (int connectivity : {4, 8}) {
      Options o;
      o.algorithm = a.id;
      o.connectivity = connectivity;
      o.mode = ThresholdMode::Otsu;
      Result r;
      engine.label_host(view, o, r);
    }
  // The foreground stage's buffers too: the model of three channels, the cleanup's
  // scratch, the local threshold's sums and a region, at the largest foreground case.
  const int fw = std::min(side, kForegroundMaxWidth), fh = std::min(side, kForegroundMaxHeight);
  test::SceneSpec spec;
  spec.width = fw;
  spec.height = fh;
  const test::Frame frame = test::to_frame(test::Scene(spec).frame(0), PixelFormat::NV12);
  const std::vector<uint8_t> region(size_t(fw) * fh, 1);
  engine.set_region(region.data(), fw, fh);
  Options o;
  o.foreground = ForegroundModel::Background;
  o.close_radius = 1;
  Result r;
  engine.label_host(frame.view, o, r);
  o.foreground = ForegroundModel::Local;  // and the local threshold's row sums
  engine.label_host(frame.view, o, r);
  engine.set_region(nullptr, 0, 0);
  engine.reset_foreground();
}

// Case i's seed: the i-th value of splitmix64 from the run's seed.
uint64_t case_seed(uint64_t run_seed, uint64_t i) {
  return test::splitmix64(run_seed + i * test::kSplitMixIncrement);
}

void usage() {
  std::cout << "usage: gpu_fuzz [--seed N] [--frames N] [--budget-seconds S] [--out DIR]\n"
               "                [--max-side N] [--checkers N] [--foreground-percent P]\n"
               "       gpu_fuzz --case \"<reproducer line>\"\n";
}

bool parse_args(int argc, char** argv, Args* a) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument(arg + " needs a value");
      return argv[++i];
    };
    try {
      if (arg == "--seed") a->seed = std::stoull(value()), a->seed_given = true;
      else if (arg == "--frames") a->frames = std::stoull(value());
      else if (arg == "--budget-seconds") a->budget_seconds = std::stod(value());
      else if (arg == "--out") a->out = value();
      else if (arg == "--case") a->case_line = value();
      else if (arg == "--max-side") a->max_side = std::stoi(value());
      else if (arg == "--checkers") a->checkers = std::max(1, std::stoi(value()));
      else if (arg == "--foreground-percent")
        a->foreground_percent = std::clamp(std::stoi(value()), 0, 100);
      else if (arg == "--help" || arg == "-h") return usage(), false;
      else throw std::invalid_argument("unknown argument " + arg);
    } catch (const std::exception& e) {
      std::cerr << "gpu_fuzz: " << e.what() << "\n";
      usage();
      std::exit(2);
    }
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  Args args;
  if (!parse_args(argc, argv, &args)) return 0;
  if (!args.seed_given)
    args.seed = uint64_t(std::chrono::system_clock::now().time_since_epoch().count()) % 1000000007ull;

  test::FuzzCase single;
  test::ForegroundFuzzCase single_foreground;
  const bool single_is_foreground = test::is_foreground_line(args.case_line);
  if (!args.case_line.empty()) {
    std::string why;
    const bool ok = single_is_foreground
                        ? test::parse_foreground_case(args.case_line, &single_foreground, &why)
                        : test::parse_fuzz_case(args.case_line, &single, &why);
    if (!ok) {
      std::cerr << "gpu_fuzz: --case: " << why << "\n";
      return 2;
    }
    args.seed = single_is_foreground ? single_foreground.seed : single.seed;
    args.frames = 1;
  }

  std::string why;
  if (!cuda::device_usable(-1, &why)) {
    std::cout << "gpu_fuzz: skipped, no usable CUDA device: " << why << "\n";
    return 77;  // meson's "skipped"
  }
  std::cout << "gpu_fuzz: seed " << args.seed << ", up to " << args.frames << " frames";
  if (args.budget_seconds > 0) std::cout << " or " << args.budget_seconds << " s";
  std::cout << std::endl;

  test::FuzzLimits limits;
  limits.max_side = args.max_side;
  limits.max_pixels = std::min<int64_t>(limits.max_pixels, int64_t(args.max_side) * args.max_side);
  // Case i is a foreground sequence when its seed says so (foreground_percent of
  // them), drawn from a seed of its own so that it shares nothing with the labeling
  // case it replaces.
  auto prepare_case = [&](uint64_t i) {
    if (!args.case_line.empty())
      return single_is_foreground ? prepare_foreground(single_foreground) : prepare(single);
    const uint64_t seed = case_seed(args.seed, i);
    if (int(test::splitmix64(seed ^ 0xF00D) % 100) < args.foreground_percent)
      return prepare_foreground(test::random_foreground_case(test::splitmix64(seed), args.max_side));
    return prepare(test::random_fuzz_case(seed, limits));
  };

  const auto start = Clock::now();
  auto seconds_since = [](Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
  };
  auto out_of_time = [&] {
    return args.budget_seconds > 0 && seconds_since(start) >= args.budget_seconds;
  };
  // Workers prepare cases on the cores the checkers leave, and each checker, a thread
  // with its own engine (and stream), labels them in the order they come ready: the
  // rare 4096x4096 case takes seconds to prepare and, checked in index order, would
  // leave everyone idle behind it. The cases checked are still those of indices
  // 0..N-1 (a worker takes the next index and always finishes it).
  const unsigned cores = std::max(2u, std::thread::hardware_concurrency());
  const size_t checkers = std::min<size_t>(args.checkers, args.case_line.empty() ? cores - 1 : 1);
  const size_t workers = std::max<size_t>(1, cores - checkers), capacity = 2 * size_t(cores);
  std::mutex lock;  // guards everything below that is not atomic
  std::condition_variable ready_cv, room_cv;
  std::deque<Prepared> ready;
  std::atomic<uint64_t> next{0};
  std::atomic<bool> halt{false};
  size_t active = workers;
  double preparing = 0;  // worker seconds
  std::vector<std::thread> pool;
  for (size_t w = 0; w < workers; ++w)
    pool.emplace_back([&] {
      while (!halt) {
        const uint64_t i = next++;
        if (i >= args.frames || out_of_time()) break;
        const auto began = Clock::now();
        Prepared p = prepare_case(i);
        const double took = seconds_since(began);
        std::unique_lock<std::mutex> l(lock);
        preparing += took;
        room_cv.wait(l, [&] { return ready.size() < capacity || halt; });
        ready.push_back(std::move(p));
        ready_cv.notify_one();
      }
      std::lock_guard<std::mutex> l(lock);
      --active;
      ready_cv.notify_all();
    });

  uint64_t done = 0, mismatches = 0, images = 0, pgms = 0;
  uint64_t fg_done = 0, fg_images = 0, fg_mismatches = 0;  // foreground sequences
  const double kSlowSeconds = 2.0;
  double slowest = 0, busy = 0, idle = 0;  // checker seconds labeling, waiting for cases
  std::string slowest_line;
  const uint64_t kMaxMismatches = 100, kMaxPgms = 50;
  bool out_ready = false;
  auto last_report = Clock::now();
  std::string setup_error;
  auto checker = [&] {
    std::unique_ptr<cuda::Engine> engine;
    try {
      engine = std::make_unique<cuda::Engine>(-1);
      cuda::testing::set_poison_byte(*engine, 0xAB);
      if (args.case_line.empty()) grow_to_largest(*engine, args.max_side);
    } catch (const std::exception& e) {
      std::lock_guard<std::mutex> l(lock);
      setup_error = e.what();
      halt = true;
      room_cv.notify_all();
      ready_cv.notify_all();
      return;
    }
    while (true) {
      Prepared p;
      const auto waited_from = Clock::now();
      {
        std::unique_lock<std::mutex> l(lock);
        ready_cv.wait(l, [&] { return !ready.empty() || active == 0 || halt; });
        idle += seconds_since(waited_from);
        if (ready.empty() || halt) break;
        p = std::move(ready.front());
        ready.pop_front();
        room_cv.notify_one();
      }
      int frame = 0;
      const auto checked_at = Clock::now();
      const std::string diff = check(*engine, p, &frame);
      const double took = seconds_since(checked_at);
      const std::string line = p.line();
      std::lock_guard<std::mutex> l(lock);
      busy += took;
      if (took > slowest) slowest = took, slowest_line = line;
      // A frame that takes seconds on the GPU would stall a live pipeline: named, so it
      // can be rerun with --case.
      if (took > kSlowSeconds)
        std::cout << "SLOW " << took << " s on the GPU: " << line << std::endl;
      ++done;
      images += p.frames.size();
      if (p.foreground) {
        ++fg_done;
        fg_images += p.frames.size();
        fg_mismatches += !diff.empty();
      }
      if (Clock::now() - last_report > std::chrono::seconds(30)) {
        last_report = Clock::now();
        std::cout << "gpu_fuzz: " << done << " frames checked in " << int(seconds_since(start))
                  << " s, " << mismatches << " mismatches" << std::endl;
      }
      if (diff.empty()) continue;
      ++mismatches;
      std::cout << "MISMATCH " << line << "\n  frame " << frame << ": " << diff << std::endl;
      if (pgms < kMaxPgms) {
        std::error_code ec;
        if (!out_ready) out_ready = std::filesystem::create_directories(args.out, ec) || !ec;
        const std::string base = args.out + (p.foreground ? "/fuzz-foreground-" : "/fuzz-") +
                                 std::to_string(p.foreground ? p.fc.seed : p.c.seed) + "-frame" +
                                 std::to_string(frame);
        if (p.foreground) write_foreground_files(base, p, frame);
        else write_pgm(base + ".pgm", test::fuzz_gray(p.c, frame));
        std::ofstream(base + ".txt") << line << "\nframe " << frame << ": " << diff << "\n";
        ++pgms;
      }
      if (mismatches >= kMaxMismatches) {
        std::cout << "gpu_fuzz: stopping after " << mismatches << " mismatches" << std::endl;
        halt = true;
        room_cv.notify_all();
        ready_cv.notify_all();
      }
    }
  };
  std::vector<std::thread> checking;
  for (size_t k = 0; k < checkers; ++k) checking.emplace_back(checker);
  for (auto& t : checking) t.join();
  halt = true;
  room_cv.notify_all();
  for (auto& t : pool) t.join();
  if (!setup_error.empty()) {
    std::cout << "gpu_fuzz: engine setup failed: " << setup_error << std::endl;
    return 1;
  }
  const double seconds = seconds_since(start);
  std::cout << "gpu_fuzz: " << images << " images labeled in " << seconds << " s by " << checkers
            << " checker threads (busy " << busy << " s, waiting for cases " << idle << " s); "
            << workers << " workers prepared for " << preparing << " s; slowest case "
            << slowest << " s: " << slowest_line << std::endl;
  std::cout << "gpu_fuzz: foreground: " << fg_done << " sequences, " << fg_images << " frames, "
            << fg_mismatches << " mismatches" << std::endl;
  std::cout << done << " frames, " << mismatches << " mismatches, seed " << args.seed
            << std::endl;
  return mismatches ? 1 : 0;
}
