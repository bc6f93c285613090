// The C API of libgstccl-1.0: add/get, iteration, copies, the scale transform and
// the derived shape quantities.
#include <gst/ccl/gstcclmeta.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace {

// A component from its pixels, the way the element computes it.
GstCclComponent component_of(guint32 label, const std::vector<std::pair<int, int>>& pixels) {
  GstCclComponent c{};
  c.label = label;
  int x0 = 1 << 30, y0 = 1 << 30, x1 = -1, y1 = -1;
  for (auto [x, y] : pixels) {
    x0 = std::min(x0, x);
    y0 = std::min(y0, y);
    x1 = std::max(x1, x);
    y1 = std::max(y1, y);
    c.area++;
    c.sum_x += guint64(x);
    c.sum_y += guint64(y);
    c.sum_xx += guint64(x) * x;
    c.sum_xy += guint64(x) * y;
    c.sum_yy += guint64(y) * y;
  }
  c.x = x0;
  c.y = y0;
  c.width = x1 - x0 + 1;
  c.height = y1 - y0 + 1;
  c.centroid_x = double(c.sum_x) / c.area;
  c.centroid_y = double(c.sum_y) / c.area;
  return c;
}

std::vector<std::pair<int, int>> rect(int x, int y, int w, int h) {
  std::vector<std::pair<int, int>> v;
  for (int j = y; j < y + h; ++j)
    for (int i = x; i < x + w; ++i) v.emplace_back(i, j);
  return v;
}

TEST(MetaApi, AddGetAndIterate) {
  GstBuffer* buf = gst_buffer_new();
  EXPECT_EQ(gst_ccl_meta_get(buf), nullptr);
  const GstCclComponent comps[] = {component_of(1, rect(0, 0, 2, 2)),
                                   component_of(2, rect(5, 5, 3, 1))};
  GstCclMeta* meta = gst_ccl_meta_add(buf, 64, 48, 7, comps, 2);
  ASSERT_NE(meta, nullptr);
  meta->threshold = 99;
  EXPECT_EQ(gst_ccl_meta_get(buf), meta);
  EXPECT_EQ(meta->width, 64u);
  EXPECT_EQ(meta->height, 48u);
  EXPECT_EQ(meta->total_count, 7u);
  EXPECT_EQ(meta->n_components, 2u);
  EXPECT_NE(meta->components, comps) << "the meta must own a copy";
  EXPECT_EQ(meta->gpu_time, GST_CLOCK_TIME_NONE);
  EXPECT_EQ(meta->connectivity, 8u);
  EXPECT_EQ(gst_ccl_meta_get_component(meta, 1)->label, 2u);
  EXPECT_EQ(gst_ccl_meta_get_component(meta, 2), nullptr);

  gpointer state = nullptr;
  std::vector<guint32> seen;
  while (const GstCclComponent* c = gst_ccl_meta_iterate(meta, &state)) seen.push_back(c->label);
  EXPECT_EQ(seen, (std::vector<guint32>{1, 2}));

  EXPECT_TRUE(gst_meta_api_type_has_tag(GST_CCL_META_API_TYPE,
                                        g_quark_from_string(GST_META_TAG_VIDEO_STR)));
  EXPECT_TRUE(gst_meta_api_type_has_tag(GST_CCL_META_API_TYPE,
                                        g_quark_from_string(GST_META_TAG_VIDEO_SIZE_STR)));
  gst_buffer_unref(buf);
}

TEST(MetaApi, EmptyMetaHasNoComponents) {
  GstBuffer* buf = gst_buffer_new();
  GstCclMeta* meta = gst_ccl_meta_add(buf, 8, 8, 0, nullptr, 0);
  ASSERT_NE(meta, nullptr);
  gpointer state = nullptr;
  EXPECT_EQ(gst_ccl_meta_iterate(meta, &state), nullptr);
  GstBuffer* copy = gst_buffer_copy(buf);
  EXPECT_EQ(gst_ccl_meta_get(copy)->n_components, 0u);
  gst_buffer_unref(copy);
  gst_buffer_unref(buf);
}

TEST(MetaApi, CopiesCarryEveryField) {
  GstBuffer* buf = gst_buffer_new_allocate(nullptr, 16, nullptr);
  const GstCclComponent comps[] = {component_of(3, rect(1, 2, 3, 4))};
  GstCclMeta* meta = gst_ccl_meta_add(buf, 10, 10, 3, comps, 1);
  meta->threshold = 42;
  meta->algorithm = GST_CCL_ALGORITHM_KOMURA;
  meta->connectivity = 4;
  meta->gpu_time = 1234;
  GstBuffer* copy = gst_buffer_copy(buf);
  const GstCclMeta* c = gst_ccl_meta_get(copy);
  ASSERT_NE(c, nullptr);
  EXPECT_NE(c, meta);
  EXPECT_NE(c->components, meta->components);
  EXPECT_EQ(c->width, 10u);
  EXPECT_EQ(c->total_count, 3u);
  EXPECT_EQ(c->threshold, 42u);
  EXPECT_EQ(c->algorithm, GST_CCL_ALGORITHM_KOMURA);
  EXPECT_EQ(c->connectivity, 4u);
  EXPECT_EQ(c->gpu_time, 1234u);
  ASSERT_EQ(c->n_components, 1u);
  EXPECT_EQ(memcmp(c->components, comps, sizeof(GstCclComponent)), 0);
  gst_buffer_unref(buf);
  // The copy outlives the original.
  EXPECT_EQ(gst_ccl_meta_get(copy)->components[0].sum_yy, comps[0].sum_yy);
  gst_buffer_unref(copy);
}

GstBuffer* scaled(GstBuffer* src, int in_w, int in_h, int out_w, int out_h) {
  GstVideoInfo in_info, out_info;
  gst_video_info_set_format(&in_info, GST_VIDEO_FORMAT_GRAY8, in_w, in_h);
  gst_video_info_set_format(&out_info, GST_VIDEO_FORMAT_GRAY8, out_w, out_h);
  GstVideoMetaTransform trans = {&in_info, &out_info};
  GstBuffer* dest = gst_buffer_new();
  GstMeta* meta = reinterpret_cast<GstMeta*>(gst_ccl_meta_get(src));
  EXPECT_TRUE(meta->info->transform_func(dest, meta, src,
                                         gst_video_meta_transform_scale_get_quark(), &trans));
  return dest;
}

TEST(MetaApi, ScaleTransformMapsBoxesCentroidsAndMoments) {
  GstBuffer* buf = gst_buffer_new();
  // A 4x2 block and a diagonal line (orientation 45 degrees).
  std::vector<std::pair<int, int>> diag;
  for (int i = 0; i < 6; ++i) diag.emplace_back(10 + i, 10 + i);
  const GstCclComponent comps[] = {component_of(1, rect(2, 3, 4, 2)), component_of(2, diag)};
  GstCclMeta* meta = gst_ccl_meta_add(buf, 40, 20, 2, comps, 2);
  meta->threshold = 77;

  GstBuffer* up = scaled(buf, 40, 20, 80, 40);
  const GstCclMeta* m = gst_ccl_meta_get(up);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->width, 80u);
  EXPECT_EQ(m->height, 40u);
  EXPECT_EQ(m->threshold, 77u);
  ASSERT_EQ(m->n_components, 2u);
  const GstCclComponent& a = m->components[0];
  EXPECT_EQ(a.x, 4);
  EXPECT_EQ(a.y, 6);
  EXPECT_EQ(a.width, 8);
  EXPECT_EQ(a.height, 4);
  EXPECT_EQ(a.area, 32u);
  // Centroid (3.5, 3.5) -> pixel centres scale about -0.5: (7.5, 7.5).
  EXPECT_DOUBLE_EQ(a.centroid_x, 7.5);
  EXPECT_DOUBLE_EQ(a.centroid_y, 7.5);
  gdouble cx, cy;
  gst_ccl_component_get_centroid(&a, &cx, &cy);
  EXPECT_NEAR(cx, 7.5, 1e-9);
  EXPECT_NEAR(cy, 7.5, 1e-9);
  // Variances scale by s^2 (1.25 -> 5 in x, 0.25 -> 1 in y).
  gdouble mu20, mu11, mu02;
  gst_ccl_component_get_central_moments(&a, &mu20, &mu11, &mu02);
  EXPECT_NEAR(mu20, 5.0, 0.05);
  EXPECT_NEAR(mu02, 1.0, 0.05);
  EXPECT_NEAR(mu11, 0.0, 0.05);
  // The diagonal keeps its orientation under uniform scaling.
  EXPECT_NEAR(gst_ccl_component_get_orientation(&m->components[1]), M_PI / 4, 1e-3);

  // Down by 4 in x only: boxes grow outward to whole pixels and stay inside.
  GstBuffer* down = scaled(buf, 40, 20, 10, 20);
  const GstCclMeta* d = gst_ccl_meta_get(down);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->width, 10u);
  const GstCclComponent& b = d->components[0];
  EXPECT_EQ(b.x, 0);  // floor(2 / 4)
  EXPECT_EQ(b.width, 2);  // ceil(6 / 4) - 0
  EXPECT_EQ(b.y, 3);
  EXPECT_EQ(b.height, 2);
  EXPECT_EQ(b.area, 2u);
  EXPECT_GE(b.centroid_x, 0.0);
  EXPECT_LE(b.centroid_x, 9.0);

  gst_buffer_unref(down);
  gst_buffer_unref(up);
  gst_buffer_unref(buf);
}

TEST(MetaApi, OtherTransformsDropTheMeta) {
  GstBuffer* buf = gst_buffer_new();
  gst_ccl_meta_add(buf, 4, 4, 0, nullptr, 0);
  GstMeta* meta = reinterpret_cast<GstMeta*>(gst_ccl_meta_get(buf));
  GstBuffer* dest = gst_buffer_new();
  EXPECT_FALSE(meta->info->transform_func(dest, meta, buf, g_quark_from_string("gst-video-rotate"),
                                          nullptr));
  GstMetaTransformCopy region = {TRUE, 0, 2};
  EXPECT_FALSE(meta->info->transform_func(dest, meta, buf, _gst_meta_transform_copy, &region));
  EXPECT_EQ(gst_ccl_meta_get(dest), nullptr);
  gst_buffer_unref(dest);
  gst_buffer_unref(buf);
}

TEST(MetaApi, DerivedShapeOfLines) {
  std::vector<std::pair<int, int>> horizontal, vertical, diagonal;
  for (int i = 0; i < 5; ++i) {
    horizontal.emplace_back(i, 3);
    vertical.emplace_back(7, i);
    diagonal.emplace_back(i, i);
  }
  const GstCclComponent h = component_of(1, horizontal), v = component_of(2, vertical),
                        d = component_of(3, diagonal);
  gdouble major, minor;
  EXPECT_NEAR(gst_ccl_component_get_orientation(&h), 0.0, 1e-12);
  gst_ccl_component_get_axis_lengths(&h, &major, &minor);
  EXPECT_NEAR(major, 4 * std::sqrt(2.0), 1e-9);  // variance of 0..4 is 2
  EXPECT_NEAR(minor, 0.0, 1e-9);
  EXPECT_NEAR(std::fabs(gst_ccl_component_get_orientation(&v)), M_PI / 2, 1e-12);
  EXPECT_NEAR(gst_ccl_component_get_orientation(&d), M_PI / 4, 1e-12);
  gst_ccl_component_get_axis_lengths(&d, &major, &minor);
  EXPECT_NEAR(major, 8.0, 1e-9);  // eigenvalue 2 + 2
  EXPECT_NEAR(minor, 0.0, 1e-9);

  // A square has no preferred direction and equal axes.
  const GstCclComponent s = component_of(4, rect(0, 0, 4, 4));
  EXPECT_EQ(gst_ccl_component_get_orientation(&s), 0.0);
  gst_ccl_component_get_axis_lengths(&s, &major, &minor);
  EXPECT_NEAR(major, minor, 1e-12);
}

TEST(MetaApi, CentralMomentsAreExactForLargeSums) {
  // Sums near 2^60: the 128-bit numerator keeps the variance exact.
  GstCclComponent c{};
  c.area = 2;
  c.sum_x = guint64(1) << 31;                                     // x = 2^30 +- 1
  c.sum_xx = (guint64(1) << 61) + 2;                              // (2^30-1)^2 + (2^30+1)^2
  c.sum_y = 0;
  gdouble mu20;
  gst_ccl_component_get_central_moments(&c, &mu20, nullptr, nullptr);
  EXPECT_DOUBLE_EQ(mu20, 1.0);
}

TEST(MetaApi, TypesForBindings) {
  EXPECT_TRUE(G_TYPE_IS_BOXED(GST_TYPE_CCL_COMPONENT));
  EXPECT_TRUE(G_TYPE_IS_ENUM(GST_TYPE_CCL_ALGORITHM));
  const GstCclComponent c = component_of(9, rect(0, 0, 1, 1));
  GstCclComponent* copy = static_cast<GstCclComponent*>(g_boxed_copy(GST_TYPE_CCL_COMPONENT, &c));
  EXPECT_EQ(copy->label, 9u);
  g_boxed_free(GST_TYPE_CCL_COMPONENT, copy);
  GEnumClass* algos = static_cast<GEnumClass*>(g_type_class_ref(GST_TYPE_CCL_ALGORITHM));
  EXPECT_STREQ(g_enum_get_value(algos, GST_CCL_ALGORITHM_KOMURA)->value_nick, "komura");
  g_type_class_unref(algos);
}

}  // namespace

int main(int argc, char** argv) {
  gst_init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
