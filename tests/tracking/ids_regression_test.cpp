// Whole id sequences of long, busy, deterministic streams, against checksums recorded
// from the tracker as it was before its speed work (as of commit bf4e617), so that
// a faster tracker that hands out a single id differently fails here. The scene tests
// check that the tracking is right; this one checks that it did not change.
//
// The streams are component tables made directly (no rendering, no labeling), with
// splitmix64 and integer arithmetic only, so they are the same with every compiler and
// standard library: walkers that speed up, turn, hide, split and die, boxes running into
// one component, crowds of specks (gates holding more than the pairs a track keeps),
// blobs wider than the grid spreads, labels in shuffled order and a change of frame
// size. When a change of the tracker's results is intended, print the new checksums
// (the failure message has them) and record them here with the reason.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "ccl/tracker.h"
#include "splitmix.h"

namespace ccl::tracking_test {
namespace {

using test::SplitMixRng;

struct Walker {
  int x, y, w, h, vx, vy, hidden;
};

struct Stream {
  std::vector<std::pair<int, int>> sizes;  // frame size of each frame
  std::vector<std::vector<Component>> tables;
};

struct Box {
  int x0, y0, x1, y1;
};

Walker new_walker(SplitMixRng& rng, int width, int height) {
  Walker w{rng.range(0, width - 1), rng.range(0, height - 1), rng.range(1, 12), rng.range(1, 12),
           rng.range(-5, 5), rng.range(-5, 5), 0};
  if (rng.range(0, 60) == 0) {  // a blob over many grid cells
    w.w = rng.range(150, 500);
    w.h = rng.range(150, 400);
  }
  return w;
}

// Boxes that overlap the last few kept ones mostly join them: objects running together.
std::vector<Box> join_overlapping(std::vector<Box> boxes, SplitMixRng& rng) {
  std::sort(boxes.begin(), boxes.end(), [](const Box& a, const Box& b) {
    return a.x0 != b.x0 ? a.x0 < b.x0 : a.y0 != b.y0 ? a.y0 < b.y0 : a.x1 != b.x1 ? a.x1 < b.x1 : a.y1 < b.y1;
  });
  std::vector<Box> kept;
  for (const Box& b : boxes) {
    bool joined = false;
    for (size_t k = kept.size(); k-- > 0 && kept.size() - k <= 8;) {
      Box& m = kept[k];
      if (b.x0 < m.x1 && m.x0 < b.x1 && b.y0 < m.y1 && m.y0 < b.y1 && rng.range(0, 3) != 0) {
        m = {std::min(m.x0, b.x0), std::min(m.y0, b.y0), std::max(m.x1, b.x1), std::max(m.y1, b.y1)};
        joined = true;
        break;
      }
    }
    if (!joined) kept.push_back(b);
  }
  return kept;
}

std::vector<Component> table_of(const std::vector<Box>& boxes, SplitMixRng& rng) {
  std::vector<uint32_t> labels(boxes.size());
  for (size_t i = 0; i < labels.size(); ++i) labels[i] = uint32_t(i + 1);
  for (size_t i = labels.size(); i > 1; --i) std::swap(labels[i - 1], labels[rng.next() % i]);
  std::vector<Component> table;
  table.reserve(boxes.size());
  for (size_t i = 0; i < boxes.size(); ++i) {
    const Box& b = boxes[i];
    Component c;
    c.label = labels[i];
    c.x = b.x0;
    c.y = b.y0;
    c.width = b.x1 - b.x0;
    c.height = b.y1 - b.y0;
    const uint64_t full = uint64_t(c.width) * uint64_t(c.height);
    c.area = std::max<uint64_t>(1, full * uint64_t(rng.range(30, 100)) / 100);
    // A centroid anywhere in the middle of the box.
    c.sum_x = c.area * uint64_t(c.x) + c.area * uint64_t(c.width) * uint64_t(rng.range(30, 70)) / 100;
    c.sum_y = c.area * uint64_t(c.y) + c.area * uint64_t(c.height) * uint64_t(rng.range(30, 70)) / 100;
    table.push_back(c);
  }
  return table;
}

Stream make_stream(uint64_t seed, int width, int height, int count, int frames) {
  SplitMixRng rng(seed, 0x7261636b);
  std::vector<Walker> walkers;
  for (int i = 0; i < count; ++i) walkers.push_back(new_walker(rng, width, height));
  Stream s;
  for (int f = 0; f < frames; ++f) {
    if (f == frames * 2 / 3) {  // a new frame size: the stream starts afresh
      width = width * 3 / 4;
      height = height * 3 / 4;
    }
    std::vector<Walker> next;
    next.reserve(walkers.size() + 16);
    for (Walker w : walkers) {
      w.vx = std::clamp(w.vx + rng.range(-1, 1), -8, 8);
      w.vy = std::clamp(w.vy + rng.range(-1, 1), -8, 8);
      w.x += w.vx;
      w.y += w.vy;
      if (w.hidden > 0) --w.hidden;
      else if (rng.range(0, 60) == 0) w.hidden = rng.range(1, 20);
      const int event = rng.range(0, 250);
      if (event == 0) continue;  // gone
      if (event == 1 && w.w > 2) {  // a part breaks off
        Walker part = w;
        part.w = w.w / 2;
        part.h = std::max(1, w.h / 2);
        part.vx += rng.range(-4, 4);
        part.vy += rng.range(-4, 4);
        next.push_back(part);
      }
      next.push_back(w);
    }
    walkers.swap(next);
    for (int k = rng.range(0, count / 40 + 1); k > 0; --k) walkers.push_back(new_walker(rng, width, height));
    std::vector<Box> boxes;
    for (const Walker& w : walkers) {
      if (w.hidden) continue;
      const Box b{std::max(0, w.x), std::max(0, w.y), std::min(width, w.x + w.w), std::min(height, w.y + w.h)};
      if (b.x1 > b.x0 && b.y1 > b.y0) boxes.push_back(b);
    }
    if (rng.range(0, 2) == 0) {  // a crowd of specks
      const int cx = rng.range(0, width - 1), cy = rng.range(0, height - 1);
      for (int k = rng.range(50, 600); k > 0; --k) {
        const int x = cx + rng.range(-50, 50), y = cy + rng.range(-50, 50);
        const Box b{x, y, x + rng.range(1, 3), y + rng.range(1, 3)};
        if (b.x0 >= 0 && b.y0 >= 0 && b.x1 <= width && b.y1 <= height) boxes.push_back(b);
      }
    }
    s.tables.push_back(table_of(join_overlapping(std::move(boxes), rng), rng));
    s.sizes.push_back({width, height});
  }
  return s;
}

// FNV-1a over every component's id, parent, age, frames unseen and predicted corner,
// and the live and lost counts after each frame.
uint64_t track_checksum(const Stream& s, const TrackerOptions& options) {
  Tracker tracker(options);
  std::vector<TrackInfo> out;
  uint64_t h = 1469598103934665603ull;
  auto mix = [&h](uint64_t v) { h = (h ^ v) * 1099511628211ull; };
  for (size_t f = 0; f < s.tables.size(); ++f) {
    tracker.update(s.sizes[f].first, s.sizes[f].second, s.tables[f], out);
    for (const TrackInfo& t : out) {
      mix(t.id);
      mix(t.parent_id);
      mix(uint64_t(t.age) << 32 | t.frames_unseen);
      mix(uint64_t(uint32_t(t.predicted_x)) << 32 | uint32_t(t.predicted_y));
    }
    mix(tracker.live_tracks() << 32 | tracker.lost_tracks());
  }
  return h;
}

struct Case {
  const char* name;
  uint64_t seed;
  int width, height, count, frames;
  int max_lost;
  uint64_t checksum;  // recorded from the tracker before its speed work
};

class IdsRegression : public ::testing::TestWithParam<Case> {};

TEST_P(IdsRegression, SameIdsAsRecorded) {
  const Case& c = GetParam();
  const Stream s = make_stream(c.seed, c.width, c.height, c.count, c.frames);
  TrackerOptions options;
  options.max_lost = c.max_lost;
  const uint64_t got = track_checksum(s, options);
  EXPECT_EQ(got, c.checksum) << c.name << ": checksum 0x" << std::hex << got;
}

INSTANTIATE_TEST_SUITE_P(
    Streams, IdsRegression,
    ::testing::Values(
        // 1,000 walkers on a full-HD frame for 300 frames.
        Case{"walkers", 1, 1920, 1080, 1000, 300, 15, 0x6e1147f3d595a0cbull},
        // The same with a short memory: tracks end and merged ones give up sooner.
        Case{"walkers_short", 2, 1920, 1080, 1000, 200, 2, 0x8ab49e8f5b1a5e4dull},
        // 15,000 boxes on 640x480: gates full of neighbours, pairs cut to the cheapest.
        Case{"crowd", 3, 640, 480, 15000, 40, 15, 0xee32288bf44facbaull}),
    [](const ::testing::TestParamInfo<Case>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace ccl::tracking_test
