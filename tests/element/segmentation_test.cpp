// GStreamer's segmentation entry (GstAnalyticsSegmentationMtd, built with GStreamer 1.26
// and newer) of analytics-mask (docs/SEGMENTATION.md): one instance segmentation entry
// per frame with reported components, region i being reported component i (its label,
// or its track id with tracking), the mask a GRAY8 or GRAY16 buffer with a GstVideoMeta
// covering the union of the reported boxes, each component's pixels its id and every
// other pixel 0, related both ways to every component's object-detection entry; none
// with analytics-mask=false or without reported components.
#include <gst/analytics/analytics.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "element_util.h"

namespace ccl::element_test {
namespace {

using test::Frame;
using test::GrayImage;

struct Square {
  int x, y, size;
};

// White squares on black.
GrayImage squares(int width, int height, const std::vector<Square>& list) {
  GrayImage g;
  g.width = width;
  g.height = height;
  g.pixels.assign(size_t(width) * height, 0);
  for (const Square& s : list)
    for (int y = s.y; y < s.y + s.size; ++y)
      for (int x = s.x; x < s.x + s.size; ++x) g.pixels[size_t(y) * width + x] = 255;
  return g;
}

GstBuffer* timed(GstBuffer* buf, GstClockTime pts) {
  GST_BUFFER_PTS(buf) = pts;
  GST_BUFFER_DURATION(buf) = 40 * GST_MSECOND;
  return buf;
}

// A buffer's segmentation entries, the first read out.
struct Segmentation {
  int entries = 0;
  guint id = 0;
  int type = -1;
  std::vector<guint> region_ids;
  gint x = 0, y = 0;
  guint w = 0, h = 0;
  bool video_meta = false;
  GstVideoFormat format = GST_VIDEO_FORMAT_UNKNOWN;
  guint mask_width = 0, mask_height = 0;
  std::vector<uint32_t> pixels;  // mask_width * mask_height values
};

Segmentation segmentation(GstBuffer* buf) {
  Segmentation s;
  GstAnalyticsRelationMeta* rmeta = gst_buffer_get_analytics_relation_meta(buf);
  if (!rmeta) return s;
  gpointer state = nullptr;
  GstAnalyticsMtd mtd{}, first{};
  while (gst_analytics_relation_meta_iterate(rmeta, &state,
                                             gst_analytics_segmentation_mtd_get_mtd_type(), &mtd))
    if (s.entries++ == 0) first = mtd;
  if (s.entries == 0) return s;
  GstAnalyticsSegmentationMtd* seg = &first;
  s.id = first.id;
  // GStreamer has no getter of the segmentation type: it is the first member of the
  // entry's data (GstAnalyticsSegMtdData, 1.26 and 1.28).
  const auto* data = static_cast<const GstSegmentationType*>(
      gst_analytics_relation_meta_get_mtd_data(rmeta, first.id));
  if (data) s.type = int(*data);
  const gsize count = gst_analytics_segmentation_mtd_get_region_count(seg);
  for (gsize i = 0; i < count; ++i)
    s.region_ids.push_back(gst_analytics_segmentation_mtd_get_region_id(seg, i));
  GstBuffer* mask = gst_analytics_segmentation_mtd_get_mask(seg, &s.x, &s.y, &s.w, &s.h);
  if (!mask) return s;
  GstVideoMeta* vmeta = gst_buffer_get_video_meta(mask);
  s.video_meta = vmeta != nullptr;
  GstMapInfo map;
  if (vmeta && gst_buffer_map(mask, &map, GST_MAP_READ)) {
    s.format = vmeta->format;
    s.mask_width = vmeta->width;
    s.mask_height = vmeta->height;
    const int bpp = vmeta->format == GST_VIDEO_FORMAT_GRAY8 ? 1 : 2;
    for (guint y = 0; y < vmeta->height; ++y)
      for (guint x = 0; x < vmeta->width; ++x) {
        const guint8* p = map.data + vmeta->offset[0] + gsize(y) * vmeta->stride[0] + x * bpp;
        if (bpp == 1)
          s.pixels.push_back(*p);
        else
          s.pixels.push_back(vmeta->format == GST_VIDEO_FORMAT_GRAY16_LE ? GST_READ_UINT16_LE(p)
                                                                         : GST_READ_UINT16_BE(p));
      }
    gst_buffer_unmap(mask, &map);
  }
  gst_buffer_unref(mask);
  return s;
}

// The object-detection entries' ids, in the order they were added (the components').
std::vector<guint> detection_ids(GstBuffer* buf) {
  std::vector<guint> out;
  GstAnalyticsRelationMeta* rmeta = gst_buffer_get_analytics_relation_meta(buf);
  if (!rmeta) return out;
  gpointer state = nullptr;
  GstAnalyticsMtd od;
  while (gst_analytics_relation_meta_iterate(rmeta, &state, gst_analytics_od_mtd_get_mtd_type(),
                                             &od))
    out.push_back(od.id);
  return out;
}

// Asserts what every frame's entry must be, for the components of its GstCclMeta and
// their ids: the region ids in component order, an instance mask over the union of
// the boxes whose pixels are `expected` (id image of the whole frame, width wide), and
// the relations both ways between each object-detection entry and the entry.
void expect_entry(GstBuffer* out, const std::vector<guint>& ids,
                  const std::vector<uint32_t>& expected, int width, const std::string& ctx) {
  SCOPED_TRACE(ctx);
  const GstCclMeta* meta = gst_ccl_meta_get(out);
  ASSERT_NE(meta, nullptr);
  ASSERT_EQ(ids.size(), meta->n_components);
  const Segmentation s = segmentation(out);
  ASSERT_EQ(s.entries, 1) << "one segmentation entry";
  EXPECT_EQ(s.type, int(GST_SEGMENTATION_TYPE_INSTANCE));
  EXPECT_EQ(s.region_ids, ids) << "region i is component i";

  gint x0 = G_MAXINT, y0 = G_MAXINT, x1 = G_MININT, y1 = G_MININT;
  guint max_id = 0;
  for (guint i = 0; i < meta->n_components; ++i) {
    const GstCclComponent& c = meta->components[i];
    x0 = std::min(x0, c.x);
    y0 = std::min(y0, c.y);
    x1 = std::max(x1, c.x + c.width);
    y1 = std::max(y1, c.y + c.height);
    max_id = std::max(max_id, ids[i]);
  }
  EXPECT_EQ(s.x, x0);
  EXPECT_EQ(s.y, y0);
  EXPECT_EQ(s.w, guint(x1 - x0));
  EXPECT_EQ(s.h, guint(y1 - y0));
  ASSERT_TRUE(s.video_meta) << "the mask carries a GstVideoMeta";
  const GstVideoFormat want =
      max_id <= 255 ? GST_VIDEO_FORMAT_GRAY8
                    : (G_BYTE_ORDER == G_LITTLE_ENDIAN ? GST_VIDEO_FORMAT_GRAY16_LE
                                                       : GST_VIDEO_FORMAT_GRAY16_BE);
  EXPECT_EQ(s.format, want) << gst_video_format_to_string(s.format);
  ASSERT_EQ(s.mask_width, s.w) << "one mask pixel per frame pixel";
  ASSERT_EQ(s.mask_height, s.h);
  ASSERT_EQ(s.pixels.size(), size_t(s.w) * s.h);
  int wrong = 0;
  for (guint y = 0; y < s.h; ++y)
    for (guint x = 0; x < s.w; ++x) {
      const uint32_t got = s.pixels[size_t(y) * s.w + x];
      const uint32_t exp = expected[size_t(y + s.y) * width + (x + s.x)];
      if (got != exp && wrong++ < 5)
        ADD_FAILURE() << "mask pixel at frame " << x + s.x << "," << y + s.y << " is " << got
                      << ", expected " << exp;
    }
  EXPECT_EQ(wrong, 0);

  GstAnalyticsRelationMeta* rmeta = gst_buffer_get_analytics_relation_meta(out);
  const std::vector<guint> od = detection_ids(out);
  ASSERT_EQ(od.size(), size_t(meta->n_components));
  for (size_t i = 0; i < od.size(); ++i) {
    EXPECT_TRUE(gst_analytics_relation_meta_get_relation(rmeta, od[i], s.id) &
                GST_ANALYTICS_REL_TYPE_RELATE_TO)
        << "detection " << i << " relates to the segmentation entry";
    EXPECT_TRUE(gst_analytics_relation_meta_get_relation(rmeta, s.id, od[i]) &
                GST_ANALYTICS_REL_TYPE_RELATE_TO)
        << "the segmentation entry relates to detection " << i;
    gpointer state = nullptr;
    GstAnalyticsMtd seg;
    ASSERT_TRUE(gst_analytics_relation_meta_get_direct_related(
        rmeta, od[i], GST_ANALYTICS_REL_TYPE_RELATE_TO,
        gst_analytics_segmentation_mtd_get_mtd_type(), &state, &seg));
    EXPECT_EQ(seg.id, s.id);
    gsize index = G_MAXSIZE;
    EXPECT_TRUE(gst_analytics_segmentation_mtd_get_region_index(&seg, &index, ids[i]));
    EXPECT_EQ(index, i) << "the region of detection " << i;
  }
}

// The id image of a frame of squares: square k's pixels hold ids_of_square[k].
std::vector<uint32_t> id_image(int width, int height, const std::vector<Square>& list,
                               const std::vector<guint>& ids_of_square) {
  std::vector<uint32_t> img(size_t(width) * height, 0);
  for (size_t k = 0; k < list.size(); ++k)
    for (int y = list[k].y; y < list[k].y + list[k].size; ++y)
      for (int x = list[k].x; x < list[k].x + list[k].size; ++x)
        img[size_t(y) * width + x] = ids_of_square[k];
  return img;
}

// The reported component whose box is the square's (index into the meta), or -1.
int component_of(const GstCclMeta* meta, const Square& s) {
  for (guint i = 0; i < meta->n_components; ++i) {
    const GstCclComponent& c = meta->components[i];
    if (c.x == s.x && c.y == s.y && c.width == s.size && c.height == s.size) return int(i);
  }
  return -1;
}

TEST(AnalyticsMask, OneInstanceEntryOfTheReportedComponentsByLabel) {
  SKIP_UNLESS_BACKEND_RUNS();
  const int width = 96, height = 64;
  // Four squares, the three largest reported (largest first), the smallest and the
  // speck not: both lie inside the union of the reported boxes, and stay 0.
  const std::vector<Square> list = {{10, 10, 6}, {60, 40, 8}, {30, 50, 5}, {40, 25, 3},
                                    {50, 15, 1}};
  const Frame frame = make_frame(squares(width, height, list), PixelFormat::Gray8, 5);
  Harness h("analytics-meta=true analytics-mask=true tracking=false max-components=3");
  gboolean on = FALSE;
  g_object_get(h.element(), "analytics-mask", &on, nullptr);
  EXPECT_TRUE(on);
  h.set_caps(PixelFormat::Gray8, width, height);
  GstBuffer* out = h.process(timed(buffer_from_frame(frame), 0));
  ASSERT_NE(out, nullptr);
  const GstCclMeta* meta = gst_ccl_meta_get(out);
  ASSERT_NE(meta, nullptr);
  ASSERT_EQ(meta->n_components, 3u);
  std::vector<guint> ids, of_square(list.size(), 0);
  for (guint i = 0; i < meta->n_components; ++i) ids.push_back(meta->components[i].label);
  for (size_t k = 0; k < list.size(); ++k) {
    const int i = component_of(meta, list[k]);
    if (k < 3)
      ASSERT_GE(i, 0) << "square " << k << " reported";
    else
      ASSERT_LT(i, 0) << "square " << k << " not reported";
    if (i >= 0) of_square[k] = ids[size_t(i)];
  }
  EXPECT_EQ(component_of(meta, list[1]), 0) << "the largest first";
  expect_entry(out, ids, id_image(width, height, list, of_square), width, "labels");
  gst_buffer_unref(out);
}

TEST(AnalyticsMask, RegionIdsAreTheTrackIdsWithTracking) {
  SKIP_UNLESS_BACKEND_RUNS();
  const int width = 80, height = 48;
  Harness h("analytics-meta=true analytics-mask=true tracking=true");
  h.set_caps(PixelFormat::Gray8, width, height);
  std::vector<guint64> first_tracks;
  for (int f = 0; f < 3; ++f) {
    // The squares move 2 pixels right per frame: the same tracks.
    const std::vector<Square> list = {{4 + 2 * f, 4, 6}, {40 + 2 * f, 30, 7}, {20 + 2 * f, 20, 4}};
    const Frame frame = make_frame(squares(width, height, list), PixelFormat::Gray8);
    GstBuffer* out = h.process(timed(buffer_from_frame(frame), f * 40 * GST_MSECOND));
    ASSERT_NE(out, nullptr);
    const GstCclMeta* meta = gst_ccl_meta_get(out);
    ASSERT_NE(meta, nullptr);
    ASSERT_EQ(meta->n_components, 3u);
    ASSERT_TRUE(meta->tracking);
    std::vector<guint> ids, of_square(list.size(), 0);
    std::vector<guint64> tracks;
    for (guint i = 0; i < meta->n_components; ++i) {
      ASSERT_GE(meta->components[i].track_id, 1u);
      ASSERT_LE(meta->components[i].track_id, 255u);
      ids.push_back(guint(meta->components[i].track_id));
      tracks.push_back(meta->components[i].track_id);
    }
    for (size_t k = 0; k < list.size(); ++k) {
      const int i = component_of(meta, list[k]);
      ASSERT_GE(i, 0);
      of_square[k] = ids[size_t(i)];
    }
    const std::string ctx = "frame " + std::to_string(f);
    expect_entry(out, ids, id_image(width, height, list, of_square), width, ctx);
    std::sort(tracks.begin(), tracks.end());
    if (f == 0)
      first_tracks = tracks;
    else
      EXPECT_EQ(tracks, first_tracks) << ctx << ": the same tracks";
    // Each detection's tracking entry carries its region's id.
    GstAnalyticsRelationMeta* rmeta = gst_buffer_get_analytics_relation_meta(out);
    const std::vector<guint> od = detection_ids(out);
    for (size_t i = 0; i < od.size(); ++i) {
      gpointer state = nullptr;
      GstAnalyticsMtd trk;
      ASSERT_TRUE(gst_analytics_relation_meta_get_direct_related(
          rmeta, od[i], GST_ANALYTICS_REL_TYPE_RELATE_TO,
          gst_analytics_tracking_mtd_get_mtd_type(), &state, &trk));
      guint64 id = 0;
      GstClockTime first_seen, last_seen;
      gboolean lost;
      ASSERT_TRUE(gst_analytics_tracking_mtd_get_info(&trk, &id, &first_seen, &last_seen, &lost));
      EXPECT_EQ(id, guint64(ids[i])) << ctx << ": detection " << i;
    }
    gst_buffer_unref(out);
  }
}

TEST(AnalyticsMask, SixteenBitMaskBeyond255Ids) {
  SKIP_UNLESS_BACKEND_RUNS();
  // Single pixels on every other row and column: 60 x 30 = 1800 components, labels in
  // raster order up to 1800.
  const int width = 120, height = 60;
  std::vector<Square> list;
  for (int y = 0; y < height; y += 2)
    for (int x = 0; x < width; x += 2) list.push_back({x, y, 1});
  const Frame frame = make_frame(squares(width, height, list), PixelFormat::Gray8);
  Harness h("analytics-meta=true analytics-mask=true tracking=false max-components=100000 "
            "max-roi-metas=0");
  h.set_caps(PixelFormat::Gray8, width, height);
  GstBuffer* out = h.process(timed(buffer_from_frame(frame), 0));
  ASSERT_NE(out, nullptr);
  const GstCclMeta* meta = gst_ccl_meta_get(out);
  ASSERT_NE(meta, nullptr);
  ASSERT_EQ(meta->n_components, list.size());
  std::vector<guint> ids, of_square(list.size(), 0);
  for (guint i = 0; i < meta->n_components; ++i) ids.push_back(meta->components[i].label);
  // Reported in label order, the labels in raster order: the squares' own order.
  for (size_t k = 0; k < list.size(); ++k) of_square[k] = guint(k + 1);
  EXPECT_EQ(ids, of_square);
  expect_entry(out, ids, id_image(width, height, list, of_square), width, "1800 labels");
  gst_buffer_unref(out);
}

// Labels beyond 16 bits get stand-in region ids (docs/SEGMENTATION.md): the label
// wrapped into 1..65535 when free, else the lowest free value. Two 2x2 squares first
// (labels 1 and 2), 65534 single pixels, then two more squares with a pixel between
// them (labels 65537 and 65539); min-area=4 reports the squares alone. 65537 wraps to
// 2, taken by the second square: it gets 3, the lowest free; 65539 wraps to 4, free.
TEST(AnalyticsMask, StandInRegionIdsBeyond16Bits) {
  SKIP_UNLESS_BACKEND_RUNS();
  const int width = 512;
  std::vector<Square> list = {{0, 0, 2}, {4, 0, 2}};
  int dots = 0, y = 0, x = 8;
  while (dots < 65534) {
    list.push_back({x, y, 1});
    ++dots;
    x += 2;
    if (x >= width) {
      x = 0;
      y = y == 0 ? 4 : y + 2;
    }
  }
  const int late = y + 4;  // below the last row of pixels
  list.push_back({0, late, 2});
  list.push_back({6, late, 1});
  list.push_back({10, late, 2});
  const int height = late + 3;
  const Frame frame = make_frame(squares(width, height, list), PixelFormat::Gray8);
  Harness h("analytics-meta=true analytics-mask=true tracking=false min-area=4");
  h.set_caps(PixelFormat::Gray8, width, height);
  GstBuffer* out = h.process(timed(buffer_from_frame(frame), 0));
  ASSERT_NE(out, nullptr);
  const GstCclMeta* meta = gst_ccl_meta_get(out);
  ASSERT_NE(meta, nullptr);
  EXPECT_EQ(meta->total_count, 65539u);
  ASSERT_EQ(meta->n_components, 4u);
  std::vector<guint> labels;
  for (guint i = 0; i < meta->n_components; ++i) labels.push_back(meta->components[i].label);
  ASSERT_EQ(labels, (std::vector<guint>{1, 2, 65537, 65539})) << "the frame is not as planned";
  const std::vector<guint> ids = {1, 2, 3, 4};
  std::vector<guint> of_square(list.size(), 0);
  of_square[0] = 1;
  of_square[1] = 2;
  of_square[list.size() - 3] = 3;
  of_square[list.size() - 1] = 4;
  expect_entry(out, ids, id_image(width, height, list, of_square), width, "stand-ins");
  gst_buffer_unref(out);
}

TEST(AnalyticsMask, NoEntryWhenOffOrWithoutComponents) {
  SKIP_UNLESS_BACKEND_RUNS();
  const int width = 64, height = 32;
  const Frame frame = make_frame(squares(width, height, {{4, 4, 6}, {40, 20, 6}}),
                                 PixelFormat::Gray8);
  {
    Harness h("analytics-meta=true");
    gboolean on = TRUE;
    g_object_get(h.element(), "analytics-mask", &on, nullptr);
    EXPECT_FALSE(on) << "analytics-mask is off by default";
    h.set_caps(PixelFormat::Gray8, width, height);
    GstBuffer* out = h.process(timed(buffer_from_frame(frame), 0));
    ASSERT_NE(out, nullptr);
    EXPECT_EQ(segmentation(out).entries, 0) << "analytics-mask=false";
    EXPECT_EQ(detection_ids(out).size(), 2u) << "the detections stay";
    gst_buffer_unref(out);
  }
  {
    Harness h("analytics-meta=true analytics-mask=true");
    h.set_caps(PixelFormat::Gray8, width, height);
    const Frame empty = make_frame(squares(width, height, {}), PixelFormat::Gray8);
    GstBuffer* out = h.process(timed(buffer_from_frame(empty), 0));
    ASSERT_NE(out, nullptr);
    EXPECT_EQ(segmentation(out).entries, 0) << "no reported component";
    gst_buffer_unref(out);
    // And the next frame with components has its entry again.
    out = h.process(timed(buffer_from_frame(frame), 40 * GST_MSECOND));
    ASSERT_NE(out, nullptr);
    EXPECT_EQ(segmentation(out).entries, 1);
    gst_buffer_unref(out);
  }
}

// analytics-mask alone (analytics-meta=false) still relates the mask to the
// components' object-detection entries, which it attaches for that.
TEST(AnalyticsMask, MaskWithoutAnalyticsMeta) {
  SKIP_UNLESS_BACKEND_RUNS();
  const int width = 64, height = 32;
  const std::vector<Square> list = {{4, 4, 6}, {40, 20, 6}};
  const Frame frame = make_frame(squares(width, height, list), PixelFormat::Gray8);
  Harness h("analytics-meta=false analytics-mask=true tracking=false");
  h.set_caps(PixelFormat::Gray8, width, height);
  GstBuffer* out = h.process(timed(buffer_from_frame(frame), 0));
  ASSERT_NE(out, nullptr);
  const GstCclMeta* meta = gst_ccl_meta_get(out);
  ASSERT_NE(meta, nullptr);
  ASSERT_EQ(meta->n_components, 2u);
  const std::vector<guint> ids = {meta->components[0].label, meta->components[1].label};
  std::vector<guint> of_square(2);
  for (size_t k = 0; k < 2; ++k) of_square[k] = ids[size_t(component_of(meta, list[k]))];
  expect_entry(out, ids, id_image(width, height, list, of_square), width, "mask alone");
  gst_buffer_unref(out);
}

}  // namespace
}  // namespace ccl::element_test
