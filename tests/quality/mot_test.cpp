// The tracking scores (mot.h) on toy sequences small enough to score by hand: every
// expected value below is worked out in the comment beside it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>

#include "mot.h"

namespace ccl::quality {
namespace {

// Boxes are 10 x 10 on one row unless stated: IoU then depends on x alone, as
// overlap / (200 - overlap) for an x overlap of `overlap` pixels times 10.
MotBox box(uint64_t id, int x, int y = 0, int width = 10, int height = 10) {
  MotBox b;
  b.id = id;
  b.x = x;
  b.y = y;
  b.width = width;
  b.height = height;
  return b;
}

MotBox ignored(uint64_t id, int x) {
  MotBox b = box(id, x);
  b.ignore = true;
  return b;
}

void expect_same(const MotSummary& a, const MotSummary& b) {
  EXPECT_EQ(a.frames, b.frames);
  EXPECT_EQ(a.truth, b.truth);
  EXPECT_EQ(a.hypotheses, b.hypotheses);
  EXPECT_EQ(a.matches, b.matches);
  EXPECT_EQ(a.misses, b.misses);
  EXPECT_EQ(a.false_positives, b.false_positives);
  EXPECT_EQ(a.id_switches, b.id_switches);
  EXPECT_EQ(a.fragmentations, b.fragmentations);
  EXPECT_EQ(a.mota, b.mota);
  EXPECT_EQ(a.motp, b.motp);
  EXPECT_EQ(a.idtp, b.idtp);
  EXPECT_EQ(a.idfp, b.idfp);
  EXPECT_EQ(a.idfn, b.idfn);
  EXPECT_EQ(a.idf1, b.idf1);
}

TEST(BoxIou, ExactValues) {
  EXPECT_EQ(box_iou(box(1, 0), box(2, 0)), 1.0);
  EXPECT_EQ(box_iou(box(1, 0, 0, 10, 10), box(2, 0, 0, 10, 5)), 0.5);  // 50 / 100
  EXPECT_DOUBLE_EQ(box_iou(box(1, 0), box(2, 1)), 90.0 / 110.0);
  EXPECT_EQ(box_iou(box(1, 0), box(2, 10)), 0.0);        // touching edges share no pixel
  EXPECT_EQ(box_iou(box(1, 0), box(2, 0, 10)), 0.0);     // one row below
  EXPECT_EQ(box_iou(box(1, 0), box(2, 0, 0, 0, 10)), 0.0);  // empty box
  EXPECT_EQ(box_iou(box(1, 0, 0, 0, 0), box(2, 0, 0, 0, 0)), 0.0);
}

// Brute force over injective row -> column maps; rows <= cols.
double best_cost(const std::vector<std::vector<double>>& cost) {
  const size_t rows = cost.size(), cols = cost[0].size();
  std::vector<size_t> perm(cols);
  std::iota(perm.begin(), perm.end(), 0);
  double best = std::numeric_limits<double>::infinity();
  do {
    double sum = 0;
    for (size_t r = 0; r < rows; ++r) sum += cost[r][perm[r]];
    best = std::min(best, sum);
  } while (std::next_permutation(perm.begin(), perm.end()));
  return best;
}

TEST(MinCostAssignment, MatchesBruteForce) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> size(1, 5), value(0, 9);
  for (int trial = 0; trial < 300; ++trial) {
    const size_t rows = size_t(size(rng)), cols = size_t(size(rng));
    std::vector<std::vector<double>> cost(rows, std::vector<double>(cols));
    for (auto& row : cost)
      for (double& c : row) c = value(rng);
    const std::vector<int> col_of = min_cost_assignment(cost);
    ASSERT_EQ(col_of.size(), rows);
    std::vector<bool> used(cols, false);
    double sum = 0;
    size_t assigned = 0;
    for (size_t r = 0; r < rows; ++r) {
      if (col_of[r] < 0) continue;
      ASSERT_LT(size_t(col_of[r]), cols);
      ASSERT_FALSE(used[size_t(col_of[r])]) << "column used twice";
      used[size_t(col_of[r])] = true;
      sum += cost[r][size_t(col_of[r])];
      ++assigned;
    }
    ASSERT_EQ(assigned, std::min(rows, cols));
    std::vector<std::vector<double>> t(cols, std::vector<double>(rows));
    for (size_t r = 0; r < rows; ++r)
      for (size_t c = 0; c < cols; ++c) t[c][r] = cost[r][c];
    EXPECT_EQ(sum, rows <= cols ? best_cost(cost) : best_cost(t)) << "trial " << trial;
  }
}

TEST(MinCostAssignment, TiesAndEdges) {
  // All costs equal: each row takes the lowest column still free.
  const std::vector<std::vector<double>> flat(3, std::vector<double>(3, 0.25));
  EXPECT_EQ(min_cost_assignment(flat), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(min_cost_assignment({}), std::vector<int>{});
  EXPECT_EQ(min_cost_assignment({{}, {}}), (std::vector<int>{-1, -1}));
  EXPECT_EQ(min_cost_assignment({{5}, {1}, {3}}), (std::vector<int>{-1, 0, -1}));
  EXPECT_THROW(min_cost_assignment({{1, 2}, {3}}), std::invalid_argument);
}

TEST(Mot, PerfectTracking) {
  MotAccumulator acc;
  for (int f = 0; f < 4; ++f) acc.add_frame({box(1, f), box(2, 50 + f)}, {box(20, 50 + f), box(10, f)});
  const MotSummary s = acc.summary();
  EXPECT_EQ(s.frames, 4u);
  EXPECT_EQ(s.truth, 8u);
  EXPECT_EQ(s.hypotheses, 8u);
  EXPECT_EQ(s.matches, 8u);
  EXPECT_EQ(s.misses, 0u);
  EXPECT_EQ(s.false_positives, 0u);
  EXPECT_EQ(s.id_switches, 0u);
  EXPECT_EQ(s.fragmentations, 0u);
  EXPECT_EQ(s.mota, 1.0);
  EXPECT_EQ(s.motp, 1.0);
  EXPECT_EQ(s.idtp, 8u);
  EXPECT_EQ(s.idfp, 0u);
  EXPECT_EQ(s.idfn, 0u);
  EXPECT_EQ(s.idf1, 1.0);
  EXPECT_EQ(s.idp, 1.0);
  EXPECT_EQ(s.idr, 1.0);
}

// One object over 5 frames, tracked as 7 in frames 0-2 and as 8 in frames 3-4.
TEST(Mot, SingleIdSwitch) {
  MotAccumulator acc;
  for (int f = 0; f < 3; ++f) acc.add_frame({box(1, 0)}, {box(7, 0)});
  const MotSummary before = acc.summary();  // summary() mid-way: perfect so far
  EXPECT_EQ(before.id_switches, 0u);
  EXPECT_EQ(before.mota, 1.0);
  EXPECT_EQ(before.idf1, 1.0);
  for (int f = 3; f < 5; ++f) acc.add_frame({box(1, 0)}, {box(8, 0)});
  const MotSummary s = acc.summary();
  EXPECT_EQ(s.matches, 5u);
  EXPECT_EQ(s.id_switches, 1u);
  EXPECT_EQ(s.fragmentations, 0u);
  EXPECT_DOUBLE_EQ(s.mota, 0.8);  // 1 - 1/5
  // The object pairs with track 7 (3 frames); track 8's 2 frames are false, and the
  // object's 2 frames under 8 are missed: 2*3 / (2*3 + 2 + 2).
  EXPECT_EQ(s.idtp, 3u);
  EXPECT_EQ(s.idfp, 2u);
  EXPECT_EQ(s.idfn, 2u);
  EXPECT_DOUBLE_EQ(s.idf1, 0.6);
  EXPECT_DOUBLE_EQ(s.idp, 0.6);
  EXPECT_DOUBLE_EQ(s.idr, 0.6);
}

TEST(Mot, MissesAndFalsePositives) {
  MotAccumulator acc;
  acc.add_frame({box(1, 0)}, {box(1, 0), box(7, 100)});              // match, FP
  acc.add_frame({box(1, 0)}, {});                                    // miss
  acc.add_frame({box(1, 0), box(2, 50)},                             // match at IoU 0.5
                {box(1, 0, 0, 10, 5), box(8, 100), box(9, 200)});    // (the bar is >=),
                                                                     // miss, 2 FPs
  const MotSummary s = acc.summary();
  EXPECT_EQ(s.truth, 4u);
  EXPECT_EQ(s.hypotheses, 5u);
  EXPECT_EQ(s.matches, 2u);
  EXPECT_EQ(s.misses, 2u);
  EXPECT_EQ(s.false_positives, 3u);
  EXPECT_EQ(s.id_switches, 0u);
  EXPECT_EQ(s.fragmentations, 1u);  // object 1: matched, missed, matched
  EXPECT_EQ(s.mota, -0.25);         // 1 - (2 + 3) / 4: not clamped at 0
  EXPECT_EQ(s.motp, 0.75);          // (1 + 0.5) / 2
  EXPECT_EQ(s.idtp, 2u);            // object 1 with track 1
  EXPECT_EQ(s.idfp, 3u);
  EXPECT_EQ(s.idfn, 2u);
  EXPECT_DOUBLE_EQ(s.idf1, 4.0 / 9.0);
  EXPECT_DOUBLE_EQ(s.idp, 0.4);
  EXPECT_EQ(s.idr, 0.5);
}

// Objects 1 [0,10) and 2 [4,14); tracks 1 [1,11) and 2 [-3,7). IoU(1,1) = 9/11 is the
// best pair, and taking it first (greedy) leaves object 2 with track 2 at 3/17: one
// match. The optimum pairs 1-2 and 2-1, 7/13 each: two matches.
TEST(Mot, CrossingNeedsOptimalAssignment) {
  MotAccumulator acc;
  acc.add_frame({box(1, 0), box(2, 4)}, {box(1, 1), box(2, -3)});
  const MotSummary s = acc.summary();
  EXPECT_EQ(s.matches, 2u);
  EXPECT_EQ(s.misses, 0u);
  EXPECT_EQ(s.false_positives, 0u);
  EXPECT_DOUBLE_EQ(s.motp, 7.0 / 13.0);
  // The identity matching faces the same choice: counts (1,1) (1,2) (2,1) are all 1.
  EXPECT_EQ(s.idtp, 2u);
  EXPECT_EQ(s.idf1, 1.0);

  MotAccumulator reversed;  // the listing order changes nothing
  reversed.add_frame({box(2, 4), box(1, 0)}, {box(2, -3), box(1, 1)});
  expect_same(reversed.summary(), s);
}

// A pair from the previous frame that still holds is kept, although swapping would give
// a higher total IoU; once it breaks, the object's new track is a switch.
TEST(Mot, KeepsPreviousPairs) {
  MotAccumulator acc;
  acc.add_frame({box(1, 0), box(2, 50)}, {box(1, 0), box(2, 50)});
  // Kept: 1-1 and 2-2 at 7/13 each, where 1-2 and 2-1 would be 1 each.
  acc.add_frame({box(1, 0), box(2, 3)}, {box(1, 3), box(2, 0)});
  EXPECT_EQ(acc.summary().id_switches, 0u);
  acc.add_frame({box(1, 0)}, {box(2, 0)});  // track 1 gone: object 1 takes track 2
  const MotSummary s = acc.summary();
  EXPECT_EQ(s.truth, 5u);
  EXPECT_EQ(s.matches, 5u);
  EXPECT_EQ(s.false_positives, 0u);
  EXPECT_EQ(s.id_switches, 1u);
  EXPECT_DOUBLE_EQ(s.mota, 0.8);              // 1 - 1/5
  EXPECT_DOUBLE_EQ(s.motp, 53.0 / 65.0);      // (1 + 1 + 7/13 + 7/13 + 1) / 5
  // Co-occurrences (1,1) 2, (1,2) 2, (2,1) 1, (2,2) 2: best 1-1 + 2-2 = 4 of 5 each.
  EXPECT_EQ(s.idtp, 4u);
  EXPECT_DOUBLE_EQ(s.idf1, 0.8);
}

// A chain where the most total IoU (1-1 and 2-2 at 1 each: 2 matches, 2) and the most
// matches (1-0, 2-1, 3-2 at 7/13 each: 3 matches, 21/13) disagree. Every extra match
// saves a miss and a false positive, so the matching makes the most matches first.
// Objects 1 [0,10), 2 [3,13), 3 [6,16); tracks 0 [-3,7), 1 [0,10), 2 [3,13).
TEST(Mot, MostMatchesFirst) {
  MotAccumulator acc;
  acc.add_frame({box(1, 0), box(2, 3), box(3, 6)}, {box(0, -3), box(1, 0), box(2, 3)});
  const MotSummary s = acc.summary();
  EXPECT_EQ(s.matches, 3u);
  EXPECT_EQ(s.misses, 0u);
  EXPECT_EQ(s.false_positives, 0u);
  EXPECT_DOUBLE_EQ(s.motp, 7.0 / 13.0);
}

// Two tracks on one object with the same IoU: the lower id wins, whatever the order.
TEST(Mot, TiesFollowIds) {
  MotAccumulator acc;
  acc.add_frame({box(1, 0)}, {box(5, 0), box(3, 0)});
  acc.add_frame({box(1, 0)}, {box(3, 0)});
  const MotSummary s = acc.summary();
  EXPECT_EQ(s.id_switches, 0u);
  EXPECT_EQ(s.false_positives, 1u);
}

// Object 1 is always counted and tracked as 1. Object 2 is ignored in frames 0 and 2
// (tracked there as 2, then 3) and counted in frames 1 and 3; object 3 is ignored and
// untracked. The hypotheses on ignored objects vanish from every count, and the match
// under track 3 in frame 2 is not the object's "last track": frame 3's match under 3
// switches from 2.
TEST(Mot, IgnoredTruth) {
  MotAccumulator acc;
  acc.add_frame({box(1, 0), ignored(2, 100), ignored(3, 200)}, {box(1, 0), box(2, 100)});
  acc.add_frame({box(1, 0), box(2, 100)}, {box(1, 0), box(2, 100)});
  acc.add_frame({box(1, 0), ignored(2, 100)}, {box(1, 0), box(3, 100)});
  acc.add_frame({box(1, 0), box(2, 100)}, {box(1, 0), box(3, 100)});
  const MotSummary s = acc.summary();
  EXPECT_EQ(s.truth, 6u);       // 1 + 2 + 1 + 2
  EXPECT_EQ(s.hypotheses, 6u);  // 2 of 8 dropped
  EXPECT_EQ(s.matches, 6u);
  EXPECT_EQ(s.misses, 0u);
  EXPECT_EQ(s.false_positives, 0u);
  EXPECT_EQ(s.id_switches, 1u);
  EXPECT_EQ(s.fragmentations, 0u);  // the ignored frame 2 does not interrupt object 2
  EXPECT_DOUBLE_EQ(s.mota, 5.0 / 6.0);
  // (1,1) 4, (2,2) 1, (2,3) 1 (frame 2's is dropped): 5.
  EXPECT_EQ(s.idtp, 5u);
  EXPECT_EQ(s.idfp, 1u);
  EXPECT_EQ(s.idfn, 1u);
  EXPECT_DOUBLE_EQ(s.idf1, 5.0 / 6.0);
}

// Ignored boxes compete in the matching like counted ones: the one track fits the
// ignored object 2 (IoU 1) better than the counted object 1 (7/13), so it is dropped
// and object 1 is missed.
TEST(Mot, IgnoredTruthCompetesJointly) {
  MotAccumulator acc;
  acc.add_frame({box(1, 0), ignored(2, 3)}, {box(9, 3)});
  const MotSummary s = acc.summary();
  EXPECT_EQ(s.truth, 1u);
  EXPECT_EQ(s.hypotheses, 0u);
  EXPECT_EQ(s.misses, 1u);
  EXPECT_EQ(s.false_positives, 0u);
  EXPECT_EQ(s.mota, 0.0);
  EXPECT_EQ(s.idtp, 0u);
  EXPECT_EQ(s.idf1, 0.0);
}

// One object: miss, M1, miss, M1, miss, miss, M2, absent, M1, miss (Mk: matched by
// track k). Interruptions resumed later: frame 2 and frames 4-5. The leading miss is a
// late start, the absent frame is no miss, the trailing miss is never resumed. Switches
// compare with the latest match however long ago: frame 3 (track 1 again after a miss)
// is none; frame 6 (track 2 after misses) and frame 8 (track 1 after an absence) are.
TEST(Mot, Fragmentations) {
  MotAccumulator acc;
  const std::vector<MotBox> object{box(1, 0)}, none;
  const std::vector<MotBox> m1{box(1, 0)}, m2{box(2, 0)};
  for (const auto& [truth, hyps] : std::vector<std::pair<std::vector<MotBox>, std::vector<MotBox>>>{
           {object, none}, {object, m1}, {object, none}, {object, m1}, {object, none},
           {object, none}, {object, m2}, {none, none}, {object, m1}, {object, none}})
    acc.add_frame(truth, hyps);
  const MotSummary s = acc.summary();
  EXPECT_EQ(s.frames, 10u);
  EXPECT_EQ(s.truth, 9u);
  EXPECT_EQ(s.matches, 4u);
  EXPECT_EQ(s.misses, 5u);
  EXPECT_EQ(s.false_positives, 0u);
  EXPECT_EQ(s.fragmentations, 2u);
  EXPECT_EQ(s.id_switches, 2u);
  EXPECT_DOUBLE_EQ(s.mota, 2.0 / 9.0);   // 1 - (5 + 0 + 2) / 9
  EXPECT_EQ(s.idtp, 3u);                 // with track 1
  EXPECT_DOUBLE_EQ(s.idf1, 6.0 / 13.0);  // 6 / (6 + 1 + 6)
}

// Object 1 is seen in frames 0-2 (track 1) and 6-7 (track 2); object 2 in frames 3-5
// (track 1). Giving each object its best track in turn would pair 1-1 (3 frames) and
// leave object 2 with nothing; the global optimum is 1-2 + 2-1 = 5.
TEST(Mot, IdentityMatchingIsGlobal) {
  MotAccumulator acc;
  for (int f = 0; f < 3; ++f) acc.add_frame({box(1, 0)}, {box(1, 0)});
  for (int f = 3; f < 6; ++f) acc.add_frame({box(2, 50)}, {box(1, 50)});
  for (int f = 6; f < 8; ++f) acc.add_frame({box(1, 0)}, {box(2, 0)});
  const MotSummary s = acc.summary();
  EXPECT_EQ(s.truth, 8u);
  EXPECT_EQ(s.id_switches, 1u);  // object 1: track 1, then 2; object 2's first is no switch
  EXPECT_EQ(s.fragmentations, 0u);
  EXPECT_DOUBLE_EQ(s.mota, 0.875);
  EXPECT_EQ(s.idtp, 5u);
  EXPECT_EQ(s.idfp, 3u);
  EXPECT_EQ(s.idfn, 3u);
  EXPECT_DOUBLE_EQ(s.idf1, 0.625);
}

// IDF1 counts every pair that overlaps in a frame, not only the frame's matches. After
// a frame without tracks (no pairs to keep), frame 4's optimal matching crosses the
// two (1-2 and 2-1 at IoU 1), but the straight pairs still overlap at 7/13 there, so
// the identities 1-1 and 2-2 hold in all 4 frames tracked.
TEST(Mot, IdentityCountsEveryOverlap) {
  MotAccumulator acc;
  for (int f = 0; f < 3; ++f) acc.add_frame({box(1, 0), box(2, 50)}, {box(1, 0), box(2, 50)});
  acc.add_frame({box(1, 0), box(2, 50)}, {});
  acc.add_frame({box(1, 0), box(2, 3)}, {box(1, 3), box(2, 0)});
  const MotSummary s = acc.summary();
  EXPECT_EQ(s.truth, 10u);
  EXPECT_EQ(s.matches, 8u);
  EXPECT_EQ(s.misses, 2u);
  EXPECT_EQ(s.id_switches, 2u);
  EXPECT_EQ(s.fragmentations, 2u);
  EXPECT_DOUBLE_EQ(s.mota, 0.6);  // 1 - (2 + 0 + 2) / 10
  EXPECT_EQ(s.idtp, 8u);
  EXPECT_EQ(s.idfp, 0u);
  EXPECT_EQ(s.idfn, 2u);
  EXPECT_DOUBLE_EQ(s.idf1, 8.0 / 9.0);  // 16 / (16 + 0 + 2)
}

TEST(Mot, EmptyInput) {
  MotAccumulator acc;
  MotSummary s = acc.summary();
  EXPECT_EQ(s.frames, 0u);
  EXPECT_EQ(s.truth + s.hypotheses + s.matches + s.misses + s.false_positives, 0u);
  EXPECT_EQ(s.id_switches + s.fragmentations + s.idtp + s.idfp + s.idfn, 0u);
  EXPECT_EQ(s.mota, 1.0);  // nothing to find, nothing reported
  EXPECT_EQ(s.motp, 0.0);
  EXPECT_EQ(s.idf1, 1.0);
  EXPECT_EQ(s.idp, 1.0);
  EXPECT_EQ(s.idr, 1.0);

  acc.add_frame({}, {});
  acc.add_frame({}, {});
  MotSummary two = acc.summary();
  EXPECT_EQ(two.frames, 2u);
  two.frames = 0;
  expect_same(two, s);

  MotAccumulator only_tracks;
  only_tracks.add_frame({}, {box(1, 0), box(2, 50)});
  s = only_tracks.summary();
  EXPECT_EQ(s.false_positives, 2u);
  EXPECT_EQ(s.mota, -std::numeric_limits<double>::infinity());
  EXPECT_EQ(s.idf1, 0.0);
  EXPECT_EQ(s.idp, 0.0);
  EXPECT_EQ(s.idr, 1.0);

  MotAccumulator only_truth;
  only_truth.add_frame({box(1, 0), box(2, 50)}, {});
  s = only_truth.summary();
  EXPECT_EQ(s.misses, 2u);
  EXPECT_EQ(s.mota, 0.0);
  EXPECT_EQ(s.idf1, 0.0);
  EXPECT_EQ(s.idp, 1.0);
  EXPECT_EQ(s.idr, 0.0);
}

TEST(Mot, RejectsBadInput) {
  MotAccumulator acc;
  EXPECT_THROW(acc.add_frame({box(1, 0), box(1, 50)}, {}), std::invalid_argument);
  EXPECT_THROW(acc.add_frame({}, {box(4, 0), box(4, 50)}), std::invalid_argument);
  EXPECT_EQ(acc.summary().frames, 0u);  // a refused frame leaves no trace
  EXPECT_THROW(MotAccumulator(0.0), std::invalid_argument);
  EXPECT_THROW(MotAccumulator(1.5), std::invalid_argument);
  EXPECT_NO_THROW(MotAccumulator(1.0));
}

// A stricter bar turns the same overlap from a match into a miss and a false positive.
TEST(Mot, Threshold) {
  MotAccumulator loose(0.5), strict(0.6);
  for (MotAccumulator* acc : {&loose, &strict}) acc->add_frame({box(1, 0)}, {box(1, 3)});  // 7/13
  EXPECT_EQ(loose.summary().matches, 1u);
  const MotSummary s = strict.summary();
  EXPECT_EQ(s.matches, 0u);
  EXPECT_EQ(s.misses, 1u);
  EXPECT_EQ(s.false_positives, 1u);
  EXPECT_EQ(s.idtp, 0u);
}

}  // namespace
}  // namespace ccl::quality
