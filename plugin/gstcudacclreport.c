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

/* The ROI type and the params' field names as quarks, interned once: looking a
 * name up takes GLib's global quark lock, and a frame asks for up to 16 names per
 * ROI meta. */
enum
{
  Q_TYPE, Q_LABEL, Q_AREA, Q_CENTROID_X, Q_CENTROID_Y, Q_SUM_X, Q_SUM_Y, Q_SUM_XX,
  Q_SUM_XY, Q_SUM_YY, Q_TRACK_ID, Q_PARENT_ID, Q_TRACK_AGE, Q_FRAMES_UNSEEN,
  Q_VELOCITY_X, Q_VELOCITY_Y, Q_PREDICTED_X, Q_PREDICTED_Y, Q_PREDICTED_WIDTH,
  Q_PREDICTED_HEIGHT, N_QUARKS
};

static GQuark roi_quarks[N_QUARKS];

static void
intern_roi_quarks (void)
{
  static const gchar *names[N_QUARKS] = { GST_CUDA_CCL_ROI_TYPE, "label", "area",
    "centroid-x", "centroid-y", "sum-x", "sum-y", "sum-xx", "sum-xy", "sum-yy",
    "track-id", "parent-id", "track-age", "frames-unseen", "velocity-x",
    "velocity-y", "predicted-x", "predicted-y", "predicted-width",
    "predicted-height"
  };
  static gsize done = 0;

  if (g_once_init_enter (&done)) {
    guint i;

    for (i = 0; i < N_QUARKS; i++)
      roi_quarks[i] = g_quark_from_static_string (names[i]);
    g_once_init_leave (&done, 1);
  }
}

/* A GstCclBlob field as the ROI metas' "cudaccl-blob" parameters and the
 * messages carry it: its name, the GstCclBlobProperties group that fills it
 * (0: the shape from the moments, always there), where it lies and its type. */
typedef struct
{
  const gchar *name;
  guint group;
  gsize offset;
  GType type;
} BlobField;

#define BLOB_DOUBLE(name, group, field) \
  { name, group, G_STRUCT_OFFSET (GstCclBlob, field), G_TYPE_DOUBLE }
#define BLOB_CHANNEL(name, k) \
  { name, GST_CCL_BLOB_PROPERTIES_COLOR, \
    G_STRUCT_OFFSET (GstCclBlob, color_mean) + (k) * sizeof (gdouble), G_TYPE_DOUBLE }

static const BlobField blob_fields[] = {
  BLOB_DOUBLE ("intensity-mean", GST_CCL_BLOB_PROPERTIES_INTENSITY, intensity_mean),
  BLOB_DOUBLE ("intensity-std", GST_CCL_BLOB_PROPERTIES_INTENSITY, intensity_std),
  BLOB_DOUBLE ("intensity-min", GST_CCL_BLOB_PROPERTIES_INTENSITY, intensity_min),
  BLOB_DOUBLE ("intensity-max", GST_CCL_BLOB_PROPERTIES_INTENSITY, intensity_max),
  BLOB_CHANNEL ("color-mean-0", 0),
  BLOB_CHANNEL ("color-mean-1", 1),
  BLOB_CHANNEL ("color-mean-2", 2),
  BLOB_DOUBLE ("perimeter", GST_CCL_BLOB_PROPERTIES_PERIMETER, perimeter),
  BLOB_DOUBLE ("circularity", GST_CCL_BLOB_PROPERTIES_PERIMETER, circularity),
  { "euler-number", GST_CCL_BLOB_PROPERTIES_EULER,
    G_STRUCT_OFFSET (GstCclBlob, euler_number), G_TYPE_INT },
  BLOB_DOUBLE ("orientation", 0, orientation),
  BLOB_DOUBLE ("axis-major-length", 0, axis_major_length),
  BLOB_DOUBLE ("axis-minor-length", 0, axis_minor_length),
  BLOB_DOUBLE ("eccentricity", 0, eccentricity),
};

#define N_BLOB_FIELDS G_N_ELEMENTS (blob_fields)

/* Their names as quarks, and the blob parameters' name, interned once. */
static GQuark blob_quarks[N_BLOB_FIELDS];
static GQuark blob_type_quark, blob_properties_quark;

static void
intern_blob_quarks (void)
{
  static gsize done = 0;

  if (g_once_init_enter (&done)) {
    guint i;

    for (i = 0; i < N_BLOB_FIELDS; i++)
      blob_quarks[i] = g_quark_from_static_string (blob_fields[i].name);
    blob_type_quark = g_quark_from_static_string (GST_CUDA_CCL_BLOB_PARAMS);
    blob_properties_quark = g_quark_from_static_string ("properties");
    g_once_init_leave (&done, 1);
  }
}

/* Whether a frame whose blobs hold the groups `properties` carries field f. */
static gboolean
blob_field_present (const BlobField * f, guint properties)
{
  return f->group == 0 || (properties & f->group) != 0;
}

/* v (unset) := field f of blob. */
static void
blob_field_value (const GstCclBlob * blob, const BlobField * f, GValue * v)
{
  const guint8 *at = (const guint8 *) blob + f->offset;

  g_value_init (v, f->type);
  if (f->type == G_TYPE_INT)
    g_value_set_int (v, *(const gint32 *) at);
  else
    g_value_set_double (v, *(const gdouble *) at);
}

/* The ROI meta's "cudaccl-blob" parameters: which groups are filled
 * ("properties", GstCclBlobProperties) and their fields, the shape's always. */
static GstStructure *
blob_params (const GstCclBlob * blob)
{
  GstStructure *s = gst_structure_new_id (blob_type_quark,
      blob_properties_quark, GST_TYPE_CCL_BLOB_PROPERTIES, blob->properties,
      NULL);
  guint i;

  for (i = 0; i < N_BLOB_FIELDS; i++) {
    /* A fresh GValue per take: a taken one may be poisoned. */
    GValue v = G_VALUE_INIT;

    if (!blob_field_present (&blob_fields[i], blob->properties))
      continue;
    blob_field_value (blob, &blob_fields[i], &v);
    gst_structure_id_take_value (s, blob_quarks[i], &v);
  }
  return s;
}

/**
 * gst_cuda_ccl_report_add_roi_metas:
 * @buf: a writable frame
 * @report: the components reported for it
 *
 * Attaches one #GstVideoRegionOfInterestMeta of type "ccl-component" per
 * component the report picked (the largest max-roi-metas of the reported ones, in
 * the order they are reported in), its params structure holding label, area,
 * centroid and raw moments, and with tracking the track's fields. The meta's id is
 * the track id (its low 31 bits: the field is a gint) with tracking, the label
 * without. With blob analysis a second parameter structure, "cudaccl-blob",
 * holds the component's #GstCclBlob fields.
 */
void
gst_cuda_ccl_report_add_roi_metas (GstBuffer * buf, const CclReport * report)
{
  const GQuark *q = roi_quarks;
  guint i;

  intern_roi_quarks ();
  intern_blob_quarks ();
  for (i = 0; i < report->n_roi; i++) {
    const guint index = report->roi_indices ? report->roi_indices[i] : i;
    const GstCclComponent *c = &report->components[index];
    GstVideoRegionOfInterestMeta *roi;
    GstStructure *params;

    roi = gst_buffer_add_video_region_of_interest_meta_id (buf, q[Q_TYPE],
        c->x, c->y, c->width, c->height);
    roi->id = report->tracking ? (gint) (c->track_id & G_MAXINT) : (gint) c->label;
    params = gst_structure_new_id (q[Q_TYPE],
        q[Q_LABEL], G_TYPE_UINT, c->label,
        q[Q_AREA], G_TYPE_UINT64, c->area,
        q[Q_CENTROID_X], G_TYPE_DOUBLE, c->centroid_x,
        q[Q_CENTROID_Y], G_TYPE_DOUBLE, c->centroid_y,
        q[Q_SUM_X], G_TYPE_UINT64, c->sum_x,
        q[Q_SUM_Y], G_TYPE_UINT64, c->sum_y,
        q[Q_SUM_XX], G_TYPE_UINT64, c->sum_xx,
        q[Q_SUM_XY], G_TYPE_UINT64, c->sum_xy,
        q[Q_SUM_YY], G_TYPE_UINT64, c->sum_yy, NULL);
    if (report->tracking)
      gst_structure_id_set (params,
          q[Q_TRACK_ID], G_TYPE_UINT64, c->track_id,
          q[Q_PARENT_ID], G_TYPE_UINT64, c->parent_id,
          q[Q_TRACK_AGE], G_TYPE_UINT, c->track_age,
          q[Q_FRAMES_UNSEEN], G_TYPE_UINT, c->frames_unseen,
          q[Q_VELOCITY_X], G_TYPE_DOUBLE, c->velocity_x,
          q[Q_VELOCITY_Y], G_TYPE_DOUBLE, c->velocity_y,
          q[Q_PREDICTED_X], G_TYPE_INT, c->predicted_x,
          q[Q_PREDICTED_Y], G_TYPE_INT, c->predicted_y,
          q[Q_PREDICTED_WIDTH], G_TYPE_INT, c->predicted_width,
          q[Q_PREDICTED_HEIGHT], G_TYPE_INT, c->predicted_height, NULL);
    gst_video_region_of_interest_meta_add_param (roi, params);
    if (report->blobs)
      gst_video_region_of_interest_meta_add_param (roi,
          blob_params (&report->blobs[index]));
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

/* The message's blob fields: "blob-properties" and a list per field, aligned
 * with "label" (empty when nothing is reported). */
static void
add_blob_arrays (GstStructure * s, const CclReport * report)
{
  const guint n = report->blobs ? report->n_components : 0;
  guint f, i;

  intern_blob_quarks ();
  gst_structure_set (s, "blob-properties", GST_TYPE_CCL_BLOB_PROPERTIES,
      report->blob_properties, NULL);
  for (f = 0; f < N_BLOB_FIELDS; f++) {
    GValue array = G_VALUE_INIT;

    if (!blob_field_present (&blob_fields[f], report->blob_properties))
      continue;
    gst_value_array_init (&array, n);
    for (i = 0; i < n; i++) {
      GValue v = G_VALUE_INIT;

      blob_field_value (&report->blobs[i], &blob_fields[f], &v);
      gst_value_array_append_and_take_value (&array, &v);
    }
    gst_structure_id_take_value (s, blob_quarks[f], &array);
  }
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
 * frame size, counts, threshold used, whether tracking is on, and one list per
 * component field (label, bbox, area, centroid, and with tracking track id,
 * parent id, track age and velocity), so that gst-launch-1.0 -m prints them.
 * With blob analysis also "blob-properties" (the groups filled) and one list
 * per #GstCclBlob field of those groups and of the shape.
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
  { LABEL, BOX_X, BOX_Y, BOX_W, BOX_H, AREA, CX, CY, N_PLAIN,
    TRACK = N_PLAIN, PARENT, AGE, VX, VY, N_FIELDS
  };
  static const gchar *names[N_FIELDS] = { "label", "bbox-x", "bbox-y",
    "bbox-width", "bbox-height", "area", "centroid-x", "centroid-y",
    "track-id", "parent-id", "track-age", "velocity-x", "velocity-y"
  };
  const guint n_fields = report->tracking ? N_FIELDS : N_PLAIN;
  GValue arrays[N_FIELDS] = { G_VALUE_INIT, };

  for (i = 0; i < n_fields; i++)
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
    if (!report->tracking)
      continue;
    append_value (&arrays[TRACK], G_TYPE_UINT64, c->track_id);
    append_value (&arrays[PARENT], G_TYPE_UINT64, c->parent_id);
    append_value (&arrays[AGE], G_TYPE_UINT, c->track_age);
    append_value (&arrays[VX], G_TYPE_DOUBLE, c->velocity_x);
    append_value (&arrays[VY], G_TYPE_DOUBLE, c->velocity_y);
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
      "threshold", G_TYPE_UINT, report->threshold,
      "tracking", G_TYPE_BOOLEAN, report->tracking, NULL);
  for (i = 0; i < n_fields; i++)
    gst_structure_take_value (s, names[i], &arrays[i]);
  if (report->with_blobs)
    add_blob_arrays (s, report);

  return gst_message_new_element (src, s);
}

