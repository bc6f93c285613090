/* cudaccl: GStreamer's analytics metadata (GstAnalyticsRelationMeta, 1.24 and newer)
 * for the reported components, so that applications and elements written against
 * that API (objectdetectionoverlay, trackers) read what cudaccl found.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <gst/gst.h>
#include <gst/ccl/gstcclmeta.h>

#ifdef HAVE_GST_ANALYTICS_SEGMENTATION
#include "backend/cclbackend.h"
#endif

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
 * before and missing now, for max_lost frames; and the segmentation entry of a mask
 * ccl_analytics_read_mask() kept for these components. running_time is the
 * frame's. */
void          ccl_analytics_attach (CclAnalytics * self, GstBuffer * buf,
                                    const GstCclComponent * components, guint n,
                                    gboolean tracking, GstClockTime running_time,
                                    guint max_lost);

#ifdef HAVE_GST_ANALYTICS_SEGMENTATION
/* The analytics mask (analytics-mask, GStreamer 1.26 and newer, docs/SEGMENTATION.md).
 * Right after ccl_backend_process() labeled the frame with settings->analytics_mask,
 * in the backend's CUDA context: writes the frame's reported components into a
 * GRAY8 or GRAY16 mask buffer (with its GstVideoMeta) cropped to the union of their
 * boxes, each pixel its component's region id (its label, or its track id with
 * tracking; 0 elsewhere), and keeps it. The next ccl_analytics_attach() for the same
 * components adds it as an instance segmentation entry whose region i is component i,
 * related both ways to component i's object-detection entry, and drops it; so does
 * ccl_analytics_reset(). Nothing is kept (and nothing attached) for a frame without
 * reported components. Ids that do not fit 16 bits (more than 65535 components or
 * tracks) are replaced by stand-ins that do (docs/SEGMENTATION.md); beyond 65535
 * reported components in one frame, the rest are left out of the mask. On failure
 * returns FALSE with *error set (CCL_BACKEND_ERROR) and keeps nothing. */
gboolean      ccl_analytics_read_mask (CclAnalytics * self, CclBackend * backend,
                                       const GstCclComponent * components, guint n,
                                       gboolean tracking, GError ** error);
#endif

G_END_DECLS
