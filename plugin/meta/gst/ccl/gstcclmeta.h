/* cudaccl: connected-component metadata attached to video buffers.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_CCL_META_H__
#define __GST_CCL_META_H__

#include <gst/gst.h>
#include <gst/ccl/ccl-prelude.h>

G_BEGIN_DECLS

/**
 * GstCclAlgorithm:
 * @GST_CCL_ALGORITHM_HA4: the segment based labeling of Hennequin et al. (HA4;
 *   its 8-connected extension HA8 when connectivity is 8)
 * @GST_CCL_ALGORITHM_KOMURA: Komura equivalence (KE; the 8-connected form of
 *   Allegretti et al. when connectivity is 8)
 *
 * The labeling algorithm that produced a #GstCclMeta. Every algorithm yields
 * the same labels and features; the value only documents how they were found.
 */
typedef enum {
  GST_CCL_ALGORITHM_HA4 = 0,
  GST_CCL_ALGORITHM_KOMURA = 1,
} GstCclAlgorithm;

#define GST_TYPE_CCL_ALGORITHM (gst_ccl_algorithm_get_type ())
GST_CCL_API
GType gst_ccl_algorithm_get_type (void);

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
 *
 * One connected component of a frame. Coordinates are pixel indices of the
 * frame described by the #GstCclMeta holding it; the sums are the raw moments
 * of order one and two, from which gst_ccl_component_get_central_moments(),
 * gst_ccl_component_get_orientation() and gst_ccl_component_get_axis_lengths()
 * derive the shape.
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
 *   max-components capped them. Bindings read them with
 *   gst_ccl_meta_get_components() or gst_ccl_meta_get_component().
 * @threshold: the threshold level actually used, 0..255 (Otsu's level when
 *   the element computed it)
 * @algorithm: the labeling algorithm
 * @connectivity: 4 or 8
 * @gpu_time: GPU time spent on the frame (upload, labeling, features, overlay,
 *   download), or %GST_CLOCK_TIME_NONE when the frame was labeled on the CPU
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

G_END_DECLS

#endif /* __GST_CCL_META_H__ */
