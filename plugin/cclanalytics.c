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
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "cclanalytics.h"

#include <gst/analytics/analytics.h>

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
};

CclAnalytics *
ccl_analytics_new (void)
{
  CclAnalytics *self = g_new0 (CclAnalytics, 1);

  self->tracks = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  self->type = g_quark_from_static_string (GST_CUDA_CCL_ANALYTICS_TYPE);
  return self;
}

void
ccl_analytics_free (CclAnalytics * self)
{
  if (!self)
    return;
  g_hash_table_unref (self->tracks);
  g_free (self);
}

void
ccl_analytics_reset (CclAnalytics * self)
{
  g_hash_table_remove_all (self->tracks);
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

void
ccl_analytics_attach (CclAnalytics * self, GstBuffer * buf,
    const GstCclComponent * components, guint n, gboolean tracking,
    GstClockTime running_time, guint max_lost)
{
  GstAnalyticsRelationMeta *rmeta;
  GHashTableIter iter;
  gpointer key, value;
  guint i;

  rmeta = gst_buffer_get_analytics_relation_meta (buf);
  if (!rmeta) {
    /* Room for every entry up front: the meta grows by reallocating otherwise. */
    GstAnalyticsRelationMetaInitParams params = {
      (tracking ? 2 : 1) * (gsize) n + 4, ((tracking ? 2 : 1) * (gsize) n + 4) * 64
    };
    rmeta = gst_buffer_add_analytics_relation_meta_full (buf, &params);
  }
  if (!rmeta)
    return;

  /* Tracks missing from this frame age by one; reported ones reset below. */
  g_hash_table_iter_init (&iter, self->tracks);
  while (g_hash_table_iter_next (&iter, &key, &value))
    ((TrackTimes *) value)->unseen++;

  for (i = 0; i < n; i++) {
    const GstCclComponent *c = &components[i];
    GstAnalyticsODMtd od;

    if (!gst_analytics_relation_meta_add_od_mtd (rmeta, self->type, c->x, c->y,
            c->width, c->height, 1.0f, &od))
      continue;
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
