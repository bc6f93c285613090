// The meta's transform: scaling maps boxes, centroids and moments into the new
// frame; a same-size conversion copies it exactly; any other geometry change drops
// it. Checked on the transform function itself and through real elements.
#include <gst/ccl/gstcclmeta.h>
#include <gst/check/gstharness.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "shapes.h"

namespace {

using meta_test::component_of;
using meta_test::ellipse;
using meta_test::Pixels;
using meta_test::rectangle;
using meta_test::same_component;

constexpr double kPi = 3.14159265358979323846;

GstCclMeta* add_meta(GstBuffer* buf, guint w, guint h, const std::vector<GstCclComponent>& comps) {
  GstCclMeta* meta = gst_ccl_meta_add(buf, w, h, guint(comps.size()) + 3, comps.data(),
                                      guint(comps.size()));
  meta->threshold = 91;
  meta->algorithm = GST_CCL_ALGORITHM_KOMURA;
  meta->connectivity = 4;
  meta->gpu_time = 4242;
  return meta;
}

// Runs the meta's transform function the way a scaling video filter does. Returns
// the destination buffer (with or without a meta) and whether the meta was kept.
GstBuffer* transform(GstBuffer* src, int in_w, int in_h, int out_w, int out_h, bool* kept) {
  GstVideoInfo in_info, out_info;
  gst_video_info_set_format(&in_info, GST_VIDEO_FORMAT_GRAY8, in_w, in_h);
  gst_video_info_set_format(&out_info, GST_VIDEO_FORMAT_GRAY8, out_w, out_h);
  GstVideoMetaTransform trans = {&in_info, &out_info};
  GstBuffer* dest = gst_buffer_new();
  GstMeta* meta = &gst_ccl_meta_get(src)->meta;
  *kept = meta->info->transform_func(dest, meta, src, gst_video_meta_transform_scale_get_quark(),
                                     &trans);
  return dest;
}

const GstCclMeta* scaled_meta(GstBuffer* src, int in_w, int in_h, int out_w, int out_h,
                              GstBuffer** dest) {
  bool kept = false;
  *dest = transform(src, in_w, in_h, out_w, out_h, &kept);
  EXPECT_TRUE(kept);
  return gst_ccl_meta_get(*dest);
}

// c with a track: ids, age and unseen count that scaling must keep, a velocity, and
// a predicted box of the given geometry.
GstCclComponent tracked(GstCclComponent c, guint64 id, int px, int py, int pw, int ph) {
  c.track_id = id;
  c.parent_id = id + 100;
  c.track_age = 17;
  c.frames_unseen = 2;
  c.velocity_x = 3.0;
  c.velocity_y = -1.5;
  c.predicted_x = px;
  c.predicted_y = py;
  c.predicted_width = pw;
  c.predicted_height = ph;
  return c;
}

struct Moments {
  double mu20, mu11, mu02;
};

Moments moments_of(const GstCclComponent& c) {
  Moments m{};
  gst_ccl_component_get_central_moments(&c, &m.mu20, &m.mu11, &m.mu02);
  return m;
}

TEST(MetaScale, DoublingARectangleByHand) {
  GstBuffer* buf = gst_buffer_new();
  add_meta(buf, 64, 48, {component_of(3, rectangle(5, 6, 4, 3))});
  GstBuffer* out;
  const GstCclMeta* m = scaled_meta(buf, 64, 48, 128, 96, &out);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->width, 128u);
  EXPECT_EQ(m->height, 96u);
  ASSERT_EQ(m->n_components, 1u);
  const GstCclComponent& c = m->components[0];
  EXPECT_EQ(c.label, 3u);
  EXPECT_EQ(c.x, 10);
  EXPECT_EQ(c.y, 12);
  EXPECT_EQ(c.width, 8);
  EXPECT_EQ(c.height, 6);
  EXPECT_EQ(c.area, 48u);
  // Pixel centres map as (c + 0.5) * 2 - 0.5: (6.5, 7) -> (13.5, 14.5), the centre
  // of the 8 x 6 block the rectangle became.
  EXPECT_DOUBLE_EQ(c.centroid_x, 13.5);
  EXPECT_DOUBLE_EQ(c.centroid_y, 14.5);
  // Variances (16 - 1) / 12 and (9 - 1) / 12 grow four times.
  const Moments mo = moments_of(c);
  EXPECT_NEAR(mo.mu20, 5.0, 1e-9);
  EXPECT_NEAR(mo.mu02, 8.0 / 3.0, 1e-9);
  EXPECT_NEAR(mo.mu11, 0.0, 1e-9);
  double major, minor;
  gst_ccl_component_get_axis_lengths(&c, &major, &minor);
  EXPECT_NEAR(major, 4.0 * std::sqrt(5.0), 1e-9);
  EXPECT_NEAR(minor, 4.0 * std::sqrt(8.0 / 3.0), 1e-9);
  gst_buffer_unref(out);
  gst_buffer_unref(buf);
}

TEST(MetaScale, HalvingARectangleByHand) {
  GstBuffer* buf = gst_buffer_new();
  add_meta(buf, 64, 48, {component_of(1, rectangle(5, 6, 4, 3))});
  GstBuffer* out;
  const GstCclMeta* m = scaled_meta(buf, 64, 48, 32, 24, &out);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->width, 32u);
  EXPECT_EQ(m->height, 24u);
  const GstCclComponent& c = m->components[0];
  // Columns [5, 9) -> [2.5, 4.5) grows outward to [2, 5); rows [6, 9) -> [3, 5).
  EXPECT_EQ(c.x, 2);
  EXPECT_EQ(c.width, 3);
  EXPECT_EQ(c.y, 3);
  EXPECT_EQ(c.height, 2);
  EXPECT_EQ(c.area, 3u);  // 12 pixels / 4
  EXPECT_DOUBLE_EQ(c.centroid_x, 3.0);
  EXPECT_DOUBLE_EQ(c.centroid_y, 3.25);
  gst_buffer_unref(out);
  gst_buffer_unref(buf);
}

TEST(MetaScale, StretchingTurnsADiagonalLine) {
  // The line (i, i), stretched twice as wide, runs along (2, 1): atan(1/2). Its
  // covariance v [[1, 1], [1, 1]] becomes v [[4, 2], [2, 1]], eigenvalues 5v and 0.
  Pixels line;
  for (int i = 0; i < 100; ++i) line.emplace_back(i, i);
  GstBuffer* buf = gst_buffer_new();
  add_meta(buf, 128, 128, {component_of(1, line)});
  GstBuffer* out;
  const GstCclMeta* m = scaled_meta(buf, 128, 128, 256, 128, &out);
  ASSERT_NE(m, nullptr);
  const GstCclComponent& c = m->components[0];
  EXPECT_NEAR(gst_ccl_component_get_orientation(&c), std::atan(0.5), 1e-4);
  const double v = (100.0 * 100.0 - 1.0) / 12.0;
  double major, minor;
  gst_ccl_component_get_axis_lengths(&c, &major, &minor);
  EXPECT_NEAR(major, 4.0 * std::sqrt(5.0 * v), 1e-3 * major);
  EXPECT_LT(minor, 1.0);
  gst_buffer_unref(out);
  gst_buffer_unref(buf);
}

TEST(MetaScale, CovarianceScalesWithTheFactors) {
  const double sx = 1.5, sy = 0.75;
  const GstCclComponent in = component_of(1, ellipse(100, 60, 35, 9, 0.6));
  GstBuffer* buf = gst_buffer_new();
  add_meta(buf, 200, 120, {in});
  GstBuffer* out;
  const GstCclMeta* m = scaled_meta(buf, 200, 120, 300, 90, &out);
  ASSERT_NE(m, nullptr);
  const Moments a = moments_of(in), b = moments_of(m->components[0]);
  EXPECT_NEAR(b.mu20, sx * sx * a.mu20, 1e-3 * b.mu20);
  EXPECT_NEAR(b.mu11, sx * sy * a.mu11, 1e-3 * std::fabs(b.mu11));
  EXPECT_NEAR(b.mu02, sy * sy * a.mu02, 1e-3 * b.mu02);
  EXPECT_NEAR(double(m->components[0].area), in.area * sx * sy, 0.5);
  gst_buffer_unref(out);
  gst_buffer_unref(buf);
}

TEST(MetaScale, UniformScalingKeepsOrientation) {
  for (double degrees : {-50.0, 20.0, 80.0}) {
    const GstCclComponent in = component_of(1, ellipse(80, 60, 30, 8, degrees * kPi / 180));
    GstBuffer* buf = gst_buffer_new();
    add_meta(buf, 160, 120, {in});
    GstBuffer* out;
    const GstCclMeta* m = scaled_meta(buf, 160, 120, 400, 300, &out);
    ASSERT_NE(m, nullptr);
    EXPECT_NEAR(gst_ccl_component_get_orientation(&m->components[0]),
                gst_ccl_component_get_orientation(&in), 1e-4)
        << degrees;
    double major_in, minor_in, major_out, minor_out;
    gst_ccl_component_get_axis_lengths(&in, &major_in, &minor_in);
    gst_ccl_component_get_axis_lengths(&m->components[0], &major_out, &minor_out);
    EXPECT_NEAR(major_out, 2.5 * major_in, 1e-3 * major_out) << degrees;
    EXPECT_NEAR(minor_out, 2.5 * minor_in, 1e-3 * minor_out) << degrees;
    gst_buffer_unref(out);
    gst_buffer_unref(buf);
  }
}

TEST(MetaScale, FieldsAndOrderSurvive) {
  GstBuffer* buf = gst_buffer_new();
  const GstCclMeta* in = add_meta(buf, 40, 30,
                                  {component_of(7, rectangle(30, 0, 5, 5)),
                                   component_of(2, rectangle(0, 20, 3, 3)),
                                   component_of(5, rectangle(10, 10, 2, 8))});
  GstBuffer* out;
  const GstCclMeta* m = scaled_meta(buf, 40, 30, 20, 45, &out);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->total_count, in->total_count);
  EXPECT_EQ(m->threshold, 91u);
  EXPECT_EQ(m->algorithm, GST_CCL_ALGORITHM_KOMURA);
  EXPECT_EQ(m->connectivity, 4u);
  EXPECT_EQ(m->gpu_time, 4242u);
  ASSERT_EQ(m->n_components, 3u);
  EXPECT_EQ(m->components[0].label, 7u);
  EXPECT_EQ(m->components[1].label, 2u);
  EXPECT_EQ(m->components[2].label, 5u);
  gst_buffer_unref(out);
  gst_buffer_unref(buf);
}

TEST(MetaScale, SameSizeIsAnExactCopy) {
  GstBuffer* buf = gst_buffer_new();
  const GstCclMeta* in = add_meta(buf, 160, 120, {component_of(1, ellipse(50, 40, 20, 7, 1.1)),
                                                  component_of(2, rectangle(100, 90, 9, 4))});
  GstBuffer* out;
  const GstCclMeta* m = scaled_meta(buf, 160, 120, 160, 120, &out);
  ASSERT_NE(m, nullptr);
  ASSERT_EQ(m->n_components, 2u);
  for (guint i = 0; i < 2; ++i) EXPECT_TRUE(same_component(m->components[i], in->components[i]));
  EXPECT_EQ(m->width, 160u);
  gst_buffer_unref(out);
  gst_buffer_unref(buf);
}

// Any scale: boxes stay inside the new frame, are at least one pixel, and hold the
// mapped centroid (pixel centres, so within half a pixel of the box's edges).
TEST(MetaScale, RandomScalesKeepBoxesInsideAroundCentroids) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> size(1, 400);
  std::vector<GstCclComponent> comps;
  for (int i = 0; i < 12; ++i) {
    const int x = int(rng() % 150), y = int(rng() % 100);
    const int w = 1 + int(rng() % (200 - x)), h = 1 + int(rng() % (150 - y));
    comps.push_back(component_of(guint32(i + 1), rectangle(x, y, std::min(w, 40), std::min(h, 30))));
  }
  GstBuffer* buf = gst_buffer_new();
  add_meta(buf, 200, 150, comps);
  for (int trial = 0; trial < 200; ++trial) {
    const int out_w = size(rng), out_h = size(rng);
    GstBuffer* out;
    const GstCclMeta* m = scaled_meta(buf, 200, 150, out_w, out_h, &out);
    ASSERT_NE(m, nullptr);
    ASSERT_EQ(m->width, guint(out_w));
    ASSERT_EQ(m->height, guint(out_h));
    for (guint i = 0; i < m->n_components; ++i) {
      const GstCclComponent& c = m->components[i];
      SCOPED_TRACE(std::to_string(out_w) + "x" + std::to_string(out_h) + " #" +
                   std::to_string(c.label));
      EXPECT_GE(c.x, 0);
      EXPECT_GE(c.y, 0);
      EXPECT_GE(c.width, 1);
      EXPECT_GE(c.height, 1);
      EXPECT_LE(c.x + c.width, out_w);
      EXPECT_LE(c.y + c.height, out_h);
      EXPECT_GE(c.area, 1u);
      EXPECT_GE(c.centroid_x, c.x - 0.5);
      EXPECT_LE(c.centroid_x, c.x + c.width - 0.5);
      EXPECT_GE(c.centroid_y, c.y - 0.5);
      EXPECT_LE(c.centroid_y, c.y + c.height - 0.5);
      double cx, cy;
      gst_ccl_component_get_centroid(&c, &cx, &cy);
      EXPECT_NEAR(cx, c.centroid_x, 0.5 / double(c.area) + 1e-9);
      EXPECT_NEAR(cy, c.centroid_y, 0.5 / double(c.area) + 1e-9);
    }
    gst_buffer_unref(out);
  }
  gst_buffer_unref(buf);
}

TEST(MetaScale, TrackIdsStayAndMotionScales) {
  GstBuffer* buf = gst_buffer_new();
  GstCclMeta* in = add_meta(buf, 64, 48,
                            {tracked(component_of(3, rectangle(5, 6, 4, 3)),
                                     (guint64(1) << 33) + 1, 7, 6, 4, 3)});
  in->tracking = TRUE;
  GstBuffer* out;
  const GstCclMeta* m = scaled_meta(buf, 64, 48, 128, 72, &out);  // sx = 2, sy = 1.5
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(m->tracking);
  ASSERT_EQ(m->n_components, 1u);
  const GstCclComponent& c = m->components[0];
  EXPECT_EQ(c.track_id, (guint64(1) << 33) + 1);
  EXPECT_EQ(c.parent_id, (guint64(1) << 33) + 101);
  EXPECT_EQ(c.track_age, 17u);
  EXPECT_EQ(c.frames_unseen, 2u);
  EXPECT_DOUBLE_EQ(c.velocity_x, 6.0);
  EXPECT_DOUBLE_EQ(c.velocity_y, -2.25);
  // Columns [7, 11) -> [14, 22); rows [6, 9) -> [9, 13.5), grown outward to [9, 14).
  EXPECT_EQ(c.predicted_x, 14);
  EXPECT_EQ(c.predicted_width, 8);
  EXPECT_EQ(c.predicted_y, 9);
  EXPECT_EQ(c.predicted_height, 5);
  // The bounding box beside it went through the same mapping.
  EXPECT_EQ(c.x, 10);
  EXPECT_EQ(c.y, 9);
  EXPECT_EQ(c.height, 5);
  gst_buffer_unref(out);
  gst_buffer_unref(buf);
}

// A predicted box equal to the bounding box must come out equal to the scaled
// bounding box, whatever the scale.
TEST(MetaScale, PredictedBoxMapsLikeTheBoundingBox) {
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> size(1, 400);
  std::vector<GstCclComponent> comps;
  for (int i = 0; i < 12; ++i) {
    const int x = int(rng() % 199), y = int(rng() % 149);
    const int w = 1 + int(rng() % std::min(40, 200 - x)), h = 1 + int(rng() % std::min(30, 150 - y));
    GstCclComponent c = component_of(guint32(i + 1), rectangle(x, y, w, h));
    comps.push_back(tracked(c, guint64(i + 1), c.x, c.y, c.width, c.height));
  }
  GstBuffer* buf = gst_buffer_new();
  add_meta(buf, 200, 150, comps);
  for (int trial = 0; trial < 200; ++trial) {
    const int out_w = size(rng), out_h = size(rng);
    GstBuffer* out;
    const GstCclMeta* m = scaled_meta(buf, 200, 150, out_w, out_h, &out);
    ASSERT_NE(m, nullptr);
    for (guint i = 0; i < m->n_components; ++i) {
      const GstCclComponent& c = m->components[i];
      SCOPED_TRACE(std::to_string(out_w) + "x" + std::to_string(out_h) + " #" +
                   std::to_string(c.label));
      EXPECT_EQ(c.predicted_x, c.x);
      EXPECT_EQ(c.predicted_y, c.y);
      EXPECT_EQ(c.predicted_width, c.width);
      EXPECT_EQ(c.predicted_height, c.height);
      EXPECT_EQ(c.track_id, guint64(i + 1));
    }
    gst_buffer_unref(out);
  }
  gst_buffer_unref(buf);
}

// A prediction reaching out of the frame (an object leaving it) keeps its outside
// part; bounding boxes never have one.
TEST(MetaScale, PredictionOutsideTheFrameIsKept) {
  GstBuffer* buf = gst_buffer_new();
  add_meta(buf, 64, 48,
           {tracked(component_of(1, rectangle(0, 10, 3, 3)), 1, -4, 10, 6, 3),
            tracked(component_of(2, rectangle(60, 44, 4, 4)), 2, 62, 46, 4, 4)});
  GstBuffer* out;
  const GstCclMeta* m = scaled_meta(buf, 64, 48, 128, 96, &out);
  ASSERT_NE(m, nullptr);
  ASSERT_EQ(m->n_components, 2u);
  EXPECT_EQ(m->components[0].predicted_x, -8);
  EXPECT_EQ(m->components[0].predicted_width, 12);
  EXPECT_EQ(m->components[0].predicted_y, 20);
  EXPECT_EQ(m->components[1].predicted_x, 124);
  EXPECT_EQ(m->components[1].predicted_width, 8);
  EXPECT_EQ(m->components[1].predicted_y, 92);
  EXPECT_EQ(m->components[1].predicted_height, 8);
  gst_buffer_unref(out);
  gst_buffer_unref(buf);
}

TEST(MetaScale, UntrackedComponentsStayUntracked) {
  GstBuffer* buf = gst_buffer_new();
  add_meta(buf, 64, 48, {component_of(1, rectangle(5, 6, 4, 3))});
  GstBuffer* out;
  const GstCclMeta* m = scaled_meta(buf, 64, 48, 100, 70, &out);
  ASSERT_NE(m, nullptr);
  EXPECT_FALSE(m->tracking);
  const GstCclComponent& c = m->components[0];
  EXPECT_EQ(c.track_id, 0u);
  EXPECT_EQ(c.parent_id, 0u);
  EXPECT_EQ(c.track_age, 0u);
  EXPECT_EQ(c.velocity_x, 0.0);
  EXPECT_EQ(c.velocity_y, 0.0);
  EXPECT_EQ(c.predicted_x, 0);
  EXPECT_EQ(c.predicted_y, 0);
  EXPECT_EQ(c.predicted_width, 0);
  EXPECT_EQ(c.predicted_height, 0);
  gst_buffer_unref(out);
  gst_buffer_unref(buf);
}

TEST(MetaScale, SameSizeKeepsTracking) {
  GstBuffer* buf = gst_buffer_new();
  GstCclMeta* in = add_meta(buf, 64, 48, {tracked(component_of(1, rectangle(5, 6, 4, 3)), 9,
                                                  -2, 7, 4, 3)});
  in->tracking = TRUE;
  GstBuffer* out;
  const GstCclMeta* m = scaled_meta(buf, 64, 48, 64, 48, &out);
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(m->tracking);
  EXPECT_EQ(m->components[0].track_id, 9u);
  EXPECT_EQ(m->components[0].predicted_x, -2);
  EXPECT_EQ(m->components[0].velocity_y, -1.5);
  gst_buffer_unref(out);
  gst_buffer_unref(buf);
}

TEST(MetaScale, OtherTransformsDropTheMeta) {
  GstBuffer* buf = gst_buffer_new_allocate(nullptr, 16, nullptr);
  add_meta(buf, 4, 4, {component_of(1, rectangle(0, 0, 2, 2))});
  GstMeta* meta = &gst_ccl_meta_get(buf)->meta;
  GstBuffer* dest = gst_buffer_new();
  EXPECT_FALSE(meta->info->transform_func(dest, meta, buf, g_quark_from_string("gst-video-rotate"),
                                          nullptr));
  EXPECT_FALSE(
      meta->info->transform_func(dest, meta, buf, g_quark_from_string("some-crop"), nullptr));
  EXPECT_EQ(gst_ccl_meta_get(dest), nullptr);
  gst_buffer_unref(dest);
  gst_buffer_unref(buf);
}

// Through real elements: a GRAY8 frame with a meta, pushed through one element.
class MetaThroughElement : public ::testing::Test {
 protected:
  // Pushes a 64x48 frame carrying one 4x3 rectangle at (5, 6); returns the meta
  // on the output buffer (or nullptr), keeping the buffer in out_.
  const GstCclMeta* run(const char* launch, const char* out_caps) {
    const std::string factory(launch, std::strcspn(launch, " "));
    GstElementFactory* f = gst_element_factory_find(factory.c_str());
    if (!f) return nullptr;
    gst_object_unref(f);
    available_ = true;
    h_ = gst_harness_new_parse(launch);
    const char* in_caps = "video/x-raw,format=GRAY8,width=64,height=48,framerate=30/1";
    if (out_caps)
      gst_harness_set_caps_str(h_, in_caps, out_caps);
    else
      gst_harness_set_src_caps_str(h_, in_caps);
    GstBuffer* buf = gst_buffer_new_allocate(nullptr, 64 * 48, nullptr);
    gst_buffer_memset(buf, 0, 0, 64 * 48);
    GST_BUFFER_PTS(buf) = 0;
    GST_BUFFER_DURATION(buf) = GST_SECOND / 30;
    add_meta(buf, 64, 48, {tracked(component_of(1, rectangle(5, 6, 4, 3)), 21, 8, 5, 4, 3)})
        ->tracking = TRUE;
    EXPECT_EQ(gst_harness_push(h_, buf), GST_FLOW_OK);
    out_ = gst_harness_pull(h_);
    return out_ ? gst_ccl_meta_get(out_) : nullptr;
  }

  void TearDown() override {
    if (out_) gst_buffer_unref(out_);
    if (h_) gst_harness_teardown(h_);
  }

  bool available_ = false;
  GstHarness* h_ = nullptr;
  GstBuffer* out_ = nullptr;
};

TEST_F(MetaThroughElement, VideoscaleScalesIt) {
  const GstCclMeta* m =
      run("videoscale", "video/x-raw,format=GRAY8,width=128,height=96,framerate=30/1");
  if (!available_) GTEST_SKIP() << "videoscale (gst-plugins-base) is not installed";
  ASSERT_NE(m, nullptr) << "videoscale dropped the meta";
  EXPECT_EQ(m->width, 128u);
  EXPECT_EQ(m->height, 96u);
  ASSERT_EQ(m->n_components, 1u);
  EXPECT_EQ(m->components[0].x, 10);
  EXPECT_EQ(m->components[0].width, 8);
  EXPECT_EQ(m->components[0].area, 48u);
  EXPECT_TRUE(m->tracking);
  EXPECT_EQ(m->components[0].track_id, 21u);
  EXPECT_EQ(m->components[0].predicted_x, 16);
  EXPECT_EQ(m->components[0].predicted_y, 10);
  EXPECT_EQ(m->components[0].predicted_width, 8);
  EXPECT_DOUBLE_EQ(m->components[0].velocity_x, 6.0);
}

TEST_F(MetaThroughElement, VideoconvertKeepsItExactly) {
  const GstCclMeta* m =
      run("videoconvert", "video/x-raw,format=I420,width=64,height=48,framerate=30/1");
  if (!available_) GTEST_SKIP() << "videoconvert (gst-plugins-base) is not installed";
  ASSERT_NE(m, nullptr) << "videoconvert dropped the meta";
  const GstCclComponent expected =
      tracked(component_of(1, rectangle(5, 6, 4, 3)), 21, 8, 5, 4, 3);
  ASSERT_EQ(m->n_components, 1u);
  EXPECT_TRUE(same_component(m->components[0], expected));
  EXPECT_EQ(m->threshold, 91u);
  EXPECT_TRUE(m->tracking);
}

TEST_F(MetaThroughElement, VideoflipDropsIt) {
  // Output caps left to videoflip: GStreamer 1.18's cannot answer a fixed
  // downstream rotation without a pixel-aspect-ratio.
  const GstCclMeta* m = run("videoflip video-direction=90r", nullptr);
  if (!available_) GTEST_SKIP() << "videoflip (gst-plugins-good) is not installed";
  ASSERT_NE(out_, nullptr);
  EXPECT_EQ(m, nullptr) << "a rotated frame must not keep unrotated boxes";
}

TEST_F(MetaThroughElement, VideocropDropsIt) {
  const GstCclMeta* m =
      run("videocrop left=4", "video/x-raw,format=GRAY8,width=60,height=48,framerate=30/1");
  if (!available_) GTEST_SKIP() << "videocrop (gst-plugins-good) is not installed";
  ASSERT_NE(out_, nullptr);
  EXPECT_EQ(m, nullptr) << "a cropped frame must not keep uncropped boxes";
}

}  // namespace
