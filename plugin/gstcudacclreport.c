/* cudaccl: what the element tells downstream and the application about a frame,
 * besides the GstCclMeta: ROI metas and the per-frame bus message.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudacclreport.h"

#include <stdarg.h>

#include <gst/video/gstvideometa.h>

/**
 * gst_cuda_ccl_report_add_roi_metas:
 * @buf: a writable frame
 * @report: the components reported for it
 *
 * Attaches one #GstVideoRegionOfInterestMeta of type "ccl-component" per
 * reported component, its params structure holding label, area, centroid and
 * raw moments.
 */
void
gst_cuda_ccl_report_add_roi_metas (GstBuffer * buf, const CclReport * report)
{
  guint i;

  for (i = 0; i < report->n_components; i++) {
    const GstCclComponent *c = &report->components[i];
    GstVideoRegionOfInterestMeta *roi;

    roi = gst_buffer_add_video_region_of_interest_meta (buf, GST_CUDA_CCL_ROI_TYPE,
        c->x, c->y, c->width, c->height);
    roi->id = (gint) c->label;
    gst_video_region_of_interest_meta_add_param (roi,
        gst_structure_new (GST_CUDA_CCL_ROI_TYPE,
            "label", G_TYPE_UINT, c->label,
            "area", G_TYPE_UINT64, c->area,
            "centroid-x", G_TYPE_DOUBLE, c->centroid_x,
            "centroid-y", G_TYPE_DOUBLE, c->centroid_y,
            "sum-x", G_TYPE_UINT64, c->sum_x,
            "sum-y", G_TYPE_UINT64, c->sum_y,
            "sum-xx", G_TYPE_UINT64, c->sum_xx,
            "sum-xy", G_TYPE_UINT64, c->sum_xy,
            "sum-yy", G_TYPE_UINT64, c->sum_yy, NULL));
  }
}

/* Appends value to the GstValueArray in array (initialized by the caller). */
static void
append_value (GValue * array, GType type, ...)
{
  GValue v = G_VALUE_INIT;
  va_list args;

  g_value_init (&v, type);
  va_start (args, type);
  switch (type) {
    case G_TYPE_UINT:
      g_value_set_uint (&v, va_arg (args, guint));
      break;
    case G_TYPE_INT:
      g_value_set_int (&v, va_arg (args, gint));
      break;
    case G_TYPE_UINT64:
      g_value_set_uint64 (&v, va_arg (args, guint64));
      break;
    case G_TYPE_DOUBLE:
      g_value_set_double (&v, va_arg (args, gdouble));
      break;
    default:
      g_assert_not_reached ();
  }
  va_end (args);
  gst_value_array_append_and_take_value (array, &v);
}

/**
 * gst_cuda_ccl_report_message:
 * @src: the element posting it
 * @buf: the frame
 * @segment: the element's input segment, for stream and running time
 * @info: the frame's video info
 * @report: the components reported for it
 *
 * Returns: (transfer full): the per-frame element message "cudaccl": timestamps,
 * frame size, counts, threshold used, and one list per component field (label,
 * bbox, area, centroid), so that gst-launch-1.0 -m prints them.
 */
GstMessage *
gst_cuda_ccl_report_message (GstObject * src, GstBuffer * buf,
    const GstSegment * segment, const GstVideoInfo * info,
    const CclReport * report)
{
  GstClockTime pts = GST_BUFFER_PTS (buf);
  GstStructure *s;
  guint i;
  enum
  { LABEL, BOX_X, BOX_Y, BOX_W, BOX_H, AREA, CX, CY, N_FIELDS };
  static const gchar *names[N_FIELDS] = { "label", "bbox-x", "bbox-y",
    "bbox-width", "bbox-height", "area", "centroid-x", "centroid-y"
  };
  GValue arrays[N_FIELDS] = { G_VALUE_INIT, };

  for (i = 0; i < N_FIELDS; i++)
    gst_value_array_init (&arrays[i], report->n_components);
  for (i = 0; i < report->n_components; i++) {
    const GstCclComponent *c = &report->components[i];

    append_value (&arrays[LABEL], G_TYPE_UINT, c->label);
    append_value (&arrays[BOX_X], G_TYPE_INT, c->x);
    append_value (&arrays[BOX_Y], G_TYPE_INT, c->y);
    append_value (&arrays[BOX_W], G_TYPE_INT, c->width);
    append_value (&arrays[BOX_H], G_TYPE_INT, c->height);
    append_value (&arrays[AREA], G_TYPE_UINT64, c->area);
    append_value (&arrays[CX], G_TYPE_DOUBLE, c->centroid_x);
    append_value (&arrays[CY], G_TYPE_DOUBLE, c->centroid_y);
  }

  s = gst_structure_new ("cudaccl",
      "timestamp", G_TYPE_UINT64, pts,
      "stream-time", G_TYPE_UINT64,
      gst_segment_to_stream_time (segment, GST_FORMAT_TIME, pts),
      "running-time", G_TYPE_UINT64,
      gst_segment_to_running_time (segment, GST_FORMAT_TIME, pts),
      "width", G_TYPE_INT, GST_VIDEO_INFO_WIDTH (info),
      "height", G_TYPE_INT, GST_VIDEO_INFO_HEIGHT (info),
      "total-components", G_TYPE_UINT, report->total_count,
      "reported-components", G_TYPE_UINT, report->n_components,
      "threshold", G_TYPE_UINT, report->threshold, NULL);
  for (i = 0; i < N_FIELDS; i++)
    gst_structure_take_value (s, names[i], &arrays[i]);

  return gst_message_new_element (src, s);
}

