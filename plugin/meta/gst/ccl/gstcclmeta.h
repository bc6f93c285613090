/* cudaccl: connected-component metadata attached to video buffers.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_CCL_META_H__
#define __GST_CCL_META_H__

#include <gst/gst.h>
#include <gst/ccl/ccl-prelude.h>
/* GstCclAlgorithm, generated from the engine's registry of algorithms. */
#include <gst/ccl/gstcclalgorithm.h>

G_BEGIN_DECLS

/**
 * GstCclComponent:
 * @label: the component's label, 1..N in raster order of its first pixel
 *   (top-most row, then left-most column)
 * @x: left column of the bounding box
 * @y: top row of the bounding box
 * @width: width of the bounding box in pixels
 * @height: height of the bounding box in pixels
 * @area: number of pixels
 * @sum_x: sum of the column indices of the component's pixels
 * @sum_y: sum of the row indices
 * @sum_xx: sum of x * x
 * @sum_xy: sum of x * y
 * @sum_yy: sum of y * y
 * @centroid_x: @sum_x / @area
 * @centroid_y: @sum_y / @area
 * @track_id: the persistent id of the component's track, 1, 2, ... in order
 *   of the tracks' birth; 0 when the element's tracking is off (the meta's
 *   tracking field is %FALSE). Unique within a stream, never reused, and
 *   deterministic: the same frames and settings give the same ids on every
 *   run, backend and algorithm. Tracks end on a flush, a new stream-start and
 *   a change of frame size; after a flush or a size change the numbering
 *   continues (no id comes back), after a stream-start it begins again at 1.
 * @parent_id: the track this one split off from (its largest part keeps the
 *   parent's id), or 0 when it did not split off from one
 * @track_age: frames since the track began, this one included (1 for a new
 *   track)
 * @frames_unseen: frames the track went unseen right before this one (0 when
 *   it was seen in the previous frame; above 0 when it came back after being
 *   lost or merged into another component)
 * @velocity_x: smoothed velocity of the track along the columns, in pixels per
 *   frame
 * @velocity_y: smoothed velocity along the rows, in pixels per frame
 * @predicted_x: left column of the bounding box the track is expected to have
 *   in the next frame (this frame's box moved by the velocity; it may reach
 *   outside the frame, so it can be negative)
 * @predicted_y: top row of the predicted bounding box
 * @predicted_width: width of the predicted bounding box
 * @predicted_height: height of the predicted bounding box
 *
 * One connected component of a frame. Coordinates are pixel indices of the
 * frame described by the #GstCclMeta holding it; the sums are the raw moments
 * of order one and two, from which gst_ccl_component_get_central_moments(),
 * gst_ccl_component_get_orientation() and gst_ccl_component_get_axis_lengths()
 * derive the shape. The track fields (@track_id to @predicted_height) are
 * filled when the element tracks components, and are all 0 otherwise.
 */
typedef struct {
  guint32 label;
  gint32 x;
  gint32 y;
  gint32 width;
  gint32 height;
  guint64 area;
  guint64 sum_x;
  guint64 sum_y;
  guint64 sum_xx;
  guint64 sum_xy;
  guint64 sum_yy;
  gdouble centroid_x;
  gdouble centroid_y;
  guint64 track_id;
  guint64 parent_id;
  guint32 track_age;
  guint32 frames_unseen;
  gdouble velocity_x;
  gdouble velocity_y;
  gint32 predicted_x;
  gint32 predicted_y;
  gint32 predicted_width;
  gint32 predicted_height;
} GstCclComponent;

#define GST_TYPE_CCL_COMPONENT (gst_ccl_component_get_type ())
GST_CCL_API
GType gst_ccl_component_get_type (void);

GST_CCL_API
GstCclComponent * gst_ccl_component_copy (const GstCclComponent * component);

GST_CCL_API
void gst_ccl_component_free (GstCclComponent * component);

GST_CCL_API
void gst_ccl_component_get_centroid (const GstCclComponent * component,
    gdouble * x, gdouble * y);

GST_CCL_API
void gst_ccl_component_get_central_moments (const GstCclComponent * component,
    gdouble * mu20, gdouble * mu11, gdouble * mu02);

GST_CCL_API
gdouble gst_ccl_component_get_orientation (const GstCclComponent * component);

GST_CCL_API
void gst_ccl_component_get_axis_lengths (const GstCclComponent * component,
    gdouble * major, gdouble * minor);

typedef struct _GstCclMeta GstCclMeta;

/**
 * GstCclMeta:
 * @meta: parent #GstMeta
 * @width: width of the frame the coordinates refer to
 * @height: height of the frame the coordinates refer to
 * @total_count: number of components found in the frame
 * @n_components: number of components reported in @components (after the
 *   element's min-area and max-components)
 * @components: (type gpointer): the reported components, @n_components of
 *   them; in label order, or largest first (ties by label) when
 *   max-components capped them. One block owned by the meta, which frees it
 *   with g_free(). Bindings read them with
 *   gst_ccl_meta_get_components() or gst_ccl_meta_get_component().
 * @threshold: the threshold level actually used, 0..255 (Otsu's level when
 *   the element computed it)
 * @algorithm: the labeling algorithm
 * @connectivity: 4 or 8
 * @gpu_time: GPU time spent on the frame (upload, labeling, features, overlay,
 *   download), or %GST_CLOCK_TIME_NONE when the frame was labeled on the CPU
 * @tracking: %TRUE when the track fields of @components (track_id,
 *   parent_id, track_age, frames_unseen, velocity and predicted box) are
 *   filled; %FALSE when the element's tracking is off and they are all 0
 *
 * Connected components of a video frame, attached by the cudaccl element.
 */
struct _GstCclMeta {
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

  /*< private >*/
  gpointer _gst_reserved[GST_PADDING];
};

/**
 * GST_CCL_META_API_TYPE:
 *
 * The #GType of the #GstCclMeta API.
 */
#define GST_CCL_META_API_TYPE (gst_ccl_meta_api_get_type ())

/**
 * GST_CCL_META_INFO:
 *
 * The #GstMetaInfo of #GstCclMeta.
 */
#define GST_CCL_META_INFO (gst_ccl_meta_get_info ())

GST_CCL_API
GType gst_ccl_meta_api_get_type (void);

GST_CCL_API
const GstMetaInfo * gst_ccl_meta_get_info (void);

GST_CCL_API
GstCclMeta * gst_ccl_meta_get (GstBuffer * buffer);

GST_CCL_API
GstCclMeta * gst_ccl_meta_add (GstBuffer * buffer, guint width, guint height,
    guint total_count, const GstCclComponent * components, guint n_components);

GST_CCL_API
GstCclMeta * gst_ccl_buffer_get_meta (GstBuffer * buffer);

GST_CCL_API
const GstCclComponent * gst_ccl_meta_get_component (const GstCclMeta * meta,
    guint index);

GST_CCL_API
const GstCclComponent * gst_ccl_meta_get_components (const GstCclMeta * meta,
    guint * n_components);

GST_CCL_API
const GstCclComponent * gst_ccl_meta_iterate (const GstCclMeta * meta,
    gpointer * state);

GST_CCL_API
const GstCclComponent * gst_ccl_meta_find_track (const GstCclMeta * meta,
    guint64 track_id);

G_END_DECLS

#endif /* __GST_CCL_META_H__ */
