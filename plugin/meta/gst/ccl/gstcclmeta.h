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

/**
 * GstCclBlobProperties:
 * @GST_CCL_BLOB_PROPERTIES_NONE: no group: a #GstCclBlob then holds its shape
 *   alone (orientation, axis lengths, eccentricity: from the moments, always
 *   filled)
 * @GST_CCL_BLOB_PROPERTIES_INTENSITY: the luma of the component's pixels:
 *   intensity_mean, intensity_std, intensity_min, intensity_max
 * @GST_CCL_BLOB_PROPERTIES_COLOR: the mean of each channel: color_mean
 * @GST_CCL_BLOB_PROPERTIES_PERIMETER: perimeter and circularity
 * @GST_CCL_BLOB_PROPERTIES_EULER: the Euler number
 *
 * The groups of blob properties: what the cudaccl element's blob-properties
 * asks to be computed, and what a #GstCclBlob's properties field says is
 * filled. The values are the engine's (ccl::Property).
 *
 * Since: 0.3
 */
typedef enum {
  GST_CCL_BLOB_PROPERTIES_NONE = 0,
  GST_CCL_BLOB_PROPERTIES_INTENSITY = 1 << 0,
  GST_CCL_BLOB_PROPERTIES_COLOR = 1 << 1,
  GST_CCL_BLOB_PROPERTIES_PERIMETER = 1 << 2,
  GST_CCL_BLOB_PROPERTIES_EULER = 1 << 3,
} GstCclBlobProperties;

#define GST_TYPE_CCL_BLOB_PROPERTIES (gst_ccl_blob_properties_get_type ())
GST_CCL_API
GType gst_ccl_blob_properties_get_type (void);

/**
 * GstCclBlob:
 * @properties: the groups filled besides the shape; the fields of the others
 *   are 0
 * @euler_number: number of components (1) minus number of holes, with the
 *   labeling's connectivity (%GST_CCL_BLOB_PROPERTIES_EULER)
 * @intensity_mean: mean luma of the component's pixels, in the format's own
 *   range (0..255, 0..65535 for GRAY16_LE; BT.601 luma for RGB)
 *   (%GST_CCL_BLOB_PROPERTIES_INTENSITY)
 * @intensity_std: their population standard deviation (numpy's std)
 * @intensity_min: their smallest luma
 * @intensity_max: their largest luma
 * @color_mean: mean of each channel: R, G, B for the RGB formats, Y, U, V for
 *   NV12 and I420 (the chroma of the pixel's 2x2 site), the value three times
 *   for GRAY8 and GRAY16_LE (%GST_CCL_BLOB_PROPERTIES_COLOR)
 * @perimeter: scikit-image's perimeter (4-neighbourhood): the component's
 *   boundary pixels weighted by how their boundary neighbours lie
 *   (%GST_CCL_BLOB_PROPERTIES_PERIMETER)
 * @circularity: 4 pi area / perimeter^2: 0.9 to 0.95 for digital discs of
 *   radius 5 to 20 (above 1 for discs of a few pixels, whose perimeter comes
 *   out short), less for elongated or ragged shapes; 0 when the perimeter is 0
 * @orientation: scikit-image's orientation: the angle between the rows' axis
 *   (the 0th axis) and the major axis of the ellipse with the component's
 *   second moments, radians within [-pi/2, pi/2], counter-clockwise. It is
 *   not gst_ccl_component_get_orientation(), which measures from the x axis:
 *   a horizontal bar has 0 there and pi/2 here
 * @axis_major_length: full length of that ellipse's major axis in pixels
 * @axis_minor_length: full length of its minor axis
 * @eccentricity: sqrt (1 - minor eigenvalue / major eigenvalue) of the
 *   covariance: 0 for a disc, towards 1 for a line. OpenCV's blob detector
 *   filters on the inertia ratio instead, which is 1 - eccentricity^2
 *
 * The blob properties of one reported component, parallel to the
 * #GstCclMeta's components (gst_ccl_meta_get_blob()), as scikit-image's
 * regionprops defines them under the same names. The shape fields
 * (@orientation to @eccentricity) come from the component's moments and are
 * always filled; the others only for the groups in @properties.
 *
 * Since: 0.3
 */
typedef struct {
  GstCclBlobProperties properties;
  gint32 euler_number;
  gdouble intensity_mean;
  gdouble intensity_std;
  gdouble intensity_min;
  gdouble intensity_max;
  gdouble color_mean[3];
  gdouble perimeter;
  gdouble circularity;
  gdouble orientation;
  gdouble axis_major_length;
  gdouble axis_minor_length;
  gdouble eccentricity;

  /*< private >*/
  gpointer _gst_reserved[GST_PADDING];
} GstCclBlob;

#define GST_TYPE_CCL_BLOB (gst_ccl_blob_get_type ())
GST_CCL_API
GType gst_ccl_blob_get_type (void);

GST_CCL_API
GstCclBlob * gst_ccl_blob_copy (const GstCclBlob * blob);

GST_CCL_API
void gst_ccl_blob_free (GstCclBlob * blob);

/**
 * GstCclEventKind:
 * @GST_CCL_EVENT_KIND_LINE_FORWARD: a track crossed a counting line from its
 *   negative side to its positive one ("line-forward")
 * @GST_CCL_EVENT_KIND_LINE_BACKWARD: a track crossed a counting line from its
 *   positive side to its negative one ("line-backward")
 * @GST_CCL_EVENT_KIND_ZONE_ENTER: a track is inside a zone and was not in its
 *   previous report ("zone-enter")
 * @GST_CCL_EVENT_KIND_ZONE_EXIT: a track that was inside a zone is outside it,
 *   or was forgotten while inside ("zone-exit")
 * @GST_CCL_EVENT_KIND_ZONE_MAX: a zone's count rose above the most it may hold
 *   ("zone-max")
 *
 * What a #GstCclEvent reports. The nicks are the names the cudaccl element's
 * `cudaccl-event` messages give the events; the values are the engine's
 * (ccl::EventKind).
 *
 * Since: 0.4
 */
typedef enum {
  GST_CCL_EVENT_KIND_LINE_FORWARD = 0,
  GST_CCL_EVENT_KIND_LINE_BACKWARD = 1,
  GST_CCL_EVENT_KIND_ZONE_ENTER = 2,
  GST_CCL_EVENT_KIND_ZONE_EXIT = 3,
  GST_CCL_EVENT_KIND_ZONE_MAX = 4,
} GstCclEventKind;

#define GST_TYPE_CCL_EVENT_KIND (gst_ccl_event_kind_get_type ())
GST_CCL_API
GType gst_ccl_event_kind_get_type (void);

/**
 * GstCclEvent:
 * @kind: what happened
 * @index: the index of the counting line (line events) or of the zone (zone
 *   events) in the element's configuration
 * @track_id: the track, as the counter numbers it: the #GstCclComponent's
 *   track_id modulo 2^32 (the same id until a stream has had four billion
 *   tracks); 0 for %GST_CCL_EVENT_KIND_ZONE_MAX
 * @count: %GST_CCL_EVENT_KIND_ZONE_MAX: the zone's count in this frame;
 *   %GST_CCL_EVENT_KIND_ZONE_EXIT: the frames the track was reported inside
 *   the zone (its dwell); %GST_CCL_EVENT_KIND_ZONE_ENTER: 1; the line events: 0
 * @x: column of the track's centroid in this frame (for the exit of a track
 *   forgotten while inside, where it was last reported); 0 for
 *   %GST_CCL_EVENT_KIND_ZONE_MAX
 * @y: row of that centroid
 * @frame: the frame number of the event: frames counted since the counts
 *   were last reset, from 0
 * @running_time: the running time of the frame
 * @entry_time: the zone events: the running time of the frame the track
 *   entered the zone in (the dwell time of an exit is @running_time minus
 *   this); %GST_CLOCK_TIME_NONE for the other kinds
 *
 * One event of a frame's counting lines and zones: a crossing, an entry, an
 * exit or a zone holding more than it may. A frame's events are read with
 * gst_ccl_meta_get_events() and gst_ccl_meta_get_event().
 *
 * Since: 0.4
 */
typedef struct {
  GstCclEventKind kind;
  guint index;
  guint track_id;
  guint count;
  gdouble x;
  gdouble y;
  guint64 frame;
  GstClockTime running_time;
  GstClockTime entry_time;

  /*< private >*/
  gpointer _gst_reserved[GST_PADDING];
} GstCclEvent;

#define GST_TYPE_CCL_EVENT (gst_ccl_event_get_type ())
GST_CCL_API
GType gst_ccl_event_get_type (void);

GST_CCL_API
GstCclEvent * gst_ccl_event_copy (const GstCclEvent * event);

GST_CCL_API
void gst_ccl_event_free (GstCclEvent * event);

/**
 * GstCclEventCounts:
 * @n_lines: number of counting lines
 * @n_zones: number of zones
 * @n_events: number of events of the frame in @events
 * @line_forward: (type gpointer): per line, the tracks that crossed it
 *   forward since the counts were last reset; %NULL when @n_lines is 0
 * @line_backward: (type gpointer): per line, the tracks that crossed it
 *   backward since then; %NULL when @n_lines is 0
 * @zone_count: (type gpointer): per zone, the reported components inside it
 *   in this frame (tracked or not); %NULL when @n_zones is 0
 * @zone_entries: (type gpointer): per zone, the entries since the counts
 *   were last reset; %NULL when @n_zones is 0
 * @zone_exits: (type gpointer): per zone, the exits since then; %NULL when
 *   @n_zones is 0
 * @events: (type gpointer): the frame's events, in the order they happened;
 *   %NULL when @n_events is 0
 *
 * The counts of a frame's counting lines and zones, and its events, as a
 * #GstCclMeta holds them (its event_counts field). The struct and its arrays
 * are one block of memory: the arrays point into it, right after the struct,
 * so g_free() on the struct frees all of it, and a copy must be made with
 * gst_ccl_event_counts_copy(), never with a plain memcpy(). Bindings read the
 * counts with gst_ccl_meta_get_line_counts(),
 * gst_ccl_meta_get_zone_counts(), gst_ccl_meta_get_events() and
 * gst_ccl_meta_get_event().
 *
 * Since: 0.4
 */
typedef struct {
  guint n_lines;
  guint n_zones;
  guint n_events;
  guint64 *line_forward;
  guint64 *line_backward;
  guint *zone_count;
  guint64 *zone_entries;
  guint64 *zone_exits;
  GstCclEvent *events;

  /*< private >*/
  gpointer _gst_reserved[GST_PADDING];
} GstCclEventCounts;

#define GST_TYPE_CCL_EVENT_COUNTS (gst_ccl_event_counts_get_type ())
GST_CCL_API
GType gst_ccl_event_counts_get_type (void);

GST_CCL_API
GstCclEventCounts * gst_ccl_event_counts_copy (const GstCclEventCounts * counts);

GST_CCL_API
void gst_ccl_event_counts_free (GstCclEventCounts * counts);

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
 * @blobs: (type gpointer): the blob properties of the reported components,
 *   @n_components of them in the order of @components, or %NULL when the
 *   element computed none (its blob-properties and blob filters unset). One
 *   block owned by the meta, which frees it with g_free(). Bindings read
 *   them with gst_ccl_meta_get_blobs() or gst_ccl_meta_get_blob(); since 0.3
 * @event_counts: the counts of the element's counting lines and zones in
 *   this frame, and the frame's events, or %NULL when the element counts
 *   nothing (no lines and no zones configured). One block owned by the meta,
 *   which frees it with g_free(). Bindings read them with
 *   gst_ccl_meta_get_line_counts(), gst_ccl_meta_get_zone_counts(),
 *   gst_ccl_meta_get_events() and gst_ccl_meta_get_event(); since 0.4
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
  /* Taken from the padding (0.3): the struct keeps its size and layout. */
  GstCclBlob *blobs;
  /* Taken from the padding (0.4), as blobs was. */
  GstCclEventCounts *event_counts;

  /*< private >*/
  gpointer _gst_reserved[GST_PADDING - 2];
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

GST_CCL_API
const GstCclBlob * gst_ccl_meta_get_blob (const GstCclMeta * meta,
    guint index);

GST_CCL_API
const GstCclBlob * gst_ccl_meta_get_blobs (const GstCclMeta * meta,
    guint * n_blobs);

GST_CCL_API
gboolean gst_ccl_meta_set_blobs (GstCclMeta * meta, const GstCclBlob * blobs,
    guint n_blobs);

GST_CCL_API
const GstCclEventCounts * gst_ccl_meta_get_event_counts (const GstCclMeta * meta);

GST_CCL_API
gboolean gst_ccl_meta_set_event_counts (GstCclMeta * meta, guint n_lines,
    const guint64 * line_forward, const guint64 * line_backward,
    guint n_zones, const guint * zone_count, const guint64 * zone_entries,
    const guint64 * zone_exits, guint n_events, const GstCclEvent * events);

GST_CCL_API
guint gst_ccl_meta_get_n_lines (const GstCclMeta * meta);

GST_CCL_API
guint gst_ccl_meta_get_n_zones (const GstCclMeta * meta);

GST_CCL_API
gboolean gst_ccl_meta_get_line_counts (const GstCclMeta * meta, guint index,
    guint64 * forward, guint64 * backward);

GST_CCL_API
gboolean gst_ccl_meta_get_zone_counts (const GstCclMeta * meta, guint index,
    guint * count, guint64 * entries, guint64 * exits);

GST_CCL_API
const GstCclEvent * gst_ccl_meta_get_event (const GstCclMeta * meta,
    guint index);

GST_CCL_API
const GstCclEvent * gst_ccl_meta_get_events (const GstCclMeta * meta,
    guint * n_events);

G_END_DECLS

#endif /* __GST_CCL_META_H__ */
