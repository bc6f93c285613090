// libgstccl-1.0 on buffers: attaching and finding the meta, reading its components
// (by index, as an array, by iteration), and what buffer copies keep.
#include <gst/ccl/gstcclmeta.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <vector>

#include "shapes.h"

namespace {

using meta_test::component_of;
using meta_test::rectangle;
using meta_test::same_component;

// Gives c a track whose every field differs from the others' and from 0, so that a
// field dropped or swapped by a copy shows.
GstCclComponent with_track(GstCclComponent c, guint64 id, guint64 parent) {
  c.track_id = id;
  c.parent_id = parent;
  c.track_age = guint32(id % 1000) + 3;
  c.frames_unseen = guint32(id % 7) + 1;
  c.velocity_x = 1.25 + double(id % 100);
  c.velocity_y = -0.5 - double(id % 10);
  c.predicted_x = c.x + 2;
  c.predicted_y = c.y - 1;
  c.predicted_width = c.width + 1;
  c.predicted_height = c.height + 2;
  return c;
}

// Ids above 2^32 catch a field narrowed anywhere on the way.
constexpr guint64 kBigId = (guint64(1) << 40) + 5;

std::vector<GstCclComponent> three_components() {
  return {with_track(component_of(1, rectangle(0, 0, 3, 2)), 3, 0),
          with_track(component_of(2, rectangle(10, 1, 1, 5)), kBigId, 3),
          with_track(component_of(4, rectangle(4, 8, 6, 6)), 12, 0)};
}

GstCclMeta* add_three(GstBuffer* buf) {
  const auto comps = three_components();
  GstCclMeta* meta = gst_ccl_meta_add(buf, 32, 24, 5, comps.data(), guint(comps.size()));
  meta->threshold = 17;
  meta->algorithm = GST_CCL_ALGORITHM_KOMURA;
  meta->connectivity = 4;
  meta->gpu_time = 250000;
  meta->tracking = TRUE;
  return meta;
}

void expect_same_track(const GstCclComponent& a, const GstCclComponent& b) {
  EXPECT_EQ(a.track_id, b.track_id);
  EXPECT_EQ(a.parent_id, b.parent_id);
  EXPECT_EQ(a.track_age, b.track_age);
  EXPECT_EQ(a.frames_unseen, b.frames_unseen);
  EXPECT_EQ(a.velocity_x, b.velocity_x);
  EXPECT_EQ(a.velocity_y, b.velocity_y);
  EXPECT_EQ(a.predicted_x, b.predicted_x);
  EXPECT_EQ(a.predicted_y, b.predicted_y);
  EXPECT_EQ(a.predicted_width, b.predicted_width);
  EXPECT_EQ(a.predicted_height, b.predicted_height);
}

void expect_same_content(const GstCclMeta* a, const GstCclMeta* b) {
  EXPECT_EQ(a->width, b->width);
  EXPECT_EQ(a->height, b->height);
  EXPECT_EQ(a->total_count, b->total_count);
  EXPECT_EQ(a->threshold, b->threshold);
  EXPECT_EQ(a->algorithm, b->algorithm);
  EXPECT_EQ(a->connectivity, b->connectivity);
  EXPECT_EQ(a->gpu_time, b->gpu_time);
  EXPECT_EQ(a->tracking, b->tracking);
  ASSERT_EQ(a->n_components, b->n_components);
  if (a->n_components) {
    for (guint i = 0; i < a->n_components; ++i)
      EXPECT_TRUE(same_component(a->components[i], b->components[i])) << "component " << i;
    for (guint i = 0; i < a->n_components; ++i) expect_same_track(a->components[i], b->components[i]);
  }
}

TEST(MetaBuffer, BufferWithoutMetaHasNone) {
  GstBuffer* buf = gst_buffer_new();
  EXPECT_EQ(gst_ccl_meta_get(buf), nullptr);
  EXPECT_EQ(gst_ccl_buffer_get_meta(buf), nullptr);
  gst_buffer_unref(buf);
}

TEST(MetaBuffer, AddedMetaIsFoundByBothGetters) {
  GstBuffer* buf = gst_buffer_new();
  GstCclMeta* meta = add_three(buf);
  ASSERT_NE(meta, nullptr);
  EXPECT_EQ(gst_ccl_meta_get(buf), meta);
  EXPECT_EQ(gst_ccl_buffer_get_meta(buf), meta);
  EXPECT_EQ(meta->meta.info, GST_CCL_META_INFO);
  EXPECT_EQ(meta->meta.info->api, GST_CCL_META_API_TYPE);
  EXPECT_EQ(gst_buffer_get_n_meta(buf, GST_CCL_META_API_TYPE), 1u);
  gst_buffer_unref(buf);
}

TEST(MetaBuffer, NewMetaHasDocumentedDefaults) {
  GstBuffer* buf = gst_buffer_new();
  const GstCclMeta* meta = gst_ccl_meta_add(buf, 7, 5, 0, nullptr, 0);
  ASSERT_NE(meta, nullptr);
  EXPECT_EQ(meta->width, 7u);
  EXPECT_EQ(meta->height, 5u);
  EXPECT_EQ(meta->total_count, 0u);
  EXPECT_EQ(meta->n_components, 0u);
  EXPECT_EQ(meta->components, nullptr);
  EXPECT_EQ(meta->threshold, 0u);
  EXPECT_EQ(meta->algorithm, GST_CCL_ALGORITHM_HA4);
  EXPECT_EQ(meta->connectivity, 8u);
  EXPECT_EQ(meta->gpu_time, GST_CLOCK_TIME_NONE);
  EXPECT_FALSE(meta->tracking);
  gst_buffer_unref(buf);
}

TEST(MetaBuffer, AddCopiesTheCallersComponents) {
  GstBuffer* buf = gst_buffer_new();
  auto comps = three_components();
  const GstCclMeta* meta = gst_ccl_meta_add(buf, 32, 24, 3, comps.data(), 3);
  comps[0].area = 999;
  comps.clear();
  comps.shrink_to_fit();
  EXPECT_EQ(meta->components[0].area, 6u);
  gst_buffer_unref(buf);
}

TEST(MetaBuffer, AddCopiesTheTrackFields) {
  GstBuffer* buf = gst_buffer_new();
  auto comps = three_components();
  const GstCclMeta* meta = gst_ccl_meta_add(buf, 32, 24, 3, comps.data(), 3);
  const auto expected = three_components();
  comps[1].track_id = 1;
  comps[1].velocity_x = 0.0;
  ASSERT_EQ(meta->n_components, 3u);
  for (guint i = 0; i < 3; ++i) expect_same_track(meta->components[i], expected[i]);
  EXPECT_EQ(meta->components[1].track_id, kBigId);
  EXPECT_EQ(meta->components[1].parent_id, 3u);
  EXPECT_EQ(meta->components[1].predicted_x, 12);
  EXPECT_EQ(meta->components[1].predicted_height, 7);
  EXPECT_DOUBLE_EQ(meta->components[1].velocity_x, 1.25 + double(kBigId % 100));
  gst_buffer_unref(buf);
}

// The field order is the ABI applications are compiled against: the track fields
// follow the centroid, tracking follows gpu_time.
TEST(MetaBuffer, TrackFieldsFollowTheFeatures) {
  EXPECT_EQ(offsetof(GstCclComponent, track_id),
            offsetof(GstCclComponent, centroid_y) + sizeof(gdouble));
  EXPECT_LT(offsetof(GstCclComponent, track_id), offsetof(GstCclComponent, parent_id));
  EXPECT_LT(offsetof(GstCclComponent, parent_id), offsetof(GstCclComponent, track_age));
  EXPECT_LT(offsetof(GstCclComponent, track_age), offsetof(GstCclComponent, frames_unseen));
  EXPECT_LT(offsetof(GstCclComponent, frames_unseen), offsetof(GstCclComponent, velocity_x));
  EXPECT_LT(offsetof(GstCclComponent, velocity_y), offsetof(GstCclComponent, predicted_x));
  EXPECT_EQ(offsetof(GstCclComponent, predicted_height) + sizeof(gint32), sizeof(GstCclComponent));
  EXPECT_EQ(offsetof(GstCclMeta, tracking), offsetof(GstCclMeta, gpu_time) + sizeof(GstClockTime));
  EXPECT_LT(offsetof(GstCclMeta, tracking), offsetof(GstCclMeta, _gst_reserved));
}

TEST(MetaBuffer, MetaAPICarriesGeometryTags) {
  for (const char* tag : {GST_META_TAG_VIDEO_STR, GST_META_TAG_VIDEO_SIZE_STR,
                          GST_META_TAG_VIDEO_ORIENTATION_STR})
    EXPECT_TRUE(gst_meta_api_type_has_tag(GST_CCL_META_API_TYPE, g_quark_from_string(tag))) << tag;
  EXPECT_STREQ(g_type_name(GST_CCL_META_API_TYPE), "GstCclMetaAPI");
  EXPECT_GE(GST_CCL_META_INFO->size, sizeof(GstCclMeta));
}

TEST(MetaComponents, GetComponentByIndex) {
  GstBuffer* buf = gst_buffer_new();
  const GstCclMeta* meta = add_three(buf);
  for (guint i = 0; i < 3; ++i) EXPECT_EQ(gst_ccl_meta_get_component(meta, i), &meta->components[i]);
  EXPECT_EQ(gst_ccl_meta_get_component(meta, 2)->label, 4u);
  EXPECT_EQ(gst_ccl_meta_get_component(meta, 3), nullptr);
  EXPECT_EQ(gst_ccl_meta_get_component(meta, G_MAXUINT), nullptr);
  gst_buffer_unref(buf);
}

TEST(MetaComponents, GetComponentsReturnsTheWholeArray) {
  GstBuffer* buf = gst_buffer_new();
  const GstCclMeta* meta = add_three(buf);
  guint n = 0;
  const GstCclComponent* all = gst_ccl_meta_get_components(meta, &n);
  EXPECT_EQ(n, 3u);
  EXPECT_EQ(all, meta->components);
  EXPECT_EQ(gst_ccl_meta_get_components(meta, nullptr), meta->components);
  gst_buffer_unref(buf);

  buf = gst_buffer_new();
  const GstCclMeta* empty = gst_ccl_meta_add(buf, 4, 4, 2, nullptr, 0);
  n = 99;
  EXPECT_EQ(gst_ccl_meta_get_components(empty, &n), nullptr);
  EXPECT_EQ(n, 0u);
  gst_buffer_unref(buf);
}

TEST(MetaComponents, IterateVisitsEachOnceInOrder) {
  GstBuffer* buf = gst_buffer_new();
  const GstCclMeta* meta = add_three(buf);
  for (int pass = 0; pass < 2; ++pass) {  // a NULL cursor starts over
    gpointer state = nullptr;
    std::vector<const GstCclComponent*> seen;
    while (const GstCclComponent* c = gst_ccl_meta_iterate(meta, &state)) seen.push_back(c);
    ASSERT_EQ(seen.size(), 3u);
    for (guint i = 0; i < 3; ++i) EXPECT_EQ(seen[i], gst_ccl_meta_get_component(meta, i));
    EXPECT_EQ(gst_ccl_meta_iterate(meta, &state), nullptr) << "stays finished";
  }
  gst_buffer_unref(buf);

  buf = gst_buffer_new();
  const GstCclMeta* empty = gst_ccl_meta_add(buf, 4, 4, 0, nullptr, 0);
  gpointer state = nullptr;
  EXPECT_EQ(gst_ccl_meta_iterate(empty, &state), nullptr);
  gst_buffer_unref(buf);
}

TEST(MetaCopy, BufferCopyCarriesADeepCopy) {
  GstBuffer* buf = gst_buffer_new_allocate(nullptr, 64, nullptr);
  const GstCclMeta* meta = add_three(buf);
  GstBuffer* copy = gst_buffer_copy(buf);
  const GstCclMeta* c = gst_ccl_meta_get(copy);
  ASSERT_NE(c, nullptr);
  EXPECT_NE(c, meta);
  EXPECT_NE(c->components, meta->components);
  expect_same_content(c, meta);
  const auto expected = three_components();
  gst_buffer_unref(buf);  // the copy outlives its source
  for (guint i = 0; i < 3; ++i) EXPECT_TRUE(same_component(c->components[i], expected[i]));
  EXPECT_TRUE(c->tracking);
  for (guint i = 0; i < 3; ++i) expect_same_track(c->components[i], expected[i]);
  gst_buffer_unref(copy);
}

TEST(MetaCopy, TrackingOffSurvivesACopy) {
  GstBuffer* buf = gst_buffer_new_allocate(nullptr, 64, nullptr);
  GstCclMeta* meta = add_three(buf);
  meta->tracking = FALSE;
  GstBuffer* copy = gst_buffer_copy(buf);
  const GstCclMeta* c = gst_ccl_meta_get(copy);
  ASSERT_NE(c, nullptr);
  EXPECT_FALSE(c->tracking);
  gst_buffer_unref(copy);
  gst_buffer_unref(buf);
}

TEST(MetaCopy, EmptyMetaCopies) {
  GstBuffer* buf = gst_buffer_new();
  gst_ccl_meta_add(buf, 9, 9, 4, nullptr, 0);
  GstBuffer* copy = gst_buffer_copy(buf);
  const GstCclMeta* c = gst_ccl_meta_get(copy);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->total_count, 4u);
  EXPECT_EQ(c->n_components, 0u);
  EXPECT_EQ(c->components, nullptr);
  gst_buffer_unref(copy);
  gst_buffer_unref(buf);
}

TEST(MetaCopy, MakeWritableKeepsTheMeta) {
  GstBuffer* buf = gst_buffer_new_allocate(nullptr, 64, nullptr);
  const GstCclMeta* meta = add_three(buf);
  GstBuffer* shared = gst_buffer_ref(buf);
  GstBuffer* writable = gst_buffer_make_writable(shared);
  ASSERT_NE(writable, buf);
  const GstCclMeta* c = gst_ccl_meta_get(writable);
  ASSERT_NE(c, nullptr);
  expect_same_content(c, meta);
  gst_buffer_unref(writable);
  gst_buffer_unref(buf);
}

TEST(MetaCopy, ByteRangeCopiesDropTheMeta) {
  GstBuffer* buf = gst_buffer_new_allocate(nullptr, 64, nullptr);
  add_three(buf);
  GstBuffer* part = gst_buffer_copy_region(buf, GST_BUFFER_COPY_ALL, 8, 16);
  EXPECT_EQ(gst_ccl_meta_get(part), nullptr);
  gst_buffer_unref(part);
  GstBuffer* whole = gst_buffer_copy_region(buf, GST_BUFFER_COPY_ALL, 0, gsize(-1));
  EXPECT_NE(gst_ccl_meta_get(whole), nullptr);
  gst_buffer_unref(whole);
  gst_buffer_unref(buf);
}

TEST(MetaCopy, CopyWithoutMetaFlagLeavesItBehind) {
  GstBuffer* buf = gst_buffer_new_allocate(nullptr, 64, nullptr);
  add_three(buf);
  GstBuffer* dest = gst_buffer_new();
  ASSERT_TRUE(gst_buffer_copy_into(dest, buf, GstBufferCopyFlags(GST_BUFFER_COPY_MEMORY), 0, gsize(-1)));
  EXPECT_EQ(gst_ccl_meta_get(dest), nullptr);
  gst_buffer_unref(dest);
  gst_buffer_unref(buf);
}

TEST(MetaCopy, RemovedMetaIsGone) {
  GstBuffer* buf = gst_buffer_new();
  GstCclMeta* meta = add_three(buf);
  EXPECT_TRUE(gst_buffer_remove_meta(buf, &meta->meta));
  EXPECT_EQ(gst_ccl_meta_get(buf), nullptr);
  gst_buffer_unref(buf);
}

TEST(MetaTypes, ComponentIsABoxedType) {
  ASSERT_TRUE(G_TYPE_IS_BOXED(GST_TYPE_CCL_COMPONENT));
  EXPECT_STREQ(g_type_name(GST_TYPE_CCL_COMPONENT), "GstCclComponent");
  const GstCclComponent c = with_track(component_of(5, rectangle(2, 3, 4, 5)), kBigId, 9);
  GValue v = G_VALUE_INIT;
  g_value_init(&v, GST_TYPE_CCL_COMPONENT);
  g_value_set_boxed(&v, &c);
  const auto* held = static_cast<const GstCclComponent*>(g_value_get_boxed(&v));
  ASSERT_NE(held, &c);
  EXPECT_TRUE(same_component(*held, c));
  g_value_unset(&v);

  GstCclComponent* copy = gst_ccl_component_copy(&c);
  EXPECT_TRUE(same_component(*copy, c));
  expect_same_track(*copy, c);
  gst_ccl_component_free(copy);
}

TEST(MetaFindTrack, FindsEachTrackOfTheFrame) {
  GstBuffer* buf = gst_buffer_new();
  const GstCclMeta* meta = add_three(buf);
  EXPECT_EQ(gst_ccl_meta_find_track(meta, 3), &meta->components[0]);
  EXPECT_EQ(gst_ccl_meta_find_track(meta, kBigId), &meta->components[1]);
  EXPECT_EQ(gst_ccl_meta_find_track(meta, 12), &meta->components[2]);
  EXPECT_EQ(gst_ccl_meta_find_track(meta, 12)->label, 4u);
  gst_buffer_unref(buf);
}

TEST(MetaFindTrack, UnknownIdsFindNothing) {
  GstBuffer* buf = gst_buffer_new();
  const GstCclMeta* meta = add_three(buf);
  // 5 is kBigId's low 32 bits: a lookup narrowing the id would find it.
  for (guint64 id : {guint64(0), guint64(1), guint64(5), kBigId + 1, G_MAXUINT64})
    EXPECT_EQ(gst_ccl_meta_find_track(meta, id), nullptr) << id;
  gst_buffer_unref(buf);

  buf = gst_buffer_new();
  const GstCclMeta* empty = gst_ccl_meta_add(buf, 4, 4, 0, nullptr, 0);
  EXPECT_EQ(gst_ccl_meta_find_track(empty, 3), nullptr);
  gst_buffer_unref(buf);
}

TEST(MetaFindTrack, TrackingOffFindsNothing) {
  // Without tracking every id is 0, which is no track's id.
  const std::vector<GstCclComponent> comps = {component_of(1, rectangle(0, 0, 2, 2)),
                                              component_of(2, rectangle(5, 5, 2, 2))};
  GstBuffer* buf = gst_buffer_new();
  const GstCclMeta* meta = gst_ccl_meta_add(buf, 8, 8, 2, comps.data(), 2);
  EXPECT_EQ(gst_ccl_meta_find_track(meta, 0), nullptr);
  EXPECT_EQ(gst_ccl_meta_find_track(meta, 1), nullptr);
  gst_buffer_unref(buf);
}

}  // namespace
