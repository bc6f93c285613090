// Standard multi-object-tracking scores, accumulated frame by frame: CLEAR MOT
// (Bernardin & Stiefelhagen 2008: MOTA, MOTP, ID switches; fragmentations as in MOT16)
// and the identity scores of Ristani et al. 2016 (IDF1, IDP, IDR). Both use the IoU of
// boxes as the similarity, a pair counting only at IoU >= the threshold, so the numbers
// compare with published ones (MOTChallenge uses 0.5).
//
// Matching, per frame: a truth object keeps the hypothesis it had in the previous frame
// while that pair is still above the threshold (so a near tie never moves an id that
// was right); the rest are paired by an optimal assignment that first makes as many
// pairs as possible (each saves a miss and a false positive, which is what MOTA counts)
// and among those maximizes the total IoU. Ties go by id order, never by the order the
// boxes were listed in.
//
// Ignored truth boxes (objects too little visible for either answer to be wrong) take
// part in that matching jointly with the counted ones, as in the MOTChallenge kit
// (match everything, then drop what fell on ignored objects): a hypothesis paired with
// one is dropped from every score, and an unpaired one is no miss. Such a pairing is
// not a match: it neither counts an ID switch nor becomes the object's last track for
// the next switch, and it neither interrupts nor resumes the object's trajectory for
// fragmentations; it does carry over to the next frame's kept pairs, since the pair
// was found the same way as any other.
//
// Ids must be unique within one frame's truth and within its hypotheses.
#pragma once

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace ccl::quality {

struct MotBox {
  uint64_t id = 0;  // truth: object id; hypothesis: track id
  int x = 0, y = 0, width = 0, height = 0;
  bool ignore = false;  // truth only: see the file comment; unused on hypotheses
};

struct MotSummary {
  uint64_t frames = 0;
  uint64_t truth = 0;       // non-ignored truth boxes
  uint64_t hypotheses = 0;  // hypothesis boxes, less those dropped on ignored truth
  uint64_t matches = 0, misses = 0, false_positives = 0, id_switches = 0, fragmentations = 0;
  // 1 - (misses + false_positives + id_switches) / truth; unbounded below. Without truth
  // boxes: 1 when there is no false positive either, else -infinity (the limit).
  double mota = 0;
  // Mean IoU over the matches: higher is better (1: every matched box exact), unlike
  // the distance form of the original paper. 0 when nothing matched.
  double motp = 0;
  uint64_t idtp = 0, idfp = 0, idfn = 0;
  // 2 idtp / (2 idtp + idfp + idfn), idtp / hypotheses, idtp / truth; each is 1 when its
  // denominator is 0 (nothing to find, nothing reported: nothing wrong).
  double idf1 = 0, idp = 0, idr = 0;
};

class MotAccumulator {
 public:
  /// A pair counts at IoU >= iou_threshold, which must lie in (0, 1].
  explicit MotAccumulator(double iou_threshold = 0.5);
  /// Adds one frame. Throws std::invalid_argument on a repeated id in either list.
  void add_frame(const std::vector<MotBox>& truth, const std::vector<MotBox>& hypotheses);
  /// The scores so far (may be called at any time; IDF1 is over all frames so far).
  MotSummary summary() const;

 private:
  // Per truth object, what the switch and fragmentation counts need from its past.
  struct History {
    bool matched = false;     // matched in some earlier frame
    uint64_t last_hyp = 0;    // the track of its latest match
    bool interrupted = false;  // missed since its latest match
  };

  void count_truth(const std::vector<MotBox>& truth, const std::vector<MotBox>& hyps,
                   const std::vector<int>& hyp_of, const std::vector<std::vector<double>>& iou);
  void count_hypotheses(const std::vector<MotBox>& truth, const std::vector<int>& truth_of);
  void count_cooccurrence(const std::vector<MotBox>& truth, const std::vector<MotBox>& hyps,
                          const std::vector<int>& truth_of,
                          const std::vector<std::vector<double>>& iou);
  void fill_identity(MotSummary& s) const;

  double threshold_;
  MotSummary counts_;  // the counters; summary() derives the ratios
  double iou_sum_ = 0;
  std::map<uint64_t, uint64_t> previous_;  // truth id -> track id, last frame's pairs
  std::map<uint64_t, History> history_;
  // (truth id, track id) -> frames in which the two overlap at the threshold, counted
  // truth and kept hypotheses only: all IDF1 needs.
  std::map<std::pair<uint64_t, uint64_t>, uint64_t> cooccurrence_;
};

/// IoU of two boxes, each covering [x, x+width) x [y, y+height); 0 for empty boxes.
double box_iou(const MotBox& a, const MotBox& b);

/// Minimum-cost assignment of a rectangular matrix (rows of equal length, finite
/// costs): per row, its column, or -1. Every row gets a column when there are no more
/// rows than columns, else every column gets a row. O(n^2 m) for n <= m. Deterministic:
/// among equal-cost answers the same matrix always gives the same one.
std::vector<int> min_cost_assignment(const std::vector<std::vector<double>>& cost);

}  // namespace ccl::quality
