/* cudaccl: connected-component labeling of video frames.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_CUDA_CCL_H__
#define __GST_CUDA_CCL_H__

#include <gst/gst.h>
#include <gst/video/video.h>
#include <gst/video/gstvideofilter.h>
#include <gst/ccl/gstcclmeta.h>

#include "backend/cclbackend.h"
#include "gstcclcudatransform.h"

G_BEGIN_DECLS

/**
 * GstCudaCclBackend:
 * @GST_CUDA_CCL_BACKEND_AUTO: CUDA when a device is usable, else the CPU
 * @GST_CUDA_CCL_BACKEND_CUDA: the CUDA engine; an error when no device is usable
 * @GST_CUDA_CCL_BACKEND_CPU: OpenCV on the CPU
 */
typedef enum {
  GST_CUDA_CCL_BACKEND_AUTO,
  GST_CUDA_CCL_BACKEND_CUDA,
  GST_CUDA_CCL_BACKEND_CPU,
} GstCudaCclBackend;

/**
 * GstCudaCclConnectivity:
 * @GST_CUDA_CCL_CONNECTIVITY_4: edge neighbours only
 * @GST_CUDA_CCL_CONNECTIVITY_8: edge and corner neighbours
 */
typedef enum {
  GST_CUDA_CCL_CONNECTIVITY_4 = 4,
  GST_CUDA_CCL_CONNECTIVITY_8 = 8,
} GstCudaCclConnectivity;

/**
 * GstCudaCclThresholdMode:
 * @GST_CUDA_CCL_THRESHOLD_ABOVE: foreground where luma > threshold
 * @GST_CUDA_CCL_THRESHOLD_BELOW: foreground where luma <= threshold
 * @GST_CUDA_CCL_THRESHOLD_OTSU: Otsu's level per frame, then as above
 */
typedef enum {
  GST_CUDA_CCL_THRESHOLD_ABOVE = CCL_THRESHOLD_ABOVE,
  GST_CUDA_CCL_THRESHOLD_BELOW = CCL_THRESHOLD_BELOW,
  GST_CUDA_CCL_THRESHOLD_OTSU = CCL_THRESHOLD_OTSU,
} GstCudaCclThresholdMode;

/**
 * GstCudaCclForeground:
 * @GST_CUDA_CCL_FOREGROUND_THRESHOLD: one global luma level per frame
 *   (#GstCudaCcl:threshold, #GstCudaCcl:threshold-mode)
 * @GST_CUDA_CCL_FOREGROUND_BACKGROUND: a per-pixel adaptive background model;
 *   what differs from it is foreground, shadows are not
 * @GST_CUDA_CCL_FOREGROUND_LOCAL: luma against the mean of its
 *   #GstCudaCcl:block-size window less #GstCudaCcl:offset (uneven light)
 * @GST_CUDA_CCL_FOREGROUND_COLOR: HSV color within #GstCudaCcl:color-low ..
 *   #GstCudaCcl:color-high (color formats only)
 */
typedef enum {
  GST_CUDA_CCL_FOREGROUND_THRESHOLD = CCL_FOREGROUND_THRESHOLD,
  GST_CUDA_CCL_FOREGROUND_BACKGROUND = CCL_FOREGROUND_BACKGROUND,
  GST_CUDA_CCL_FOREGROUND_LOCAL = CCL_FOREGROUND_LOCAL,
  GST_CUDA_CCL_FOREGROUND_COLOR = CCL_FOREGROUND_COLOR,
} GstCudaCclForeground;

/**
 * GstCudaCclOverlay:
 * @GST_CUDA_CCL_OVERLAY_NONE: leave the frame's pixels alone
 * @GST_CUDA_CCL_OVERLAY_FILL: tint each reported component's pixels
 * @GST_CUDA_CCL_OVERLAY_BOXES: outline each reported component's bounding box
 * @GST_CUDA_CCL_OVERLAY_CENTROIDS: mark each reported component's centroid
 * @GST_CUDA_CCL_OVERLAY_TRAILS: draw each tracked component's recent centroid
 *   path (with tracking)
 * @GST_CUDA_CCL_OVERLAY_FOREGROUND: tint every foreground pixel, reported or
 *   not, in one fixed color (magenta), to tune the foreground settings by eye
 * @GST_CUDA_CCL_OVERLAY_EVENTS: draw the counting lines and zones with their
 *   counts (#GstCudaCcl:lines, #GstCudaCcl:zones)
 */
typedef enum {
  GST_CUDA_CCL_OVERLAY_NONE = 0,
  GST_CUDA_CCL_OVERLAY_FILL = CCL_OVERLAY_FILL,
  GST_CUDA_CCL_OVERLAY_BOXES = CCL_OVERLAY_BOXES,
  GST_CUDA_CCL_OVERLAY_CENTROIDS = CCL_OVERLAY_CENTROIDS,
  GST_CUDA_CCL_OVERLAY_TRAILS = CCL_OVERLAY_TRAILS,
  GST_CUDA_CCL_OVERLAY_FOREGROUND = CCL_OVERLAY_FOREGROUND,
  GST_CUDA_CCL_OVERLAY_EVENTS = CCL_OVERLAY_EVENTS,
} GstCudaCclOverlay;

/**
 * GstCudaCclZoneFilter:
 * @GST_CUDA_CCL_ZONE_FILTER_NONE: the zones only count
 * @GST_CUDA_CCL_ZONE_FILTER_INSIDE: report only the components whose centroid
 *   lies in a zone
 * @GST_CUDA_CCL_ZONE_FILTER_OUTSIDE: report only the components whose centroid
 *   lies in no zone
 */
typedef enum {
  GST_CUDA_CCL_ZONE_FILTER_NONE,
  GST_CUDA_CCL_ZONE_FILTER_INSIDE,
  GST_CUDA_CCL_ZONE_FILTER_OUTSIDE,
} GstCudaCclZoneFilter;

#define GST_TYPE_CUDA_CCL (gst_cuda_ccl_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaCcl, gst_cuda_ccl, GST, CUDA_CCL,
    GstCclCudaTransform)

/* The CUDA context, the cuda-device-id property and CUDA buffer pools are the
 * base class's (gstcclcudatransform.h); the CUDA backend works in its context. */
struct _GstCudaCcl {
  GstCclCudaTransform parent;

  /* properties, under the object lock */
  GstCudaCclBackend backend_choice;
  CclSettings settings;
  gboolean roi_meta;
  gboolean post_messages;
  gchar *mask_location;
  gboolean analytics_meta;
  gboolean analytics_mask;
  gboolean post_events;
  GstCudaCclZoneFilter zone_filter;
  /* lines and zones: settings and the stream's counts (its own lock) */
  struct _CclEvents *events;

  /* streaming state */
  /* the decoded mask-location, from start to stop */
  CclRegion *region;
  CclBackend *backend;
  gboolean warned_fallback;
  /* first and last running time of each track, for the analytics metadata (NULL
   * where GStreamer has none: before 1.24) */
  struct _CclAnalytics *analytics;
  /* under the object lock: ends the tracks and resets the foreground model before
   * the next frame (set by events, which may arrive on another thread than the
   * frames), CclTrackReset + 1, 0 none */
  guint track_reset;
  /* under the object lock: started, and whether CUDA memory can be labeled */
  gboolean started;
  gboolean on_cuda;
};

#if GST_CHECK_VERSION (1, 20, 0)
GST_ELEMENT_REGISTER_DECLARE (cudaccl);
#else
/* What GST_ELEMENT_REGISTER_DECLARE gives from 1.20 on. */
gboolean gst_element_register_cudaccl (GstPlugin * plugin);
#define GST_ELEMENT_REGISTER(element, plugin) gst_element_register_##element (plugin)
#endif

G_END_DECLS

#endif /* __GST_CUDA_CCL_H__ */
