// Synthetic surveillance-like sequences with ground truth, for judging the foreground
// stage against a peer: a real color photograph as the static scene, a few textured
// objects of modest contrast moving along paths (crossing, stopping, leaving), soft
// cast shadows, slow global illumination drift and sensor noise. Everything follows
// from the spec's seed, and any frame can be rendered on its own (random access), so
// a failure can be reproduced from the printed spec alone.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <opencv2/core.hpp>

namespace ccl::quality {

/// A color photograph, 8-bit RGB (channel order R, G, B).
struct Photo {
  std::string name;
  cv::Mat rgb;  // CV_8UC3
};

/// The color photographs of python3-skimage in the test-image cache
/// (test::real_color_images, fetched on first use). Empty, with *why set, when they
/// cannot be had.
std::vector<Photo> color_photos(std::string* why);

struct SequenceSpec {
  std::string name;
  std::string background;             // photo the static scene is cropped from
  std::vector<std::string> textures;  // photos object textures are cut from
  int width = 320;
  int height = 240;
  int frames = 240;
  int objects = 4;  // 1..8
  uint64_t seed = 1;
  /// Standard deviation of the sensor noise, per RGB channel, in intensity levels.
  double noise_sigma = 3.0;
  /// Relative change of the light between the first and the last frame (-0.1: the
  /// scene ends 10 % darker), linear in time.
  double illumination = 0.0;

  // The recipe of the camera-video family (docs/FOREGROUND.md, "Quality"); every field
  // below at its default leaves the sequence as the fields above make it.

  /// > 0: each object is a texture cut from one of `textures`, blended 55/45 with the
  /// scene under it, whose mean differs from that scene by this many levels in every
  /// channel (and so in luma), brighter and darker objects alternating; the object
  /// differs from the scene by that offset plus 0.55 of the texture's departure from
  /// the scene's. 0: the older objects (a texture of lowered contrast whose mean color
  /// is pulled toward the scene's mean).
  double contrast = 0.0;
  /// Object radii relative to the default range of 0.055..0.10 of the frame's shorter
  /// side (0.7: small objects, 1.3: large ones).
  double object_scale = 1.0;
  /// Objects cast shadows: the scene under a full shadow is multiplied by shadow_gain
  /// (+-0.03 per object; with contrast 0, by 0.6..0.75 as before).
  bool shadows = true;
  double shadow_gain = 0.62;
  /// Slow light drift: the light is multiplied by 1 + drift sin(2 pi t / drift_period)
  /// (0.08: +-8 %); drift_period 0: one period over the sequence.
  double drift = 0.0;
  int drift_period = 0;
  /// A sudden change of light: from frame step_frame on, the light is multiplied by
  /// 1 + light_step (0.35: 35 % brighter in one frame). The plan (objects, paths) and
  /// the noise do not depend on it: the same spec without the step shows the same
  /// objects.
  double light_step = 0.0;
  int step_frame = 100;
  /// > 0: object 1 stands still this many frames at a point of its path (with contrast
  /// > 0 other objects may bounce off the frame's edges too). Its arrival there is
  /// scheduled late enough that a model of history 500 learning at 1/min(2n, 500) still
  /// sees it as foreground when it sets off again (see sequence.cpp): the sequence must
  /// be long enough for that (about 5 long_stop frames plus the way out).
  int long_stop = 0;
};

/// One object as a frame shows it: only its unoccluded pixels inside the frame count.
struct ObjectTruth {
  int id = 0;  // 1..objects, stable over the sequence
  int x = 0, y = 0, width = 0, height = 0;  // box of the visible pixels
  int pixels = 0;
};

struct FrameTruth {
  int width = 0, height = 0;
  /// Objects with at least one visible pixel, by id.
  std::vector<ObjectTruth> objects;
  /// Per pixel, row-major: 0 for the scene (shadows included), else the id of the
  /// object seen there.
  std::vector<uint8_t> owner;
  /// Pairs of object ids (smaller first) in contact: silhouettes within 4 pixels of
  /// each other (or overlapping), so that a 5x5 closing can join them.
  std::vector<std::pair<int, int>> contacts;
};

/// What the plan of a sequence contains, for the printed summary and the generator's
/// own checks.
struct SequenceStats {
  int crossing_pairs = 0;   // pairs of objects whose silhouettes overlap in some frame
  int longest_contact = 0;  // frames two objects are in a row within 4 pixels of each other
  int stopped_objects = 0;  // objects that stand still for 10 frames or more
  int longest_stop = 0;     // frames
  int longest_stop_start = 0;  // frame at which the longest stop begins
  int bounces = 0;          // objects whose path touches a frame edge and turns back
  int last_exit = 0;        // frame after which no object is in view
  int attempts = 0;         // plans drawn until one had all the above
};

class Sequence {
 public:
  /// Throws std::runtime_error when a photo of the spec is missing or the spec cannot
  /// be planned (too short for its objects to cross the frame).
  Sequence(const SequenceSpec& spec, const std::vector<Photo>& photos);
  ~Sequence();
  Sequence(Sequence&&) noexcept;
  Sequence& operator=(Sequence&&) noexcept;

  const SequenceSpec& spec() const;
  const SequenceStats& stats() const;

  /// Frame t (0 <= t < frames): 8-bit RGB after illumination and noise (CV_8UC3), and
  /// its truth. Frame 0 never shows an object (it is the scene a model learns first).
  /// `clean`, when given, receives the frame before the noise (32-bit float RGB).
  void render(int t, cv::Mat& rgb, FrameTruth& truth, cv::Mat* clean = nullptr) const;

  /// Frame t without objects, shadows and noise (the scene under that frame's light),
  /// 32-bit float RGB: what "contrast" is measured against.
  cv::Mat scene(int t) const;

  /// The light of frame t relative to the scene's own (drift, slow change and step).
  double gain(int t) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ccl::quality
