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

/// The color photographs of the cache (tests/quality/fetch-color.sh fills it on first
/// use, under the test-image cache directory). Empty, with *why set, when they cannot
/// be had.
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

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ccl::quality
