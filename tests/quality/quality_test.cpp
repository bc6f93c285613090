// Quality of the background-model foreground stage, asserted in CI: ours
// (ccl::ForegroundStage + closing + label_binary + select_reported + ccl::Tracker, the
// options of ours_options()) against OpenCV's MOG2 with its defaults and the same
// cleanup and tracker, on a family of generated camera-like sequences with ground truth
// (sequence.h) in NV12, I420, RGBx and GRAY8, with the settings of the users who
// reported that camera video (NV12 / I420) loses low-contrast objects that RGB frames
// and MOG2 keep, that fragmented objects change track id and that a sudden change of
// light floods the frame. Both detectors run on the same frames and skip the same
// warm-up. Scores: recall and precision of objects (score.h), the CLEAR MOT and
// identity scores (mot.h), and for a light step the frames flooded by a frame-sized
// component. Prints the tables; CCL_QUALITY_CSV=file also writes the main table as CSV
// (and the light-step table beside it, file name + "-light-step"); CCL_QUALITY_DUMP=dir
// writes every 10th frame with the truth's and both detectors' boxes, for looking at;
// CCL_QUALITY_THREADS=n runs the formats of a sequence on n threads (default: 2, or 1
// on a one-core machine).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>
#include <tuple>

#include <opencv2/core/utility.hpp>
#include <opencv2/imgproc.hpp>

#include "ccl/luma.h"
#include "mot.h"
#include "pipelines.h"
#include "score.h"
#include "sequence.h"

namespace ccl::quality {
namespace {

// The first frames are skipped for both detectors: a model that has seen n frames
// learns at 1/(2n), so until a few dozen frames in, its variances are still settling
// and the score would measure the start-up rather than the model.
constexpr int kWarmup = 30;
// An object counts in frames where at least this many of its pixels are seen; less is
// a sliver at the frame's edge or behind another object (score.h; for the MOT scores
// such an object's box is "ignore": neither finding it nor missing it counts).
constexpr int kMinVisible = 100;

// The targets. Ours must find the objects of camera video (NV12, I420) as well as in
// RGB frames of the same scene and as well as MOG2 does on the same frames, and do as
// well as MOG2 in RGB and on gray frames; a hundredth of slack for the odd object-frame
// that one mask joins or breaks and the other does not.
constexpr double kSlack = 0.01;
// Identity in color (the issue: fragmented objects change track id): IDF1 (the share
// of truth and reports given the right identity, Ristani et al.) at least this, and at
// least MOG2's through the same tracker; no more ID switches than MOG2's.
constexpr double kIdf1Floor = 0.9;
// A light step: the light of the whole frame changes by this much in one frame, once
// the model has learned the scene. Over the kStepWindow frames from the step on, at
// most kMaxFlooded frames may report a component of more than kFloodShare of the frame
// (no object of the step sequences covers 2 %, two in contact under 4 %: see
// step_spec()); and the recall over the step sequence's frames other than the step's
// own may not fall below the same sequence's without the step by more than kSlack.
constexpr double kLightStep = 0.35;
constexpr int kStepFrame = 100;
constexpr int kStepWindow = 90;
constexpr double kFloodShare = 0.05;
constexpr int kMaxFlooded = 5;

// Targets this engine does not reach on some cases, each with the reason found (the
// closing notes and docs/FOREGROUND.md give the figures). A listed case that misses its
// target prints a KNOWN MISS line instead of failing; any other miss fails, and a listed
// case that meets its target prints that the entry can go. Keys: "<sequence> <format>".
struct KnownMiss {
  const char* target;
  std::vector<std::string> cases;
  const char* why;
};
const std::vector<KnownMiss>& known_misses() {
  static const std::vector<KnownMiss> list = {
#include "known_misses.inc"
  };
  return list;
}

/// Checks one target: passes when met or listed as a known miss (printed either way).
void target(bool met, const std::string& key, const char* name, const std::string& message) {
  for (const KnownMiss& m : known_misses()) {
    if (std::string(m.target) != name) continue;
    if (std::find(m.cases.begin(), m.cases.end(), key) == m.cases.end()) continue;
    if (met)
      std::cout << "NOW MET: " << key << " " << name << " (listed as a known miss)\n";
    else
      std::cout << "KNOWN MISS: " << key << " " << name << ": " << message << " [" << m.why << "]\n";
    return;
  }
  if (!met) std::cout << "MISS: " << key << " " << name << "\n";
  EXPECT_TRUE(met) << message;
}

constexpr Format kFormats[] = {Format::RGBx, Format::NV12, Format::I420, Format::Gray8};
constexpr size_t kFormatCount = sizeof kFormats / sizeof kFormats[0];

size_t format_index(Format f) {
  for (size_t i = 0; i < kFormatCount; ++i)
    if (kFormats[i] == f) return i;
  return 0;
}
bool is_color(Format f) { return f != Format::Gray8; }

// The family, after the recipe of the issue: a real photograph as the static scene;
// 5-7 textured objects (a texture cut from another photograph, blended 55/45 with the
// scene, its mean `contrast` levels brighter or darker than the scene's under it) that
// move, bounce off the frame's edges, cross (contacts shorter than the tracker's
// max_lost), and one of which stands still for 40 frames; each casting a shadow (the
// scene x 0.62) or none; sensor noise of `noise` levels per R, G, B channel; the light
// drifting +-8 % as a sinusoid. Contrast 15..45 levels, noise 2..8, small and large
// objects, shadows on and off, at 640x360 and 320x240. 300 frames: the 40-frame stop
// must begin after frame 200 to stay foreground under history 500 (sequence.cpp), and
// the object must still leave. Eight members, four formats each, and four light-step
// runs: the suite takes about 100 s on two idle cores (150 s while other jobs ran),
// about 3 minutes on one (the tables print the time): room under the 8-minute budget
// for a costlier model.
SequenceSpec member(const char* name, const char* background, std::vector<std::string> textures,
                    int width, int height, int objects, double contrast, double noise,
                    bool large, bool shadows, uint64_t seed) {
  SequenceSpec s;
  s.name = name;
  s.background = background;
  s.textures = std::move(textures);
  s.width = width;
  s.height = height;
  s.frames = 300;
  s.objects = objects;
  s.seed = seed;
  s.noise_sigma = noise;
  s.contrast = contrast;
  s.object_scale = large ? 1.3 : 0.7;
  s.shadows = shadows;
  s.shadow_gain = 0.62;
  s.drift = 0.08;
  s.long_stop = 40;
  return s;
}

std::vector<SequenceSpec> family() {
  return {
      member("coffee_640", "coffee", {"astronaut", "ihc", "chelsea"}, 640, 360, 6, 15, 2, false, true, 101),
      member("chelsea_320", "chelsea", {"retina", "coffee", "motorcycle_left"}, 320, 240, 5, 25, 4, true, true, 202),
      member("rocket_640", "rocket", {"astronaut", "coffee", "ihc"}, 640, 360, 5, 35, 8, true, false, 303),
      member("motorcycle_320", "motorcycle_left", {"ihc", "rocket", "astronaut", "chelsea"}, 320, 240, 7, 45, 6, false, true, 404),
      member("astronaut_320", "astronaut", {"coffee", "chelsea", "rocket"}, 320, 240, 6, 30, 4, false, true, 505),
      member("coffee_320", "coffee", {"motorcycle_left", "retina", "rocket"}, 320, 240, 5, 15, 8, true, true, 606),
      member("chelsea_640", "chelsea", {"astronaut", "ihc", "motorcycle_left"}, 640, 360, 7, 20, 3, false, false, 707),
      member("motorcycle_640", "motorcycle_left", {"coffee", "chelsea", "retina"}, 640, 360, 6, 40, 5, true, true, 808),
  };
}

// The light-step sequences: members with small objects (so that no object, nor two in
// contact, covers kFloodShare of the frame: under 2 % and 4 %) and enough contrast that
// the darker step (their objects' offset shrinks with the light) leaves them visible;
// with the light 35 % brighter or darker from frame kStepFrame on. A mid-tone scene,
// and a bright one that the brighter step clips to white over much of the frame. Same
// seed: the same objects, paths and noise as the member itself, which is the "without
// step" figure.
const char* const kStepBases[] = {"motorcycle_320", "astronaut_320"};

SequenceSpec base_spec(const std::string& name) {
  for (const SequenceSpec& s : family())
    if (s.name == name) return s;
  throw std::runtime_error("no family member " + name);
}

SequenceSpec step_spec(const std::string& base, int direction) {
  SequenceSpec s = base_spec(base);
  s.name += direction > 0 ? "_step_up" : "_step_down";
  s.light_step = direction * kLightStep;
  s.step_frame = kStepFrame;
  return s;
}

// What the format lets a shadow-suppressing detector see, model-free: a pixel of an
// object is distinct from the scene behind it when, before noise, some channel the format
// carries (R, G, B for the color formats, luma for GRAY8) differs by at least 10 levels
// (a few noise sigmas) and the pixel is not shadow-like: not the scene's color scaled by
// 0.5..1 to within 10 levels per channel (what both models take for a shadow). With one
// channel every darker pixel down to half the brightness is shadow-like, which is why
// GRAY8 scores lower than the color formats on the same scene. An object-frame is
// separable when at least half of its pixels are distinct.
constexpr double kDistinctLevels = 10;

bool separable(const FrameTruth& truth, const ObjectTruth& o, const cv::Mat& clean,
               const cv::Mat& scene, Format format) {
  int distinct = 0;
  const int C = format == Format::Gray8 ? 1 : 3;
  for (int y = o.y; y < o.y + o.height; ++y)
    for (int x = o.x; x < o.x + o.width; ++x) {
      if (truth.owner[size_t(y) * truth.width + x] != o.id) continue;
      const float* fp = clean.ptr<float>(y) + 3 * x;
      const float* fs = scene.ptr<float>(y) + 3 * x;
      double p[3], s[3];
      if (C == 1) {
        p[0] = (77 * fp[0] + 150 * fp[1] + 29 * fp[2]) / 256.0;
        s[0] = (77 * fs[0] + 150 * fs[1] + 29 * fs[2]) / 256.0;
      } else {
        for (int c = 0; c < 3; ++c) p[c] = fp[c], s[c] = fs[c];
      }
      double differs = 0, ps = 0, ss = 0;
      for (int c = 0; c < C; ++c) {
        differs = std::max(differs, std::abs(p[c] - s[c]));
        ps += p[c] * s[c];
        ss += s[c] * s[c];
      }
      const double a = ss > 0 ? ps / ss : 0;
      double off = 0;
      for (int c = 0; c < C; ++c) off = std::max(off, std::abs(p[c] - a * s[c]));
      const bool shadow_like = a >= 0.5 && a <= 1 && off < kDistinctLevels;
      distinct += differs >= kDistinctLevels && !shadow_like;
    }
  return 2 * distinct >= o.pixels;
}

// One detector's scores on one sequence in one format.
struct Scores {
  Tally tally;       // objects and pixels (score.h), frames from kWarmup on
  MotSummary mot{};  // CLEAR MOT and identity scores over the same frames
  // Per frame (from kWarmup on; zero before): objects that count and those found.
  std::vector<uint32_t> visible, found;
  // Frames of [step_frame, step_frame + kStepWindow) with a reported component of more
  // than kFloodShare of the frame, and the largest share seen there.
  int flooded = 0;
  double largest_share = 0;
  double seconds = 0;

  /// Recall over the frames from kWarmup on, but frame `except`.
  double recall_except(int except) const {
    uint64_t v = 0, f = 0;
    for (size_t t = 0; t < visible.size(); ++t)
      if (int(t) != except) v += visible[t], f += found[t];
    return v ? double(f) / double(v) : 1.0;
  }
};

struct FormatRun {
  Format format = Format::RGBx;
  Scores ours, peer;
  // Object-frames that count, and of those the ones where most of the object differs
  // clearly from the scene behind it in what the format carries (separable()).
  uint64_t object_frames = 0, separable_frames = 0;
  double separable() const { return object_frames ? double(separable_frames) / double(object_frames) : 1.0; }
};

struct Evaluation {
  SequenceSpec spec;
  SequenceStats stats;
  Cleanup cleanup;
  FormatRun runs[kFormatCount];
  double wall_seconds = 0;
  const FormatRun& run(Format f) const { return runs[format_index(f)]; }
};

const std::vector<Photo>* photos_or_skip(std::string* why) {
  static const std::vector<Photo> photos = color_photos(why);
  static const std::string reason = *why;
  *why = reason;
  return photos.empty() ? nullptr : &photos;
}

void draw_boxes(cv::Mat& bgr, const std::vector<Detection>& d, const cv::Scalar& color, int inset) {
  for (const Detection& c : d)
    cv::rectangle(bgr, cv::Rect(c.x - inset, c.y - inset, c.width + 2 * inset, c.height + 2 * inset), color);
}

void dump_frame(const char* dir, const SequenceSpec& spec, Format format, int t, const cv::Mat& rgb,
                const FrameTruth& truth, const std::vector<Detection>& ours_found,
                const std::vector<Detection>& peer_found, const BinaryImage& ours_mask,
                const BinaryImage& peer_mask) {
  // Left: the frame with truth (green), ours (red), MOG2 (blue) boxes; right: the two
  // masks (ours red, MOG2 blue, both magenta) over the truth (green).
  cv::Mat left, right(rgb.size(), CV_8UC3);
  cv::cvtColor(rgb, left, cv::COLOR_RGB2BGR);
  for (const ObjectTruth& o : truth.objects)
    cv::rectangle(left, cv::Rect(o.x, o.y, o.width, o.height), {0, 255, 0});
  draw_boxes(left, ours_found, {0, 0, 255}, 1);
  draw_boxes(left, peer_found, {255, 0, 0}, 2);
  for (int i = 0; i < rgb.rows * rgb.cols; ++i)
    right.at<cv::Vec3b>(i / rgb.cols, i % rgb.cols) =
        cv::Vec3b(peer_mask.pixels[size_t(i)] ? 255 : 0, truth.owner[size_t(i)] ? 160 : 0,
                  ours_mask.pixels[size_t(i)] ? 255 : 0);
  cv::Mat both;
  cv::hconcat(left, right, both);
  if (both.cols < 1000) cv::resize(both, both, cv::Size(), 2, 2, cv::INTER_NEAREST);
  std::filesystem::create_directories(dir);
  std::ostringstream file;
  file << dir << "/" << spec.name << "-" << to_string(format) << "-" << std::setw(3)
       << std::setfill('0') << t << ".ppm";
  // PPM, written here: the suite links no image codec library (its photographs come
  // decoded from the test-image cache).
  cv::Mat rgb_out;
  cv::cvtColor(both, rgb_out, cv::COLOR_BGR2RGB);
  std::ofstream out(file.str(), std::ios::binary);
  out << "P6\n" << rgb_out.cols << " " << rgb_out.rows << "\n255\n";
  out.write(reinterpret_cast<const char*>(rgb_out.data), std::streamsize(rgb_out.total() * 3));
}

std::vector<MotBox> truth_boxes(const FrameTruth& truth) {
  std::vector<MotBox> out;
  for (const ObjectTruth& o : truth.objects)
    out.push_back({uint64_t(o.id), o.x, o.y, o.width, o.height, o.pixels < kMinVisible});
  return out;
}

std::vector<MotBox> hypothesis_boxes(const std::vector<Detection>& found) {
  std::vector<MotBox> out;
  for (const Detection& d : found) out.push_back({d.track, d.x, d.y, d.width, d.height, false});
  return out;
}

/// Runs both detectors over the sequence in the given formats (indices into kFormats),
/// rendering each frame once for them all.
void evaluate_formats(const Sequence& seq, const Cleanup& cleanup, const std::vector<size_t>& which,
                      FormatRun* runs) {
  const SequenceSpec& spec = seq.spec();
  struct Lane {
    FormatRun* run;
    std::unique_ptr<Detector> ours, peer;
    MotAccumulator ours_mot, peer_mot;
    Input in;
    std::vector<Detection> ours_found, peer_found;
    BinaryImage ours_mask, peer_mask;
  };
  std::vector<std::unique_ptr<Lane>> lanes;
  for (size_t i : which) {
    auto lane = std::make_unique<Lane>();
    lane->run = &runs[i];
    lane->run->format = kFormats[i];
    lane->ours = make_ours(cleanup);
    lane->peer = make_mog2(cleanup);
    for (Scores* s : {&lane->run->ours, &lane->run->peer}) {
      s->visible.assign(size_t(spec.frames), 0);
      s->found.assign(size_t(spec.frames), 0);
    }
    lanes.push_back(std::move(lane));
  }
  const char* dump = std::getenv("CCL_QUALITY_DUMP");
  const double flood_area = kFloodShare * spec.width * spec.height;
  cv::Mat rgb, clean;
  FrameTruth truth;
  using Clock = std::chrono::steady_clock;
  for (int t = 0; t < spec.frames; ++t) {
    seq.render(t, rgb, truth, &clean);
    const bool scored = t >= kWarmup;
    const cv::Mat scene = scored ? seq.scene(t) : cv::Mat();
    std::vector<MotBox> truth_mot;
    if (scored) truth_mot = truth_boxes(truth);
    for (auto& lane : lanes) {
      FormatRun& run = *lane->run;
      convert(rgb, run.format, lane->in);
      const auto t0 = Clock::now();
      lane->ours->process(lane->in, lane->ours_found, lane->ours_mask);
      const auto t1 = Clock::now();
      lane->peer->process(lane->in, lane->peer_found, lane->peer_mask);
      const auto t2 = Clock::now();
      run.ours.seconds += std::chrono::duration<double>(t1 - t0).count();
      run.peer.seconds += std::chrono::duration<double>(t2 - t1).count();
      const bool in_window = t >= spec.step_frame && t < spec.step_frame + kStepWindow;
      if (in_window) {
        for (auto [scores, found] : {std::make_pair(&run.ours, &lane->ours_found),
                                     std::make_pair(&run.peer, &lane->peer_found)}) {
          double largest = 0;
          for (const Detection& d : *found) largest = std::max(largest, double(d.area));
          scores->flooded += largest > flood_area;
          scores->largest_share = std::max(scores->largest_share, largest / (spec.width * spec.height));
        }
      }
      if (!scored) continue;
      for (const ObjectTruth& o : truth.objects) {
        if (o.pixels < kMinVisible) continue;
        ++run.object_frames;
        run.separable_frames += separable(truth, o, clean, scene, run.format);
      }
      for (auto [scores, found, mask, mot] :
           {std::make_tuple(&run.ours, &lane->ours_found, &lane->ours_mask, &lane->ours_mot),
            std::make_tuple(&run.peer, &lane->peer_found, &lane->peer_mask, &lane->peer_mot)}) {
        const uint64_t visible = scores->tally.visible, found_before = scores->tally.found;
        score_frame(t, truth, *found, *mask, kMinVisible, scores->tally);
        scores->visible[size_t(t)] = uint32_t(scores->tally.visible - visible);
        scores->found[size_t(t)] = uint32_t(scores->tally.found - found_before);
        mot->add_frame(truth_mot, hypothesis_boxes(*found));
      }
      if (dump && *dump && t % 10 == 0)
        dump_frame(dump, spec, run.format, t, rgb, truth, lane->ours_found, lane->peer_found,
                   lane->ours_mask, lane->peer_mask);
    }
  }
  for (auto& lane : lanes) {
    lane->run->ours.mot = lane->ours_mot.summary();
    lane->run->peer.mot = lane->peer_mot.summary();
  }
}

int worker_threads() {
  if (const char* env = std::getenv("CCL_QUALITY_THREADS"); env && *env)
    return std::clamp(std::atoi(env), 1, int(kFormatCount));
  return std::thread::hardware_concurrency() >= 2 ? 2 : 1;
}

Evaluation evaluate(const SequenceSpec& spec, const std::vector<Photo>& photos) {
  const auto start = std::chrono::steady_clock::now();
  Evaluation e;
  e.spec = spec;
  const Sequence seq(spec, photos);
  e.stats = seq.stats();
  e.cleanup = issue_cleanup(spec.width, spec.height);
  // The formats are dealt to the threads, each of which renders the frames for its own:
  // rendering is a small part of a frame's cost next to the four detectors.
  const int threads = worker_threads();
  std::vector<std::vector<size_t>> share(static_cast<size_t>(threads));
  for (size_t i = 0; i < kFormatCount; ++i) share[i % size_t(threads)].push_back(i);
  std::vector<std::thread> pool;
  std::vector<std::string> errors(static_cast<size_t>(threads));
  for (int k = 0; k < threads; ++k)
    pool.emplace_back([&, k] {
      try {
        evaluate_formats(seq, e.cleanup, share[size_t(k)], e.runs);
      } catch (const std::exception& ex) {
        errors[size_t(k)] = ex.what();
      }
    });
  for (std::thread& t : pool) t.join();
  for (const std::string& err : errors)
    if (!err.empty()) throw std::runtime_error(spec.name + ": " + err);
  e.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return e;
}

// Evaluations are made once per sequence and shared by the tests of its formats (and
// by the light-step tests, for the member without the step); in order of first use.
std::mutex evaluations_mutex;
std::vector<std::unique_ptr<Evaluation>> evaluations;

const Evaluation& evaluation(const SequenceSpec& spec, const std::vector<Photo>& photos) {
  std::lock_guard<std::mutex> lock(evaluations_mutex);
  for (const auto& e : evaluations)
    if (e->spec.name == spec.name) return *e;
  evaluations.push_back(std::make_unique<Evaluation>(evaluate(spec, photos)));
  return *evaluations.back();
}

std::string line(const char* format, ...) __attribute__((format(printf, 1, 2)));
std::string line(const char* format, ...) {
  char buffer[1024];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buffer, sizeof buffer, format, args);
  va_end(args);
  return buffer;
}

std::string fixed(double v, int digits = 3) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(digits) << v;
  return s.str();
}

const char* size_name(const SequenceSpec& s) { return s.object_scale < 1 ? "small" : "large"; }

/// "coffee_640 NV12 (640x360, seed 101, contrast 15, noise 2, small objects, shadows)":
/// what a failure message names.
std::string case_name(const SequenceSpec& s, Format f) {
  return s.name + " " + to_string(f) + " (" + std::to_string(s.width) + "x" +
         std::to_string(s.height) + ", seed " + std::to_string(s.seed) + ", contrast " +
         fixed(s.contrast, 0) + ", noise " + fixed(s.noise_sigma, 0) + ", " + size_name(s) +
         " objects, " + (s.shadows ? "shadows" : "no shadows") +
         (s.light_step != 0 ? ", light step " + fixed(100 * s.light_step, 0) + " % at frame " +
                                  std::to_string(s.step_frame)
                            : std::string()) +
         ")";
}

bool is_family(const Evaluation& e) { return e.spec.light_step == 0; }

/// The evaluation of the family member a step sequence was made from (null when not
/// evaluated).
const Evaluation* base_of(const Evaluation& step) {
  for (const auto& b : evaluations)
    if (is_family(*b) && b->spec.seed == step.spec.seed &&
        step.spec.name.compare(0, b->spec.name.size(), b->spec.name) == 0)
      return b.get();
  return nullptr;
}

void print_table(std::ostream& out) {
  out << "\nForeground quality on the camera-video family: ours (ccl::ForegroundStage, ours_options())"
         " vs OpenCV MOG2 (defaults; its shadow value 127\ncounted as background), both + closing"
         " radius 2, 8-connected components of >= min_area (120 at 640x360, 40 at 320x240), ccl::Tracker."
         "\nFirst "
      << kWarmup << " frames skipped. recall/prec: objects (>= " << kMinVisible
      << " px seen) and reports matched by box IoU >= 0.5; MOTA, MOTP (mean IoU), IDF1, IDSW:"
         " CLEAR MOT\nand identity scores at IoU 0.5; sep: object-frames where most of the object"
         " differs from the scene by >= 10 levels in a way no\nshadow explains. Light drifts"
         " +-8 %, 5-7 objects (one stops 40 frames), 300 frames per sequence.\n";
  const char* head = "recall  prec   MOTA  MOTP  IDF1 IDSW";
  out << line("%-15s %-6s %8s %4s %5s %7s %5s | ours %s | MOG2 %s\n", "sequence", "format", "size",
              "con", "noise", "shadows", "sep", head, head);
  for (const auto& e : evaluations) {
    if (!is_family(*e)) continue;
    for (const FormatRun& r : e->runs) {
      const std::string size = std::to_string(e->spec.width) + "x" + std::to_string(e->spec.height);
      std::string text = line("%-15s %-6s %8s %4.0f %5.0f %7s %5.3f |", e->spec.name.c_str(),
                              to_string(r.format), size.c_str(), e->spec.contrast,
                              e->spec.noise_sigma, e->spec.shadows ? "on" : "off", r.separable());
      for (const Scores* s : {&r.ours, &r.peer})
        text += line("      %5.3f %5.3f %6.3f %5.3f %5.3f %4llu |", s->tally.recall(), s->tally.precision(),
                     s->mot.mota, s->mot.motp, s->mot.idf1, (unsigned long long)s->mot.id_switches);
      text.resize(text.size() - 2);  // the last " |"
      out << text << "\n";
    }
  }
}

void print_light_table(std::ostream& out) {
  bool any = false;
  for (const auto& e : evaluations) any = any || !is_family(*e);
  if (!any) return;
  out << "\nLight step: the light changes by +-" << fixed(100 * kLightStep, 0) << " % at frame "
      << kStepFrame << "; flooded: frames of the " << kStepWindow
      << " from the step on with a reported component over " << fixed(100 * kFloodShare, 0)
      << " % of the frame\n(the same window without the step in brackets); largest: the largest"
         " component's share there; recall: over all scored frames but the step's, with the step"
         " / without;\nsep: the separable object-frames (as in the main table), with the step /"
         " without: what the darker light leaves to find, whatever the model.\n";
  const char* head = "flooded    largest  recall step/none";
  out << line("%-15s %-7s %-6s %-11s | ours %s | MOG2 %s\n", "sequence", "step", "format",
              "sep", head, head);
  for (const auto& e : evaluations) {
    if (is_family(*e)) continue;
    const Evaluation* base = base_of(*e);
    const std::string name = base ? base->spec.name : e->spec.name;
    for (const FormatRun& r : e->runs) {
      std::string text = line("%-15s %+4.0f %%  %-6s %5.3f/%5.3f |", name.c_str(),
                              100 * e->spec.light_step, to_string(r.format), r.separable(),
                              base ? base->run(r.format).separable() : 0.0);
      for (bool ours : {true, false}) {
        const Scores& s = ours ? r.ours : r.peer;
        const Scores* b = base ? (ours ? &base->run(r.format).ours : &base->run(r.format).peer) : nullptr;
        text += line("      %3d (%2d)  %6.3f  %6.3f / %5.3f |", s.flooded, b ? b->flooded : -1,
                     s.largest_share, s.recall_except(e->spec.step_frame),
                     b ? b->recall_except(e->spec.step_frame) : 0.0);
      }
      text.resize(text.size() - 2);  // the last " |"
      out << text << "\n";
    }
  }
}

void print_times(std::ostream& out) {
  double ours = 0, peer = 0, wall = 0;
  for (const auto& e : evaluations) {
    wall += e->wall_seconds;
    for (const FormatRun& r : e->runs) ours += r.ours.seconds, peer += r.peer.seconds;
  }
  out << line("time in the detectors: ours %.1f s, MOG2 %.1f s (one thread each); %zu sequences"
              " evaluated in %.1f s on %d thread(s)\n",
              ours, peer, evaluations.size(), wall, worker_threads());
}

void write_csv(const std::string& file) {
  std::ofstream out(file);
  out << "sequence,width,height,frames,objects,object_size,contrast,noise,shadows,format,separable";
  for (const char* who : {"ours", "mog2"})
    for (const char* what : {"recall", "precision", "mota", "motp", "idf1", "id_switches",
                             "fragmentations", "idp", "idr", "pixel_f", "seconds"})
      out << "," << who << "_" << what;
  out << "\n";
  for (const auto& e : evaluations) {
    if (!is_family(*e)) continue;
    const SequenceSpec& s = e->spec;
    for (const FormatRun& r : e->runs) {
      out << line("%s,%d,%d,%d,%d,%s,%.0f,%.0f,%d,%s,%.4f", s.name.c_str(), s.width, s.height,
                  s.frames, s.objects, size_name(s), s.contrast, s.noise_sigma, s.shadows ? 1 : 0,
                  to_string(r.format), r.separable());
      for (const Scores* x : {&r.ours, &r.peer})
        out << line(",%.4f,%.4f,%.4f,%.4f,%.4f,%llu,%llu,%.4f,%.4f,%.4f,%.3f", x->tally.recall(),
                    x->tally.precision(), x->mot.mota, x->mot.motp, x->mot.idf1,
                    (unsigned long long)x->mot.id_switches,
                    (unsigned long long)x->mot.fragmentations, x->mot.idp, x->mot.idr,
                    x->tally.f_measure(), x->seconds);
      out << "\n";
    }
  }
}

void write_light_csv(const std::string& file) {
  std::ofstream out(file);
  out << "sequence,base,step,step_frame,window,format,separable,separable_without_step";
  for (const char* who : {"ours", "mog2"})
    for (const char* what : {"flooded", "flooded_without_step", "largest_share", "recall",
                             "recall_without_step"})
      out << "," << who << "_" << what;
  out << "\n";
  for (const auto& e : evaluations) {
    const Evaluation* base = base_of(*e);
    if (is_family(*e) || !base) continue;
    for (const FormatRun& r : e->runs) {
      out << line("%s,%s,%.2f,%d,%d,%s,%.4f,%.4f", e->spec.name.c_str(), base->spec.name.c_str(),
                  e->spec.light_step, e->spec.step_frame, kStepWindow, to_string(r.format),
                  r.separable(), base->run(r.format).separable());
      for (bool ours : {true, false}) {
        const Scores& s = ours ? r.ours : r.peer;
        const Scores& b = ours ? base->run(r.format).ours : base->run(r.format).peer;
        out << line(",%d,%d,%.4f,%.4f,%.4f", s.flooded, b.flooded, s.largest_share,
                    s.recall_except(e->spec.step_frame), b.recall_except(e->spec.step_frame));
      }
      out << "\n";
    }
  }
}

std::string light_csv_name(const std::string& file) {
  const std::string ext = ".csv";
  if (file.size() > ext.size() && file.compare(file.size() - ext.size(), ext.size(), ext) == 0)
    return file.substr(0, file.size() - ext.size()) + "-light-step.csv";
  return file + "-light-step.csv";
}

struct QualityRun {
  SequenceSpec spec;
  Format format;
};

// What gtest prints for a run's parameter.
void PrintTo(const QualityRun& run, std::ostream* os) { *os << case_name(run.spec, run.format); }

std::vector<QualityRun> family_runs() {
  std::vector<QualityRun> r;
  for (const SequenceSpec& s : family())
    for (Format f : kFormats) r.push_back({s, f});
  return r;
}

std::string run_name(const ::testing::TestParamInfo<QualityRun>& info) {
  return info.param.spec.name + "_" + to_string(info.param.format);
}

/// Prints how ours' ids changed for the objects whose id changed (away from contacts).
void print_id_changes(const std::string& where, const Tally& tally) {
  for (const auto& entry : tally.matches) {
    const std::string history = tally.id_history(entry.first);
    if (history.find(' ') != std::string::npos)
      std::cout << where << ": object " << entry.first
                << " changed track id (frame:id at each change: " << history << ")\n";
  }
}

class Quality : public ::testing::TestWithParam<QualityRun> {};

TEST_P(Quality, OursAtLeastMog2) {
  std::string why;
  const std::vector<Photo>* photos = photos_or_skip(&why);
  if (!photos) GTEST_SKIP() << "color photographs unavailable: " << why;
  const QualityRun& param = GetParam();
  const Evaluation& e = evaluation(param.spec, *photos);
  const FormatRun& run = e.run(param.format);
  const Scores& ours = run.ours;
  const Scores& peer = run.peer;
  const std::string where = case_name(param.spec, param.format);
  std::cout << where << ": ours recall " << fixed(ours.tally.recall()) << " precision "
            << fixed(ours.tally.precision()) << " IDF1 " << fixed(ours.mot.idf1) << " IDSW "
            << ours.mot.id_switches << "; MOG2 recall " << fixed(peer.tally.recall())
            << " precision " << fixed(peer.tally.precision()) << " IDF1 " << fixed(peer.mot.idf1)
            << " IDSW " << peer.mot.id_switches << "\n";
  print_id_changes(where, ours.tally);

  // Objects: at least as many found and as few false reports as MOG2 on the same frames;
  // camera video (NV12, I420) also as well as the RGB frames of the same scene.
  const std::string key = param.spec.name + " " + to_string(param.format);
  if (ours_backend() != "cpu") {
    std::cout << where << ": ours on " << ours_backend() << ", " << backend_frames()
              << " frames compared with the CPU so far, " << backend_mismatches() << " differed\n";
    EXPECT_EQ(backend_mismatches(), 0u) << where << ": the GPU's frames differ from the CPU's";
  }
  target(ours.tally.recall() >= peer.tally.recall() - kSlack, key, "recall>=mog2",
         where + ": ours finds fewer objects than MOG2 in the same format");
  target(ours.tally.precision() >= peer.tally.precision() - kSlack, key, "precision>=mog2",
         where + ": more of our reports are false than MOG2's in the same format");
  if (param.format == Format::NV12 || param.format == Format::I420) {
    const Scores& rgb = e.run(Format::RGBx).ours;
    target(ours.tally.recall() >= rgb.tally.recall() - kSlack, key, "recall>=rgb",
           where + ": ours finds fewer objects than in the RGBx frames of the same scene (" +
               fixed(rgb.tally.recall()) + ")");
    target(ours.tally.precision() >= rgb.tally.precision() - kSlack, key, "precision>=rgb",
           where + ": more of our reports are false than in the RGBx frames of the same scene (" +
               fixed(rgb.tally.precision()) + ")");
  }
  // Identity.
  if (is_color(param.format)) {
    target(ours.mot.idf1 >= kIdf1Floor, key, "idf1>=0.9",
           where + ": IDF1 " + fixed(ours.mot.idf1) + " below " + fixed(kIdf1Floor, 2));
    target(ours.mot.idf1 >= peer.mot.idf1, key, "idf1>=mog2",
           where + ": IDF1 " + fixed(ours.mot.idf1) + " below MOG2's " + fixed(peer.mot.idf1));
    // Every object must have been found at all (a sequence whose objects hide proves
    // nothing).
    EXPECT_EQ(ours.tally.matches.size(), size_t(param.spec.objects))
        << where << ": an object was never found";
  }
  target(ours.mot.id_switches <= peer.mot.id_switches, key, "idsw<=mog2",
         where + ": " + std::to_string(ours.mot.id_switches) + " ID switches, MOG2 " +
             std::to_string(peer.mot.id_switches));
}

INSTANTIATE_TEST_SUITE_P(Family, Quality, ::testing::ValuesIn(family_runs()), run_name);

struct StepRun {
  std::string base;  // the family member
  int direction;     // +1 brighter, -1 darker
  Format format;
};

void PrintTo(const StepRun& run, std::ostream* os) {
  *os << case_name(step_spec(run.base, run.direction), run.format);
}

std::vector<StepRun> step_runs() {
  std::vector<StepRun> r;
  for (const char* base : kStepBases)
    for (int d : {+1, -1})
      for (Format f : kFormats) r.push_back({base, d, f});
  return r;
}

std::string step_name(const ::testing::TestParamInfo<StepRun>& info) {
  return info.param.base + (info.param.direction > 0 ? "_up_" : "_down_") + to_string(info.param.format);
}

class LightStep : public ::testing::TestWithParam<StepRun> {};

TEST_P(LightStep, NoFloodAndObjectsStillFound) {
  std::string why;
  const std::vector<Photo>* photos = photos_or_skip(&why);
  if (!photos) GTEST_SKIP() << "color photographs unavailable: " << why;
  const StepRun& param = GetParam();
  const SequenceSpec spec = step_spec(param.base, param.direction);
  const Evaluation& base = evaluation(base_spec(param.base), *photos);
  const Evaluation& step = evaluation(spec, *photos);
  const Scores& ours = step.run(param.format).ours;
  const Scores& peer = step.run(param.format).peer;
  const Scores& ours_base = base.run(param.format).ours;
  const std::string where = case_name(spec, param.format);
  const double recall = ours.recall_except(spec.step_frame);
  const double recall_base = ours_base.recall_except(spec.step_frame);
  std::cout << where << ": frames with a component over " << fixed(100 * kFloodShare, 0)
            << " % of the frame in the " << kStepWindow << " from the step on: ours " << ours.flooded
            << " (largest " << fixed(ours.largest_share) << "), MOG2 " << peer.flooded << " (largest "
            << fixed(peer.largest_share) << "), without the step ours " << ours_base.flooded
            << "; ours' recall " << fixed(recall) << " (without the step " << fixed(recall_base) << ")\n";
  const std::string key = spec.name + " " + to_string(param.format);
  target(ours.flooded <= kMaxFlooded, key, "flooded<=5",
         where + ": the light step floods the frame (" + std::to_string(ours.flooded) +
             " frames with a component over " + fixed(100 * kFloodShare, 0) + " % of it, of the " +
             std::to_string(kStepWindow) + " from the step on)");
  target(recall >= recall_base - kSlack, key, "step-recall",
         where + ": the step costs objects (recall " + fixed(recall) +
             " over the frames but the step's, against " + fixed(recall_base) +
             " for the same sequence without it)");
}

INSTANTIATE_TEST_SUITE_P(Family, LightStep, ::testing::ValuesIn(step_runs()), step_name);

// The generator gives what the scores rely on.
class Generator : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    photos_ = photos_or_skip(&why);
    if (!photos_) GTEST_SKIP() << "color photographs unavailable: " << why;
  }
  const std::vector<Photo>* photos_ = nullptr;
};

/// The sequences are planned once for the generator's tests.
const Sequence& sequence(const SequenceSpec& spec, const std::vector<Photo>& photos) {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<Sequence>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto& s = cache[spec.name];
  if (!s) s = std::make_unique<Sequence>(spec, photos);
  return *s;
}

TEST_F(Generator, SameSeedSameFrames) {
  const SequenceSpec spec = family()[1];
  const Sequence a(spec, *photos_), b(spec, *photos_);
  cv::Mat fa, fb;
  FrameTruth ta, tb;
  for (int t : {0, 57, 150, 260}) {
    a.render(t, fa, ta);
    b.render(t, fb, tb);
    EXPECT_EQ(cv::norm(fa, fb, cv::NORM_INF), 0.0) << "frame " << t;
    EXPECT_EQ(ta.owner, tb.owner) << "frame " << t;
  }
  a.render(0, fa, ta);
  EXPECT_TRUE(ta.objects.empty()) << "frame 0 must show the scene alone";
}

// A spec of the fields from before the recipe (contrast 0: the older objects, linear
// light change, random stops) still plans and renders as before.
TEST_F(Generator, OlderSpecsStillWork) {
  SequenceSpec spec;
  spec.name = "older_coffee";
  spec.background = "coffee";
  spec.textures = {"astronaut", "ihc", "chelsea"};
  spec.width = 320, spec.height = 240, spec.frames = 240, spec.objects = 4;
  spec.seed = 101, spec.noise_sigma = 3.0, spec.illumination = -0.10;
  const Sequence seq(spec, *photos_);
  const SequenceStats& st = seq.stats();
  EXPECT_GE(st.crossing_pairs, 1);
  EXPECT_GE(st.longest_stop, 15);
  EXPECT_LE(st.longest_contact, 10);
  EXPECT_LT(st.last_exit, spec.frames);
  EXPECT_NEAR(seq.gain(spec.frames - 1), 0.9, 1e-9);
  cv::Mat rgb;
  FrameTruth truth;
  seq.render(0, rgb, truth);
  EXPECT_TRUE(truth.objects.empty());
  int seen = 0;
  for (int t = 30; t < spec.frames; t += 30) {
    seq.render(t, rgb, truth);
    seen += int(truth.objects.size());
  }
  EXPECT_GT(seen, 0);
}

// The step changes the light and nothing else: the same objects where they were, the
// same noise.
TEST_F(Generator, StepChangesOnlyTheLight) {
  const SequenceSpec spec = step_spec(kStepBases[0], +1);
  const Sequence& with = sequence(spec, *photos_);
  const Sequence& without = sequence(base_spec(kStepBases[0]), *photos_);
  cv::Mat a, b;
  FrameTruth ta, tb;
  for (int t : {kStepFrame - 1, kStepFrame, kStepFrame + 50}) {
    with.render(t, a, ta);
    without.render(t, b, tb);
    EXPECT_EQ(ta.owner, tb.owner) << "frame " << t;
    if (t < kStepFrame) {
      EXPECT_EQ(cv::norm(a, b, cv::NORM_INF), 0.0) << "frame " << t;
    }
  }
  EXPECT_NEAR(with.gain(kStepFrame) / with.gain(kStepFrame - 1),
              (1 + kLightStep) * without.gain(kStepFrame) / without.gain(kStepFrame - 1), 1e-9);
}

TEST_F(Generator, EverySequenceCrossesBouncesStopsAndEmpties) {
  for (const SequenceSpec& spec : family()) {
    const Sequence& seq = sequence(spec, *photos_);
    const SequenceStats& st = seq.stats();
    std::cout << spec.name << ": " << spec.objects << " objects, " << st.crossing_pairs
              << " crossing pairs (longest contact " << st.longest_contact << " frames), "
              << st.bounces << " bouncing, " << st.stopped_objects << " stopped (longest "
              << st.longest_stop << " frames from frame " << st.longest_stop_start
              << "), all gone after frame " << st.last_exit << " (plan " << st.attempts << ")\n";
    EXPECT_GE(spec.objects, 5) << spec.name;
    EXPECT_LE(spec.objects, 7) << spec.name;
    EXPECT_GE(st.crossing_pairs, 1) << spec.name;
    // Contacts shorter than ccl::Tracker's max_lost (15), with a margin.
    EXPECT_LE(st.longest_contact, 10) << spec.name;
    EXPECT_GE(st.bounces, 1) << spec.name;
    EXPECT_EQ(st.longest_stop, 40) << spec.name;
    // Begun late enough to stay foreground under history 500 (sequence.cpp).
    EXPECT_GE(0.2 * st.longest_stop_start, st.longest_stop) << spec.name;
    EXPECT_LT(st.last_exit, spec.frames) << spec.name;
    cv::Mat rgb;
    FrameTruth truth;
    seq.render(spec.frames - 1, rgb, truth);
    EXPECT_TRUE(truth.objects.empty()) << spec.name << ": an object is still in the last frame";
  }
}

// True when an object covers a pixel next to (x, y): the soft rim of an object blends
// into such pixels without making them the object's.
bool near_object(const FrameTruth& truth, int x, int y) {
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) {
      const int u = x + dx, v = y + dy;
      if (u >= 0 && v >= 0 && u < truth.width && v < truth.height &&
          truth.owner[size_t(v) * truth.width + u])
        return true;
    }
  return false;
}

// Objects differ from the scene behind them by the spec's contrast: averaged over
// object-frames, the object's mean luma is within 0.8..1.1 of `contrast` levels (times
// the frame's light) of the scene's mean luma under it (the soft rim and clipping at 0
// and 255 take a little), brighter ones and darker ones; and pixel by pixel the
// difference (texture against texture, noise included) averages at most 60 levels (a
// flat bright blob would be 100 or more on these scenes). Shadows, where cast, are
// darker copies of the scene: never below 0.55 of the scene's light outside objects
// (their core is 0.59..0.65), and of the same chromaticity (every channel darkened by
// the same factor, up to noise). Without shadows nothing outside objects is darker than
// noise explains.
TEST_F(Generator, ContrastAndShadowsAsSpecified) {
  for (const SequenceSpec& spec : family()) {
    const Sequence& seq = sequence(spec, *photos_);
    double shift = 0, pixel_diff = 0, chroma_error = 0;
    uint64_t object_frames = 0, object_pixels = 0, shaded = 0, brighter = 0, darker = 0;
    double darkest = 1;
    cv::Mat rgb;
    FrameTruth truth;
    auto luma = [](double r, double g, double b) { return 0.299 * r + 0.587 * g + 0.114 * b; };
    for (int t = kWarmup; t < spec.frames; t += 5) {
      seq.render(t, rgb, truth);
      const cv::Mat scene = seq.scene(t);
      std::map<int, std::pair<double, double>> sums;  // object id -> (frame luma, scene luma)
      for (int y = 0; y < rgb.rows; ++y)
        for (int x = 0; x < rgb.cols; ++x) {
          const uint8_t* p = rgb.ptr<uint8_t>(y) + 3 * x;
          const float* s = scene.ptr<float>(y) + 3 * x;
          const double lp = luma(p[0], p[1], p[2]), ls = luma(s[0], s[1], s[2]);
          if (const int id = truth.owner[size_t(y) * rgb.cols + x]) {
            sums[id].first += lp;
            sums[id].second += ls;
            pixel_diff += std::abs(lp - ls);
            ++object_pixels;
          } else if (ls > 60 && !near_object(truth, x, y)) {
            const double ratio = lp / ls;
            darkest = std::min(darkest, (lp + 3 * spec.noise_sigma) / ls);
            if (ratio < 0.8 && std::min({s[0], s[1], s[2]}) > 80) {
              for (int c = 0; c < 3; ++c) chroma_error += std::abs(p[c] / s[c] - ratio);
              ++shaded;
            }
          }
        }
      for (const ObjectTruth& o : truth.objects) {
        if (o.pixels < kMinVisible) continue;
        const auto& [frame_sum, scene_sum] = sums[o.id];
        const double d = (frame_sum - scene_sum) / o.pixels / seq.gain(t);
        shift += std::abs(d);
        (d > 0 ? brighter : darker) += 1;
        ++object_frames;
      }
    }
    ASSERT_GT(object_frames, 0u) << spec.name;
    shift /= double(object_frames);
    pixel_diff /= double(object_pixels);
    std::cout << spec.name << ": object mean luma " << fixed(shift, 1) << " levels (contrast "
              << fixed(spec.contrast, 0) << ") from the scene's behind it (" << brighter
              << " object-frames brighter, " << darker << " darker), per pixel "
              << fixed(pixel_diff, 1) << "; darkest scene pixel " << fixed(darkest, 2)
              << " of its light";
    EXPECT_GE(shift, 0.8 * spec.contrast) << spec.name;
    EXPECT_LE(shift, 1.1 * spec.contrast) << spec.name;
    EXPECT_GT(brighter, object_frames / 5) << spec.name;
    EXPECT_GT(darker, object_frames / 5) << spec.name;
    EXPECT_LE(pixel_diff, 60.0) << spec.name;
    if (spec.shadows) {
      ASSERT_GT(shaded, 0u) << spec.name << ": no shadow on a bright part of the scene";
      chroma_error /= 3.0 * double(shaded);
      std::cout << "; shadow channels " << fixed(chroma_error, 3) << " off the luma ratio\n";
      EXPECT_GE(darkest, 0.55) << spec.name;
      EXPECT_LE(darkest, 0.7) << spec.name << ": shadows are not as dark as specified";
      // Noise of a few levels on channels above 80 moves a ratio by a few hundredths.
      EXPECT_LE(chroma_error, 0.05) << spec.name;
    } else {
      std::cout << "; no shadows\n";
      EXPECT_GE(darkest, 0.85) << spec.name << ": a shadow where none is cast";
    }
  }
}

// The light follows the spec: the scene's light outside objects, frame against the
// first, is the spec's drift (+-8 %), and the step multiplies it in one frame.
TEST_F(Generator, LightDriftsAndSteps) {
  SequenceSpec spec = step_spec(kStepBases[1], -1);
  spec.shadows = false;  // the ratio is measured over the scene, shadows would take a share
  spec.name += "_no_shadows";
  const Sequence seq(spec, *photos_);
  cv::Mat first, rgb;
  FrameTruth truth0, truth;
  seq.render(0, first, truth0);
  const cv::Mat scene0 = seq.scene(0);
  for (int t : {kStepFrame - 25, kStepFrame - 1, kStepFrame, 225, 270}) {
    seq.render(t, rgb, truth);
    double sum = 0, sum0 = 0;
    for (int y = 0; y < rgb.rows; ++y)
      for (int x = 0; x < rgb.cols; ++x) {
        const float* s = scene0.ptr<float>(y) + 3 * x;
        const double ls = 0.299 * s[0] + 0.587 * s[1] + 0.114 * s[2];
        // Away from objects and from levels the brightest light would clip.
        if (ls < 20 || ls > 170 || near_object(truth, x, y) || truth.owner[size_t(y) * rgb.cols + x])
          continue;
        const uint8_t* p = rgb.ptr<uint8_t>(y) + 3 * x;
        const uint8_t* q = first.ptr<uint8_t>(y) + 3 * x;
        sum += p[0] + p[1] + p[2];
        sum0 += q[0] + q[1] + q[2];
      }
    const double drift = 1 + spec.drift * std::sin(2 * 3.14159265358979 * t / spec.frames);
    const double expected = drift * (t >= kStepFrame ? 1 + spec.light_step : 1.0);
    EXPECT_NEAR(sum / sum0, expected, 0.01) << "frame " << t;
  }
}

class Report : public ::testing::Environment {
 public:
  void TearDown() override {
    if (evaluations.empty()) return;
    print_table(std::cout);
    print_light_table(std::cout);
    print_times(std::cout);
    if (const char* csv = std::getenv("CCL_QUALITY_CSV"); csv && *csv) {
      write_csv(csv);
      std::cout << "table written to " << csv << "\n";
      bool steps = false;
      for (const auto& e : evaluations) steps = steps || !is_family(*e);
      if (steps) {
        write_light_csv(light_csv_name(csv));
        std::cout << "light-step table written to " << light_csv_name(csv) << "\n";
      }
    }
  }
};

}  // namespace
}  // namespace ccl::quality

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  // OpenCV would spread MOG2 over every core; one thread per detector, like our CPU
  // stage, so that the printed times compare like with like. The suite's own threads
  // (CCL_QUALITY_THREADS) run the formats of a sequence side by side.
  cv::setNumThreads(1);
  ::testing::AddGlobalTestEnvironment(new ccl::quality::Report);
  return RUN_ALL_TESTS();
}
