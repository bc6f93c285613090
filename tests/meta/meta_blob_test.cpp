// The meta's blobs (GstCclBlob, since 0.3): the struct layout that keeps 0.2's ABI,
// setting and reading them, the boxed and flags types, and what copies and scaling
// transforms make of them.
#include <gst/ccl/gstcclmeta.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstring>
#include <vector>

#include "ccl/blob.h"
#include "shapes.h"

namespace {

using meta_test::component_of;
using meta_test::ellipse;
using meta_test::rectangle;

constexpr guint kAll = GST_CCL_BLOB_PROPERTIES_INTENSITY | GST_CCL_BLOB_PROPERTIES_COLOR |
                       GST_CCL_BLOB_PROPERTIES_PERIMETER | GST_CCL_BLOB_PROPERTIES_EULER;

// A blob whose every field differs from the others and from 0, so that a field
// dropped or swapped shows.
GstCclBlob blob_numbered(double base, guint properties = kAll) {
  GstCclBlob b{};
  b.properties = GstCclBlobProperties(properties);
  b.euler_number = -int(base) - 1;
  b.intensity_mean = base + 0.5;
  b.intensity_std = base + 1.5;
  b.intensity_min = base + 2;
  b.intensity_max = base + 3;
  for (int k = 0; k < 3; ++k) b.color_mean[k] = base + 4.25 + k;
  b.perimeter = base + 7.75;
  b.circularity = 0.01 * base + 0.3;
  b.orientation = -0.25;
  b.axis_major_length = base + 9;
  b.axis_minor_length = base + 8;
  b.eccentricity = 0.6;
  return b;
}

std::vector<GstCclComponent> two_components() {
  return {component_of(1, rectangle(2, 2, 6, 3)), component_of(2, ellipse(20, 12, 6, 3, 0.5))};
}

std::vector<GstCclBlob> two_blobs() { return {blob_numbered(10), blob_numbered(50)}; }

GstCclMeta* add_with_blobs(GstBuffer* buf) {
  const auto comps = two_components();
  GstCclMeta* meta = gst_ccl_meta_add(buf, 32, 24, 2, comps.data(), guint(comps.size()));
  const auto blobs = two_blobs();
  EXPECT_TRUE(gst_ccl_meta_set_blobs(meta, blobs.data(), guint(blobs.size())));
  return meta;
}

bool same_bytes(const GstCclBlob& a, const GstCclBlob& b) {
  return std::memcmp(&a, &b, offsetof(GstCclBlob, eccentricity) + sizeof(gdouble)) == 0;
}

ccl::Component to_ccl(const GstCclComponent& c) {
  ccl::Component k;
  k.label = c.label;
  k.x = c.x;
  k.y = c.y;
  k.width = c.width;
  k.height = c.height;
  k.area = c.area;
  k.sum_x = c.sum_x;
  k.sum_y = c.sum_y;
  k.sum_xx = c.sum_xx;
  k.sum_xy = c.sum_xy;
  k.sum_yy = c.sum_yy;
  return k;
}

// Counts the criticals of g_return_if_fail in the library's log domain.
class CriticalCounter {
 public:
  CriticalCounter() {
    id_ = g_log_set_handler("GstCcl", G_LOG_LEVEL_CRITICAL,
                            [](const gchar*, GLogLevelFlags, const gchar*, gpointer self) {
                              ++static_cast<CriticalCounter*>(self)->count;
                            },
                            this);
  }
  ~CriticalCounter() { g_log_remove_handler("GstCcl", id_); }
  int count = 0;

 private:
  guint id_;
};

TEST(MetaBlobLayout, BlobsTookOnePaddingSlotAndTheMetaKeptItsSize) {
  // 0.2's GstCclMeta: tracking, then GST_PADDING pointers. The blobs pointer is the
  // first of them, the rest stays padding (but the next slot, taken by 0.4's
  // event_counts: meta_events_test.cpp): every 0.2 offset and the size hold.
  const size_t padding_start = offsetof(GstCclMeta, blobs);
  EXPECT_EQ(padding_start % alignof(gpointer), 0u);
  EXPECT_GE(padding_start, offsetof(GstCclMeta, tracking) + sizeof(gboolean));
  EXPECT_LT(padding_start, offsetof(GstCclMeta, tracking) + sizeof(gboolean) + sizeof(gpointer));
  EXPECT_EQ(offsetof(GstCclMeta, event_counts), padding_start + sizeof(gpointer));
  EXPECT_EQ(offsetof(GstCclMeta, _gst_reserved), padding_start + 2 * sizeof(gpointer));
  EXPECT_EQ(sizeof(GstCclMeta), padding_start + GST_PADDING * sizeof(gpointer));
  EXPECT_EQ(GST_CCL_META_INFO->size, sizeof(GstCclMeta));
  // The blob's fields in the documented order; room for more after them.
  EXPECT_EQ(offsetof(GstCclBlob, properties), 0u);
  EXPECT_LT(offsetof(GstCclBlob, intensity_mean), offsetof(GstCclBlob, color_mean));
  EXPECT_LT(offsetof(GstCclBlob, color_mean), offsetof(GstCclBlob, perimeter));
  EXPECT_LT(offsetof(GstCclBlob, circularity), offsetof(GstCclBlob, orientation));
  EXPECT_EQ(offsetof(GstCclBlob, _gst_reserved),
            offsetof(GstCclBlob, eccentricity) + sizeof(gdouble));
}

TEST(MetaBlobTypes, BoxedBlobAndTheFlagsOfItsGroups) {
  EXPECT_STREQ(g_type_name(GST_TYPE_CCL_BLOB), "GstCclBlob");
  EXPECT_TRUE(G_TYPE_IS_BOXED(GST_TYPE_CCL_BLOB));
  const GstCclBlob b = blob_numbered(3);
  GstCclBlob* copy = static_cast<GstCclBlob*>(g_boxed_copy(GST_TYPE_CCL_BLOB, &b));
  ASSERT_NE(copy, nullptr);
  EXPECT_NE(copy, &b);
  EXPECT_TRUE(same_bytes(*copy, b));
  g_boxed_free(GST_TYPE_CCL_BLOB, copy);

  ASSERT_TRUE(G_TYPE_IS_FLAGS(GST_TYPE_CCL_BLOB_PROPERTIES));
  EXPECT_STREQ(g_type_name(GST_TYPE_CCL_BLOB_PROPERTIES), "GstCclBlobProperties");
  GFlagsClass* flags = static_cast<GFlagsClass*>(g_type_class_ref(GST_TYPE_CCL_BLOB_PROPERTIES));
  // The engine's ccl::Property bits, under the nicks users type.
  const struct {
    const char* nick;
    guint value;
  } want[] = {{"intensity", ccl::kPropertyIntensity},
              {"color", ccl::kPropertyColor},
              {"perimeter", ccl::kPropertyPerimeter},
              {"euler", ccl::kPropertyEuler}};
  for (const auto& w : want) {
    const GFlagsValue* v = g_flags_get_value_by_nick(flags, w.nick);
    ASSERT_NE(v, nullptr) << w.nick;
    EXPECT_EQ(v->value, w.value) << w.nick;
  }
  g_type_class_unref(flags);

  // As gst-launch and GstStructure read them: nicks joined by '+', and the names a
  // structure writes read back.
  GValue value = G_VALUE_INIT;
  g_value_init(&value, GST_TYPE_CCL_BLOB_PROPERTIES);
  ASSERT_TRUE(gst_value_deserialize(&value, "intensity+perimeter"));
  EXPECT_EQ(g_value_get_flags(&value), guint(GST_CCL_BLOB_PROPERTIES_INTENSITY |
                                             GST_CCL_BLOB_PROPERTIES_PERIMETER));
  GstStructure* s = gst_structure_new("x", "p", GST_TYPE_CCL_BLOB_PROPERTIES, kAll, "after",
                                      G_TYPE_INT, 7, nullptr);
  gchar* text = gst_structure_to_string(s);
  GstStructure* back = gst_structure_from_string(text, nullptr);
  ASSERT_NE(back, nullptr) << text;
  // (gst_structure_get_flags is 1.22's; the platform suite runs 1.18.)
  const GValue* p = gst_structure_get_value(back, "p");
  gint after = 0;
  ASSERT_TRUE(p && G_VALUE_HOLDS(p, GST_TYPE_CCL_BLOB_PROPERTIES)) << text;
  EXPECT_TRUE(gst_structure_get_int(back, "after", &after)) << text;
  EXPECT_EQ(g_value_get_flags(p), kAll);
  EXPECT_EQ(after, 7);
  gst_structure_free(back);
  gst_structure_free(s);
  g_free(text);
  g_value_unset(&value);
}

TEST(MetaBlobs, NoneUntilSet) {
  GstBuffer* buf = gst_buffer_new();
  const auto comps = two_components();
  GstCclMeta* meta = gst_ccl_meta_add(buf, 32, 24, 2, comps.data(), 2);
  ASSERT_NE(meta, nullptr);
  EXPECT_EQ(meta->blobs, nullptr);
  EXPECT_EQ(gst_ccl_meta_get_blob(meta, 0), nullptr);
  guint n = 99;
  EXPECT_EQ(gst_ccl_meta_get_blobs(meta, &n), nullptr);
  EXPECT_EQ(n, 0u);
  gst_buffer_unref(buf);
}

TEST(MetaBlobs, SetCopiesThemAndGetReadsThemByComponentIndex) {
  GstBuffer* buf = gst_buffer_new();
  GstCclMeta* meta = add_with_blobs(buf);
  const auto blobs = two_blobs();
  ASSERT_NE(meta->blobs, nullptr);
  EXPECT_NE(meta->blobs, blobs.data()) << "the meta holds a copy";
  for (guint i = 0; i < 2; ++i) {
    const GstCclBlob* b = gst_ccl_meta_get_blob(meta, i);
    ASSERT_NE(b, nullptr);
    EXPECT_EQ(b, &meta->blobs[i]);
    EXPECT_TRUE(same_bytes(*b, blobs[i])) << i;
  }
  EXPECT_EQ(gst_ccl_meta_get_blob(meta, 2), nullptr);
  guint n = 0;
  EXPECT_EQ(gst_ccl_meta_get_blobs(meta, &n), meta->blobs);
  EXPECT_EQ(n, 2u);
  EXPECT_EQ(gst_ccl_meta_get_blobs(meta, nullptr), meta->blobs);

  // NULL removes them.
  EXPECT_TRUE(gst_ccl_meta_set_blobs(meta, nullptr, 0));
  EXPECT_EQ(meta->blobs, nullptr);
  EXPECT_EQ(gst_ccl_meta_get_blob(meta, 0), nullptr);
  gst_buffer_unref(buf);
}

TEST(MetaBlobs, ACountOtherThanTheComponentsIsRefused) {
  GstBuffer* buf = gst_buffer_new();
  GstCclMeta* meta = add_with_blobs(buf);
  const GstCclBlob* before = meta->blobs;
  const auto three = std::vector<GstCclBlob>{blob_numbered(1), blob_numbered(2), blob_numbered(3)};
  CriticalCounter criticals;
  EXPECT_FALSE(gst_ccl_meta_set_blobs(meta, three.data(), 3));
  EXPECT_FALSE(gst_ccl_meta_set_blobs(meta, three.data(), 1));
  EXPECT_FALSE(gst_ccl_meta_set_blobs(meta, nullptr, 2));
  EXPECT_EQ(criticals.count, 3);
  EXPECT_EQ(meta->blobs, before) << "a refused call leaves the meta alone";
  EXPECT_TRUE(same_bytes(meta->blobs[1], two_blobs()[1]));
  gst_buffer_unref(buf);
}

TEST(MetaBlobs, ABufferCopyHasItsOwnBlobs) {
  GstBuffer* buf = gst_buffer_new();
  add_with_blobs(buf);
  GstBuffer* copy = gst_buffer_copy(buf);
  gst_buffer_unref(buf);  // the copy must not point into the original's blobs
  const GstCclMeta* m = gst_ccl_meta_get(copy);
  ASSERT_NE(m, nullptr);
  ASSERT_NE(m->blobs, nullptr);
  const auto blobs = two_blobs();
  for (guint i = 0; i < 2; ++i) EXPECT_TRUE(same_bytes(m->blobs[i], blobs[i])) << i;

  // A meta without blobs copies as one without.
  GstBuffer* plain = gst_buffer_new();
  const auto comps = two_components();
  gst_ccl_meta_add(plain, 32, 24, 2, comps.data(), 2);
  GstBuffer* plain_copy = gst_buffer_copy(plain);
  EXPECT_EQ(gst_ccl_meta_get(plain_copy)->blobs, nullptr);
  gst_buffer_unref(plain_copy);
  gst_buffer_unref(plain);
  gst_buffer_unref(copy);
}

// Runs the meta's scale transform, as a scaling video filter does.
GstBuffer* scaled(GstBuffer* src, int in_w, int in_h, int out_w, int out_h) {
  GstVideoInfo in_info, out_info;
  gst_video_info_set_format(&in_info, GST_VIDEO_FORMAT_GRAY8, in_w, in_h);
  gst_video_info_set_format(&out_info, GST_VIDEO_FORMAT_GRAY8, out_w, out_h);
  GstVideoMetaTransform trans = {&in_info, &out_info};
  GstBuffer* dest = gst_buffer_new();
  GstMeta* meta = &gst_ccl_meta_get(src)->meta;
  EXPECT_TRUE(meta->info->transform_func(dest, meta, src,
                                         gst_video_meta_transform_scale_get_quark(), &trans));
  return dest;
}

// The blob's shape is ccl::shape_of's (scikit-image's) for the scaled component.
void expect_shape_of(const GstCclBlob& b, const GstCclComponent& c) {
  const ccl::Shape s = ccl::shape_of(to_ccl(c));
  EXPECT_NEAR(b.orientation, s.orientation, 1e-9);
  EXPECT_NEAR(b.axis_major_length, s.axis_major_length, 1e-9 * s.axis_major_length);
  EXPECT_NEAR(b.axis_minor_length, s.axis_minor_length, 1e-9 * s.axis_major_length);
  EXPECT_NEAR(b.eccentricity, s.eccentricity, 1e-9);
}

TEST(MetaBlobScale, AnAspectKeepingScaleScalesThePerimeterAndKeepsTheRest) {
  GstBuffer* buf = gst_buffer_new();
  add_with_blobs(buf);
  GstBuffer* out = scaled(buf, 32, 24, 64, 48);
  const GstCclMeta* m = gst_ccl_meta_get(out);
  ASSERT_NE(m, nullptr);
  ASSERT_NE(m->blobs, nullptr);
  const auto blobs = two_blobs();
  for (guint i = 0; i < 2; ++i) {
    SCOPED_TRACE(i);
    const GstCclBlob &b = m->blobs[i], &was = blobs[i];
    EXPECT_EQ(b.properties, was.properties);
    EXPECT_DOUBLE_EQ(b.perimeter, 2 * was.perimeter);
    EXPECT_EQ(b.circularity, was.circularity);
    EXPECT_EQ(b.intensity_mean, was.intensity_mean);
    EXPECT_EQ(b.intensity_std, was.intensity_std);
    EXPECT_EQ(b.intensity_min, was.intensity_min);
    EXPECT_EQ(b.intensity_max, was.intensity_max);
    for (int k = 0; k < 3; ++k) EXPECT_EQ(b.color_mean[k], was.color_mean[k]);
    EXPECT_EQ(b.euler_number, was.euler_number);
    // The shape follows the scaled moments (not the numbers blob_numbered made up).
    expect_shape_of(b, m->components[i]);
  }
  // A uniform scale keeps the orientation and eccentricity of the ellipse.
  const ccl::Shape before = ccl::shape_of(to_ccl(two_components()[1]));
  EXPECT_NEAR(m->blobs[1].orientation, before.orientation, 0.02);
  EXPECT_NEAR(m->blobs[1].eccentricity, before.eccentricity, 0.02);
  EXPECT_NEAR(m->blobs[1].axis_major_length, 2 * before.axis_major_length,
              0.02 * before.axis_major_length);
  gst_buffer_unref(out);
  gst_buffer_unref(buf);
}

TEST(MetaBlobScale, AStretchLeavesPerimeterAndCircularityOut) {
  GstBuffer* buf = gst_buffer_new();
  add_with_blobs(buf);
  GstBuffer* out = scaled(buf, 32, 24, 96, 24);
  const GstCclMeta* m = gst_ccl_meta_get(out);
  ASSERT_NE(m, nullptr);
  ASSERT_NE(m->blobs, nullptr);
  const auto blobs = two_blobs();
  for (guint i = 0; i < 2; ++i) {
    SCOPED_TRACE(i);
    const GstCclBlob &b = m->blobs[i], &was = blobs[i];
    EXPECT_EQ(guint(b.properties), kAll & ~guint(GST_CCL_BLOB_PROPERTIES_PERIMETER));
    EXPECT_EQ(b.perimeter, 0.0);
    EXPECT_EQ(b.circularity, 0.0);
    EXPECT_EQ(b.intensity_mean, was.intensity_mean);
    EXPECT_EQ(b.color_mean[2], was.color_mean[2]);
    EXPECT_EQ(b.euler_number, was.euler_number);
    expect_shape_of(b, m->components[i]);
  }
  // Three times as wide: the 6 x 3 rectangle becomes 18 x 3, far more eccentric.
  const ccl::Shape before = ccl::shape_of(to_ccl(two_components()[0]));
  EXPECT_GT(m->blobs[0].eccentricity, before.eccentricity + 0.05);
  gst_buffer_unref(out);
  gst_buffer_unref(buf);
}

TEST(MetaBlobScale, ASameSizeTransformCopiesThemExactly) {
  GstBuffer* buf = gst_buffer_new();
  add_with_blobs(buf);
  GstBuffer* out = scaled(buf, 32, 24, 32, 24);
  const GstCclMeta* m = gst_ccl_meta_get(out);
  ASSERT_NE(m, nullptr);
  ASSERT_NE(m->blobs, nullptr);
  const auto blobs = two_blobs();
  for (guint i = 0; i < 2; ++i) EXPECT_TRUE(same_bytes(m->blobs[i], blobs[i])) << i;
  gst_buffer_unref(out);
  gst_buffer_unref(buf);
}

}  // namespace
