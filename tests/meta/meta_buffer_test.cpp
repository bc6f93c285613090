// libgstccl-1.0 on buffers: attaching and finding the meta, reading its components
// (by index, as an array, by iteration), and what buffer copies keep.
#include <gst/ccl/gstcclmeta.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "shapes.h"

namespace {

using meta_test::component_of;
using meta_test::rectangle;

std::vector<GstCclComponent> three_components() {
  return {component_of(1, rectangle(0, 0, 3, 2)), component_of(2, rectangle(10, 1, 1, 5)),
          component_of(4, rectangle(4, 8, 6, 6))};
}

GstCclMeta* add_three(GstBuffer* buf) {
  const auto comps = three_components();
  GstCclMeta* meta = gst_ccl_meta_add(buf, 32, 24, 5, comps.data(), guint(comps.size()));
  meta->threshold = 17;
  meta->algorithm = GST_CCL_ALGORITHM_KOMURA;
  meta->connectivity = 4;
  meta->gpu_time = 250000;
  return meta;
}

void expect_same_content(const GstCclMeta* a, const GstCclMeta* b) {
  EXPECT_EQ(a->width, b->width);
  EXPECT_EQ(a->height, b->height);
  EXPECT_EQ(a->total_count, b->total_count);
  EXPECT_EQ(a->threshold, b->threshold);
  EXPECT_EQ(a->algorithm, b->algorithm);
  EXPECT_EQ(a->connectivity, b->connectivity);
  EXPECT_EQ(a->gpu_time, b->gpu_time);
  ASSERT_EQ(a->n_components, b->n_components);
  if (a->n_components) {
    EXPECT_EQ(std::memcmp(a->components, b->components, a->n_components * sizeof(GstCclComponent)),
              0);
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
  EXPECT_EQ(std::memcmp(c->components, expected.data(), sizeof(GstCclComponent) * 3), 0);
  gst_buffer_unref(copy);
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
  const GstCclComponent c = component_of(5, rectangle(2, 3, 4, 5));
  GValue v = G_VALUE_INIT;
  g_value_init(&v, GST_TYPE_CCL_COMPONENT);
  g_value_set_boxed(&v, &c);
  const auto* held = static_cast<const GstCclComponent*>(g_value_get_boxed(&v));
  ASSERT_NE(held, &c);
  EXPECT_EQ(std::memcmp(held, &c, sizeof c), 0);
  g_value_unset(&v);

  GstCclComponent* copy = gst_ccl_component_copy(&c);
  EXPECT_EQ(std::memcmp(copy, &c, sizeof c), 0);
  gst_ccl_component_free(copy);
}

TEST(MetaTypes, AlgorithmEnumHasNicks) {
  ASSERT_TRUE(G_TYPE_IS_ENUM(GST_TYPE_CCL_ALGORITHM));
  auto* klass = static_cast<GEnumClass*>(g_type_class_ref(GST_TYPE_CCL_ALGORITHM));
  EXPECT_EQ(klass->n_values, 2u);
  EXPECT_EQ(g_enum_get_value_by_nick(klass, "ha4")->value, GST_CCL_ALGORITHM_HA4);
  EXPECT_EQ(g_enum_get_value_by_nick(klass, "komura")->value, GST_CCL_ALGORITHM_KOMURA);
  g_type_class_unref(klass);
}

}  // namespace
