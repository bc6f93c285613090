// Scores of a detector against a sequence's truth, accumulated frame by frame.
//
// Objects: a reported component finds an object when their boxes overlap with IoU >=
// 0.5, pairs taken greedily by IoU, one to one. An object counts (for recall) in the
// frames where at least `min_visible` of its pixels are seen; a component matched to an
// object that shows fewer pixels (entering, leaving, mostly hidden) is neither a hit
// nor a false report: it is ignored, since neither answer is wrong there.
// Pixels: the cleaned mask against the union of the objects' visible pixels.
// Identity: the track ids of the components matched to each object, frame by frame,
// outside crossings. While two objects are in contact they may show as one component,
// which by the tracker's design carries one of their ids whichever object's box it
// happens to match; what matters is that each object has its own id before and after.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "ccl/reference.h"
#include "pipelines.h"
#include "sequence.h"

namespace ccl::quality {

/// Matches within this many frames of a contact of the object are left out of the
/// identity scores (a mask may stay joined a frame or two beyond the truth's contact).
constexpr int kContactMargin = 2;

struct Tally {
  uint64_t frames = 0;
  uint64_t visible = 0;   // (object, frame) pairs that count for recall
  uint64_t found = 0;     // of those, matched
  uint64_t reported = 0;  // components, less the ignored ones
  uint64_t correct = 0;   // of those, matched
  uint64_t ignored = 0;
  uint64_t tp = 0, fp = 0, fn = 0;  // pixels
  /// Per object id: (frame, track id) of its matched component in each frame it was
  /// found, and the frames in which it was in contact with another object.
  std::map<int, std::vector<std::pair<int, uint64_t>>> matches;
  std::map<int, std::vector<int>> contacts;

  double recall() const { return visible ? double(found) / double(visible) : 1.0; }
  double precision() const { return reported ? double(correct) / double(reported) : 1.0; }
  double f_measure() const {
    return tp ? 2.0 * double(tp) / double(2 * tp + fp + fn) : (fp + fn ? 0.0 : 1.0);
  }

  /// An object's matches away from contacts (the ones identity is judged on).
  std::vector<std::pair<int, uint64_t>> identity(int object) const;
  /// Changes of track id between consecutive matches of identity(), over all objects.
  int id_switches() const;
  /// Of those, the ones with a contact of the object between the two matches: the
  /// tracker did not give the ids back after a crossing.
  int crossing_switches() const;
  /// The most distinct track ids any object had (1: every object kept one id).
  int most_ids() const;
  /// The lowest share, over objects, of identity() matches that carry the object's most
  /// frequent track id (1: every object kept one id).
  double majority_share() const;
  /// "frame:id frame:id ..." at each change of an object's track id in identity().
  std::string id_history(int object) const;
};

double iou(int ax, int ay, int aw, int ah, int bx, int by, int bw, int bh);

/// Adds frame `frame` to `tally`.
void score_frame(int frame, const FrameTruth& truth, const std::vector<Detection>& detections,
                 const BinaryImage& mask, int min_visible, Tally& tally);

}  // namespace ccl::quality
