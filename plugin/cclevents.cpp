/* cudaccl: counting lines and zones for the element (cclevents.h).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "cclevents.h"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "backend/shapes.h"
#include "ccl/events.h"
#include "overlay/events_overlay.h"

namespace {

/* The integers of an array: the properties' specs hold int elements (GObject
 * has turned anything else into ints before these functions see it). */
bool numbers_of (const GValue * v, std::vector<double> *out, std::string * why)
{
  if (!GST_VALUE_HOLDS_ARRAY (v)) {
    *why = "each entry must be an array of numbers, <...>";
    return false;
  }
  const guint n = gst_value_array_get_size (v);
  out->resize (n);
  for (guint i = 0; i < n; i++)
    (*out)[i] = g_value_get_int (gst_value_array_get_value (v, i));
  return true;
}

template <typename T> void append_number (GValue * array, GType type, T x)
{
  GValue v = G_VALUE_INIT;
  g_value_init (&v, type);
  if (type == G_TYPE_UINT)
    g_value_set_uint (&v, guint (x));
  else if (type == G_TYPE_UINT64)
    g_value_set_uint64 (&v, guint64 (x));
  else
    g_value_set_int (&v, gint (x));
  gst_value_array_append_value (array, &v);
  g_value_unset (&v);
}

/* A coordinate as the property shows it: whole pixels, as it was set. */
void append_coordinate (GValue * array, double x)
{
  append_number (array, G_TYPE_INT, x);
}

}  // namespace

struct _CclEvents
{
  /* settings, under lock */
  std::mutex lock;
  ccl::EventConfig config;
  std::vector<uint32_t> zone_max;       /* as set, applied to the zones by index */
  gint width = 0, height = 0;
  bool changed = false;         /* config or a reset waits for the next frame */

  /* streaming state, the streaming thread's */
  ccl::EventCounter counter;
  bool active = false;
  std::vector<ccl::TrackCentroid> points;
  std::vector<ccl::Event> events;
  std::vector<guint64> track_ids;       /* the frame's, in component order */
  GstClockTime running_time = GST_CLOCK_TIME_NONE;
  CclShapes shapes;
  std::vector<GstCclEvent> meta_events;
};

CclEvents *
ccl_events_new (void)
{
  return new CclEvents ();
}

void
ccl_events_free (CclEvents * self)
{
  delete self;
}

/* Whether `config` fits the frame, as ccl::validate() sees it. */
static bool
checked (const ccl::EventConfig & config, gint width, gint height,
    gchar ** why)
{
  const std::string fault = ccl::validate (config, width, height);
  if (fault.empty ())
    return true;
  if (why)
    *why = g_strdup (fault.c_str ());
  return false;
}

/* The number arrays of a lines or zones value, each checked by `fits` (which
 * names what is wrong, or returns NULL), or FALSE with *why. */
static bool
entries_of (const GValue * value, const char *what,
    const char *(*fits) (const std::vector<double> &),
    std::vector<std::vector<double>> *out, gchar ** why)
{
  const guint n = GST_VALUE_HOLDS_ARRAY (value) ? gst_value_array_get_size (value) : 0;
  for (guint i = 0; i < n; i++) {
    std::vector<double> v;
    std::string fault;
    const char *misfit = NULL;
    if (!numbers_of (gst_value_array_get_value (value, i), &v, &fault) ||
        (misfit = fits (v)) != NULL) {
      *why = g_strdup_printf ("%s %u: %s", what, i, misfit ? misfit : fault.c_str ());
      return false;
    }
    out->push_back (std::move (v));
  }
  return true;
}

/* Takes `next` when it fits the frame (see checked()). */
static gboolean
take_config (CclEvents * self, ccl::EventConfig && next, gchar ** why)
{
  if (!checked (next, self->width, self->height, why))
    return FALSE;
  self->config = std::move (next);
  self->changed = true;
  return TRUE;
}

gboolean
ccl_events_set_lines (CclEvents * self, const GValue * value, gchar ** why)
{
  std::vector<std::vector<double>> entries;
  if (!entries_of (value, "line", [](const std::vector<double> &v) {
            return v.size () == 4 ? (const char *) NULL :
                "a line is four numbers, <x1,y1,x2,y2>";
          }, &entries, why))
    return FALSE;
  std::lock_guard < std::mutex > hold (self->lock);
  ccl::EventConfig next = self->config;
  next.lines.clear ();
  for (const auto & v : entries)
    next.lines.push_back ({v[0], v[1], v[2], v[3]});
  return take_config (self, std::move (next), why);
}

gboolean
ccl_events_set_zones (CclEvents * self, const GValue * value, gchar ** why)
{
  std::vector<std::vector<double>> entries;
  if (!entries_of (value, "zone", [](const std::vector<double> &v) {
            return v.size () % 2 ? "an odd count of numbers: a zone is x,y pairs" :
                v.size () < 6 ? "a zone needs at least 3 points, <x1,y1,x2,y2,x3,y3,...>" :
                (const char *) NULL;
          }, &entries, why))
    return FALSE;
  std::lock_guard < std::mutex > hold (self->lock);
  ccl::EventConfig next = self->config;
  next.zones.clear ();
  for (size_t i = 0; i < entries.size (); i++) {
    ccl::EventZone z;
    for (size_t k = 0; k < entries[i].size (); k += 2)
      z.points.push_back ({entries[i][k], entries[i][k + 1]});
    z.max_count = i < self->zone_max.size () ? self->zone_max[i] : 0;
    next.zones.push_back (std::move (z));
  }
  return take_config (self, std::move (next), why);
}

gboolean
ccl_events_set_zone_max (CclEvents * self, const GValue * value, gchar ** why)
{
  std::vector<double> v;
  std::string fault;
  if (!numbers_of (value, &v, &fault)) {
    *why = g_strdup (fault.c_str ());
    return FALSE;
  }
  for (double x : v)
    if (x < 0) {
      *why = g_strdup ("each limit is a number of components, 0 for none");
      return FALSE;
    }
  std::lock_guard < std::mutex > hold (self->lock);
  /* Kept apart from the zones, so that either may be set first. */
  self->zone_max.assign (v.begin (), v.end ());
  for (size_t z = 0; z < self->config.zones.size (); z++)
    self->config.zones[z].max_count = z < v.size () ? uint32_t (v[z]) : 0;
  self->changed = true;
  return TRUE;
}

void
ccl_events_get_lines (CclEvents * self, GValue * value)
{
  std::lock_guard < std::mutex > hold (self->lock);
  for (const auto & l : self->config.lines) {
    GValue line = G_VALUE_INIT;
    gst_value_array_init (&line, 4);
    for (double x : {l.x1, l.y1, l.x2, l.y2})
      append_coordinate (&line, x);
    gst_value_array_append_and_take_value (value, &line);
  }
}

void
ccl_events_get_zones (CclEvents * self, GValue * value)
{
  std::lock_guard < std::mutex > hold (self->lock);
  for (const auto & z : self->config.zones) {
    GValue zone = G_VALUE_INIT;
    gst_value_array_init (&zone, 2 * z.points.size ());
    for (const auto & p : z.points) {
      append_coordinate (&zone, p.x);
      append_coordinate (&zone, p.y);
    }
    gst_value_array_append_and_take_value (value, &zone);
  }
}

void
ccl_events_get_zone_max (CclEvents * self, GValue * value)
{
  std::lock_guard < std::mutex > hold (self->lock);
  for (uint32_t m : self->zone_max)
    append_number (value, G_TYPE_INT, m);
}

gboolean
ccl_events_set_frame_size (CclEvents * self, gint width, gint height,
    gchar ** why)
{
  std::lock_guard < std::mutex > hold (self->lock);
  self->width = width;
  self->height = height;
  return checked (self->config, width, height, why);
}

void
ccl_events_request_reset (CclEvents * self)
{
  std::lock_guard < std::mutex > hold (self->lock);
  self->changed = true;
}

gboolean
ccl_events_prepare (CclEvents * self)
{
  std::lock_guard < std::mutex > hold (self->lock);
  if (self->changed) {
    /* Checked when set (against the frame size known then; a later size that
     * they miss was warned about in set_frame_size): the size is no more to
     * the counter than a check. */
    self->counter.configure (self->config);
    self->active = !self->config.lines.empty () || !self->config.zones.empty ();
    self->changed = false;
  }
  return self->active;
}

gboolean
ccl_events_has_zones (CclEvents * self)
{
  return !self->counter.config ().zones.empty ();
}

gboolean
ccl_events_in_any_zone (CclEvents * self, gdouble x, gdouble y)
{
  return self->counter.inside_any_zone (x, y);
}

const CclShapes *
ccl_events_shapes (CclEvents * self, gint width, gint height)
{
  const ccl::EventCounter & c = self->counter;
  self->shapes.segments.clear ();
  ccl::overlay::event_shapes (c.config (), c.forward (), c.backward (),
      c.zone_count (), c.zone_entries (), width, height, self->shapes.segments);
  return self->shapes.segments.empty ()? NULL : &self->shapes;
}

gboolean
ccl_events_update (CclEvents * self, const GstCclComponent * components,
    guint n, gboolean tracking, GstClockTime running_time)
{
  ccl_events_prepare (self);
  self->events.clear ();
  if (!self->active)
    return FALSE;

  self->points.resize (n);
  self->track_ids.resize (n);
  for (guint i = 0; i < n; i++) {
    const GstCclComponent & c = components[i];
    /* The counter's ids are 32-bit: a stream reaches 2^32 tracks only after
     * years of a busy scene (docs/EVENTS.md). */
    self->points[i] = {tracking ? guint32 (c.track_id) : 0, c.centroid_x,
      c.centroid_y};
    self->track_ids[i] = tracking ? c.track_id : 0;
  }
  self->running_time = running_time;
  const int64_t t = GST_CLOCK_TIME_IS_VALID (running_time) ? int64_t (running_time) : 0;
  /* Frames are numbered from the last reset, which zeroed the counter's. */
  self->counter.update (self->points.data (), n, self->counter.frames (), t,
      self->events);
  return TRUE;
}

template <typename Values> static void
add_array (GstStructure * s, const char *name, GType type, const Values & values)
{
  GValue a = G_VALUE_INIT;
  gst_value_array_init (&a, values.size ());
  for (uint64_t x : values)
    append_number (&a, type, x);
  gst_structure_take_value (s, name, &a);
}

void
ccl_events_add_counts (CclEvents * self, GstStructure * s)
{
  const ccl::EventCounter & c = self->counter;
  const ccl::EventConfig & config = c.config ();
  if (!config.lines.empty ()) {
    add_array (s, "line-forward", G_TYPE_UINT64, c.forward ());
    add_array (s, "line-backward", G_TYPE_UINT64, c.backward ());
  }
  if (config.zones.empty ())
    return;
  add_array (s, "zone-count", G_TYPE_UINT, c.zone_count ());
  add_array (s, "zone-entries", G_TYPE_UINT64, c.zone_entries ());
  add_array (s, "zone-exits", G_TYPE_UINT64, c.zone_exits ());

  /* Per zone, the tracks inside in this frame's component order, with how many
   * frames and how long (ns of running time) each has been inside. */
  GValue tracks = G_VALUE_INIT, frames = G_VALUE_INIT, times = G_VALUE_INIT;
  gst_value_array_init (&tracks, config.zones.size ());
  gst_value_array_init (&frames, config.zones.size ());
  gst_value_array_init (&times, config.zones.size ());
  const int64_t now = GST_CLOCK_TIME_IS_VALID (self->running_time) ?
      int64_t (self->running_time) : 0;
  for (size_t z = 0; z < config.zones.size (); z++) {
    GValue zt = G_VALUE_INIT, zf = G_VALUE_INIT, zd = G_VALUE_INIT;
    gst_value_array_init (&zt, 0);
    gst_value_array_init (&zf, 0);
    gst_value_array_init (&zd, 0);
    for (size_t i = 0; i < self->points.size (); i++) {
      ccl::ZoneDwell d;
      if (self->points[i].track_id == 0 ||
          !c.dwell (self->points[i].track_id, z, &d))
        continue;
      append_number (&zt, G_TYPE_UINT64, self->track_ids[i]);
      append_number (&zf, G_TYPE_UINT, d.frames);
      append_number (&zd, G_TYPE_UINT64, uint64_t (std::max<int64_t> (0,
                  now - d.entry_time)));
    }
    gst_value_array_append_and_take_value (&tracks, &zt);
    gst_value_array_append_and_take_value (&frames, &zf);
    gst_value_array_append_and_take_value (&times, &zd);
  }
  gst_structure_take_value (s, "zone-tracks", &tracks);
  gst_structure_take_value (s, "zone-dwell-frames", &frames);
  gst_structure_take_value (s, "zone-dwell-time", &times);
}

static GstCclEventKind
meta_kind (ccl::EventKind kind)
{
  switch (kind) {
    case ccl::EventKind::LineForward:
      return GST_CCL_EVENT_KIND_LINE_FORWARD;
    case ccl::EventKind::LineBackward:
      return GST_CCL_EVENT_KIND_LINE_BACKWARD;
    case ccl::EventKind::ZoneEnter:
      return GST_CCL_EVENT_KIND_ZONE_ENTER;
    case ccl::EventKind::ZoneExit:
      return GST_CCL_EVENT_KIND_ZONE_EXIT;
    case ccl::EventKind::ZoneMax:
      return GST_CCL_EVENT_KIND_ZONE_MAX;
  }
  return GST_CCL_EVENT_KIND_ZONE_MAX;
}

void
ccl_events_add_meta (CclEvents * self, GstCclMeta * meta)
{
  const ccl::EventCounter & c = self->counter;
  std::vector<GstCclEvent> &out = self->meta_events;
  out.resize (self->events.size ());
  for (size_t i = 0; i < out.size (); i++) {
    const ccl::Event & e = self->events[i];
    const bool zone = e.kind == ccl::EventKind::ZoneEnter ||
        e.kind == ccl::EventKind::ZoneExit;
    /* Zeroed, padding included: applications may compare the entries as bytes. */
    memset (&out[i], 0, sizeof out[i]);
    out[i].kind = meta_kind (e.kind);
    out[i].index = e.index;
    out[i].track_id = e.track_id;
    out[i].count = e.count;
    out[i].x = e.x;
    out[i].y = e.y;
    out[i].frame = e.frame;
    out[i].running_time = GST_CLOCK_TIME_IS_VALID (self->running_time) ?
        GstClockTime (e.running_time) : GST_CLOCK_TIME_NONE;
    out[i].entry_time = zone && GST_CLOCK_TIME_IS_VALID (self->running_time) ?
        GstClockTime (e.entry_time) : GST_CLOCK_TIME_NONE;
  }
  gst_ccl_meta_set_event_counts (meta, guint (c.forward ().size ()),
      c.forward ().data (), c.backward ().data (),
      guint (c.zone_count ().size ()), c.zone_count ().data (),
      c.zone_entries ().data (), c.zone_exits ().data (), guint (out.size ()),
      out.data ());
}

void
ccl_events_post (CclEvents * self, GstElement * element)
{
  for (const ccl::Event & e : self->events) {
    GstStructure *s = gst_structure_new ("cudaccl-event",
        "event", G_TYPE_STRING, ccl::to_string (e.kind),
        "index", G_TYPE_UINT, e.index,
        "frame", G_TYPE_UINT64, (guint64) e.frame,
        "running-time", G_TYPE_UINT64, (guint64) e.running_time, NULL);
    if (e.kind != ccl::EventKind::ZoneMax)
      gst_structure_set (s, "track-id", G_TYPE_UINT64, (guint64) e.track_id,
          "x", G_TYPE_DOUBLE, e.x, "y", G_TYPE_DOUBLE, e.y, NULL);
    if (e.kind == ccl::EventKind::ZoneMax)
      gst_structure_set (s, "count", G_TYPE_UINT, e.count, NULL);
    if (e.kind == ccl::EventKind::ZoneEnter || e.kind == ccl::EventKind::ZoneExit)
      gst_structure_set (s, "entry-time", G_TYPE_UINT64, (guint64) e.entry_time,
          NULL);
    if (e.kind == ccl::EventKind::ZoneExit)
      gst_structure_set (s, "dwell-frames", G_TYPE_UINT, e.count,
          "dwell-time", G_TYPE_UINT64,
          (guint64) std::max<int64_t> (0, e.running_time - e.entry_time), NULL);
    gst_element_post_message (element, gst_message_new_element (GST_OBJECT
            (element), s));
  }
}
