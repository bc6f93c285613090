// GStreamer's analytics metadata (GstAnalyticsRelationMeta, built with GStreamer 1.24
// and newer): one object-detection entry per reported component, equal to the
// GstCclMeta box for box; with tracking one tracking entry per track, related to its
// box, and lost ones while a track is unseen; and objectdetectionoverlay drawing them.
#include <gst/analytics/analytics.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "element_util.h"

namespace ccl::element_test {
namespace {

using test::Frame;
using test::GrayImage;

struct Track {
  guint64 id = 0;
  GstClockTime first = GST_CLOCK_TIME_NONE, last = GST_CLOCK_TIME_NONE;
  gboolean lost = FALSE;
};

struct Detection {
  gint x = 0, y = 0, w = 0, h = 0;
  gfloat confidence = 0;
  GQuark type = 0;
  std::vector<Track> tracks;  // tracking entries related to it
  std::vector<guint> related_back;  // ids of detections its tracks relate to
};

Track track_info(const GstAnalyticsTrackingMtd& m) {
  Track t;
  EXPECT_TRUE(gst_analytics_tracking_mtd_get_info(const_cast<GstAnalyticsTrackingMtd*>(&m),
                                                  &t.id, &t.first, &t.last, &t.lost));
  return t;
}

// Every object-detection entry of a buffer, in the order they were added, with the
// tracking entries each relates to.
std::vector<Detection> detections(GstBuffer* buf) {
  std::vector<Detection> out;
  GstAnalyticsRelationMeta* rmeta = gst_buffer_get_analytics_relation_meta(buf);
  if (!rmeta) return out;
  gpointer state = nullptr;
  GstAnalyticsMtd od;
  while (gst_analytics_relation_meta_iterate(rmeta, &state, gst_analytics_od_mtd_get_mtd_type(),
                                             &od)) {
    Detection d;
    EXPECT_TRUE(gst_analytics_od_mtd_get_location(&od, &d.x, &d.y, &d.w, &d.h, &d.confidence));
    d.type = gst_analytics_od_mtd_get_obj_type(&od);
    gpointer rstate = nullptr;
    GstAnalyticsMtd trk;
    while (gst_analytics_relation_meta_get_direct_related(
        rmeta, od.id, GST_ANALYTICS_REL_TYPE_RELATE_TO, gst_analytics_tracking_mtd_get_mtd_type(),
        &rstate, &trk)) {
      d.tracks.push_back(track_info(trk));
      gpointer back = nullptr;
      GstAnalyticsMtd od_back;
      while (gst_analytics_relation_meta_get_direct_related(
          rmeta, trk.id, GST_ANALYTICS_REL_TYPE_RELATE_TO, gst_analytics_od_mtd_get_mtd_type(),
          &back, &od_back))
        d.related_back.push_back(od_back.id == od.id ? 1u : 0u);
    }
    out.push_back(d);
  }
  return out;
}

// Tracking entries related to no object-detection entry (tracks unseen this frame).
std::vector<Track> lone_tracks(GstBuffer* buf) {
  std::vector<Track> out;
  GstAnalyticsRelationMeta* rmeta = gst_buffer_get_analytics_relation_meta(buf);
  if (!rmeta) return out;
  gpointer state = nullptr;
  GstAnalyticsMtd trk;
  while (gst_analytics_relation_meta_iterate(rmeta, &state,
                                             gst_analytics_tracking_mtd_get_mtd_type(), &trk)) {
    gpointer rstate = nullptr;
    GstAnalyticsMtd od;
    if (!gst_analytics_relation_meta_get_direct_related(rmeta, trk.id,
                                                        GST_ANALYTICS_REL_TYPE_RELATE_TO,
                                                        gst_analytics_od_mtd_get_mtd_type(),
                                                        &rstate, &od))
      out.push_back(track_info(trk));
  }
  return out;
}

GstBuffer* timed(GstBuffer* buf, GstClockTime pts) {
  GST_BUFFER_PTS(buf) = pts;
  GST_BUFFER_DURATION(buf) = 40 * GST_MSECOND;
  return buf;
}

// Squares of 6x6 pixels on black, at the given top-left corners.
GrayImage squares(int width, int height, const std::vector<std::pair<int, int>>& corners) {
  GrayImage g;
  g.width = width;
  g.height = height;
  g.pixels.assign(size_t(width) * height, 0);
  for (auto [x0, y0] : corners)
    for (int y = y0; y < y0 + 6; ++y)
      for (int x = x0; x < x0 + 6; ++x) g.pixels[size_t(y) * width + x] = 255;
  return g;
}

TEST(Analytics, OneDetectionPerComponentEqualToTheCclMetaAndItsTrack) {
  SKIP_UNLESS_BACKEND_RUNS();
  const GrayImage g = random_gray(90, 50, 0.3, 3, 21);
  const Frame frame = make_frame(g, PixelFormat::NV12, 4);
  Harness h("min-area=2");
  h.set_caps(PixelFormat::NV12, g.width, g.height);
  for (int f = 0; f < 3; ++f) {
    const GstClockTime pts = f * 40 * GST_MSECOND;
    GstBuffer* out = h.process(timed(buffer_from_frame(frame), pts));
    ASSERT_NE(out, nullptr);
    const GstCclMeta* meta = gst_ccl_meta_get(out);
    ASSERT_NE(meta, nullptr);
    ASSERT_GT(meta->n_components, 1u);
    const std::vector<Detection> d = detections(out);
    ASSERT_EQ(d.size(), meta->n_components) << "frame " << f;
    for (guint i = 0; i < meta->n_components; ++i) {
      const GstCclComponent& c = meta->components[i];
      SCOPED_TRACE("frame " + std::to_string(f) + " component " + std::to_string(i));
      EXPECT_EQ(d[i].x, c.x);
      EXPECT_EQ(d[i].y, c.y);
      EXPECT_EQ(d[i].w, c.width);
      EXPECT_EQ(d[i].h, c.height);
      EXPECT_FLOAT_EQ(d[i].confidence, 1.0f);
      EXPECT_STREQ(g_quark_to_string(d[i].type), "cudaccl-component");
      ASSERT_EQ(d[i].tracks.size(), 1u) << "one tracking entry related to the box";
      EXPECT_EQ(d[i].tracks[0].id, c.track_id);
      EXPECT_EQ(d[i].tracks[0].first, 0u) << "the same scene since the first frame";
      EXPECT_EQ(d[i].tracks[0].last, pts);
      EXPECT_FALSE(d[i].tracks[0].lost);
      EXPECT_EQ(d[i].related_back, std::vector<guint>{1u}) << "related both ways";
    }
    EXPECT_TRUE(lone_tracks(out).empty());
    gst_buffer_unref(out);
  }
}

TEST(Analytics, AnUnseenTrackIsLostUntilTheTrackerForgetsIt) {
  SKIP_UNLESS_BACKEND_RUNS();
  const Frame both = make_frame(squares(64, 32, {{4, 4}, {40, 20}}), PixelFormat::Gray8);
  const Frame one = make_frame(squares(64, 32, {{4, 4}}), PixelFormat::Gray8);
  const int max_lost = 2;
  Harness h("track-max-lost=" + std::to_string(max_lost));
  h.set_caps(PixelFormat::Gray8, 64, 32);

  GstBuffer* out = h.process(timed(buffer_from_frame(both), 0));
  ASSERT_NE(out, nullptr);
  std::vector<Detection> d = detections(out);
  ASSERT_EQ(d.size(), 2u);
  ASSERT_EQ(d[1].tracks.size(), 1u);
  const guint64 gone = d[1].tracks[0].id, stays = d[0].tracks[0].id;
  gst_buffer_unref(out);

  for (int f = 1; f <= max_lost + 1; ++f) {
    const GstClockTime pts = f * 40 * GST_MSECOND;
    out = h.process(timed(buffer_from_frame(one), pts));
    ASSERT_NE(out, nullptr);
    d = detections(out);
    ASSERT_EQ(d.size(), 1u);
    ASSERT_EQ(d[0].tracks.size(), 1u);
    EXPECT_EQ(d[0].tracks[0].id, stays);
    EXPECT_EQ(d[0].tracks[0].last, pts);
    const std::vector<Track> lost = lone_tracks(out);
    if (f <= max_lost) {
      ASSERT_EQ(lost.size(), 1u) << "frame " << f;
      EXPECT_EQ(lost[0].id, gone);
      EXPECT_TRUE(lost[0].lost);
      EXPECT_EQ(lost[0].first, 0u);
      EXPECT_EQ(lost[0].last, 0u) << "last seen on the first frame";
    } else {
      EXPECT_TRUE(lost.empty()) << "frame " << f << ": past track-max-lost";
    }
    gst_buffer_unref(out);
  }
}

TEST(Analytics, DetectionsAloneWithoutTrackingAndNoneWhenOff) {
  SKIP_UNLESS_BACKEND_RUNS();
  const Frame frame = make_frame(squares(64, 32, {{4, 4}, {40, 20}}), PixelFormat::Gray8);
  {
    Harness h("tracking=false");
    h.set_caps(PixelFormat::Gray8, 64, 32);
    GstBuffer* out = h.process(timed(buffer_from_frame(frame), 0));
    ASSERT_NE(out, nullptr);
    const std::vector<Detection> d = detections(out);
    ASSERT_EQ(d.size(), 2u);
    for (const Detection& x : d) EXPECT_TRUE(x.tracks.empty());
    EXPECT_TRUE(lone_tracks(out).empty());
    gst_buffer_unref(out);
  }
  {
    Harness h("analytics-meta=false");
    gboolean on = TRUE;
    g_object_get(h.element(), "analytics-meta", &on, nullptr);
    EXPECT_FALSE(on);
    h.set_caps(PixelFormat::Gray8, 64, 32);
    GstBuffer* out = h.process(timed(buffer_from_frame(frame), 0));
    ASSERT_NE(out, nullptr);
    EXPECT_EQ(gst_buffer_get_analytics_relation_meta(out), nullptr);
    EXPECT_NE(gst_ccl_meta_get(out), nullptr) << "the GstCclMeta stays";
    gst_buffer_unref(out);
  }
}

// objectdetectionoverlay (gst-plugins-bad 1.24) draws an outline on every box that
// cudaccl reported, and nothing far from them.
TEST(Analytics, ObjectDetectionOverlayDrawsTheBoxes) {
  SKIP_UNLESS_BACKEND_RUNS();
  GstElementFactory* overlay = gst_element_factory_find("objectdetectionoverlay");
  if (!overlay) GTEST_SKIP() << "objectdetectionoverlay (gst-plugins-bad 1.24) is not installed";
  gst_object_unref(overlay);

  const int width = 96, height = 64;
  const std::vector<std::pair<int, int>> corners = {{10, 10}, {60, 40}};
  const Frame frame = make_frame(squares(width, height, corners), PixelFormat::RGBA);
  const std::string launch = "cudaccl backend=" + backend_under_test() +
                             " tracking=false ! objectdetectionoverlay draw-labels=false "
                             "object-detection-outline-color=0xFF00FF00";
  GstHarness* h = gst_harness_new_parse(launch.c_str());
  ASSERT_NE(h, nullptr);
  gst_harness_set_src_caps_str(h, caps_string(PixelFormat::RGBA, width, height).c_str());
  GstBuffer* out = gst_harness_push_and_pull(h, timed(buffer_from_frame(frame), 0));
  ASSERT_NE(out, nullptr);
  const std::vector<uint8_t> before = read_planes(frame)[0];
  const std::vector<uint8_t> after = read_planes(out, PixelFormat::RGBA, width, height)[0];
  auto changed = [&](int x, int y) {
    const size_t i = (size_t(y) * width + x) * 4;
    return !std::equal(&before[i], &before[i] + 3, &after[i]);
  };
  auto near_edge = [&](int x, int y, int x0, int y0) {
    const int x1 = x0 + 6, y1 = y0 + 6;  // box [x0, x1) x [y0, y1)
    const bool in_x = x >= x0 - 2 && x <= x1 + 1, in_y = y >= y0 - 2 && y <= y1 + 1;
    return (in_y && (std::abs(x - x0) <= 2 || std::abs(x - x1) <= 2)) ||
           (in_x && (std::abs(y - y0) <= 2 || std::abs(y - y1) <= 2));
  };
  for (auto [x0, y0] : corners) {
    const int mx = x0 + 3, my = y0 + 3;
    EXPECT_TRUE(changed(x0 - 1, my) || changed(x0, my)) << "left edge of " << x0 << "," << y0;
    EXPECT_TRUE(changed(x0 + 5, my) || changed(x0 + 6, my)) << "right edge";
    EXPECT_TRUE(changed(mx, y0 - 1) || changed(mx, y0)) << "top edge";
    EXPECT_TRUE(changed(mx, y0 + 5) || changed(mx, y0 + 6)) << "bottom edge";
  }
  int far_changed = 0;
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      bool near = false;
      for (auto [x0, y0] : corners) near = near || near_edge(x, y, x0, y0);
      if (!near && changed(x, y)) ++far_changed;
    }
  EXPECT_EQ(far_changed, 0) << "pixels changed away from every box outline";
  gst_buffer_unref(out);
  gst_harness_teardown(h);
}

// The RGBA frame out of `cudaccl ! objectdetectionoverlay` with the given settings of
// each, for one pushed frame.
std::vector<uint8_t> overlaid(const Frame& frame, int width, int height,
                              const std::string& ccl_settings,
                              const std::string& overlay_settings) {
  const std::string launch = "cudaccl backend=" + backend_under_test() + " " + ccl_settings +
                             " ! objectdetectionoverlay draw-labels=false " + overlay_settings;
  GstHarness* h = gst_harness_new_parse(launch.c_str());
  EXPECT_NE(h, nullptr);
  if (!h) return {};
  gst_harness_set_src_caps_str(h, caps_string(PixelFormat::RGBA, width, height).c_str());
  GstBuffer* out = gst_harness_push_and_pull(h, timed(buffer_from_frame(frame), 0));
  EXPECT_NE(out, nullptr);
  std::vector<uint8_t> pixels;
  if (out) pixels = read_planes(out, PixelFormat::RGBA, width, height)[0];
  if (out) gst_buffer_unref(out);
  gst_harness_teardown(h);
  return pixels;
}

// objectdetectionoverlay of GStreamer 1.28 writes a track's id beside its box
// (draw-tracking-labels), found through the RELATE_TO relation from the detection to
// cudaccl's tracking entry: the label's pixels appear with tracking, near the box,
// and not without tracking.
TEST(Analytics, ObjectDetectionOverlayDrawsTheTrackLabel) {
  SKIP_UNLESS_BACKEND_RUNS();
  GstElement* probe = gst_element_factory_make("objectdetectionoverlay", nullptr);
  if (!probe) GTEST_SKIP() << "objectdetectionoverlay (gst-plugins-bad 1.24) is not installed";
  const bool has_labels =
      g_object_class_find_property(G_OBJECT_GET_CLASS(probe), "draw-tracking-labels") != nullptr;
  gst_object_unref(probe);
  if (!has_labels)
    GTEST_SKIP() << "objectdetectionoverlay has no draw-tracking-labels (GStreamer 1.28)";

  const int width = 320, height = 240, x0 = 100, y0 = 120;
  const Frame frame = make_frame(squares(width, height, {{x0, y0}}), PixelFormat::RGBA);
  const std::string outline = "object-detection-outline-color=0xFF00FF00";
  // Tracking entries may change the outline (a color per track), so each run with
  // labels is set against the same run without them.
  const auto plain = overlaid(frame, width, height, "tracking=true",
                              outline + " draw-tracking-labels=false");
  const auto labeled = overlaid(frame, width, height, "tracking=true",
                                outline + " draw-tracking-labels=true");
  const auto untracked_plain = overlaid(frame, width, height, "tracking=false",
                                        outline + " draw-tracking-labels=false");
  const auto untracked = overlaid(frame, width, height, "tracking=false",
                                  outline + " draw-tracking-labels=true");
  ASSERT_EQ(plain.size(), size_t(width) * height * 4);
  ASSERT_EQ(labeled.size(), plain.size());
  ASSERT_EQ(untracked.size(), plain.size());

  int label_pixels = 0, far_pixels = 0;
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      const size_t i = (size_t(y) * width + x) * 4;
      if (std::equal(&plain[i], &plain[i] + 3, &labeled[i])) continue;
      ++label_pixels;
      // Beside the 6x6 box: within a text line's height above or below it and a
      // label's width to its right.
      const bool near = x >= x0 - 8 && x <= x0 + 140 && y >= y0 - 40 && y <= y0 + 46;
      if (!near) ++far_pixels;
    }
  EXPECT_GE(label_pixels, 20) << "no track label drawn";
  EXPECT_EQ(far_pixels, 0) << "label pixels away from the box";
  EXPECT_EQ(untracked, untracked_plain) << "a label drawn without a tracking entry";
}

}  // namespace
}  // namespace ccl::element_test
