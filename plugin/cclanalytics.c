/* cudaccl: GstAnalytics object-detection and tracking entries (cclanalytics.h).
 *
 * The blob properties (GstCclBlob) have no entry here: no GstAnalytics
 * metadata type fits them. An object-detection entry (GstAnalyticsODMtd) holds
 * a box, a type and a confidence; its oriented form (1.26) rotates the box
 * itself, which would misplace our axis-aligned bounding box, and the moments'
 * ellipse is not a box. A classification entry (GstAnalyticsClsMtd) holds
 * class quarks with confidence levels, not measurements; a segmentation entry
 * (1.26) holds a mask. Mean intensity, color, perimeter, circularity, Euler
 * number and eccentricity stay in the GstCclMeta, the ROI metas'
 * "cudaccl-blob" parameters and the messages.
 *
 * The segmentation entry (analytics-mask, 1.26) carries the label image itself:
 * one instance segmentation entry per frame, its mask the rectangle of the union
 * of the reported boxes, region i the reported component i, related both ways to
 * component i's object-detection entry (docs/SEGMENTATION.md).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "cclanalytics.h"

#include <gst/analytics/analytics.h>
#include <string.h>

#ifdef HAVE_GST_ANALYTICS_SEGMENTATION
#include <gst/video/video.h>

GST_DEBUG_CATEGORY_STATIC (ccl_analytics_debug);
#define GST_CAT_DEFAULT ccl_analytics_debug

/* Region ids are mask values: GRAY16 holds 1..65535 (0 is the background). */
#define MAX_REGION_ID 65535u
#endif

typedef struct
{
  GstClockTime first_seen;
  GstClockTime last_seen;
  guint unseen;                 /* frames since it was last reported */
} TrackTimes;

struct _CclAnalytics
{
  GHashTable *tracks;           /* track id (guint64 *) -> TrackTimes */
  GQuark type;
#ifdef HAVE_GST_ANALYTICS_SEGMENTATION
  /* The mask ccl_analytics_read_mask() kept for the next ccl_analytics_attach():
   * for the components block mask_for of mask_n entries, regions 0 ..
   * region_ids->len - 1 being components 0 .. len - 1. */
  GstBuffer *mask;
  const GstCclComponent *mask_for;
  guint mask_n;
  gint mask_x, mask_y;
  guint mask_w, mask_h;
  GArray *region_ids;           /* guint, per region */
  GArray *ids;                  /* guint, per component (0: not in the mask) */
  GArray *od_ids;               /* guint, object-detection entry id per region */
  guint8 *taken;                /* MAX_REGION_ID + 1 bits: stand-in ids in use */
  gboolean warned_stand_in, warned_left_out;
#endif
};

#ifdef HAVE_GST_ANALYTICS_SEGMENTATION
static void
drop_mask (CclAnalytics * self)
{
  gst_clear_buffer (&self->mask);
  self->mask_for = NULL;
  self->mask_n = 0;
  g_array_set_size (self->region_ids, 0);
}
#endif

CclAnalytics *
ccl_analytics_new (void)
{
  CclAnalytics *self = g_new0 (CclAnalytics, 1);

  self->tracks = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  self->type = g_quark_from_static_string (GST_CUDA_CCL_ANALYTICS_TYPE);
#ifdef HAVE_GST_ANALYTICS_SEGMENTATION
  GST_DEBUG_CATEGORY_INIT (ccl_analytics_debug, "cudaccl-analytics", 0,
      "cudaccl GstAnalytics entries");
  self->region_ids = g_array_new (FALSE, FALSE, sizeof (guint));
  self->ids = g_array_new (FALSE, FALSE, sizeof (guint));
  self->od_ids = g_array_new (FALSE, FALSE, sizeof (guint));
#endif
  return self;
}

void
ccl_analytics_free (CclAnalytics * self)
{
  if (!self)
    return;
  g_hash_table_unref (self->tracks);
#ifdef HAVE_GST_ANALYTICS_SEGMENTATION
  drop_mask (self);
  g_array_unref (self->region_ids);
  g_array_unref (self->ids);
  g_array_unref (self->od_ids);
  g_free (self->taken);
#endif
  g_free (self);
}

void
ccl_analytics_reset (CclAnalytics * self)
{
  g_hash_table_remove_all (self->tracks);
#ifdef HAVE_GST_ANALYTICS_SEGMENTATION
  drop_mask (self);
#endif
}

/* The times of a track reported now, made on its first report. */
static TrackTimes *
seen (CclAnalytics * self, guint64 id, GstClockTime now)
{
  TrackTimes *t = g_hash_table_lookup (self->tracks, &id);

  if (!t) {
    guint64 *key = g_new (guint64, 1);

    *key = id;
    t = g_new0 (TrackTimes, 1);
    t->first_seen = now;
    g_hash_table_insert (self->tracks, key, t);
  }
  t->last_seen = now;
  t->unseen = 0;
  return t;
}

static void
add_track (GstAnalyticsRelationMeta * rmeta, guint64 id, const TrackTimes * t,
    gboolean lost, GstAnalyticsTrackingMtd * mtd)
{
  if (!gst_analytics_relation_meta_add_tracking_mtd (rmeta, id, t->first_seen, mtd))
    return;
  gst_analytics_tracking_mtd_update_last_seen (mtd, t->last_seen);
  if (lost)
    gst_analytics_tracking_mtd_set_lost (mtd);
}

#ifdef HAVE_GST_ANALYTICS_SEGMENTATION
#define TAKEN(self, v) (((self)->taken[(v) >> 3] >> ((v) & 7)) & 1u)
#define TAKE(self, v) ((self)->taken[(v) >> 3] |= (guint8) (1u << ((v) & 7)))

/* The region id a component asks for: its track id with tracking, else its label. */
static guint64
natural_id (const GstCclComponent * c, gboolean tracking)
{
  return tracking ? c->track_id : (guint64) c->label;
}

/* self->ids for the first `regions` components (at most MAX_REGION_ID): each its
 * natural id where that fits 16 bits (and is not 0), else a stand-in that does and
 * that no other component of the frame has: the id wrapped into 1..65535 (the same
 * from frame to frame for a track) when free, else the lowest free value. */
static void
choose_ids (CclAnalytics * self, const GstCclComponent * components,
    guint regions, gboolean tracking)
{
  guint *ids = (guint *) self->ids->data;
  gboolean stand_ins = FALSE;
  guint i, cursor = 1;

  for (i = 0; i < regions; i++) {
    const guint64 id = natural_id (&components[i], tracking);

    ids[i] = id >= 1 && id <= MAX_REGION_ID ? (guint) id : 0;
    stand_ins |= ids[i] == 0;
  }
  if (!stand_ins)
    return;

  if (!self->taken)
    self->taken = g_malloc ((MAX_REGION_ID + 1) / 8);
  memset (self->taken, 0, (MAX_REGION_ID + 1) / 8);
  TAKE (self, 0);
  for (i = 0; i < regions; i++)
    if (ids[i])
      TAKE (self, ids[i]);
  for (i = 0; i < regions; i++) {
    const guint64 id = natural_id (&components[i], tracking);
    guint v;

    if (ids[i])
      continue;
    v = id ? (guint) ((id - 1) % MAX_REGION_ID) + 1 : 0;
    if (TAKEN (self, v)) {
      /* Fewer than MAX_REGION_ID values are taken: one is free up to it. Every
       * value below the cursor is taken, so it only moves on. */
      while (TAKEN (self, cursor))
        cursor++;
      v = cursor;
    }
    TAKE (self, v);
    ids[i] = v;
  }
  if (!self->warned_stand_in) {
    GST_WARNING ("%s beyond %u: the analytics mask gives those components "
        "stand-in region ids within 16 bits (their object-detection entries "
        "and, with tracking, tracking entries keep the real ones); this is "
        "said once", tracking ? "track ids" : "labels", MAX_REGION_ID);
    self->warned_stand_in = TRUE;
  }
}

gboolean
ccl_analytics_read_mask (CclAnalytics * self, CclBackend * backend,
    const GstCclComponent * components, guint n, gboolean tracking,
    GError ** error)
{
  const guint regions = MIN (n, MAX_REGION_ID);
  gint64 x0 = G_MAXINT64, y0 = G_MAXINT64, x1 = G_MININT64, y1 = G_MININT64;
  guint i, max_id = 0, bpp;
  GstVideoFormat format;
  GstBuffer *mask;
  GstMapInfo map;
  gsize stride;
  gsize offset[GST_VIDEO_MAX_PLANES] = { 0, };
  gint strides[GST_VIDEO_MAX_PLANES] = { 0, };
  gboolean ok;

  drop_mask (self);
  if (regions == 0)
    return TRUE;
  if (n > regions && !self->warned_left_out) {
    GST_WARNING ("%u reported components: the analytics mask holds the first %u "
        "only (16-bit region ids); this is said once", n, regions);
    self->warned_left_out = TRUE;
  }

  /* One id per component for the backend, 0 for those left out. */
  g_array_set_size (self->ids, n);
  memset (self->ids->data, 0, (gsize) n * sizeof (guint));
  choose_ids (self, components, regions, tracking);
  g_array_set_size (self->region_ids, 0);
  g_array_append_vals (self->region_ids, self->ids->data, regions);

  for (i = 0; i < regions; i++) {
    const GstCclComponent *c = &components[i];

    max_id = MAX (max_id, g_array_index (self->ids, guint, i));
    x0 = MIN (x0, (gint64) c->x);
    y0 = MIN (y0, (gint64) c->y);
    x1 = MAX (x1, (gint64) c->x + c->width);
    y1 = MAX (y1, (gint64) c->y + c->height);
  }

  /* GRAY8 whenever every id fits: half the bytes, and what segmentationoverlay
   * reads. Rows packed, so that every byte of the buffer is written. */
  bpp = max_id <= G_MAXUINT8 ? 1 : 2;
  format = bpp == 1 ? GST_VIDEO_FORMAT_GRAY8 :
      (G_BYTE_ORDER == G_LITTLE_ENDIAN ? GST_VIDEO_FORMAT_GRAY16_LE :
      GST_VIDEO_FORMAT_GRAY16_BE);
  stride = (gsize) (x1 - x0) * bpp;
  mask = gst_buffer_new_allocate (NULL, stride * (gsize) (y1 - y0), NULL);
  if (!mask || !gst_buffer_map (mask, &map, GST_MAP_WRITE)) {
    if (mask)
      gst_buffer_unref (mask);
    g_set_error (error, CCL_BACKEND_ERROR, CCL_BACKEND_ERROR_NO_MEMORY,
        "could not allocate the %" G_GINT64_FORMAT "x%" G_GINT64_FORMAT
        " analytics mask", x1 - x0, y1 - y0);
    return FALSE;
  }
  ok = ccl_backend_write_mask (backend, (const guint *) self->ids->data,
      (gint) x0, (gint) y0, (guint) (x1 - x0), (guint) (y1 - y0), bpp, map.data,
      stride, error);
  gst_buffer_unmap (mask, &map);
  if (!ok) {
    gst_buffer_unref (mask);
    g_array_set_size (self->region_ids, 0);
    return FALSE;
  }
  strides[0] = (gint) stride;
  gst_buffer_add_video_meta_full (mask, GST_VIDEO_FRAME_FLAG_NONE, format,
      (guint) (x1 - x0), (guint) (y1 - y0), 1, offset, strides);

  self->mask = mask;
  self->mask_for = components;
  self->mask_n = n;
  self->mask_x = (gint) x0;
  self->mask_y = (gint) y0;
  self->mask_w = (guint) (x1 - x0);
  self->mask_h = (guint) (y1 - y0);
  return TRUE;
}

/* Adds the kept mask as the frame's segmentation entry, region i related both
 * ways to component i's object-detection entry (self->od_ids), and drops it. */
static void
add_segmentation (CclAnalytics * self, GstAnalyticsRelationMeta * rmeta)
{
  GstAnalyticsSegmentationMtd seg;
  GstBuffer *mask = self->mask;
  guint i;

  self->mask = NULL;
  /* The entry takes the mask (transfer full) when it is added, only then. */
  if (!gst_analytics_relation_meta_add_segmentation_mtd (rmeta, mask,
          GST_SEGMENTATION_TYPE_INSTANCE, self->region_ids->len,
          (guint *) self->region_ids->data, self->mask_x, self->mask_y,
          self->mask_w, self->mask_h, &seg)) {
    GST_WARNING ("could not add the segmentation entry of the analytics mask");
    gst_buffer_unref (mask);
    drop_mask (self);
    return;
  }
  for (i = 0; i < self->region_ids->len && i < self->od_ids->len; i++) {
    const guint od = g_array_index (self->od_ids, guint, i);

    if (od == G_MAXUINT)
      continue;
    gst_analytics_relation_meta_set_relation (rmeta,
        GST_ANALYTICS_REL_TYPE_RELATE_TO, od, seg.id);
    gst_analytics_relation_meta_set_relation (rmeta,
        GST_ANALYTICS_REL_TYPE_RELATE_TO, seg.id, od);
  }
  drop_mask (self);
}
#endif

void
ccl_analytics_attach (CclAnalytics * self, GstBuffer * buf,
    const GstCclComponent * components, guint n, gboolean tracking,
    GstClockTime running_time, guint max_lost)
{
  GstAnalyticsRelationMeta *rmeta;
  GHashTableIter iter;
  gpointer key, value;
  guint i;
  gsize region_bytes = 0;
#ifdef HAVE_GST_ANALYTICS_SEGMENTATION
  gboolean with_mask;

  /* A mask read for another frame (one whose processing failed after reading it)
   * is not this one's. */
  if (self->mask && (self->mask_for != components || self->mask_n != n))
    drop_mask (self);
  with_mask = self->mask != NULL;
  if (with_mask) {
    region_bytes = (gsize) self->region_ids->len * sizeof (guint) + 64;
    g_array_set_size (self->od_ids, 0);
  }
#endif

  rmeta = gst_buffer_get_analytics_relation_meta (buf);
  if (!rmeta) {
    /* Room for every entry up front: the meta grows by reallocating otherwise. */
    GstAnalyticsRelationMetaInitParams params = {
      (tracking ? 2 : 1) * (gsize) n + 4,
      ((tracking ? 2 : 1) * (gsize) n + 4) * 64 + region_bytes
    };
    rmeta = gst_buffer_add_analytics_relation_meta_full (buf, &params);
  }
  if (!rmeta) {
#ifdef HAVE_GST_ANALYTICS_SEGMENTATION
    drop_mask (self);
#endif
    return;
  }

  /* Tracks missing from this frame age by one; reported ones reset below. */
  g_hash_table_iter_init (&iter, self->tracks);
  while (g_hash_table_iter_next (&iter, &key, &value))
    ((TrackTimes *) value)->unseen++;

  for (i = 0; i < n; i++) {
    const GstCclComponent *c = &components[i];
    GstAnalyticsODMtd od;

    if (!gst_analytics_relation_meta_add_od_mtd (rmeta, self->type, c->x, c->y,
            c->width, c->height, 1.0f, &od)) {
#ifdef HAVE_GST_ANALYTICS_SEGMENTATION
      if (with_mask && i < self->region_ids->len) {
        const guint none = G_MAXUINT;

        g_array_append_val (self->od_ids, none);
      }
#endif
      continue;
    }
#ifdef HAVE_GST_ANALYTICS_SEGMENTATION
    if (with_mask && i < self->region_ids->len)
      g_array_append_val (self->od_ids, od.id);
#endif
    if (tracking) {
      GstAnalyticsTrackingMtd trk;
      const TrackTimes *t = seen (self, c->track_id, running_time);

      add_track (rmeta, c->track_id, t, FALSE, &trk);
      gst_analytics_relation_meta_set_relation (rmeta,
          GST_ANALYTICS_REL_TYPE_RELATE_TO, od.id, trk.id);
      gst_analytics_relation_meta_set_relation (rmeta,
          GST_ANALYTICS_REL_TYPE_RELATE_TO, trk.id, od.id);
    }
  }

#ifdef HAVE_GST_ANALYTICS_SEGMENTATION
  if (with_mask)
    add_segmentation (self, rmeta);
#endif

  if (!tracking)
    return;
  /* Tracks that were reported and are missing now: lost, until the tracker has
   * forgotten them too. */
  g_hash_table_iter_init (&iter, self->tracks);
  while (g_hash_table_iter_next (&iter, &key, &value)) {
    const TrackTimes *t = value;
    GstAnalyticsTrackingMtd trk;

    if (t->unseen == 0)
      continue;
    if (t->unseen > max_lost) {
      g_hash_table_iter_remove (&iter);
      continue;
    }
    add_track (rmeta, *(const guint64 *) key, t, TRUE, &trk);
  }
}
