// The tracker's pairing on the device (ccl::cuda::TrackSearch) against the host's:
// every sequence goes through two trackers, one searching its grid on the host, one
// on the GPU, and every component of every frame must get the same track, field for
// field. The sequences reach what the device must repeat exactly: crowds (gates
// meeting far more than 8 components, so tracks are cut and their order restored),
// boxes over several cells and over the whole frame, tables out of label order, lost
// tracks, splits and merges, and a box wholly outside the frame (searched on the host).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "ccl/track_search.h"
#include "ccl/tracker.h"
#include "compare.h"
#include "gpu_test_support.h"
#include "scenes.h"

namespace ccl::gpu_test {
namespace {

using Tables = std::vector<std::vector<Component>>;

struct Sequence {
  std::string name;
  int width, height;
  Tables tables;
};

Component box_component(uint32_t label, int x, int y, int w, int h, uint64_t area) {
  Component c;
  c.label = label;
  c.x = x;
  c.y = y;
  c.width = w;
  c.height = h;
  c.area = std::max<uint64_t>(area, 1);
  // A centroid inside the box, not on a pixel center.
  c.sum_x = uint64_t(c.area * uint64_t(2 * x + w)) / 2 + c.area / 3;
  c.sum_y = uint64_t(c.area * uint64_t(2 * y + h)) / 2 + c.area / 5;
  return c;
}

// Objects walking at random, of every size from a speck to a box wider than the grid
// allows; some go missing for a few frames, some split in two, some neighbours merge
// into one box, and a few frames come with their table shuffled. `huge`: the share of
// boxes hundreds of pixels wide (over many cells, or over so many that they are wide).
Sequence random_sequence(const std::string& name, int width, int height, int objects,
                         int frames, uint32_t seed, bool crowd, double huge = 0.03) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  struct Object {
    double x, y, vx, vy;
    int w, h;
    int hidden = 0;
  };
  std::vector<Object> all(static_cast<size_t>(objects));
  for (size_t i = 0; i < all.size(); ++i) {
    Object& o = all[i];
    const double kind = unit(rng);
    const bool speck = kind < 0.7, medium = !speck && kind < 1.0 - huge;
    o.w = speck ? 1 + int(unit(rng) * 6) : medium ? 8 + int(unit(rng) * 120)
                                                  : 300 + int(unit(rng) * 900);
    o.h = speck ? 1 + int(unit(rng) * 6) : medium ? 8 + int(unit(rng) * 120)
                                                  : 200 + int(unit(rng) * 700);
    o.x = unit(rng) * (width - 1);
    o.y = unit(rng) * (height - 1);
    o.vx = (unit(rng) - 0.5) * (crowd ? 4 : 30);
    o.vy = (unit(rng) - 0.5) * (crowd ? 4 : 30);
  }
  Sequence seq{name, width, height, {}};
  for (int t = 0; t < frames; ++t) {
    std::vector<Component> table;
    for (size_t i = 0; i < all.size(); ++i) {
      Object& o = all[i];
      o.x = std::clamp(o.x + o.vx, 0.0, double(width - 1));
      o.y = std::clamp(o.y + o.vy, 0.0, double(height - 1));
      o.vx += (unit(rng) - 0.5) * 2;
      o.vy += (unit(rng) - 0.5) * 2;
      if (o.hidden > 0) {
        --o.hidden;
        continue;
      }
      if (unit(rng) < 0.03) o.hidden = 1 + int(unit(rng) * 4);
      const int x = int(o.x), y = int(o.y);
      const int w = std::min(o.w, width - x), h = std::min(o.h, height - y);
      const uint64_t area = uint64_t(w) * uint64_t(h) * 3 / 4;
      const double event = unit(rng);
      if (event < 0.04 && w >= 2) {  // split
        table.push_back(box_component(0, x, y, w / 2, h, area / 2));
        table.push_back(box_component(0, x + w - w / 2, y, w - w / 2, h, area / 2));
      } else if (event < 0.08 && i + 1 < all.size()) {  // merged with the next object
        const Object& n = all[i + 1];
        const int x0 = std::min(x, int(n.x)), y0 = std::min(y, int(n.y));
        const int x1 = std::min(width, std::max(x + w, int(n.x) + n.w));
        const int y1 = std::min(height, std::max(y + h, int(n.y) + n.h));
        table.push_back(box_component(0, x0, y0, x1 - x0, y1 - y0,
                                      area + uint64_t(n.w) * uint64_t(n.h) / 2));
        ++i;
      } else {
        table.push_back(box_component(0, x, y, w, h, area));
      }
    }
    // Labels in raster order of the boxes' corners, as a labeler numbers them.
    std::sort(table.begin(), table.end(), [](const Component& a, const Component& b) {
      return a.y != b.y ? a.y < b.y : a.x < b.x;
    });
    for (size_t k = 0; k < table.size(); ++k) table[k].label = uint32_t(k + 1);
    if (t % 5 == 3) std::shuffle(table.begin(), table.end(), rng);
    seq.tables.push_back(std::move(table));
  }
  return seq;
}

Sequence scene_sequence(const std::string& name, const test::Scene& scene) {
  Sequence seq{name, scene.width, scene.height, {}};
  for (const test::LabeledFrame& f : test::label_scene(scene)) seq.tables.push_back(f.components);
  return seq;
}

// upload: each table copied to the device before its frame (as a caller whose table
// is on the device already gives it), instead of by update().
void expect_same_tracks(const Sequence& seq, bool upload = false) {
  Tracker host, device;
  cuda::TrackSearch search;
  std::vector<TrackInfo> want, got;
  size_t candidates = 0;
  for (size_t t = 0; t < seq.tables.size(); ++t) {
    const TableView table{seq.tables[t].data(), uint32_t(seq.tables[t].size())};
    host.update(seq.width, seq.height, table, want);
    if (upload) search.upload(table);
    device.update(seq.width, seq.height, table, search, got);
    candidates += search.last_candidates();
    ASSERT_EQ(got.size(), want.size()) << seq.name << " frame " << t;
    for (size_t i = 0; i < want.size(); ++i)
      ASSERT_EQ(test::track_difference(got[i], want[i]), "")
          << seq.name << " frame " << t << " component " << i << " of " << want.size();
    ASSERT_EQ(device.live_tracks(), host.live_tracks()) << seq.name << " frame " << t;
  }
  std::printf("%s: %zu frames, %zu candidates found on the device\n", seq.name.c_str(),
              seq.tables.size(), candidates);
}

TEST(GpuTrackSearch, SceneTracksEqualTheHostsTracks) {
  CCL_REQUIRE_DEVICE();
  expect_same_tracks(scene_sequence("crossing", test::crossing_scene()));
  expect_same_tracks(scene_sequence("parallel", test::parallel_scene()));
  expect_same_tracks(scene_sequence("fast", test::fast_disc_scene()));
  expect_same_tracks(scene_sequence("split", test::split_scene()));
  expect_same_tracks(scene_sequence("merge_resplit", test::merge_resplit_scene()));
  expect_same_tracks(scene_sequence("vanish_5", test::vanish_scene(5)));
  expect_same_tracks(
      scene_sequence("walkers_300", test::random_walkers_scene(640, 480, 300, 20, 7)));
  expect_same_tracks(
      scene_sequence("many_20000", test::many_components_scene(1920, 1080, 20000, 8, 1)));
}

TEST(GpuTrackSearch, RandomSequencesEqualTheHostsTracks) {
  CCL_REQUIRE_DEVICE();
  // Sparse and fast; a crowd (gates meeting dozens: cut tracks, restored orders);
  // many components on a 4K frame.
  expect_same_tracks(random_sequence("sparse", 640, 480, 60, 60, 11, false));
  expect_same_tracks(random_sequence("sparse_uploaded", 640, 480, 60, 60, 11, false), true);
  expect_same_tracks(random_sequence("crowd", 320, 240, 3000, 40, 12, true, 0.01));
  expect_same_tracks(random_sequence("many", 3840, 2160, 60000, 12, 13, true, 0.0005));
  for (uint32_t seed = 100; seed < 120; ++seed)
    expect_same_tracks(random_sequence("seed_" + std::to_string(seed), 800, 600,
                                       200 + int(seed % 7) * 150, 30, seed, seed % 2 == 0));
}

TEST(GpuTrackSearch, BoxOutsideTheFrameIsSearchedOnTheHost) {
  CCL_REQUIRE_DEVICE();
  Sequence seq = random_sequence("outside", 640, 480, 200, 20, 21, false);
  // A big box wholly right of the frame in a few frames (a table no labeler gives).
  for (size_t t = 5; t < seq.tables.size(); t += 4) {
    std::vector<Component>& table = seq.tables[t];
    table.push_back(box_component(uint32_t(table.size() + 1), 700, 10, 90, 90, 4000));
  }
  expect_same_tracks(seq);
  expect_same_tracks(seq, true);
}

TEST(GpuTrackSearch, EmptyAndTinyFrames) {
  CCL_REQUIRE_DEVICE();
  Sequence seq{"tiny", 64, 48, {}};
  seq.tables.push_back({});
  seq.tables.push_back({box_component(1, 3, 3, 2, 2, 3)});
  seq.tables.push_back({});
  seq.tables.push_back({box_component(1, 4, 3, 2, 2, 3), box_component(2, 0, 0, 64, 48, 900)});
  seq.tables.push_back({box_component(1, 5, 4, 2, 2, 3)});
  expect_same_tracks(seq);
}

}  // namespace
}  // namespace ccl::gpu_test
