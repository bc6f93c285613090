/* cudaccl: connected-component metadata attached to video buffers.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * SECTION:gstcclmeta
 * @title: GstCclMeta
 * @short_description: Connected components found in a video frame
 *
 * The cudaccl element labels the connected components of each frame's
 * thresholded luma and attaches one #GstCclMeta per buffer: the frame size,
 * how many components it found, the reported ones with their bounding box,
 * area, first and second raw moments and centroid, the threshold level used,
 * the algorithm, the connectivity and the GPU time of the frame. When the
 * element tracks components (its property tracking, on by default; the
 * meta's tracking field says so), each component also carries its track:
 * a persistent id, unique within the stream and never reused, the id of the
 * track it split off from, its age, the frames it went unseen, its smoothed
 * velocity and the bounding box expected in the next frame.
 * gst_ccl_meta_find_track() looks a track up in a frame. When the element
 * analyses blobs (its blob-properties, or a blob filter), each reported
 * component also has a #GstCclBlob: mean, spread and extremes of its luma,
 * mean color, perimeter, circularity, Euler number and its shape as
 * scikit-image's regionprops gives them (gst_ccl_meta_get_blob()). When the
 * element counts crossings of lines and occupancy of zones (its lines and
 * zones), the meta also holds a #GstCclEventCounts: per line the tracks that
 * crossed it in each direction, per zone the components inside it and the
 * entries and exits, and the frame's events (#GstCclEvent), read with
 * gst_ccl_meta_get_line_counts(), gst_ccl_meta_get_zone_counts() and
 * gst_ccl_meta_get_events().
 *
 * The meta survives buffer copies and elements that keep the frame's
 * geometry (queue, tee, videoconvert, videorate, ...). When a downstream
 * element scales the frame (videoscale, videoconvertscale), bounding boxes,
 * centroids and moments are mapped into the new frame: boxes grow outward to
 * whole pixels, the area scales with the pixel count, and the second moments
 * are rebuilt from the scaled covariance so that orientation and axis lengths
 * follow the scaling. Predicted boxes are mapped like bounding boxes and
 * velocities scale with the frame; track ids, parents, ages and unseen
 * counts stay as they are. Blobs follow: their shape is that of the scaled
 * moments, intensity, color and Euler number stay, and the perimeter scales
 * with a scale that keeps the aspect ratio (circularity stays); any other
 * scale leaves perimeter and circularity out. Event counts are kept, and the
 * events' centroids are mapped like the components'. Elements that crop, pad, flip or
 * rotate the frame (videocrop, videobox, videoflip) drop it, as do copies of a
 * byte range.
 *
 * |[<!-- language="C" -->
 * GstCclMeta *meta = gst_ccl_meta_get (buffer);
 * gpointer state = NULL;
 * const GstCclComponent *c;
 *
 * while (meta && (c = gst_ccl_meta_iterate (meta, &state)))
 *   g_print ("%u: area %" G_GUINT64_FORMAT " at %.1f,%.1f, %.2f rad\n",
 *       c->label, c->area, c->centroid_x, c->centroid_y,
 *       gst_ccl_component_get_orientation (c));
 * ]|
 */

#include "gst/ccl/gstcclmeta.h"

#include <math.h>
#include <string.h>

#include <gst/video/video.h>

#if !GLIB_CHECK_VERSION (2, 68, 0)
/* GLib before 2.68 (Debian 11) has only g_memdup, whose size is a guint. */
static gpointer
g_memdup2 (gconstpointer mem, gsize size)
{
  gpointer copy = g_malloc (size);

  memcpy (copy, mem, size);
  return copy;
}
#endif

G_DEFINE_BOXED_TYPE (GstCclComponent, gst_ccl_component,
    gst_ccl_component_copy, gst_ccl_component_free);
G_DEFINE_BOXED_TYPE (GstCclBlob, gst_ccl_blob, gst_ccl_blob_copy,
    gst_ccl_blob_free);
G_DEFINE_BOXED_TYPE (GstCclEvent, gst_ccl_event, gst_ccl_event_copy,
    gst_ccl_event_free);
G_DEFINE_BOXED_TYPE (GstCclEventCounts, gst_ccl_event_counts,
    gst_ccl_event_counts_copy, gst_ccl_event_counts_free);

/* The blobs took one pointer of the meta's padding: the struct an application
 * built against 0.2 allocates and reads must keep its size and offsets. */
struct GstCclMetaLayout02
{
  GstMeta meta;
  guint width;
  guint height;
  guint total_count;
  guint n_components;
  GstCclComponent *components;
  guint threshold;
  GstCclAlgorithm algorithm;
  guint connectivity;
  GstClockTime gpu_time;
  gboolean tracking;
  gpointer _gst_reserved[GST_PADDING];
};
G_STATIC_ASSERT (sizeof (GstCclMeta) == sizeof (struct GstCclMetaLayout02));
G_STATIC_ASSERT (G_STRUCT_OFFSET (GstCclMeta, blobs) ==
    G_STRUCT_OFFSET (struct GstCclMetaLayout02, _gst_reserved));
G_STATIC_ASSERT (G_STRUCT_OFFSET (GstCclMeta, tracking) ==
    G_STRUCT_OFFSET (struct GstCclMetaLayout02, tracking));

/* The event counts took the next pointer (0.4): 0.3's layout holds too. */
struct GstCclMetaLayout03
{
  GstMeta meta;
  guint width;
  guint height;
  guint total_count;
  guint n_components;
  GstCclComponent *components;
  guint threshold;
  GstCclAlgorithm algorithm;
  guint connectivity;
  GstClockTime gpu_time;
  gboolean tracking;
  GstCclBlob *blobs;
  gpointer _gst_reserved[GST_PADDING - 1];
};
G_STATIC_ASSERT (sizeof (GstCclMeta) == sizeof (struct GstCclMetaLayout03));
G_STATIC_ASSERT (G_STRUCT_OFFSET (GstCclMeta, blobs) ==
    G_STRUCT_OFFSET (struct GstCclMetaLayout03, blobs));
G_STATIC_ASSERT (G_STRUCT_OFFSET (GstCclMeta, event_counts) ==
    G_STRUCT_OFFSET (struct GstCclMetaLayout03, _gst_reserved));
G_STATIC_ASSERT (G_STRUCT_OFFSET (GstCclMeta, event_counts) ==
    G_STRUCT_OFFSET (struct GstCclMetaLayout02, _gst_reserved) +
    sizeof (gpointer));

/* A GstCclEventCounts block is the struct, the events, the four 64-bit
 * arrays and zone_count last: each part starts aligned for what it holds. */
G_STATIC_ASSERT (sizeof (GstCclEventCounts) % G_ALIGNOF (GstCclEvent) == 0);
G_STATIC_ASSERT (sizeof (GstCclEventCounts) % G_ALIGNOF (guint64) == 0);
G_STATIC_ASSERT (sizeof (GstCclEvent) % G_ALIGNOF (guint64) == 0);
G_STATIC_ASSERT (sizeof (guint64) % G_ALIGNOF (guint) == 0);

/**
 * gst_ccl_blob_properties_get_type:
 *
 * Returns: the #GType of the #GstCclBlobProperties flags (nicks none,
 *   intensity, color, perimeter and euler: `blob-properties=intensity+perimeter`
 *   on a gst-launch line)
 *
 * Since: 0.3
 */
GType
gst_ccl_blob_properties_get_type (void)
{
  static GType type = 0;
  /* The names are the C identifiers, not descriptions: a GstStructure (the
   * element's messages and ROI parameters) serializes flags by name, and
   * reads back only names without spaces or commas. */
  static const GFlagsValue values[] = {
    {GST_CCL_BLOB_PROPERTIES_NONE, "GST_CCL_BLOB_PROPERTIES_NONE", "none"},
    {GST_CCL_BLOB_PROPERTIES_INTENSITY, "GST_CCL_BLOB_PROPERTIES_INTENSITY",
        "intensity"},
    {GST_CCL_BLOB_PROPERTIES_COLOR, "GST_CCL_BLOB_PROPERTIES_COLOR", "color"},
    {GST_CCL_BLOB_PROPERTIES_PERIMETER, "GST_CCL_BLOB_PROPERTIES_PERIMETER",
        "perimeter"},
    {GST_CCL_BLOB_PROPERTIES_EULER, "GST_CCL_BLOB_PROPERTIES_EULER", "euler"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_flags_register_static ("GstCclBlobProperties", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

/**
 * gst_ccl_blob_copy:
 * @blob: a #GstCclBlob
 *
 * Returns: (transfer full): a newly allocated copy of @blob
 *
 * Since: 0.3
 */
GstCclBlob *
gst_ccl_blob_copy (const GstCclBlob * blob)
{
  g_return_val_if_fail (blob != NULL, NULL);
  return g_memdup2 (blob, sizeof (GstCclBlob));
}

/**
 * gst_ccl_blob_free:
 * @blob: a #GstCclBlob from gst_ccl_blob_copy()
 *
 * Frees a copied blob.
 *
 * Since: 0.3
 */
void
gst_ccl_blob_free (GstCclBlob * blob)
{
  g_free (blob);
}

/**
 * gst_ccl_event_kind_get_type:
 *
 * Returns: the #GType of the #GstCclEventKind enum (nicks line-forward,
 *   line-backward, zone-enter, zone-exit and zone-max)
 *
 * Since: 0.4
 */
GType
gst_ccl_event_kind_get_type (void)
{
  static GType type = 0;
  /* Names are the C identifiers, as for GstCclBlobProperties: a GstStructure
   * writes an enum by its name and reads back only names without spaces. */
  static const GEnumValue values[] = {
    {GST_CCL_EVENT_KIND_LINE_FORWARD, "GST_CCL_EVENT_KIND_LINE_FORWARD",
        "line-forward"},
    {GST_CCL_EVENT_KIND_LINE_BACKWARD, "GST_CCL_EVENT_KIND_LINE_BACKWARD",
        "line-backward"},
    {GST_CCL_EVENT_KIND_ZONE_ENTER, "GST_CCL_EVENT_KIND_ZONE_ENTER",
        "zone-enter"},
    {GST_CCL_EVENT_KIND_ZONE_EXIT, "GST_CCL_EVENT_KIND_ZONE_EXIT",
        "zone-exit"},
    {GST_CCL_EVENT_KIND_ZONE_MAX, "GST_CCL_EVENT_KIND_ZONE_MAX", "zone-max"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstCclEventKind", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

/**
 * gst_ccl_event_copy:
 * @event: a #GstCclEvent
 *
 * Returns: (transfer full): a newly allocated copy of @event
 *
 * Since: 0.4
 */
GstCclEvent *
gst_ccl_event_copy (const GstCclEvent * event)
{
  g_return_val_if_fail (event != NULL, NULL);
  return g_memdup2 (event, sizeof (GstCclEvent));
}

/**
 * gst_ccl_event_free:
 * @event: a #GstCclEvent from gst_ccl_event_copy()
 *
 * Frees a copied event.
 *
 * Since: 0.4
 */
void
gst_ccl_event_free (GstCclEvent * event)
{
  g_free (event);
}

/* The bytes of a GstCclEventCounts block; FALSE when they do not fit a
 * gsize (only possible where it has 32 bits). */
static gboolean
event_counts_size (guint n_lines, guint n_zones, guint n_events, gsize * size)
{
  guint64 total = sizeof (GstCclEventCounts) +
      (guint64) n_events * sizeof (GstCclEvent) +
      (guint64) n_lines * 2 * sizeof (guint64) +
      (guint64) n_zones * (2 * sizeof (guint64) + sizeof (guint));

  if (total > G_MAXSIZE)
    return FALSE;
  *size = (gsize) total;
  return TRUE;
}

/* Points the arrays of a block into it, after the struct, from its counts. */
static void
event_counts_point (GstCclEventCounts * counts)
{
  guint8 *p = (guint8 *) (counts + 1);
  const gsize lines = (gsize) counts->n_lines * sizeof (guint64);
  const gsize zones = (gsize) counts->n_zones * sizeof (guint64);

  counts->events = counts->n_events ? (GstCclEvent *) p : NULL;
  p += (gsize) counts->n_events * sizeof (GstCclEvent);
  counts->line_forward = counts->n_lines ? (guint64 *) p : NULL;
  p += lines;
  counts->line_backward = counts->n_lines ? (guint64 *) p : NULL;
  p += lines;
  counts->zone_entries = counts->n_zones ? (guint64 *) p : NULL;
  p += zones;
  counts->zone_exits = counts->n_zones ? (guint64 *) p : NULL;
  p += zones;
  counts->zone_count = counts->n_zones ? (guint *) p : NULL;
}

/**
 * gst_ccl_event_counts_copy:
 * @counts: a #GstCclEventCounts
 *
 * A copy of @counts and its arrays, in one block of its own.
 *
 * Returns: (transfer full): a newly allocated copy of @counts
 *
 * Since: 0.4
 */
GstCclEventCounts *
gst_ccl_event_counts_copy (const GstCclEventCounts * counts)
{
  GstCclEventCounts *copy;
  gsize size;

  g_return_val_if_fail (counts != NULL, NULL);
  /* A block the library made always fits; anything else is no block. */
  if (!event_counts_size (counts->n_lines, counts->n_zones, counts->n_events,
          &size))
    g_return_val_if_reached (NULL);

  /* The arrays are copied from where the struct points, so that a struct
   * filled by hand copies right too. */
  copy = g_malloc (size);
  memcpy (copy, counts, sizeof (GstCclEventCounts));
  event_counts_point (copy);
  if (copy->n_events)
    memcpy (copy->events, counts->events,
        (gsize) copy->n_events * sizeof (GstCclEvent));
  if (copy->n_lines) {
    memcpy (copy->line_forward, counts->line_forward,
        (gsize) copy->n_lines * sizeof (guint64));
    memcpy (copy->line_backward, counts->line_backward,
        (gsize) copy->n_lines * sizeof (guint64));
  }
  if (copy->n_zones) {
    memcpy (copy->zone_count, counts->zone_count,
        (gsize) copy->n_zones * sizeof (guint));
    memcpy (copy->zone_entries, counts->zone_entries,
        (gsize) copy->n_zones * sizeof (guint64));
    memcpy (copy->zone_exits, counts->zone_exits,
        (gsize) copy->n_zones * sizeof (guint64));
  }
  return copy;
}

/**
 * gst_ccl_event_counts_free:
 * @counts: a #GstCclEventCounts from gst_ccl_event_counts_copy()
 *
 * Frees a copied block of counts, arrays included.
 *
 * Since: 0.4
 */
void
gst_ccl_event_counts_free (GstCclEventCounts * counts)
{
  g_free (counts);
}

/**
 * gst_ccl_component_copy:
 * @component: a #GstCclComponent
 *
 * Returns: (transfer full): a newly allocated copy of @component
 */
GstCclComponent *
gst_ccl_component_copy (const GstCclComponent * component)
{
  g_return_val_if_fail (component != NULL, NULL);
  return g_memdup2 (component, sizeof (GstCclComponent));
}

/**
 * gst_ccl_component_free:
 * @component: a #GstCclComponent from gst_ccl_component_copy()
 *
 * Frees a copied component.
 */
void
gst_ccl_component_free (GstCclComponent * component)
{
  g_free (component);
}

/**
 * gst_ccl_component_get_centroid:
 * @component: a #GstCclComponent
 * @x: (out) (optional): mean column of the component's pixels
 * @y: (out) (optional): mean row of the component's pixels
 *
 * The centroid, computed from the raw moments (sum_x / area, sum_y / area).
 */
void
gst_ccl_component_get_centroid (const GstCclComponent * component,
    gdouble * x, gdouble * y)
{
  g_return_if_fail (component != NULL);

  if (x)
    *x = component->area ? (gdouble) component->sum_x / component->area : 0.0;
  if (y)
    *y = component->area ? (gdouble) component->sum_y / component->area : 0.0;
}

/* (area * sum_ab - sum_a * sum_b) / area^2: the sums reach 2^64, so the
 * numerator is formed exactly in 128 bits where the compiler has them. */
static gdouble
central_moment (guint64 area, guint64 sum_ab, guint64 sum_a, guint64 sum_b)
{
  gdouble num;

  if (area == 0)
    return 0.0;
#ifdef __SIZEOF_INT128__
  {
    __int128 n = (__int128) area * sum_ab - (__int128) sum_a * sum_b;
    num = (gdouble) n;
  }
#else
  num = (long double) area * sum_ab - (long double) sum_a * sum_b;
#endif
  return num / ((gdouble) area * (gdouble) area);
}

/**
 * gst_ccl_component_get_central_moments:
 * @component: a #GstCclComponent
 * @mu20: (out) (optional): variance of the columns
 * @mu11: (out) (optional): covariance of columns and rows
 * @mu02: (out) (optional): variance of the rows
 *
 * The second central moments normalized by the area, i.e. the covariance
 * matrix of the component's pixel coordinates.
 */
void
gst_ccl_component_get_central_moments (const GstCclComponent * component,
    gdouble * mu20, gdouble * mu11, gdouble * mu02)
{
  const GstCclComponent *c = component;

  g_return_if_fail (component != NULL);

  if (mu20)
    *mu20 = central_moment (c->area, c->sum_xx, c->sum_x, c->sum_x);
  if (mu11)
    *mu11 = central_moment (c->area, c->sum_xy, c->sum_x, c->sum_y);
  if (mu02)
    *mu02 = central_moment (c->area, c->sum_yy, c->sum_y, c->sum_y);
}

/**
 * gst_ccl_component_get_orientation:
 * @component: a #GstCclComponent
 *
 * The angle between the x axis and the major axis of the ellipse with the
 * component's second moments, in radians within [-pi/2, pi/2]. Rows grow
 * downwards, so a positive angle turns clockwise on screen.
 *
 * Returns: the orientation, 0 for a component without a preferred direction
 */
gdouble
gst_ccl_component_get_orientation (const GstCclComponent * component)
{
  gdouble mu20, mu11, mu02;

  g_return_val_if_fail (component != NULL, 0.0);

  gst_ccl_component_get_central_moments (component, &mu20, &mu11, &mu02);
  if (mu11 == 0.0 && mu20 == mu02)
    return 0.0;
  return 0.5 * atan2 (2.0 * mu11, mu20 - mu02);
}

/**
 * gst_ccl_component_get_axis_lengths:
 * @component: a #GstCclComponent
 * @major: (out) (optional): length of the major axis in pixels
 * @minor: (out) (optional): length of the minor axis in pixels
 *
 * Full axis lengths of the ellipse with the component's second central
 * moments: four times the square root of each covariance eigenvalue.
 */
void
gst_ccl_component_get_axis_lengths (const GstCclComponent * component,
    gdouble * major, gdouble * minor)
{
  gdouble mu20, mu11, mu02, mean, spread;

  g_return_if_fail (component != NULL);

  gst_ccl_component_get_central_moments (component, &mu20, &mu11, &mu02);
  mean = 0.5 * (mu20 + mu02);
  spread = sqrt (0.25 * (mu20 - mu02) * (mu20 - mu02) + mu11 * mu11);
  if (major)
    *major = 4.0 * sqrt (MAX (mean + spread, 0.0));
  if (minor)
    *minor = 4.0 * sqrt (MAX (mean - spread, 0.0));
}

/* The meta itself. */

static gboolean
gst_ccl_meta_init (GstMeta * meta, gpointer params, GstBuffer * buffer)
{
  GstCclMeta *cmeta = (GstCclMeta *) meta;

  cmeta->width = 0;
  cmeta->height = 0;
  cmeta->total_count = 0;
  cmeta->n_components = 0;
  cmeta->components = NULL;
  cmeta->threshold = 0;
  cmeta->algorithm = GST_CCL_ALGORITHM_HA4;
  cmeta->connectivity = 8;
  cmeta->gpu_time = GST_CLOCK_TIME_NONE;
  cmeta->tracking = FALSE;
  /* The meta's memory is not zeroed when it has an init function. */
  cmeta->blobs = NULL;
  cmeta->event_counts = NULL;
  return TRUE;
}

static void
gst_ccl_meta_free (GstMeta * meta, GstBuffer * buffer)
{
  GstCclMeta *cmeta = (GstCclMeta *) meta;

  g_free (cmeta->components);
  g_free (cmeta->blobs);
  g_free (cmeta->event_counts);
  cmeta->components = NULL;
  cmeta->blobs = NULL;
  cmeta->event_counts = NULL;
  cmeta->n_components = 0;
}

static void
copy_fields (GstCclMeta * dst, const GstCclMeta * src)
{
  dst->total_count = src->total_count;
  dst->threshold = src->threshold;
  dst->algorithm = src->algorithm;
  dst->connectivity = src->connectivity;
  dst->gpu_time = src->gpu_time;
  dst->tracking = src->tracking;
}

static guint64
round_nonnegative (gdouble v)
{
  return v <= 0.0 ? 0 : (guint64) llround (v);
}

/* One edge of a predicted box (a column or row between pixels) scaled by s,
 * rounded outward like a bounding box's edge. A prediction may lie outside
 * the frame (an object leaving it), and that part must survive the scaling,
 * so only an edge that was inside the old frame is kept inside the new one:
 * for boxes within the frame this is exactly the bounding box's mapping. */
static gint64
scale_predicted_edge (gint32 edge, gdouble s, gboolean lower, guint old_size,
    guint new_size)
{
  gdouble v = lower ? floor (edge * s) : ceil (edge * s);

  if (edge >= 0 && (guint) edge <= old_size)
    v = CLAMP (v, 0.0, (gdouble) new_size);
  return (gint64) CLAMP (v, (gdouble) G_MININT32, (gdouble) G_MAXINT32);
}

static void
scale_predicted_span (gint32 pos, gint32 len, gdouble s, guint old_size,
    guint new_size, gint32 * out_pos, gint32 * out_len)
{
  gint64 p0 = scale_predicted_edge (pos, s, TRUE, old_size, new_size);
  gint64 p1 = scale_predicted_edge ((gint32) CLAMP ((gint64) pos + len,
          G_MININT32, G_MAXINT32), s, FALSE, old_size, new_size);

  /* An empty prediction (tracking off) stays empty; a real one keeps at
   * least a pixel, as bounding boxes do. */
  if (len > 0)
    p1 = MAX (p1, p0 + 1);
  else
    p1 = p0;
  *out_pos = (gint32) p0;
  *out_len = (gint32) MIN (p1 - p0, (gint64) G_MAXINT32);
}

/* Maps a component into a frame scaled by (sx, sy) to new_w x new_h.
 * Pixel centres map as (c + 0.5) * s - 0.5; the box grows outward to whole
 * pixels; the covariance scales with s^2 and the raw second moments are
 * rebuilt from it and the new area, so derived shapes stay consistent. */
static void
scale_component (const GstCclComponent * in, gdouble sx, gdouble sy,
    guint old_w, guint old_h, guint new_w, guint new_h, GstCclComponent * out)
{
  gdouble cx, cy, mu20, mu11, mu02, area;
  gint64 x0, y0, x1, y1;

  gst_ccl_component_get_central_moments (in, &mu20, &mu11, &mu02);

  x0 = (gint64) floor (in->x * sx);
  y0 = (gint64) floor (in->y * sy);
  x1 = (gint64) ceil ((in->x + (gdouble) in->width) * sx);
  y1 = (gint64) ceil ((in->y + (gdouble) in->height) * sy);
  x0 = CLAMP (x0, 0, (gint64) new_w - 1);
  y0 = CLAMP (y0, 0, (gint64) new_h - 1);
  x1 = CLAMP (x1, x0 + 1, (gint64) new_w);
  y1 = CLAMP (y1, y0 + 1, (gint64) new_h);

  out->label = in->label;
  out->x = (gint32) x0;
  out->y = (gint32) y0;
  out->width = (gint32) (x1 - x0);
  out->height = (gint32) (y1 - y0);

  area = MAX (1.0, round (in->area * sx * sy));
  cx = CLAMP ((in->centroid_x + 0.5) * sx - 0.5, 0.0, new_w - 1.0);
  cy = CLAMP ((in->centroid_y + 0.5) * sy - 0.5, 0.0, new_h - 1.0);
  mu20 *= sx * sx;
  mu11 *= sx * sy;
  mu02 *= sy * sy;

  out->area = (guint64) area;
  out->sum_x = round_nonnegative (area * cx);
  out->sum_y = round_nonnegative (area * cy);
  out->sum_xx = round_nonnegative (area * (mu20 + cx * cx));
  out->sum_xy = round_nonnegative (area * (mu11 + cx * cy));
  out->sum_yy = round_nonnegative (area * (mu02 + cy * cy));
  out->centroid_x = cx;
  out->centroid_y = cy;

  /* A track is the same object whatever the frame's size. */
  out->track_id = in->track_id;
  out->parent_id = in->parent_id;
  out->track_age = in->track_age;
  out->frames_unseen = in->frames_unseen;
  out->velocity_x = in->velocity_x * sx;
  out->velocity_y = in->velocity_y * sy;
  scale_predicted_span (in->predicted_x, in->predicted_width, sx, old_w, new_w,
      &out->predicted_x, &out->predicted_width);
  scale_predicted_span (in->predicted_y, in->predicted_height, sy, old_h,
      new_h, &out->predicted_y, &out->predicted_height);
}

/* scikit-image's shape of a component from its moments (ccl::shape_of): the
 * inertia tensor [[a, b], [b, d]] with a the columns' variance, d the rows'
 * and b minus their covariance; its eigenvalues give the axes and the
 * eccentricity, its orientation is measured from the rows' axis. */
static void
blob_shape (const GstCclComponent * c, GstCclBlob * blob)
{
  gdouble a, b, d, r, major, minor;

  blob->orientation = blob->axis_major_length = blob->axis_minor_length = 0.0;
  blob->eccentricity = 0.0;
  if (c->area == 0)
    return;
  gst_ccl_component_get_central_moments (c, &a, &b, &d);
  b = -b;
  /* Equal spreads: scikit-image's own case, -pi/4 when b < 0, else pi/4. */
  if (a == d)
    blob->orientation = b < 0 ? -G_PI / 4 : G_PI / 4;
  else
    blob->orientation = 0.5 * atan2 (-2 * b, d - a);
  r = sqrt ((a - d) * (a - d) + 4 * b * b);
  major = (a + d + r) / 2;
  minor = MAX (0.0, (a + d - r) / 2);
  blob->axis_major_length = 4 * sqrt (major);
  blob->axis_minor_length = 4 * sqrt (minor);
  /* 1 - minor / major as 2r / (a + d + r): no cancellation for thin shapes. */
  if (a + d + r > 0)
    blob->eccentricity = sqrt (MIN (1.0, 2 * r / (a + d + r)));
}

/* The blobs of components scaled by sx in x (scaled: the new components;
 * keeps_aspect: the scale in y is sx too). What the pixels hold (intensity,
 * color) and the topology (Euler number) stay; the shape is the scaled
 * moments'. A perimeter scales with a scale that keeps the aspect ratio, and
 * circularity then stays; after any other scale neither is known, and the
 * group is left out. */
static GstCclBlob *
scale_blobs (const GstCclBlob * src, const GstCclComponent * scaled, guint n,
    gdouble sx, gboolean keeps_aspect)
{
  GstCclBlob *out;
  guint i;

  if (n == 0)
    return NULL;
  out = g_memdup2 (src, sizeof (GstCclBlob) * n);

  for (i = 0; i < n; i++) {
    blob_shape (&scaled[i], &out[i]);
    if (!(out[i].properties & GST_CCL_BLOB_PROPERTIES_PERIMETER))
      continue;
    if (keeps_aspect) {
      out[i].perimeter *= sx;
      continue;
    }
    out[i].properties &= ~GST_CCL_BLOB_PROPERTIES_PERIMETER;
    out[i].perimeter = out[i].circularity = 0.0;
  }
  return out;
}

static gboolean
copy_meta (GstBuffer * dest, const GstCclMeta * src)
{
  GstCclMeta *dst = gst_ccl_meta_add (dest, src->width, src->height,
      src->total_count, src->components, src->n_components);

  if (!dst)
    return FALSE;
  copy_fields (dst, src);
  if (src->blobs)
    gst_ccl_meta_set_blobs (dst, src->blobs, src->n_components);
  if (src->event_counts)
    dst->event_counts = gst_ccl_event_counts_copy (src->event_counts);
  return TRUE;
}

/* The event counts of a frame scaled by (sx, sy) to new_w x new_h: counts and
 * indices stay, the events' centroids map as the components' do (so an event
 * keeps the centroid of its track's component); zone-max has none. */
static GstCclEventCounts *
scale_event_counts (const GstCclEventCounts * src, gdouble sx, gdouble sy,
    guint new_w, guint new_h)
{
  GstCclEventCounts *out = gst_ccl_event_counts_copy (src);
  guint i;

  for (i = 0; i < out->n_events; i++) {
    GstCclEvent *e = &out->events[i];

    if (e->kind == GST_CCL_EVENT_KIND_ZONE_MAX)
      continue;
    e->x = CLAMP ((e->x + 0.5) * sx - 0.5, 0.0, new_w - 1.0);
    e->y = CLAMP ((e->y + 0.5) * sy - 0.5, 0.0, new_h - 1.0);
  }
  return out;
}

static gboolean
gst_ccl_meta_transform (GstBuffer * dest, GstMeta * meta, GstBuffer * buffer,
    GQuark type, gpointer data)
{
  GstCclMeta *src = (GstCclMeta *) meta;
  GstCclMeta *dst;

  if (GST_META_TRANSFORM_IS_COPY (type)) {
    GstMetaTransformCopy *copy = data;

    /* A byte range of a frame has no pixel geometry the components refer to. */
    if (copy->region)
      return FALSE;
    return copy_meta (dest, src);
  }

  if (GST_VIDEO_META_TRANSFORM_IS_SCALE (type)) {
    GstVideoMetaTransform *trans = data;
    gint in_w = GST_VIDEO_INFO_WIDTH (trans->in_info);
    gint in_h = GST_VIDEO_INFO_HEIGHT (trans->in_info);
    gint out_w = GST_VIDEO_INFO_WIDTH (trans->out_info);
    gint out_h = GST_VIDEO_INFO_HEIGHT (trans->out_info);
    guint new_w, new_h, i;
    gdouble sx, sy;

    if (in_w <= 0 || in_h <= 0 || out_w <= 0 || out_h <= 0)
      return FALSE;
    /* videoconvert and friends call this with an unchanged size: keep the
     * integer moments exact instead of rebuilding them. */
    if (in_w == out_w && in_h == out_h)
      return copy_meta (dest, src);
    sx = (gdouble) out_w / in_w;
    sy = (gdouble) out_h / in_h;
    new_w = MAX (1, (guint) gst_util_uint64_scale_round (src->width, out_w,
            in_w));
    new_h = MAX (1, (guint) gst_util_uint64_scale_round (src->height, out_h,
            in_h));

    dst = gst_ccl_meta_add (dest, new_w, new_h, src->total_count, NULL, 0);
    if (!dst)
      return FALSE;
    copy_fields (dst, src);
    dst->components = g_new (GstCclComponent, MAX (src->n_components, 1));
    dst->n_components = src->n_components;
    for (i = 0; i < src->n_components; i++)
      scale_component (&src->components[i], sx, sy, src->width, src->height,
          new_w, new_h, &dst->components[i]);
    if (src->blobs)
      dst->blobs = scale_blobs (src->blobs, dst->components, src->n_components,
          sx, (gint64) out_w * in_h == (gint64) out_h * in_w);
    if (src->event_counts)
      dst->event_counts = scale_event_counts (src->event_counts, sx, sy,
          new_w, new_h);
    return TRUE;
  }

  /* Any other transformation (crop, rotation, ...) would invalidate the
   * geometry in ways this meta does not model: drop it. */
  return FALSE;
}

/**
 * gst_ccl_meta_api_get_type:
 *
 * Returns: the #GType of the #GstCclMeta API, with the tags "video",
 *   "orientation" and "size" (the meta depends on the frame's geometry).
 */
GType
gst_ccl_meta_api_get_type (void)
{
  static GType type = 0;
  static const gchar *tags[] = { GST_META_TAG_VIDEO_STR,
    GST_META_TAG_VIDEO_ORIENTATION_STR, GST_META_TAG_VIDEO_SIZE_STR, NULL
  };

  if (g_once_init_enter (&type)) {
    GType t = gst_meta_api_type_register ("GstCclMetaAPI", tags);
    g_once_init_leave (&type, t);
  }
  return type;
}

/**
 * gst_ccl_meta_get_info:
 *
 * Returns: (transfer none): the registered #GstMetaInfo of #GstCclMeta
 */
const GstMetaInfo *
gst_ccl_meta_get_info (void)
{
  static const GstMetaInfo *info = NULL;

  if (g_once_init_enter ((GstMetaInfo **) & info)) {
    const GstMetaInfo *mi = gst_meta_register (GST_CCL_META_API_TYPE,
        "GstCclMeta", sizeof (GstCclMeta), gst_ccl_meta_init,
        gst_ccl_meta_free, gst_ccl_meta_transform);
    g_once_init_leave ((GstMetaInfo **) & info, (GstMetaInfo *) mi);
  }
  return info;
}

/**
 * gst_ccl_meta_get: (skip)
 * @buffer: a #GstBuffer
 *
 * Bindings see this function as gst_ccl_buffer_get_meta().
 *
 * Returns: (transfer none) (nullable): the first #GstCclMeta of @buffer, or
 *   %NULL when it has none
 */
GstCclMeta *
gst_ccl_meta_get (GstBuffer * buffer)
{
  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);

  return (GstCclMeta *) gst_buffer_get_meta (buffer, GST_CCL_META_API_TYPE);
}

/**
 * gst_ccl_buffer_get_meta:
 * @buffer: a #GstBuffer
 *
 * The same as gst_ccl_meta_get(), under the name bindings know it by
 * (GstCcl.buffer_get_meta() in Python). The meta belongs to @buffer: read it
 * while the buffer is alive, e.g. inside the pad probe or with the sample.
 *
 * Returns: (transfer none) (nullable): the first #GstCclMeta of @buffer, or
 *   %NULL when it has none
 */
GstCclMeta *
gst_ccl_buffer_get_meta (GstBuffer * buffer)
{
  return gst_ccl_meta_get (buffer);
}

/**
 * gst_ccl_meta_add:
 * @buffer: a writable #GstBuffer
 * @width: width of the frame the components refer to
 * @height: height of the frame
 * @total_count: number of components found in the frame
 * @components: (array length=n_components) (nullable): the reported
 *   components, copied into the meta
 * @n_components: number of entries of @components
 *
 * Attaches a #GstCclMeta to @buffer. The components are copied whole, track
 * fields included. The remaining fields (threshold, algorithm, connectivity,
 * GPU time, tracking) start at their defaults (0, HA4, 8,
 * %GST_CLOCK_TIME_NONE, %FALSE) and may be set on the returned meta; it holds
 * no blobs until gst_ccl_meta_set_blobs() gives it some, and no event counts
 * until gst_ccl_meta_set_event_counts() does.
 *
 * Returns: (transfer none) (nullable): the added meta
 */
GstCclMeta *
gst_ccl_meta_add (GstBuffer * buffer, guint width, guint height,
    guint total_count, const GstCclComponent * components, guint n_components)
{
  GstCclMeta *meta;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);
  g_return_val_if_fail (components != NULL || n_components == 0, NULL);

  meta = (GstCclMeta *) gst_buffer_add_meta (buffer, GST_CCL_META_INFO, NULL);
  if (!meta)
    return NULL;

  meta->width = width;
  meta->height = height;
  meta->total_count = total_count;
  if (n_components) {
    meta->components = g_memdup2 (components,
        sizeof (GstCclComponent) * n_components);
    meta->n_components = n_components;
  }
  return meta;
}

/**
 * gst_ccl_meta_get_component:
 * @meta: a #GstCclMeta
 * @index: 0 .. n_components - 1
 *
 * Returns: (transfer none) (nullable): the reported component at @index, or
 *   %NULL when @index is out of range
 */
const GstCclComponent *
gst_ccl_meta_get_component (const GstCclMeta * meta, guint index)
{
  g_return_val_if_fail (meta != NULL, NULL);

  if (index >= meta->n_components)
    return NULL;
  return &meta->components[index];
}

/**
 * gst_ccl_meta_get_components:
 * @meta: a #GstCclMeta
 * @n_components: (out) (optional): where to store the number of components
 *
 * All reported components at once; bindings receive them as a list of
 * #GstCclComponent copies.
 *
 * Returns: (transfer none) (array length=n_components) (nullable): the
 *   meta's component array, %NULL when it holds none
 */
const GstCclComponent *
gst_ccl_meta_get_components (const GstCclMeta * meta, guint * n_components)
{
  g_return_val_if_fail (meta != NULL, NULL);

  if (n_components)
    *n_components = meta->n_components;
  return meta->n_components ? meta->components : NULL;
}

/**
 * gst_ccl_meta_iterate: (skip)
 * @meta: a #GstCclMeta
 * @state: (inout): an opaque cursor, %NULL to start
 *
 * Walks the reported components in the meta's order. Bindings iterate over
 * gst_ccl_meta_get_components() instead.
 *
 * Returns: (transfer none) (nullable): the next component, or %NULL after the
 *   last one
 */
const GstCclComponent *
gst_ccl_meta_iterate (const GstCclMeta * meta, gpointer * state)
{
  guint index;

  g_return_val_if_fail (meta != NULL, NULL);
  g_return_val_if_fail (state != NULL, NULL);

  index = GPOINTER_TO_UINT (*state);
  if (index >= meta->n_components)
    return NULL;
  *state = GUINT_TO_POINTER (index + 1);
  return &meta->components[index];
}

/**
 * gst_ccl_meta_find_track:
 * @meta: a #GstCclMeta
 * @track_id: a track id, as in #GstCclComponent.track_id
 *
 * The reported component of the track @track_id in this frame. A frame holds
 * at most one component per track. 0 is no track's id and finds nothing, so
 * with the meta's tracking field %FALSE (every id 0) nothing is found.
 *
 * Returns: (transfer none) (nullable): the component whose track_id is
 *   @track_id, or %NULL when none of the reported components has it
 */
const GstCclComponent *
gst_ccl_meta_find_track (const GstCclMeta * meta, guint64 track_id)
{
  guint i;

  g_return_val_if_fail (meta != NULL, NULL);

  if (track_id == 0)
    return NULL;
  for (i = 0; i < meta->n_components; i++)
    if (meta->components[i].track_id == track_id)
      return &meta->components[i];
  return NULL;
}

/**
 * gst_ccl_meta_get_blob:
 * @meta: a #GstCclMeta
 * @index: 0 .. n_components - 1
 *
 * The blob properties of the reported component at @index
 * (gst_ccl_meta_get_component()).
 *
 * Returns: (transfer none) (nullable): the blob of component @index, or %NULL
 *   when @index is out of range or the meta holds no blobs (the element's
 *   blob-properties and blob filters unset)
 *
 * Since: 0.3
 */
const GstCclBlob *
gst_ccl_meta_get_blob (const GstCclMeta * meta, guint index)
{
  g_return_val_if_fail (meta != NULL, NULL);

  if (!meta->blobs || index >= meta->n_components)
    return NULL;
  return &meta->blobs[index];
}

/**
 * gst_ccl_meta_get_blobs:
 * @meta: a #GstCclMeta
 * @n_blobs: (out) (optional): where to store the number of blobs: the number
 *   of components, or 0 when the meta holds no blobs
 *
 * All blobs at once, in the order of the components; bindings receive them
 * as a list of #GstCclBlob copies.
 *
 * Returns: (transfer none) (array length=n_blobs) (nullable): the meta's blob
 *   array, %NULL when it holds none
 *
 * Since: 0.3
 */
const GstCclBlob *
gst_ccl_meta_get_blobs (const GstCclMeta * meta, guint * n_blobs)
{
  g_return_val_if_fail (meta != NULL, NULL);

  if (n_blobs)
    *n_blobs = meta->blobs ? meta->n_components : 0;
  return meta->blobs ? meta->blobs : NULL;
}

/**
 * gst_ccl_meta_set_blobs:
 * @meta: a #GstCclMeta (of a writable buffer)
 * @blobs: (array length=n_blobs) (nullable): one blob per component of
 *   @meta, in the order of its components, copied into the meta; %NULL to
 *   remove the meta's blobs
 * @n_blobs: number of entries of @blobs: the meta's n_components (0 with
 *   %NULL)
 *
 * Replaces the blobs of @meta (what an element re-labeling or filtering
 * frames would do; cudaccl attaches them itself).
 *
 * Returns: %TRUE when the blobs were set; %FALSE, leaving the meta as it was,
 *   when @n_blobs is not the number of components
 *
 * Since: 0.3
 */
gboolean
gst_ccl_meta_set_blobs (GstCclMeta * meta, const GstCclBlob * blobs,
    guint n_blobs)
{
  g_return_val_if_fail (meta != NULL, FALSE);
  g_return_val_if_fail (blobs != NULL || n_blobs == 0, FALSE);
  /* The blobs are read by the components' indices: one each, or none. */
  g_return_val_if_fail (!blobs || n_blobs == meta->n_components, FALSE);

  g_free (meta->blobs);
  meta->blobs = blobs && n_blobs ?
      g_memdup2 (blobs, sizeof (GstCclBlob) * n_blobs) : NULL;
  return TRUE;
}

/**
 * gst_ccl_meta_get_event_counts:
 * @meta: a #GstCclMeta
 *
 * The counts of the counting lines and zones and the events of the frame,
 * all in one struct. Bindings receive a copy; the other getters read single
 * values without one.
 *
 * Returns: (transfer none) (nullable): the meta's counts, or %NULL when the
 *   element counts nothing (no lines and no zones configured)
 *
 * Since: 0.4
 */
const GstCclEventCounts *
gst_ccl_meta_get_event_counts (const GstCclMeta * meta)
{
  g_return_val_if_fail (meta != NULL, NULL);

  return meta->event_counts;
}

/* Whether an event refers to a line or zone of the counts and is of a known
 * kind. */
static gboolean
event_fits (const GstCclEvent * e, guint n_lines, guint n_zones)
{
  switch (e->kind) {
    case GST_CCL_EVENT_KIND_LINE_FORWARD:
    case GST_CCL_EVENT_KIND_LINE_BACKWARD:
      return e->index < n_lines;
    case GST_CCL_EVENT_KIND_ZONE_ENTER:
    case GST_CCL_EVENT_KIND_ZONE_EXIT:
    case GST_CCL_EVENT_KIND_ZONE_MAX:
      return e->index < n_zones;
    default:
      return FALSE;
  }
}

/**
 * gst_ccl_meta_set_event_counts:
 * @meta: a #GstCclMeta (of a writable buffer)
 * @n_lines: number of counting lines
 * @line_forward: (array length=n_lines) (nullable): per line, the tracks that
 *   crossed it forward since the counts were last reset
 * @line_backward: (array length=n_lines) (nullable): per line, those that
 *   crossed it backward
 * @n_zones: number of zones
 * @zone_count: (array length=n_zones) (nullable): per zone, the reported
 *   components inside it in this frame
 * @zone_entries: (array length=n_zones) (nullable): per zone, the entries
 *   since the counts were last reset
 * @zone_exits: (array length=n_zones) (nullable): per zone, the exits since
 *   then
 * @n_events: number of events
 * @events: (array length=n_events) (nullable): the frame's events, in the
 *   order they happened
 *
 * Replaces the event counts of @meta with a copy of these, made into one
 * block (the cudaccl element calls this for each frame it counts). Each array
 * may be %NULL only when its count is 0. With no line and no zone (and so no
 * event), the meta's counts are removed: its event_counts becomes %NULL.
 *
 * Returns: %TRUE when the counts were set or removed; %FALSE (with a
 *   critical), leaving the meta as it was, when an array is %NULL with a
 *   count above 0, an event's kind is not a #GstCclEventKind or its index is
 *   not that of one of the lines (for line events) or zones (zone events)
 *
 * Since: 0.4
 */
gboolean
gst_ccl_meta_set_event_counts (GstCclMeta * meta, guint n_lines,
    const guint64 * line_forward, const guint64 * line_backward,
    guint n_zones, const guint * zone_count, const guint64 * zone_entries,
    const guint64 * zone_exits, guint n_events, const GstCclEvent * events)
{
  GstCclEventCounts *counts;
  gsize size;
  guint i;

  g_return_val_if_fail (meta != NULL, FALSE);
  g_return_val_if_fail (n_lines == 0 || (line_forward && line_backward),
      FALSE);
  g_return_val_if_fail (n_zones == 0 || (zone_count && zone_entries &&
          zone_exits), FALSE);
  g_return_val_if_fail (n_events == 0 || events, FALSE);

  for (i = 0; i < n_events; i++) {
    if (!event_fits (&events[i], n_lines, n_zones)) {
      g_critical ("%s: event %u (kind %d, index %u) names no line or zone of "
          "the %u lines and %u zones", G_STRFUNC, i, (gint) events[i].kind,
          events[i].index, n_lines, n_zones);
      return FALSE;
    }
  }
  if (!event_counts_size (n_lines, n_zones, n_events, &size)) {
    g_critical ("%s: %u lines, %u zones and %u events do not fit in memory",
        G_STRFUNC, n_lines, n_zones, n_events);
    return FALSE;
  }

  counts = NULL;
  if (n_lines || n_zones) {
    counts = g_malloc (size);
    memset (counts, 0, sizeof (GstCclEventCounts));
    counts->n_lines = n_lines;
    counts->n_zones = n_zones;
    counts->n_events = n_events;
    event_counts_point (counts);
    if (n_events)
      memcpy (counts->events, events, (gsize) n_events * sizeof (GstCclEvent));
    if (n_lines) {
      memcpy (counts->line_forward, line_forward,
          (gsize) n_lines * sizeof (guint64));
      memcpy (counts->line_backward, line_backward,
          (gsize) n_lines * sizeof (guint64));
    }
    if (n_zones) {
      memcpy (counts->zone_count, zone_count, (gsize) n_zones * sizeof (guint));
      memcpy (counts->zone_entries, zone_entries,
          (gsize) n_zones * sizeof (guint64));
      memcpy (counts->zone_exits, zone_exits,
          (gsize) n_zones * sizeof (guint64));
    }
  }
  /* Freed after the copy: the arrays given may be the meta's own. */
  g_free (meta->event_counts);
  meta->event_counts = counts;
  return TRUE;
}

/**
 * gst_ccl_meta_get_n_lines:
 * @meta: a #GstCclMeta
 *
 * Returns: the number of counting lines the meta holds counts of, 0 when it
 *   holds no event counts
 *
 * Since: 0.4
 */
guint
gst_ccl_meta_get_n_lines (const GstCclMeta * meta)
{
  g_return_val_if_fail (meta != NULL, 0);

  return meta->event_counts ? meta->event_counts->n_lines : 0;
}

/**
 * gst_ccl_meta_get_n_zones:
 * @meta: a #GstCclMeta
 *
 * Returns: the number of zones the meta holds counts of, 0 when it holds no
 *   event counts
 *
 * Since: 0.4
 */
guint
gst_ccl_meta_get_n_zones (const GstCclMeta * meta)
{
  g_return_val_if_fail (meta != NULL, 0);

  return meta->event_counts ? meta->event_counts->n_zones : 0;
}

/**
 * gst_ccl_meta_get_line_counts:
 * @meta: a #GstCclMeta
 * @index: 0 .. n_lines - 1 (gst_ccl_meta_get_n_lines())
 * @forward: (out) (optional): the tracks that crossed line @index forward
 *   since the counts were last reset
 * @backward: (out) (optional): those that crossed it backward
 *
 * The crossing counts of one counting line. On %FALSE both are set to 0.
 *
 * Returns: %TRUE when the meta holds line @index; %FALSE when @index is out
 *   of range or the meta holds no event counts
 *
 * Since: 0.4
 */
gboolean
gst_ccl_meta_get_line_counts (const GstCclMeta * meta, guint index,
    guint64 * forward, guint64 * backward)
{
  const GstCclEventCounts *c;
  gboolean found;

  g_return_val_if_fail (meta != NULL, FALSE);

  c = meta->event_counts;
  found = c && index < c->n_lines;
  if (forward)
    *forward = found ? c->line_forward[index] : 0;
  if (backward)
    *backward = found ? c->line_backward[index] : 0;
  return found;
}

/**
 * gst_ccl_meta_get_zone_counts:
 * @meta: a #GstCclMeta
 * @index: 0 .. n_zones - 1 (gst_ccl_meta_get_n_zones())
 * @count: (out) (optional): the reported components inside zone @index in
 *   this frame
 * @entries: (out) (optional): the entries into it since the counts were last
 *   reset
 * @exits: (out) (optional): the exits from it since then
 *
 * The counts of one zone. On %FALSE all are set to 0.
 *
 * Returns: %TRUE when the meta holds zone @index; %FALSE when @index is out
 *   of range or the meta holds no event counts
 *
 * Since: 0.4
 */
gboolean
gst_ccl_meta_get_zone_counts (const GstCclMeta * meta, guint index,
    guint * count, guint64 * entries, guint64 * exits)
{
  const GstCclEventCounts *c;
  gboolean found;

  g_return_val_if_fail (meta != NULL, FALSE);

  c = meta->event_counts;
  found = c && index < c->n_zones;
  if (count)
    *count = found ? c->zone_count[index] : 0;
  if (entries)
    *entries = found ? c->zone_entries[index] : 0;
  if (exits)
    *exits = found ? c->zone_exits[index] : 0;
  return found;
}

/**
 * gst_ccl_meta_get_event:
 * @meta: a #GstCclMeta
 * @index: 0 .. number of events - 1
 *
 * Returns: (transfer none) (nullable): the frame's event at @index, or %NULL
 *   when @index is out of range or the meta holds no event counts
 *
 * Since: 0.4
 */
const GstCclEvent *
gst_ccl_meta_get_event (const GstCclMeta * meta, guint index)
{
  g_return_val_if_fail (meta != NULL, NULL);

  if (!meta->event_counts || index >= meta->event_counts->n_events)
    return NULL;
  return &meta->event_counts->events[index];
}

/**
 * gst_ccl_meta_get_events:
 * @meta: a #GstCclMeta
 * @n_events: (out) (optional): where to store the number of events (0 when
 *   the frame has none or the meta holds no event counts)
 *
 * All events of the frame at once, in the order they happened; bindings
 * receive them as a list of #GstCclEvent copies.
 *
 * Returns: (transfer none) (array length=n_events) (nullable): the meta's
 *   event array, %NULL when there is none
 *
 * Since: 0.4
 */
const GstCclEvent *
gst_ccl_meta_get_events (const GstCclMeta * meta, guint * n_events)
{
  const GstCclEventCounts *c;

  g_return_val_if_fail (meta != NULL, NULL);

  c = meta->event_counts;
  if (n_events)
    *n_events = c ? c->n_events : 0;
  return c && c->n_events ? c->events : NULL;
}
