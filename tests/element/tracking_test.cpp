// Tracking through the element: ids kept across frames, in the meta, the ROI metas
// and the bus message; tracks reset on flush, stream-start and a new frame size;
// property changes while frames flow; trails drawn; the backend under test gives the
// CPU backend's ids.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "element_util.h"
#include "overlay/overlay_math.h"
#include "scenes.h"

namespace ccl::element_test {
namespace {

using test::Frame;
using test::GrayImage;
using test::make_frame;

struct Disc {
  double x, y, r;
};

// One frame of discs (integer centers and radii), drawn by the scene renderer.
GrayImage discs(int w, int h, const std::vector<Disc>& ds) {
  test::Scene scene;
  scene.name = "discs";
  scene.width = w;
  scene.height = h;
  scene.num_objects = int(ds.size());
  scene.frames.resize(1);
  for (size_t i = 0; i < ds.size(); ++i)
    scene.frames[0].push_back(
        {int(i), test::Shape::disc(int(ds[i].x), int(ds[i].y), int(ds[i].r))});
  return test::render(scene, 0);
}

constexpr int kW = 160, kH = 120;

// Frame t of a scene: a disc moving right, a larger one moving down-left, a still one.
std::vector<Disc> scene_at(int t) {
  return {{10.0 + 6 * t, 20, 5}, {140.0 - 3 * t, 30.0 + 4 * t, 8}, {80, 100, 6}};
}

Frame frame_at(int t, int w = kW, int h = kH) {
  return make_frame(discs(w, h, scene_at(t)), PixelFormat::Gray8);
}

struct Seen {
  guint64 id, parent;
  guint label, age, unseen;
  double cx, cy;
};

// The reported components of a processed buffer, checked for a tracking meta.
std::vector<Seen> seen_in(GstBuffer* out) {
  std::vector<Seen> v;
  const GstCclMeta* meta = gst_ccl_meta_get(out);
  EXPECT_NE(meta, nullptr);
  if (!meta) return v;
  for (guint i = 0; i < meta->n_components; ++i) {
    const GstCclComponent& c = meta->components[i];
    v.push_back({c.track_id, c.parent_id, c.label, c.track_age, c.frames_unseen, c.centroid_x,
                 c.centroid_y});
  }
  return v;
}

// Pushes frame t and returns what it reported (the buffer is dropped).
std::vector<Seen> push(Harness& h, const Frame& frame) {
  GstBuffer* out = h.process(buffer_from_frame(frame));
  EXPECT_NE(out, nullptr);
  if (!out) return {};
  std::vector<Seen> v = seen_in(out);
  gst_buffer_unref(out);
  return v;
}

// The id of the component nearest (x, y).
guint64 id_near(const std::vector<Seen>& seen, double x, double y) {
  guint64 id = 0;
  double best = 1e18;
  for (const Seen& s : seen) {
    const double d = std::hypot(s.cx - x, s.cy - y);
    if (d < best) {
      best = d;
      id = s.id;
    }
  }
  return id;
}

std::set<guint64> ids_of(const std::vector<Seen>& seen) {
  std::set<guint64> ids;
  for (const Seen& s : seen) ids.insert(s.id);
  return ids;
}

TEST(Tracking, EveryObjectKeepsItsIdAndItsAgeGrows) {
  SKIP_UNLESS_BACKEND_RUNS();
  Harness h;
  h.set_caps(PixelFormat::Gray8, kW, kH);
  std::vector<guint64> first;
  for (int t = 0; t < 12; ++t) {
    const std::vector<Seen> seen = push(h, frame_at(t));
    ASSERT_EQ(seen.size(), 3u) << "frame " << t;
    std::vector<guint64> ids;
    for (const Disc& d : scene_at(t)) ids.push_back(id_near(seen, d.x, d.y));
    if (t == 0) {
      first = ids;
      EXPECT_EQ(ids_of(seen), (std::set<guint64>{1, 2, 3})) << "a new stream numbers from 1";
    }
    EXPECT_EQ(ids, first) << "frame " << t;
    for (const Seen& s : seen) {
      EXPECT_EQ(s.age, guint(t + 1)) << "frame " << t;
      EXPECT_EQ(s.parent, 0u);
      EXPECT_EQ(s.unseen, 0u);
    }
  }
}

TEST(Tracking, VelocityAndPredictedBoxFollowTheMotion) {
  SKIP_UNLESS_BACKEND_RUNS();
  Harness h;
  h.set_caps(PixelFormat::Gray8, kW, kH);
  GstBuffer* out = nullptr;
  for (int t = 0; t < 6; ++t) {
    if (out) gst_buffer_unref(out);
    out = h.process(buffer_from_frame(frame_at(t)));
    ASSERT_NE(out, nullptr);
  }
  const GstCclMeta* meta = gst_ccl_meta_get(out);
  ASSERT_NE(meta, nullptr);
  EXPECT_TRUE(meta->tracking);
  const Disc mover = scene_at(5)[0];
  bool found = false;
  for (guint i = 0; i < meta->n_components; ++i) {
    const GstCclComponent& c = meta->components[i];
    if (std::hypot(c.centroid_x - mover.x, c.centroid_y - mover.y) > 2) continue;
    found = true;
    EXPECT_NEAR(c.velocity_x, 6.0, 0.5);
    EXPECT_NEAR(c.velocity_y, 0.0, 0.5);
    EXPECT_EQ(c.predicted_x, c.x + 6);
    EXPECT_EQ(c.predicted_y, c.y);
    EXPECT_EQ(c.predicted_width, c.width);
    EXPECT_EQ(c.predicted_height, c.height);
  }
  EXPECT_TRUE(found);
  gst_buffer_unref(out);
}

TEST(Tracking, RoiMetasAndMessagesCarryTheTracks) {
  SKIP_UNLESS_BACKEND_RUNS();
  Harness h("post-messages=true");
  h.set_caps(PixelFormat::Gray8, kW, kH);
  gst_buffer_unref(h.process(buffer_from_frame(frame_at(0))));
  GstMessage* m0 = h.pop_message(GST_MESSAGE_ELEMENT);
  if (m0) gst_message_unref(m0);
  GstBuffer* out = h.process(buffer_from_frame(frame_at(1)));
  ASSERT_NE(out, nullptr);
  const GstCclMeta* meta = gst_ccl_meta_get(out);
  ASSERT_NE(meta, nullptr);

  gpointer state = nullptr;
  GstMeta* m;
  guint rois = 0;
  while ((m = gst_buffer_iterate_meta_filtered(out, &state,
                                               GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    auto* roi = reinterpret_cast<GstVideoRegionOfInterestMeta*>(m);
    const GstCclComponent& c = meta->components[rois++];
    EXPECT_EQ(guint64(roi->id), c.track_id);
    GstStructure* p = gst_video_region_of_interest_meta_get_param(roi, "ccl-component");
    ASSERT_NE(p, nullptr);
    guint64 track = 0, parent = 99;
    guint age = 0;
    gint px = -1;
    EXPECT_TRUE(gst_structure_get_uint64(p, "track-id", &track));
    EXPECT_TRUE(gst_structure_get_uint64(p, "parent-id", &parent));
    EXPECT_TRUE(gst_structure_get_uint(p, "track-age", &age));
    EXPECT_TRUE(gst_structure_get_int(p, "predicted-x", &px));
    EXPECT_EQ(track, c.track_id);
    EXPECT_EQ(parent, 0u);
    EXPECT_EQ(age, 2u);
    EXPECT_EQ(px, c.predicted_x);
  }
  EXPECT_EQ(rois, 3u);

  GstMessage* msg = h.pop_message(GST_MESSAGE_ELEMENT);
  ASSERT_NE(msg, nullptr);
  const GstStructure* s = gst_message_get_structure(msg);
  gboolean tracking = FALSE;
  EXPECT_TRUE(gst_structure_get_boolean(s, "tracking", &tracking));
  EXPECT_TRUE(tracking);
  const GValue* ids = gst_structure_get_value(s, "track-id");
  ASSERT_NE(ids, nullptr);
  ASSERT_EQ(gst_value_array_get_size(ids), 3u);
  for (guint i = 0; i < 3; ++i)
    EXPECT_EQ(g_value_get_uint64(gst_value_array_get_value(ids, i)),
              meta->components[i].track_id);
  EXPECT_NE(gst_structure_get_value(s, "velocity-x"), nullptr);
  gst_message_unref(msg);
  gst_buffer_unref(out);
}

TEST(Tracking, OffLeavesTheTrackFieldsEmptyAndOnStartsNewTracks) {
  SKIP_UNLESS_BACKEND_RUNS();
  Harness h("tracking=false post-messages=true");
  h.set_caps(PixelFormat::Gray8, kW, kH);
  GstBuffer* out = h.process(buffer_from_frame(frame_at(0)));
  ASSERT_NE(out, nullptr);
  const GstCclMeta* meta = gst_ccl_meta_get(out);
  ASSERT_NE(meta, nullptr);
  EXPECT_FALSE(meta->tracking);
  for (guint i = 0; i < meta->n_components; ++i) EXPECT_EQ(meta->components[i].track_id, 0u);
  GstMessage* msg = h.pop_message(GST_MESSAGE_ELEMENT);
  ASSERT_NE(msg, nullptr);
  EXPECT_EQ(gst_structure_get_value(gst_message_get_structure(msg), "track-id"), nullptr);
  gst_message_unref(msg);
  gst_buffer_unref(out);

  // On while frames flow: tracks start, and go on from frame to frame.
  g_object_set(h.element(), "tracking", TRUE, nullptr);
  const std::set<guint64> a = ids_of(push(h, frame_at(1)));
  EXPECT_EQ(a, (std::set<guint64>{1, 2, 3}));
  EXPECT_EQ(ids_of(push(h, frame_at(2))), a);
  // Off and on again: the old tracks ended, and their ids are not given again.
  g_object_set(h.element(), "tracking", FALSE, nullptr);
  push(h, frame_at(3));
  g_object_set(h.element(), "tracking", TRUE, nullptr);
  EXPECT_EQ(ids_of(push(h, frame_at(4))), (std::set<guint64>{4, 5, 6}));
}

TEST(Tracking, FlushEndsTheTracksWithoutReusingIds) {
  SKIP_UNLESS_BACKEND_RUNS();
  Harness h;
  h.set_caps(PixelFormat::Gray8, kW, kH);
  push(h, frame_at(0));
  EXPECT_EQ(ids_of(push(h, frame_at(1))), (std::set<guint64>{1, 2, 3}));
  ASSERT_TRUE(gst_harness_push_event(h.get(), gst_event_new_flush_start()));
  ASSERT_TRUE(gst_harness_push_event(h.get(), gst_event_new_flush_stop(TRUE)));
  GstSegment segment;
  gst_segment_init(&segment, GST_FORMAT_TIME);
  ASSERT_TRUE(gst_harness_push_event(h.get(), gst_event_new_segment(&segment)));
  const std::vector<Seen> after = push(h, frame_at(2));
  EXPECT_EQ(ids_of(after), (std::set<guint64>{4, 5, 6}));
  for (const Seen& s : after) EXPECT_EQ(s.age, 1u);
}

TEST(Tracking, StreamStartNumbersFromOneAgain) {
  SKIP_UNLESS_BACKEND_RUNS();
  Harness h;
  h.set_caps(PixelFormat::Gray8, kW, kH);
  push(h, frame_at(0));
  push(h, frame_at(1));
  ASSERT_TRUE(gst_harness_push_event(h.get(), gst_event_new_stream_start("another stream")));
  GstSegment segment;
  gst_segment_init(&segment, GST_FORMAT_TIME);
  ASSERT_TRUE(gst_harness_push_event(h.get(), gst_event_new_segment(&segment)));
  const std::vector<Seen> after = push(h, frame_at(2));
  EXPECT_EQ(ids_of(after), (std::set<guint64>{1, 2, 3}));
  for (const Seen& s : after) EXPECT_EQ(s.age, 1u);
}

TEST(Tracking, ANewFrameSizeEndsTheTracks) {
  SKIP_UNLESS_BACKEND_RUNS();
  Harness h;
  h.set_caps(PixelFormat::Gray8, kW, kH);
  push(h, frame_at(0));
  push(h, frame_at(1));
  // A caps event alone (no stream-start): the same stream, frames of another size.
  GstCaps* caps = gst_caps_from_string(caps_string(PixelFormat::Gray8, kW + 8, kH).c_str());
  ASSERT_TRUE(gst_harness_push_event(h.get(), gst_event_new_caps(caps)));
  gst_caps_unref(caps);
  const std::vector<Seen> after = push(h, frame_at(2, kW + 8, kH));
  EXPECT_EQ(ids_of(after), (std::set<guint64>{4, 5, 6}));
  // The same size again is no reset.
  EXPECT_EQ(ids_of(push(h, frame_at(3, kW + 8, kH))), (std::set<guint64>{4, 5, 6}));
}

// A disc that is missing for `gap` frames comes back under its id while the gap is
// within track-max-lost, and under a new one beyond it.
std::vector<guint64> ids_across_gap(Harness& h, int gap, int& t) {
  std::vector<guint64> ids;
  for (int k = 0; k < 3; ++k, ++t)
    ids.push_back(push(h, make_frame(discs(kW, kH, {{10.0 + 5 * t, 60, 6}}), PixelFormat::Gray8))
                      .at(0)
                      .id);
  for (int k = 0; k < gap; ++k, ++t)
    EXPECT_TRUE(push(h, make_frame(discs(kW, kH, {}), PixelFormat::Gray8)).empty());
  const std::vector<Seen> back =
      push(h, make_frame(discs(kW, kH, {{10.0 + 5 * t, 60, 6}}), PixelFormat::Gray8));
  ++t;
  EXPECT_EQ(back.size(), 1u);
  if (!back.empty()) ids.push_back(back[0].id);
  return ids;
}

TEST(Tracking, TrackMaxLostChangedWhilePlaying) {
  SKIP_UNLESS_BACKEND_RUNS();
  Harness h("track-max-lost=0");
  h.set_caps(PixelFormat::Gray8, kW, kH);
  int t = 0;
  std::vector<guint64> ids = ids_across_gap(h, 1, t);
  ASSERT_EQ(ids.size(), 4u);
  EXPECT_EQ(ids[0], ids[2]);
  EXPECT_NE(ids[3], ids[2]) << "track-max-lost=0: one missed frame ends a track";

  g_object_set(h.element(), "track-max-lost", 3u, nullptr);
  ids = ids_across_gap(h, 3, t);
  ASSERT_EQ(ids.size(), 4u);
  EXPECT_EQ(ids[3], ids[2]) << "3 missed frames are within track-max-lost=3";
  ids = ids_across_gap(h, 4, t);
  ASSERT_EQ(ids.size(), 4u);
  EXPECT_NE(ids[3], ids[2]) << "4 missed frames are beyond track-max-lost=3";
}

TEST(Tracking, PropertyChangesFromAnotherThreadWhileFramesFlow) {
  SKIP_UNLESS_BACKEND_RUNS();
  Harness h("post-messages=false");
  h.set_caps(PixelFormat::Gray8, kW, kH);
  std::atomic<bool> done{false};
  std::atomic<guint> changes{0};
  std::thread changer([&] {
    for (guint i = 0; !done; ++i) {
      g_object_set(h.element(), "track-max-lost", i % 7, "overlay", (i % 3) ? 0x0Bu : 0x0u,
                   "tracking", (i % 5) != 0, nullptr);
      changes = i + 1;
      std::this_thread::yield();
    }
  });
  guint64 max_id = 0;
  for (int t = 0; t < 60; ++t) {
    // Each frame comes after at least one more change, still racing with the next
    // ones: on a busy machine the changer might otherwise run once (tracking off)
    // while every frame goes through.
    while (changes.load() <= guint(t)) std::this_thread::yield();
    GstBuffer* out = h.process(buffer_from_frame(frame_at(t % 12)));
    ASSERT_NE(out, nullptr) << "frame " << t;
    const GstCclMeta* meta = gst_ccl_meta_get(out);
    ASSERT_NE(meta, nullptr);
    EXPECT_EQ(meta->n_components, 3u);
    for (guint i = 0; i < meta->n_components; ++i) {
      const guint64 id = meta->components[i].track_id;
      EXPECT_EQ(meta->tracking, id != 0) << "frame " << t;
      max_id = std::max(max_id, id);
    }
    gst_buffer_unref(out);
  }
  done = true;
  changer.join();
  // Settled: tracking on, and the objects keep ids from one frame to the next.
  g_object_set(h.element(), "tracking", TRUE, "track-max-lost", 15u, nullptr);
  const std::set<guint64> ids = ids_of(push(h, frame_at(0)));
  ASSERT_EQ(ids.size(), 3u);
  EXPECT_EQ(ids.count(0), 0u);
  EXPECT_EQ(ids_of(push(h, frame_at(1))), ids);
  EXPECT_GT(max_id, 0u) << "tracking was on for some of the frames";
}

TEST(Tracking, TrailsAreDrawnAlongThePathInTheTracksColor) {
  SKIP_UNLESS_BACKEND_RUNS();
  Harness h("overlay=trails");
  h.set_caps(PixelFormat::Gray8, kW, kH);
  const int frames = 8;
  GstBuffer* out = nullptr;
  for (int t = 0; t < frames; ++t) {
    if (out) gst_buffer_unref(out);
    out = h.process(buffer_from_frame(make_frame(discs(kW, kH, {{10.0 + 6 * t, 50, 4}}),
                                                 PixelFormat::Gray8)));
    ASSERT_NE(out, nullptr);
  }
  const GstCclMeta* meta = gst_ccl_meta_get(out);
  ASSERT_NE(meta, nullptr);
  ASSERT_EQ(meta->n_components, 1u);
  const guint64 id = meta->components[0].track_id;
  const overlay::Rgb c = overlay::key_color(overlay::track_color_key(id));
  const uint8_t trail_value = uint8_t(bt601_luma(c.r, c.g, c.b));
  const auto planes = read_planes(out, PixelFormat::Gray8, kW, kH);
  // Every pixel between the first centroid and the current disc's edge is trail.
  for (int x = 10; x < 10 + 6 * (frames - 1) - 4; ++x)
    EXPECT_EQ(planes[0][size_t(50) * kW + x], trail_value) << "x " << x;
  // Off the path nothing changed.
  EXPECT_EQ(planes[0][size_t(40) * kW + 20], 0);
  EXPECT_EQ(planes[0][size_t(60) * kW + 20], 0);
  gst_buffer_unref(out);
}

TEST(Tracking, TheBackendUnderTestGivesTheCpuBackendsTracks) {
  SKIP_UNLESS_BACKEND_RUNS();
  Harness cpu("", "cpu");
  Harness under_test;
  cpu.set_caps(PixelFormat::Gray8, kW, kH);
  under_test.set_caps(PixelFormat::Gray8, kW, kH);
  // Discs that cross, merge and split, missed frames included.
  for (int t = 0; t < 30; ++t) {
    std::vector<Disc> ds = {{20.0 + 4 * t, 60, 9}, {140.0 - 4 * t, 62, 6}};
    if (t % 9 != 4) ds.push_back({80, 15.0 + 2 * t, 5});
    const Frame frame = make_frame(discs(kW, kH, ds), PixelFormat::Gray8);
    GstBuffer* a = cpu.process(buffer_from_frame(frame));
    GstBuffer* b = under_test.process(buffer_from_frame(frame));
    ASSERT_NE(a, nullptr);
    ASSERT_NE(b, nullptr);
    const GstCclMeta* ma = gst_ccl_meta_get(a);
    const GstCclMeta* mb = gst_ccl_meta_get(b);
    ASSERT_NE(ma, nullptr);
    ASSERT_NE(mb, nullptr);
    ASSERT_EQ(ma->n_components, mb->n_components) << "frame " << t;
    for (guint i = 0; i < ma->n_components; ++i) {
      const GstCclComponent &x = ma->components[i], &y = mb->components[i];
      const std::string where = "frame " + std::to_string(t) + " component " + std::to_string(i);
      EXPECT_EQ(x.label, y.label) << where;
      EXPECT_EQ(x.area, y.area) << where;
      EXPECT_EQ(x.sum_xy, y.sum_xy) << where;
      EXPECT_EQ(x.track_id, y.track_id) << where;
      EXPECT_EQ(x.parent_id, y.parent_id) << where;
      EXPECT_EQ(x.track_age, y.track_age) << where;
      EXPECT_EQ(x.frames_unseen, y.frames_unseen) << where;
      // The tracker is the same host code fed the same table: bitwise equal doubles.
      EXPECT_EQ(x.velocity_x, y.velocity_x) << where;
      EXPECT_EQ(x.velocity_y, y.velocity_y) << where;
      EXPECT_EQ(x.predicted_x, y.predicted_x) << where;
      EXPECT_EQ(x.predicted_y, y.predicted_y) << where;
    }
    gst_buffer_unref(a);
    gst_buffer_unref(b);
  }
}

}  // namespace
}  // namespace ccl::element_test
