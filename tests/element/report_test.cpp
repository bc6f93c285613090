// What the element reports: ROI metas, min-area / max-components, element messages,
// and the meta through copies and a downstream scaler.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "element_util.h"

namespace ccl::element_test {
namespace {

using test::Frame;
using test::GrayImage;
using test::make_frame;

// Components of known sizes: areas 1, 4, 4, 9, 16, 2 (labels in raster order).
GrayImage known_components() {
  GrayImage g{"known", 40, 20, std::vector<uint8_t>(800, 0)};
  auto rect = [&](int x0, int y0, int w, int h) {
    for (int y = y0; y < y0 + h; ++y)
      for (int x = x0; x < x0 + w; ++x) g.pixels[size_t(y) * 40 + x] = 255;
  };
  rect(1, 1, 1, 1);    // label 1, area 1
  rect(5, 1, 2, 2);    // label 2, area 4
  rect(10, 1, 2, 2);   // label 3, area 4
  rect(15, 2, 3, 3);   // label 4, area 9
  rect(22, 3, 4, 4);   // label 5, area 16
  rect(30, 10, 2, 1);  // label 6, area 2
  return g;
}

std::vector<guint> labels_of(const GstCclMeta* meta) {
  std::vector<guint> v;
  for (guint i = 0; i < meta->n_components; ++i) v.push_back(meta->components[i].label);
  return v;
}

GstBuffer* run_known(Harness& h, const Frame& frame) {
  h.set_caps(PixelFormat::Gray8, frame.view.width, frame.view.height);
  return h.process(buffer_from_frame(frame));
}

TEST(Report, MinAreaLeavesSmallComponentsOutButCountsThem) {
  SKIP_UNLESS_BACKEND_RUNS();
  const Frame frame = make_frame(known_components(), PixelFormat::Gray8);
  Harness h("min-area=4");
  GstBuffer* out = run_known(h, frame);
  ASSERT_NE(out, nullptr);
  const GstCclMeta* meta = gst_ccl_meta_get(out);
  ASSERT_NE(meta, nullptr);
  EXPECT_EQ(meta->total_count, 6u);
  EXPECT_EQ(labels_of(meta), (std::vector<guint>{2, 3, 4, 5}));
  gst_buffer_unref(out);
}

TEST(Report, MaxComponentsKeepsTheLargestFirstWithTiesByLabel) {
  SKIP_UNLESS_BACKEND_RUNS();
  const Frame frame = make_frame(known_components(), PixelFormat::Gray8);
  {
    Harness h("max-components=3");
    GstBuffer* out = run_known(h, frame);
    ASSERT_NE(out, nullptr);
    const GstCclMeta* meta = gst_ccl_meta_get(out);
    EXPECT_EQ(meta->total_count, 6u);
    EXPECT_EQ(labels_of(meta), (std::vector<guint>{5, 4, 2}));  // 16, 9, then 4 (2 before 3)
    gst_buffer_unref(out);
  }
  {
    Harness h("max-components=0");
    GstBuffer* out = run_known(h, frame);
    ASSERT_NE(out, nullptr);
    EXPECT_EQ(gst_ccl_meta_get(out)->n_components, 0u);
    EXPECT_EQ(gst_ccl_meta_get(out)->total_count, 6u);
    gst_buffer_unref(out);
  }
  {
    // Not capped: label order even with a limit set.
    Harness h("max-components=6 min-area=2");
    GstBuffer* out = run_known(h, frame);
    ASSERT_NE(out, nullptr);
    EXPECT_EQ(labels_of(gst_ccl_meta_get(out)), (std::vector<guint>{2, 3, 4, 5, 6}));
    gst_buffer_unref(out);
  }
  {
    // Exactly at the cap is not capped: label order.
    Harness h("max-components=2 min-area=5");
    GstBuffer* out = run_known(h, frame);
    ASSERT_NE(out, nullptr);
    EXPECT_EQ(labels_of(gst_ccl_meta_get(out)), (std::vector<guint>{4, 5}));
    gst_buffer_unref(out);
  }
}

TEST(Report, OneRoiMetaPerReportedComponentWithItsBoxAndParams) {
  SKIP_UNLESS_BACKEND_RUNS();
  const GrayImage g = random_gray(90, 50, 0.3, 3, 11);
  const Frame frame = make_frame(g, PixelFormat::I420, 4);
  Harness h("min-area=3 max-roi-metas=100000");
  h.set_caps(PixelFormat::I420, g.width, g.height);
  GstBuffer* out = h.process(buffer_from_frame(frame));
  ASSERT_NE(out, nullptr);
  const GstCclMeta* meta = gst_ccl_meta_get(out);
  ASSERT_NE(meta, nullptr);
  ASSERT_GT(meta->n_components, 0u);

  gpointer state = nullptr;
  GstMeta* m;
  guint i = 0;
  while ((m = gst_buffer_iterate_meta_filtered(out, &state,
                                               GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    auto* roi = reinterpret_cast<GstVideoRegionOfInterestMeta*>(m);
    ASSERT_LT(i, meta->n_components);
    const GstCclComponent& c = meta->components[i];
    EXPECT_STREQ(g_quark_to_string(roi->roi_type), "ccl-component");
    EXPECT_EQ(roi->id, gint(c.track_id)) << "tracking (the default): the id is the track's";
    EXPECT_EQ(roi->x, guint(c.x));
    EXPECT_EQ(roi->y, guint(c.y));
    EXPECT_EQ(roi->w, guint(c.width));
    EXPECT_EQ(roi->h, guint(c.height));
    GstStructure* s = gst_video_region_of_interest_meta_get_param(roi, "ccl-component");
    ASSERT_NE(s, nullptr);
    guint64 area = 0, sum_xy = 0;
    gdouble cx = 0, cy = 0;
    EXPECT_TRUE(gst_structure_get(s, "area", G_TYPE_UINT64, &area, "centroid-x", G_TYPE_DOUBLE,
                                  &cx, "centroid-y", G_TYPE_DOUBLE, &cy, "sum-xy",
                                  G_TYPE_UINT64, &sum_xy, nullptr));
    EXPECT_EQ(area, c.area);
    EXPECT_EQ(cx, c.centroid_x);
    EXPECT_EQ(cy, c.centroid_y);
    EXPECT_EQ(sum_xy, c.sum_xy);
    for (const char* f : {"sum-x", "sum-y", "sum-xx", "sum-yy", "label"})
      EXPECT_TRUE(gst_structure_has_field(s, f)) << f;
    ++i;
  }
  EXPECT_EQ(i, meta->n_components);
  gst_buffer_unref(out);
}

// The labels of a buffer's ROI metas, in the order they are attached.
std::vector<guint> roi_labels(GstBuffer* out) {
  std::vector<guint> labels;
  gpointer state = nullptr;
  GstMeta* m;
  while ((m = gst_buffer_iterate_meta_filtered(out, &state,
                                               GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    GstStructure* s = gst_video_region_of_interest_meta_get_param(
        reinterpret_cast<GstVideoRegionOfInterestMeta*>(m), "ccl-component");
    guint label = 0;
    EXPECT_TRUE(s && gst_structure_get_uint(s, "label", &label));
    labels.push_back(label);
  }
  return labels;
}

TEST(Report, MaxRoiMetasKeepsTheLargestInReportedOrder) {
  SKIP_UNLESS_BACKEND_RUNS();
  const Frame frame = make_frame(known_components(), PixelFormat::Gray8);
  struct Case {
    const char* props;
    std::vector<guint> want;
  };
  // Areas 1, 4, 4, 9, 16, 2 for labels 1..6: the three largest are 5, 4 and, of the
  // two of area 4, label 2. With max-components the reported order is largest first.
  for (const Case& c : {Case{"", {1, 2, 3, 4, 5, 6}}, Case{"max-roi-metas=3", {2, 4, 5}},
                        Case{"max-roi-metas=1", {5}}, Case{"max-roi-metas=0", {}},
                        Case{"max-roi-metas=2 max-components=4", {5, 4}}}) {
    Harness h(c.props);
    GstBuffer* out = run_known(h, frame);
    ASSERT_NE(out, nullptr) << c.props;
    const GstCclMeta* meta = gst_ccl_meta_get(out);
    ASSERT_NE(meta, nullptr);
    EXPECT_EQ(roi_labels(out), c.want) << c.props;
    EXPECT_GE(meta->n_components, guint(c.want.size())) << "the meta keeps every reported one";
    gst_buffer_unref(out);
  }
}

TEST(Report, NoRoiMetaWhenDisabled) {
  SKIP_UNLESS_BACKEND_RUNS();
  const Frame frame = make_frame(known_components(), PixelFormat::Gray8);
  Harness h("roi-meta=false");
  GstBuffer* out = run_known(h, frame);
  ASSERT_NE(out, nullptr);
  EXPECT_EQ(gst_buffer_get_video_region_of_interest_meta(out), nullptr);
  EXPECT_NE(gst_ccl_meta_get(out), nullptr);
  gst_buffer_unref(out);
}

template <typename T>
std::vector<T> array_field(const GstStructure* s, const char* name) {
  std::vector<T> v;
  const GValue* arr = gst_structure_get_value(s, name);
  EXPECT_NE(arr, nullptr) << name;
  if (!arr) return v;
  EXPECT_TRUE(GST_VALUE_HOLDS_ARRAY(arr)) << name;
  for (guint i = 0; i < gst_value_array_get_size(arr); ++i) {
    const GValue* e = gst_value_array_get_value(arr, i);
    if constexpr (std::is_same_v<T, guint>) v.push_back(g_value_get_uint(e));
    if constexpr (std::is_same_v<T, gint>) v.push_back(g_value_get_int(e));
    if constexpr (std::is_same_v<T, guint64>) v.push_back(g_value_get_uint64(e));
    if constexpr (std::is_same_v<T, gdouble>) v.push_back(g_value_get_double(e));
  }
  return v;
}

TEST(Messages, OnePerFrameWithCountsThresholdAndComponents) {
  SKIP_UNLESS_BACKEND_RUNS();
  const Frame frame = make_frame(known_components(), PixelFormat::Gray8);
  Harness h("post-messages=true min-area=2 threshold=127");
  h.set_caps(PixelFormat::Gray8, frame.view.width, frame.view.height);
  GstBuffer* in = buffer_from_frame(frame);
  GST_BUFFER_PTS(in) = 3 * GST_SECOND;
  GstBuffer* out = h.process(in);
  ASSERT_NE(out, nullptr);
  const GstCclMeta* meta = gst_ccl_meta_get(out);

  GstMessage* msg = h.pop_message(GST_MESSAGE_ELEMENT);
  ASSERT_NE(msg, nullptr);
  const GstStructure* s = gst_message_get_structure(msg);
  EXPECT_TRUE(gst_structure_has_name(s, "cudaccl"));
  guint64 ts = 0;
  guint total = 0, reported = 0, threshold = 0;
  EXPECT_TRUE(gst_structure_get(s, "timestamp", G_TYPE_UINT64, &ts, "total-components",
                                G_TYPE_UINT, &total, "reported-components", G_TYPE_UINT,
                                &reported, "threshold", G_TYPE_UINT, &threshold, nullptr));
  EXPECT_EQ(ts, 3 * GST_SECOND);
  EXPECT_EQ(total, meta->total_count);
  EXPECT_EQ(total, 6u);
  EXPECT_EQ(reported, 5u);
  EXPECT_EQ(reported, meta->n_components);
  EXPECT_EQ(threshold, 127u);
  const auto labels = array_field<guint>(s, "label");
  const auto xs = array_field<gint>(s, "bbox-x");
  const auto ws = array_field<gint>(s, "bbox-width");
  const auto areas = array_field<guint64>(s, "area");
  const auto cys = array_field<gdouble>(s, "centroid-y");
  ASSERT_EQ(labels.size(), meta->n_components);
  for (guint i = 0; i < meta->n_components; ++i) {
    EXPECT_EQ(labels[i], meta->components[i].label);
    EXPECT_EQ(xs[i], meta->components[i].x);
    EXPECT_EQ(ws[i], meta->components[i].width);
    EXPECT_EQ(areas[i], meta->components[i].area);
    EXPECT_EQ(cys[i], meta->components[i].centroid_y);
  }
  for (const char* f : {"bbox-y", "bbox-height", "centroid-x", "stream-time", "running-time"})
    EXPECT_TRUE(gst_structure_has_field(s, f)) << f;
  gst_message_unref(msg);
  EXPECT_EQ(h.pop_message(GST_MESSAGE_ELEMENT), nullptr) << "one message per frame";
  gst_buffer_unref(out);
}

TEST(Messages, NoneByDefault) {
  SKIP_UNLESS_BACKEND_RUNS();
  const Frame frame = make_frame(known_components(), PixelFormat::Gray8);
  Harness h;
  GstBuffer* out = run_known(h, frame);
  ASSERT_NE(out, nullptr);
  EXPECT_EQ(h.pop_message(GST_MESSAGE_ELEMENT), nullptr);
  gst_buffer_unref(out);
}

TEST(MetaTransform, SurvivesACopyAndIsScaledByVideoscale) {
  SKIP_UNLESS_BACKEND_RUNS();
  GstElementFactory* scale = gst_element_factory_find("videoscale");
  if (!scale) GTEST_SKIP() << "videoscale (gst-plugins-base) is not installed";
  gst_object_unref(scale);

  const Frame frame = make_frame(known_components(), PixelFormat::Gray8);
  GstHarness* h = gst_harness_new_parse(
      ("cudaccl backend=" + backend_under_test() +
       " ! videoscale method=nearest-neighbour ! capsfilter caps=video/x-raw,width=80,height=40")
          .c_str());
  gst_harness_set_src_caps_str(h, caps_string(PixelFormat::Gray8, 40, 20).c_str());
  GstBuffer* out = gst_harness_push_and_pull(h, buffer_from_frame(frame));
  ASSERT_NE(out, nullptr);
  const GstCclMeta* meta = gst_ccl_meta_get(out);
  ASSERT_NE(meta, nullptr) << "videoscale dropped the meta";
  EXPECT_EQ(meta->width, 80u);
  EXPECT_EQ(meta->height, 40u);
  ASSERT_EQ(meta->n_components, 6u);
  // Label 5: 4x4 at (22, 3) becomes 8x8 at (44, 6), area 64, centroid (47.5, 9.5).
  const GstCclComponent& c = meta->components[4];
  EXPECT_EQ(c.label, 5u);
  EXPECT_EQ(c.x, 44);
  EXPECT_EQ(c.y, 6);
  EXPECT_EQ(c.width, 8);
  EXPECT_EQ(c.height, 8);
  EXPECT_EQ(c.area, 64u);
  EXPECT_DOUBLE_EQ(c.centroid_x, 47.5);
  EXPECT_DOUBLE_EQ(c.centroid_y, 9.5);

  GstBuffer* copy = gst_buffer_copy(out);
  const GstCclMeta* copied = gst_ccl_meta_get(copy);
  ASSERT_NE(copied, nullptr);
  EXPECT_NE(copied->components, meta->components);
  EXPECT_EQ(copied->n_components, meta->n_components);
  EXPECT_EQ(copied->components[4].sum_xy, meta->components[4].sum_xy);
  gst_buffer_unref(copy);
  gst_buffer_unref(out);
  gst_harness_teardown(h);
}

}  // namespace
}  // namespace ccl::element_test
