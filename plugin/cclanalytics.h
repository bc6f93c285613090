/* cudaccl: GStreamer's analytics metadata (GstAnalyticsRelationMeta, 1.24 and newer)
 * for the reported components, so that applications and elements written against
 * that API (objectdetectionoverlay, trackers) read what cudaccl found.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <gst/gst.h>
#include <gst/ccl/gstcclmeta.h>

G_BEGIN_DECLS

/* The type of every object-detection entry cudaccl adds. */
#define GST_CUDA_CCL_ANALYTICS_TYPE "cudaccl-component"

/* Per stream: when each track was first and last seen, which the tracking entries
 * carry as running times. Not thread safe (the streaming thread owns it). */
typedef struct _CclAnalytics CclAnalytics;

CclAnalytics *ccl_analytics_new   (void);
void          ccl_analytics_free  (CclAnalytics * self);

/* Forgets every track (a flush, a new stream, a track reset). */
void          ccl_analytics_reset (CclAnalytics * self);

/* Adds to buf's relation meta (made if it has none) one object-detection entry per
 * component, box and confidence 1.0; with tracking, one tracking entry per reported
 * track related to its box both ways, and one marked lost for each track reported
 * before and missing now, for max_lost frames. running_time is the frame's. */
void          ccl_analytics_attach (CclAnalytics * self, GstBuffer * buf,
                                    const GstCclComponent * components, guint n,
                                    gboolean tracking, GstClockTime running_time,
                                    guint max_lost);

G_END_DECLS
