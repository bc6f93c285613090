// The meta's event counts (GstCclEventCounts, since 0.4): the struct layout that keeps
// 0.2's and 0.3's ABI, the enum and boxed types, setting (one block, replaced whole),
// reading by index with its bounds, what copies and scaling transforms make of them,
// and that replacing, removing and freeing them leaks nothing.
#include <gst/ccl/gstcclmeta.h>
#include <gst/check/gstharness.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
#include <malloc.h>
#define HAVE_MALLINFO2 1
#endif

#include "shapes.h"

namespace {

using meta_test::component_of;
using meta_test::rectangle;

// A frame's counts as the element gives them to gst_ccl_meta_set_event_counts().
struct Counts {
  std::vector<guint64> forward, backward;
  std::vector<guint> zone_count;
  std::vector<guint64> entries, exits;
  std::vector<GstCclEvent> events;
};

GstCclEvent event(GstCclEventKind kind, guint index, guint track_id, guint count, double x,
                  double y, guint64 frame, GstClockTime running_time, GstClockTime entry_time) {
  GstCclEvent e{};
  e.kind = kind;
  e.index = index;
  e.track_id = track_id;
  e.count = count;
  e.x = x;
  e.y = y;
  e.frame = frame;
  e.running_time = running_time;
  e.entry_time = entry_time;
  return e;
}

// Two lines and three zones, each value distinct (64-bit ones above 2^32), and one
// event of every kind, in the order the element reports them.
Counts sample_counts() {
  Counts c;
  c.forward = {(guint64(1) << 40) + 1, 7};
  c.backward = {3, (guint64(1) << 33) + 5};
  c.zone_count = {2, 0, 4};
  c.entries = {11, (guint64(1) << 35) + 12, 13};
  c.exits = {9, 10, (guint64(1) << 36) + 11};
  const GstClockTime t = 5 * GST_SECOND + 17;
  c.events = {
      event(GST_CCL_EVENT_KIND_LINE_FORWARD, 1, 42, 0, 10.5, 12.25, 120, t,
            GST_CLOCK_TIME_NONE),
      event(GST_CCL_EVENT_KIND_LINE_BACKWARD, 0, 43, 0, 20.0, 4.75, 120, t,
            GST_CLOCK_TIME_NONE),
      event(GST_CCL_EVENT_KIND_ZONE_ENTER, 2, 42, 1, 10.5, 12.25, 120, t, t),
      event(GST_CCL_EVENT_KIND_ZONE_EXIT, 0, 44, 37, 1.0, 20.5, 120, t, t - 37 * GST_MSECOND),
      event(GST_CCL_EVENT_KIND_ZONE_MAX, 2, 0, 4, 0.0, 0.0, 120, t, GST_CLOCK_TIME_NONE),
  };
  return c;
}

gboolean set(GstCclMeta* meta, const Counts& c) {
  return gst_ccl_meta_set_event_counts(
      meta, guint(c.forward.size()), c.forward.data(), c.backward.data(),
      guint(c.zone_count.size()), c.zone_count.data(), c.entries.data(), c.exits.data(),
      guint(c.events.size()), c.events.data());
}

GstCclMeta* add_meta(GstBuffer* buf) {
  const std::vector<GstCclComponent> comps = {component_of(1, rectangle(2, 2, 6, 3))};
  return gst_ccl_meta_add(buf, 32, 24, 1, comps.data(), 1);
}

GstCclMeta* add_with_counts(GstBuffer* buf, const Counts& c = sample_counts()) {
  GstCclMeta* meta = add_meta(buf);
  EXPECT_TRUE(set(meta, c));
  return meta;
}

// Field by field: a copy need not carry the padding bytes along.
void expect_same_event(const GstCclEvent& a, const GstCclEvent& b) {
  EXPECT_EQ(a.kind, b.kind);
  EXPECT_EQ(a.index, b.index);
  EXPECT_EQ(a.track_id, b.track_id);
  EXPECT_EQ(a.count, b.count);
  EXPECT_EQ(a.x, b.x);
  EXPECT_EQ(a.y, b.y);
  EXPECT_EQ(a.frame, b.frame);
  EXPECT_EQ(a.running_time, b.running_time);
  EXPECT_EQ(a.entry_time, b.entry_time);
}

// Every value of `got` is that of `want`, through the struct and through the getters.
void expect_counts(const GstCclMeta* meta, const Counts& want) {
  const GstCclEventCounts* got = gst_ccl_meta_get_event_counts(meta);
  ASSERT_NE(got, nullptr);
  EXPECT_EQ(got, meta->event_counts);
  ASSERT_EQ(got->n_lines, want.forward.size());
  ASSERT_EQ(got->n_zones, want.zone_count.size());
  ASSERT_EQ(got->n_events, want.events.size());
  EXPECT_EQ(gst_ccl_meta_get_n_lines(meta), got->n_lines);
  EXPECT_EQ(gst_ccl_meta_get_n_zones(meta), got->n_zones);
  for (guint i = 0; i < got->n_lines; ++i) {
    SCOPED_TRACE("line " + std::to_string(i));
    EXPECT_EQ(got->line_forward[i], want.forward[i]);
    EXPECT_EQ(got->line_backward[i], want.backward[i]);
    guint64 fw = 0, bw = 0;
    EXPECT_TRUE(gst_ccl_meta_get_line_counts(meta, i, &fw, &bw));
    EXPECT_EQ(fw, want.forward[i]);
    EXPECT_EQ(bw, want.backward[i]);
  }
  for (guint i = 0; i < got->n_zones; ++i) {
    SCOPED_TRACE("zone " + std::to_string(i));
    EXPECT_EQ(got->zone_count[i], want.zone_count[i]);
    EXPECT_EQ(got->zone_entries[i], want.entries[i]);
    EXPECT_EQ(got->zone_exits[i], want.exits[i]);
    guint n = 99;
    guint64 in = 0, out = 0;
    EXPECT_TRUE(gst_ccl_meta_get_zone_counts(meta, i, &n, &in, &out));
    EXPECT_EQ(n, want.zone_count[i]);
    EXPECT_EQ(in, want.entries[i]);
    EXPECT_EQ(out, want.exits[i]);
  }
  guint n_events = 99;
  const GstCclEvent* events = gst_ccl_meta_get_events(meta, &n_events);
  EXPECT_EQ(n_events, want.events.size());
  EXPECT_EQ(events, got->events);
  for (guint i = 0; i < got->n_events; ++i) {
    SCOPED_TRACE("event " + std::to_string(i));
    EXPECT_EQ(gst_ccl_meta_get_event(meta, i), &got->events[i]);
    expect_same_event(got->events[i], want.events[i]);
  }
}

// The arrays lie in one block right after the struct, each aligned for its type,
// none overlapping another; absent ones are NULL.
void expect_one_block(const GstCclEventCounts* c) {
  const auto* base = reinterpret_cast<const guint8*>(c);
  const guint8* end = base + sizeof(GstCclEventCounts);
  auto part = [&](const void* p, size_t n, size_t elem, size_t align, const char* name) {
    SCOPED_TRACE(name);
    if (n == 0) {
      EXPECT_EQ(p, nullptr);
      return;
    }
    const auto* q = static_cast<const guint8*>(p);
    EXPECT_EQ(q, end) << "arrays follow each other in the block";
    EXPECT_EQ(reinterpret_cast<uintptr_t>(q) % align, 0u);
    end = q + n * elem;
  };
  part(c->events, c->n_events, sizeof(GstCclEvent), alignof(GstCclEvent), "events");
  part(c->line_forward, c->n_lines, sizeof(guint64), alignof(guint64), "line_forward");
  part(c->line_backward, c->n_lines, sizeof(guint64), alignof(guint64), "line_backward");
  part(c->zone_entries, c->n_zones, sizeof(guint64), alignof(guint64), "zone_entries");
  part(c->zone_exits, c->n_zones, sizeof(guint64), alignof(guint64), "zone_exits");
  part(c->zone_count, c->n_zones, sizeof(guint), alignof(guint), "zone_count");
}

// Counts the criticals of g_return_if_fail and g_critical in the library's log domain.
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

TEST(MetaEventsLayout, EventCountsTookTheNextPaddingSlotAndTheMetaKeptItsSize) {
  // 0.2's GstCclMeta: tracking, then GST_PADDING pointers; 0.3's blobs took the
  // first, 0.4's event_counts the second. Every earlier offset and the size hold.
  const size_t padding_start = offsetof(GstCclMeta, blobs);
  EXPECT_GE(padding_start, offsetof(GstCclMeta, tracking) + sizeof(gboolean));
  EXPECT_LT(padding_start, offsetof(GstCclMeta, tracking) + sizeof(gboolean) + sizeof(gpointer));
  EXPECT_EQ(offsetof(GstCclMeta, event_counts), padding_start + sizeof(gpointer));
  EXPECT_EQ(offsetof(GstCclMeta, _gst_reserved), padding_start + 2 * sizeof(gpointer));
  EXPECT_EQ(sizeof(GstCclMeta), padding_start + GST_PADDING * sizeof(gpointer));
  EXPECT_EQ(sizeof(((GstCclMeta*)nullptr)->_gst_reserved), (GST_PADDING - 2) * sizeof(gpointer));
  EXPECT_EQ(GST_CCL_META_INFO->size, sizeof(GstCclMeta));
  // The meta of x86-64 and aarch64 (LP64): the 104 bytes 0.2 had.
  if (sizeof(gpointer) == 8) {
    EXPECT_EQ(sizeof(GstCclMeta), 104u);
  }

  // The event's fields in the documented order, padding after them.
  EXPECT_EQ(offsetof(GstCclEvent, kind), 0u);
  EXPECT_LT(offsetof(GstCclEvent, kind), offsetof(GstCclEvent, index));
  EXPECT_LT(offsetof(GstCclEvent, index), offsetof(GstCclEvent, track_id));
  EXPECT_LT(offsetof(GstCclEvent, track_id), offsetof(GstCclEvent, count));
  EXPECT_LT(offsetof(GstCclEvent, count), offsetof(GstCclEvent, x));
  EXPECT_LT(offsetof(GstCclEvent, y), offsetof(GstCclEvent, frame));
  EXPECT_LT(offsetof(GstCclEvent, running_time), offsetof(GstCclEvent, entry_time));
  EXPECT_EQ(offsetof(GstCclEvent, _gst_reserved),
            offsetof(GstCclEvent, entry_time) + sizeof(GstClockTime));
  EXPECT_EQ(sizeof(GstCclEvent), offsetof(GstCclEvent, _gst_reserved) + GST_PADDING * sizeof(gpointer));
  EXPECT_EQ(offsetof(GstCclEventCounts, n_lines), 0u);
  EXPECT_EQ(offsetof(GstCclEventCounts, _gst_reserved),
            offsetof(GstCclEventCounts, events) + sizeof(gpointer));
}

TEST(MetaEventsTypes, TheKindEnumWithTheElementsNicks) {
  ASSERT_TRUE(G_TYPE_IS_ENUM(GST_TYPE_CCL_EVENT_KIND));
  EXPECT_STREQ(g_type_name(GST_TYPE_CCL_EVENT_KIND), "GstCclEventKind");
  GEnumClass* klass = static_cast<GEnumClass*>(g_type_class_ref(GST_TYPE_CCL_EVENT_KIND));
  // The engine's ccl::EventKind values, under the names of docs/EVENTS.md.
  const struct {
    GstCclEventKind kind;
    const char* nick;
    const char* name;
  } want[] = {
      {GST_CCL_EVENT_KIND_LINE_FORWARD, "line-forward", "GST_CCL_EVENT_KIND_LINE_FORWARD"},
      {GST_CCL_EVENT_KIND_LINE_BACKWARD, "line-backward", "GST_CCL_EVENT_KIND_LINE_BACKWARD"},
      {GST_CCL_EVENT_KIND_ZONE_ENTER, "zone-enter", "GST_CCL_EVENT_KIND_ZONE_ENTER"},
      {GST_CCL_EVENT_KIND_ZONE_EXIT, "zone-exit", "GST_CCL_EVENT_KIND_ZONE_EXIT"},
      {GST_CCL_EVENT_KIND_ZONE_MAX, "zone-max", "GST_CCL_EVENT_KIND_ZONE_MAX"},
  };
  EXPECT_EQ(klass->n_values, G_N_ELEMENTS(want));
  for (guint i = 0; i < G_N_ELEMENTS(want); ++i) {
    EXPECT_EQ(int(want[i].kind), int(i)) << want[i].nick;
    const GEnumValue* v = g_enum_get_value_by_nick(klass, want[i].nick);
    ASSERT_NE(v, nullptr) << want[i].nick;
    EXPECT_EQ(v->value, int(want[i].kind));
    EXPECT_STREQ(v->value_name, want[i].name);
  }
  g_type_class_unref(klass);

  // In a GstStructure's text and back, as a message field of the type would go.
  GstStructure* s = gst_structure_new("x", "kind", GST_TYPE_CCL_EVENT_KIND,
                                      GST_CCL_EVENT_KIND_ZONE_EXIT, "after", G_TYPE_INT, 7,
                                      nullptr);
  gchar* text = gst_structure_to_string(s);
  GstStructure* back = gst_structure_from_string(text, nullptr);
  ASSERT_NE(back, nullptr) << text;
  const GValue* k = gst_structure_get_value(back, "kind");
  ASSERT_TRUE(k && G_VALUE_HOLDS(k, GST_TYPE_CCL_EVENT_KIND)) << text;
  EXPECT_EQ(g_value_get_enum(k), GST_CCL_EVENT_KIND_ZONE_EXIT);
  GValue value = G_VALUE_INIT;
  g_value_init(&value, GST_TYPE_CCL_EVENT_KIND);
  EXPECT_TRUE(gst_value_deserialize(&value, "zone-max"));
  EXPECT_EQ(g_value_get_enum(&value), GST_CCL_EVENT_KIND_ZONE_MAX);
  g_value_unset(&value);
  gst_structure_free(back);
  gst_structure_free(s);
  g_free(text);
}

TEST(MetaEventsTypes, BoxedEventAndCounts) {
  EXPECT_STREQ(g_type_name(GST_TYPE_CCL_EVENT), "GstCclEvent");
  EXPECT_TRUE(G_TYPE_IS_BOXED(GST_TYPE_CCL_EVENT));
  const GstCclEvent e = sample_counts().events[3];
  auto* copy = static_cast<GstCclEvent*>(g_boxed_copy(GST_TYPE_CCL_EVENT, &e));
  ASSERT_NE(copy, nullptr);
  EXPECT_NE(copy, &e);
  expect_same_event(*copy, e);
  g_boxed_free(GST_TYPE_CCL_EVENT, copy);

  EXPECT_STREQ(g_type_name(GST_TYPE_CCL_EVENT_COUNTS), "GstCclEventCounts");
  EXPECT_TRUE(G_TYPE_IS_BOXED(GST_TYPE_CCL_EVENT_COUNTS));
  GstBuffer* buf = gst_buffer_new();
  const GstCclMeta* meta = add_with_counts(buf);
  auto* counts = static_cast<GstCclEventCounts*>(
      g_boxed_copy(GST_TYPE_CCL_EVENT_COUNTS, gst_ccl_meta_get_event_counts(meta)));
  gst_buffer_unref(buf);  // the copy is a block of its own
  ASSERT_NE(counts, nullptr);
  expect_one_block(counts);
  const Counts want = sample_counts();
  ASSERT_EQ(counts->n_events, want.events.size());
  for (guint i = 0; i < counts->n_events; ++i) expect_same_event(counts->events[i], want.events[i]);
  EXPECT_EQ(counts->line_backward[1], want.backward[1]);
  EXPECT_EQ(counts->zone_count[2], want.zone_count[2]);
  EXPECT_EQ(counts->zone_exits[2], want.exits[2]);
  GstCclEventCounts* again = gst_ccl_event_counts_copy(counts);
  gst_ccl_event_counts_free(counts);
  expect_one_block(again);
  EXPECT_EQ(again->zone_entries[1], want.entries[1]);
  g_boxed_free(GST_TYPE_CCL_EVENT_COUNTS, again);
}

TEST(MetaEvents, NoneUntilSet) {
  GstBuffer* buf = gst_buffer_new();
  const GstCclMeta* meta = add_meta(buf);
  ASSERT_NE(meta, nullptr);
  EXPECT_EQ(meta->event_counts, nullptr);
  EXPECT_EQ(gst_ccl_meta_get_event_counts(meta), nullptr);
  EXPECT_EQ(gst_ccl_meta_get_n_lines(meta), 0u);
  EXPECT_EQ(gst_ccl_meta_get_n_zones(meta), 0u);
  guint64 fw = 5, bw = 5, in = 5, out = 5;
  guint n = 5;
  EXPECT_FALSE(gst_ccl_meta_get_line_counts(meta, 0, &fw, &bw));
  EXPECT_FALSE(gst_ccl_meta_get_zone_counts(meta, 0, &n, &in, &out));
  EXPECT_EQ(fw + bw + in + out + n, 0u) << "out values are 0 on FALSE";
  EXPECT_EQ(gst_ccl_meta_get_event(meta, 0), nullptr);
  n = 5;
  EXPECT_EQ(gst_ccl_meta_get_events(meta, &n), nullptr);
  EXPECT_EQ(n, 0u);
  gst_buffer_unref(buf);
}

TEST(MetaEvents, SetCopiesThemIntoOneBlockAndTheGettersReadThem) {
  GstBuffer* buf = gst_buffer_new();
  Counts c = sample_counts();
  GstCclMeta* meta = add_with_counts(buf, c);
  ASSERT_NE(meta->event_counts, nullptr);
  expect_one_block(meta->event_counts);
  EXPECT_NE(meta->event_counts->events, c.events.data()) << "the meta holds a copy";
  EXPECT_NE(meta->event_counts->line_forward, c.forward.data());
  // Changing what was given changes nothing in the meta.
  const Counts want = c;
  c.forward[0] = 0;
  c.events[0].track_id = 1000;
  expect_counts(meta, want);
  // The getters' optional out parameters.
  guint64 bw = 0;
  EXPECT_TRUE(gst_ccl_meta_get_line_counts(meta, 1, nullptr, &bw));
  EXPECT_EQ(bw, want.backward[1]);
  EXPECT_TRUE(gst_ccl_meta_get_line_counts(meta, 1, nullptr, nullptr));
  guint64 exits = 0;
  EXPECT_TRUE(gst_ccl_meta_get_zone_counts(meta, 2, nullptr, nullptr, &exits));
  EXPECT_EQ(exits, want.exits[2]);
  EXPECT_EQ(gst_ccl_meta_get_events(meta, nullptr), meta->event_counts->events);
  gst_buffer_unref(buf);
}

TEST(MetaEvents, AnIndexOutOfRangeFindsNothing) {
  GstBuffer* buf = gst_buffer_new();
  const GstCclMeta* meta = add_with_counts(buf);
  guint64 fw = 5, bw = 5, in = 5, out = 5;
  guint n = 5;
  CriticalCounter criticals;
  for (guint index : {2u, 3u, G_MAXUINT}) {
    fw = bw = 5;
    EXPECT_FALSE(gst_ccl_meta_get_line_counts(meta, index, &fw, &bw)) << index;
    EXPECT_EQ(fw + bw, 0u);
  }
  for (guint index : {3u, 4u, G_MAXUINT}) {
    n = 5;
    in = out = 5;
    EXPECT_FALSE(gst_ccl_meta_get_zone_counts(meta, index, &n, &in, &out)) << index;
    EXPECT_EQ(n + in + out, 0u);
  }
  EXPECT_NE(gst_ccl_meta_get_event(meta, 4), nullptr);
  EXPECT_EQ(gst_ccl_meta_get_event(meta, 5), nullptr);
  EXPECT_EQ(gst_ccl_meta_get_event(meta, G_MAXUINT), nullptr);
  EXPECT_EQ(criticals.count, 0) << "out of range is an answer, not a mistake";
  gst_buffer_unref(buf);
}

TEST(MetaEvents, LinesOnlyZonesOnlyAndNoEvents) {
  GstBuffer* buf = gst_buffer_new();
  GstCclMeta* meta = add_meta(buf);

  Counts lines;
  lines.forward = {1, 2, 3};
  lines.backward = {4, 5, 6};
  lines.events = {event(GST_CCL_EVENT_KIND_LINE_BACKWARD, 2, 8, 0, 1, 2, 3, 4,
                        GST_CLOCK_TIME_NONE)};
  ASSERT_TRUE(set(meta, lines));
  expect_counts(meta, lines);
  expect_one_block(meta->event_counts);
  EXPECT_EQ(meta->event_counts->zone_count, nullptr);
  EXPECT_FALSE(gst_ccl_meta_get_zone_counts(meta, 0, nullptr, nullptr, nullptr));

  Counts zones;
  zones.zone_count = {3};
  zones.entries = {4};
  zones.exits = {1};
  ASSERT_TRUE(set(meta, zones));  // a frame without events
  expect_counts(meta, zones);
  expect_one_block(meta->event_counts);
  EXPECT_EQ(meta->event_counts->line_forward, nullptr);
  EXPECT_EQ(meta->event_counts->events, nullptr);
  guint n = 5;
  EXPECT_EQ(gst_ccl_meta_get_events(meta, &n), nullptr);
  EXPECT_EQ(n, 0u);
  EXPECT_EQ(gst_ccl_meta_get_event(meta, 0), nullptr);
  EXPECT_FALSE(gst_ccl_meta_get_line_counts(meta, 0, nullptr, nullptr));

  // Nothing counted: no block at all.
  ASSERT_TRUE(gst_ccl_meta_set_event_counts(meta, 0, nullptr, nullptr, 0, nullptr, nullptr,
                                            nullptr, 0, nullptr));
  EXPECT_EQ(meta->event_counts, nullptr);
  EXPECT_EQ(gst_ccl_meta_get_n_zones(meta), 0u);
  gst_buffer_unref(buf);
}

TEST(MetaEvents, ReplacingTakesTheNewCountsWhole) {
  GstBuffer* buf = gst_buffer_new();
  GstCclMeta* meta = add_with_counts(buf);
  Counts next = sample_counts();
  next.forward.push_back(99);
  next.backward.push_back(98);
  next.zone_count.pop_back();
  next.entries.pop_back();
  next.exits.pop_back();
  next.events.erase(next.events.begin() + 2);  // zone 2 is gone: its events too
  next.events.pop_back();
  next.events[0].frame = next.events[1].frame = 121;
  ASSERT_TRUE(set(meta, next));
  expect_counts(meta, next);
  expect_one_block(meta->event_counts);

  // The meta's own arrays given back to it: copied before the old block goes.
  const GstCclEventCounts* own = meta->event_counts;
  ASSERT_TRUE(gst_ccl_meta_set_event_counts(meta, own->n_lines, own->line_forward,
                                            own->line_backward, own->n_zones, own->zone_count,
                                            own->zone_entries, own->zone_exits, own->n_events,
                                            own->events));
  expect_counts(meta, next);
  gst_buffer_unref(buf);
}

TEST(MetaEvents, WhatNamesNoLineOrZoneIsRefused) {
  GstBuffer* buf = gst_buffer_new();
  GstCclMeta* meta = add_with_counts(buf);
  const GstCclEventCounts* before = meta->event_counts;
  const Counts good = sample_counts();
  CriticalCounter criticals;
  int refused = 0;

  // An array missing where its count is above 0.
  EXPECT_FALSE(gst_ccl_meta_set_event_counts(meta, 2, good.forward.data(), nullptr, 0, nullptr,
                                             nullptr, nullptr, 0, nullptr));
  EXPECT_FALSE(gst_ccl_meta_set_event_counts(meta, 0, nullptr, nullptr, 3, good.zone_count.data(),
                                             good.entries.data(), nullptr, 0, nullptr));
  EXPECT_FALSE(gst_ccl_meta_set_event_counts(meta, 2, good.forward.data(), good.backward.data(),
                                             0, nullptr, nullptr, nullptr, 1, nullptr));
  refused += 3;
  // An event of a line or zone that is not there, or of no kind.
  for (const GstCclEvent& bad :
       {event(GST_CCL_EVENT_KIND_LINE_FORWARD, 2, 1, 0, 0, 0, 0, 0, 0),
        event(GST_CCL_EVENT_KIND_LINE_BACKWARD, G_MAXUINT, 1, 0, 0, 0, 0, 0, 0),
        event(GST_CCL_EVENT_KIND_ZONE_ENTER, 3, 1, 1, 0, 0, 0, 0, 0),
        event(GST_CCL_EVENT_KIND_ZONE_MAX, 3, 0, 9, 0, 0, 0, 0, 0),
        event(GstCclEventKind(5), 0, 1, 0, 0, 0, 0, 0, 0),
        event(GstCclEventKind(7), 0, 1, 0, 0, 0, 0, 0, 0)}) {
    Counts c = good;
    c.events.push_back(bad);
    EXPECT_FALSE(set(meta, c)) << bad.kind << " " << bad.index;
    ++refused;
  }
  // Events without lines and zones name none.
  Counts only_events;
  only_events.events = {good.events[0]};
  EXPECT_FALSE(set(meta, only_events));
  ++refused;

  EXPECT_EQ(criticals.count, refused);
  EXPECT_EQ(meta->event_counts, before) << "a refused call leaves the meta alone";
  expect_counts(meta, good);
  gst_buffer_unref(buf);
}

TEST(MetaEvents, ABufferCopyHasItsOwnCounts) {
  GstBuffer* buf = gst_buffer_new();
  add_with_counts(buf);
  GstBuffer* copy = gst_buffer_copy(buf);
  const GstCclEventCounts* original = gst_ccl_meta_get(buf)->event_counts;
  const GstCclMeta* m = gst_ccl_meta_get(copy);
  ASSERT_NE(m, nullptr);
  ASSERT_NE(m->event_counts, nullptr);
  EXPECT_NE(m->event_counts, original);
  gst_buffer_unref(buf);  // the copy must not point into the original's block
  expect_counts(m, sample_counts());
  expect_one_block(m->event_counts);

  // gst_buffer_make_writable copies too; a meta without counts copies as one without.
  GstBuffer* plain = gst_buffer_new();
  add_meta(plain);
  GstBuffer* plain_copy = gst_buffer_copy(plain);
  EXPECT_EQ(gst_ccl_meta_get(plain_copy)->event_counts, nullptr);
  gst_buffer_unref(plain_copy);
  gst_buffer_unref(plain);
  GstBuffer* shared = gst_buffer_ref(copy);
  GstBuffer* writable = gst_buffer_make_writable(shared);
  EXPECT_NE(writable, copy);
  expect_counts(gst_ccl_meta_get(writable), sample_counts());
  gst_buffer_unref(writable);
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

TEST(MetaEventsScale, CountsStayAndCentroidsMoveWithTheirComponents) {
  GstBuffer* buf = gst_buffer_new();
  // The event of track 42 at the centroid of the meta's component.
  GstCclComponent comp = component_of(1, rectangle(9, 11, 4, 3));
  comp.track_id = 42;
  GstCclMeta* meta = gst_ccl_meta_add(buf, 32, 24, 1, &comp, 1);
  Counts c = sample_counts();
  c.events[0].x = c.events[2].x = comp.centroid_x;
  c.events[0].y = c.events[2].y = comp.centroid_y;
  ASSERT_TRUE(set(meta, c));

  GstBuffer* out = scaled(buf, 32, 24, 96, 48);
  const GstCclMeta* m = gst_ccl_meta_get(out);
  ASSERT_NE(m, nullptr);
  ASSERT_NE(m->event_counts, nullptr);
  ASSERT_EQ(m->n_components, 1u);
  // Everything but the events' centroids as it was.
  Counts want = c;
  for (GstCclEvent& e : want.events) {
    if (e.kind == GST_CCL_EVENT_KIND_ZONE_MAX) continue;
    e.x = (e.x + 0.5) * 3 - 0.5;
    e.y = (e.y + 0.5) * 2 - 0.5;
  }
  expect_counts(m, want);
  expect_one_block(m->event_counts);
  EXPECT_DOUBLE_EQ(m->event_counts->events[0].x, m->components[0].centroid_x);
  EXPECT_DOUBLE_EQ(m->event_counts->events[0].y, m->components[0].centroid_y);
  EXPECT_EQ(m->event_counts->events[4].x, 0.0) << "zone-max has no centroid";
  EXPECT_EQ(m->event_counts->events[4].y, 0.0);
  gst_buffer_unref(out);

  // Down to a quarter: centroids stay inside the new frame, as the components' do.
  out = scaled(buf, 32, 24, 8, 6);
  m = gst_ccl_meta_get(out);
  ASSERT_NE(m, nullptr);
  for (guint i = 0; i < m->event_counts->n_events; ++i) {
    EXPECT_GE(m->event_counts->events[i].x, 0.0);
    EXPECT_LE(m->event_counts->events[i].x, 7.0);
    EXPECT_LE(m->event_counts->events[i].y, 5.0);
  }
  EXPECT_DOUBLE_EQ(m->event_counts->events[2].x, m->components[0].centroid_x);
  EXPECT_EQ(m->event_counts->line_forward[0], c.forward[0]);
  gst_buffer_unref(out);

  // The same size: an exact copy.
  out = scaled(buf, 32, 24, 32, 24);
  expect_counts(gst_ccl_meta_get(out), c);
  gst_buffer_unref(out);
  gst_buffer_unref(buf);
}

TEST(MetaEventsScale, ThroughVideoscale) {
  GstElementFactory* f = gst_element_factory_find("videoscale");
  if (!f) GTEST_SKIP() << "videoscale (gst-plugins-base) is not installed";
  gst_object_unref(f);
  GstHarness* h = gst_harness_new_parse("videoscale");
  gst_harness_set_caps_str(h, "video/x-raw,format=GRAY8,width=64,height=48,framerate=30/1",
                           "video/x-raw,format=GRAY8,width=128,height=96,framerate=30/1");
  GstBuffer* buf = gst_buffer_new_allocate(nullptr, 64 * 48, nullptr);
  gst_buffer_memset(buf, 0, 0, 64 * 48);
  GST_BUFFER_PTS(buf) = 0;
  GST_BUFFER_DURATION(buf) = GST_SECOND / 30;
  const GstCclComponent comp = component_of(1, rectangle(5, 6, 4, 3));
  GstCclMeta* meta = gst_ccl_meta_add(buf, 64, 48, 1, &comp, 1);
  ASSERT_TRUE(set(meta, sample_counts()));
  ASSERT_EQ(gst_harness_push(h, buf), GST_FLOW_OK);
  GstBuffer* out = gst_harness_pull(h);
  ASSERT_NE(out, nullptr);
  const GstCclMeta* m = gst_ccl_meta_get(out);
  ASSERT_NE(m, nullptr) << "videoscale dropped the meta";
  EXPECT_EQ(m->width, 128u);
  ASSERT_NE(m->event_counts, nullptr);
  EXPECT_EQ(m->event_counts->n_events, 5u);
  EXPECT_EQ(m->event_counts->zone_entries[1], sample_counts().entries[1]);
  EXPECT_DOUBLE_EQ(m->event_counts->events[0].x, (10.5 + 0.5) * 2 - 0.5);
  gst_buffer_unref(out);
  gst_harness_teardown(h);
}

#ifdef HAVE_MALLINFO2
size_t heap_in_use() {
  const struct mallinfo2 mi = mallinfo2();
  return mi.uordblks + mi.hblkhd;
}

// Blocks of ~100 KiB set, replaced, removed, copied and freed a few hundred times: a
// leak of any of them would add tens of MiB (valgrind says which; this says whether).
TEST(MetaEventsMemory, ReplacingRemovingAndFreeingLeaveNothing) {
  Counts big;
  big.forward.assign(64, 1);
  big.backward.assign(64, 2);
  big.zone_count.assign(64, 3);
  big.entries.assign(64, 4);
  big.exits.assign(64, 5);
  big.events.assign(1000, event(GST_CCL_EVENT_KIND_ZONE_ENTER, 63, 1, 1, 2, 3, 4, 5, 5));
  auto cycle = [&] {
    GstBuffer* buf = gst_buffer_new();
    GstCclMeta* meta = add_meta(buf);
    for (int i = 0; i < 4; ++i) ASSERT_TRUE(set(meta, big));  // replaced
    GstBuffer* copy = gst_buffer_copy(buf);
    GstBuffer* out = scaled(copy, 32, 24, 64, 48);
    GstCclEventCounts* boxed = gst_ccl_event_counts_copy(meta->event_counts);
    ASSERT_TRUE(gst_ccl_meta_set_event_counts(meta, 0, nullptr, nullptr, 0, nullptr, nullptr,
                                              nullptr, 0, nullptr));  // removed
    ASSERT_TRUE(set(meta, big));
    gst_ccl_event_counts_free(boxed);
    gst_buffer_unref(out);
    gst_buffer_unref(copy);
    gst_buffer_unref(buf);  // freed with the meta
  };
  for (int i = 0; i < 20; ++i) cycle();  // warm up the allocator
  const size_t before = heap_in_use();
  for (int i = 0; i < 300; ++i) cycle();
  const size_t after = heap_in_use();
  EXPECT_LT(after, before + (size_t(1) << 20)) << before << " -> " << after << " bytes in use";
}
#endif

}  // namespace
