/* cudaccl: the labeling backends (CPU through OpenCV, CUDA through the engine)
 * behind a small C interface, so that the element stays plain GObject C.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __CCL_BACKEND_H__
#define __CCL_BACKEND_H__

#include <gst/gst.h>
#include <gst/video/video.h>
#include <gst/ccl/gstcclmeta.h>

G_BEGIN_DECLS

typedef struct _CclBackend CclBackend;

typedef enum {
  CCL_BACKEND_CPU,
  CCL_BACKEND_CUDA,
} CclBackendKind;

typedef enum {
  CCL_THRESHOLD_ABOVE,
  CCL_THRESHOLD_BELOW,
  CCL_THRESHOLD_OTSU,
} CclThresholdMode;

/* What decides which pixels are foreground (ccl::ForegroundModel). */
typedef enum {
  CCL_FOREGROUND_THRESHOLD,
  CCL_FOREGROUND_BACKGROUND,
  CCL_FOREGROUND_LOCAL,
  CCL_FOREGROUND_COLOR,
} CclForegroundModel;

/* Overlay flags, identical to GstCudaCclOverlay. */
typedef enum {
  CCL_OVERLAY_FILL = 1 << 0,
  CCL_OVERLAY_BOXES = 1 << 1,
  CCL_OVERLAY_CENTROIDS = 1 << 2,
  CCL_OVERLAY_TRAILS = 1 << 3,
  CCL_OVERLAY_FOREGROUND = 1 << 4,
  CCL_OVERLAY_EVENTS = 1 << 5,
} CclOverlayFlags;

/* The errors of the functions below (GError domain CCL_BACKEND_ERROR): what went
 * wrong, so that the element posts the matching GStreamer error class. The
 * message says the rest (a CUDA failure names the CUDA error and the call). */
#define CCL_BACKEND_ERROR (ccl_backend_error_quark ())
GQuark ccl_backend_error_quark (void);

typedef enum {
  /* anything else: a fault of the backend itself */
  CCL_BACKEND_ERROR_FAILED,
  /* settings the engine refuses (threshold, connectivity, algorithm, ...) */
  CCL_BACKEND_ERROR_SETTINGS,
  /* a frame or format that cannot be labeled (size, stride, memory, format) */
  CCL_BACKEND_ERROR_INPUT,
  /* no usable CUDA device: no driver, no device, or a build without CUDA */
  CCL_BACKEND_ERROR_NO_DEVICE,
  /* a CUDA call failed (the message names the CUDA error) */
  CCL_BACKEND_ERROR_CUDA,
  /* host or device memory ran out */
  CCL_BACKEND_ERROR_NO_MEMORY,
} CclBackendError;

/* Centroids a track's trail remembers (overlay=trails). */
#define CCL_TRAIL_LENGTH 32

/* What ccl_backend_reset_tracks() forgets. */
typedef enum {
  /* every track ends; ids go on counting (a flush or a new frame size) */
  CCL_TRACKS_END,
  /* every track ends and ids start again at 1 (a new stream) */
  CCL_TRACKS_NEW_STREAM,
} CclTrackReset;

/* One frame's settings, snapshot of the element's properties. */
typedef struct {
  guint threshold;
  CclThresholdMode threshold_mode;
  guint connectivity;
  GstCclAlgorithm algorithm;
  guint min_area;
  guint max_area;  /* 0: no limit */
  guint max_components;
  CclForegroundModel foreground;
  /* the background model's (foreground == CCL_FOREGROUND_BACKGROUND) */
  guint history;
  gdouble learning_rate;
  gdouble variance_threshold;
  gboolean detect_shadows;
  gboolean light_compensation;  /* follow global changes of light */
  /* the local threshold's (CCL_FOREGROUND_LOCAL): side of the window whose mean,
   * less offset, is a pixel's level (odd, 3..255) */
  gint block_size;
  gdouble offset;
  /* the color range's (CCL_FOREGROUND_COLOR): inclusive H (0..179), S and V
   * (0..255) bounds, OpenCV's 8-bit HSV; a hue low above high wraps around red */
  gint color_low[3];
  gint color_high[3];
  /* cleanup of the mask, for every model; 0: off */
  guint open_radius;
  guint close_radius;
  /* pieces whose boxes come within this many pixels are one component; -1: off */
  gint group_gap;
  /* blob analysis: the GstCclBlobProperties groups computed (ccl::Options::
   * properties), and the blob filters, inclusive, a max of 0 no limit */
  guint blob_properties;
  gdouble min_circularity, max_circularity;
  gdouble min_intensity, max_intensity;
  gdouble min_eccentricity, max_eccentricity;
  guint overlay;
  gdouble overlay_alpha;
  gboolean tracking;
  guint track_max_lost;
  guint max_roi_metas;
  /* keep the label image of the frame for ccl_backend_write_mask() */
  gboolean analytics_mask;
} CclSettings;

/* What a frame gave. components (transfer full, g_free) is one block the frame's
 * GstCclMeta can take as its own; with tracking their track fields are set.
 * blobs (transfer full, g_free, the same way): one per component, in their
 * order, with blob analysis (blob properties or a blob filter set); NULL
 * without, or when no component is reported. */
typedef struct {
  gboolean tracking;
  guint total_count;
  guint n_components;
  GstCclComponent *components;
  /* with_blobs: blob analysis ran on the frame; blob_properties: the
   * GstCclBlobProperties groups each blob holds (those asked for and those a
   * filter read) */
  gboolean with_blobs;
  guint blob_properties;
  GstCclBlob *blobs;
  guint threshold;
  GstClockTime gpu_time;
  /* Host wall time of the frame's steps in ns (for the debug log): labeling (the GPU
   * wait included), the metadata entries, tracking, drawing, the ROI pick. */
  guint64 step_ns[5];
  /* The components that get a ROI meta: the settings->max_roi_metas largest (area,
   * then label), as indices into components in ascending order; NULL when every
   * reported component does (n_roi == n_components). */
  const guint *roi_indices;
  guint n_roi;
  /* ccl_backend_process() left the drawing to ccl_backend_draw() */
  gboolean draws;
} CclReport;

/* Whether a component whose centroid is (x, y) is reported: the element's zone
 * filter, asked once per component that the settings report. */
typedef gboolean (*CclKeepFunc) (gdouble x, gdouble y, gpointer user_data);

/* Shapes drawn over the marks by ccl_backend_draw() (the lines and zones of
 * overlay=events): an opaque list the caller fills through its own C++ helper
 * (cclevents.h), NULL for none. */
typedef struct _CclShapes CclShapes;

/* Most pixels a frame may have (ccl::kMaxPixels: W*H < 2^31). */
#define CCL_MAX_PIXELS G_GINT64_CONSTANT (2147483647)

/* The overlay flags that draw something: settings->overlay without fill when
 * overlay_alpha makes it transparent. 0: the frame is only read. */
guint ccl_settings_overlay_flags (const CclSettings * settings);

/* The pixel formats the backends take (the element's caps). */
gboolean ccl_backend_supports_format (GstVideoFormat format);

/* Whether CUDA device device_id (-1: default) can run the engine; otherwise
 * FALSE with the reason in *error (CCL_BACKEND_ERROR_NO_DEVICE). */
gboolean ccl_backend_cuda_usable (gint device_id, GError ** error);

/* A CUDA backend works in the CUDA context current on the calling thread (the
 * element's GstCudaContext): create, configure, process and free it there. */
CclBackend *ccl_backend_new (CclBackendKind kind, gint device_id,
    GError ** error);
CclBackendKind ccl_backend_get_kind (const CclBackend * backend);
void ccl_backend_free (CclBackend * backend);
const gchar *ccl_backend_get_name (const CclBackend * backend);

/* Sizes the scratch memory for frames of info (again on every caps change). */
gboolean ccl_backend_configure (CclBackend * backend, const GstVideoInfo * info,
    GError ** error);

/* Ends the tracks of the frames processed so far (the backend's tracker lives as
 * long as the backend: from start to stop). */
void ccl_backend_reset_tracks (CclBackend * backend, CclTrackReset how);

/* The foreground model forgets what it learned: the next frame is its new
 * background. The element calls it where the tracks end (flush, stream-start);
 * a new frame size or format resets it by itself (at its first frame). */
gboolean ccl_backend_reset_foreground (CclBackend * backend, GError ** error);

/* A region mask decoded from an image file (mask-location): width x height
 * bytes, 0 where no pixel may be foreground, 1 elsewhere. */
typedef struct {
  gint width;
  gint height;
  guint8 *pixels;
} CclRegion;

/* Pixels where region is 0 are never foreground, whatever the model; NULL clears
 * it. The region must have the configured frame size. */
gboolean ccl_backend_set_region (CclBackend * backend, const CclRegion * region,
    GError ** error);

/* Labels the mapped frame: its reported components (settings' selection, then
 * keep when not NULL) with their tracks into report. device_memory: the frame
 * was mapped with GST_MAP_CUDA, so its plane pointers are device addresses in
 * the current CUDA context (CUDA backend only; labeled where they are, no copy).
 * On failure returns FALSE with *error set. With settings->tracking every
 * reported component gets its track (overlay colors follow the track ids);
 * without, the tracks end and the track fields stay 0. When report->draws is
 * set, ccl_backend_draw() must follow on the same mapped frame (mapped
 * writable), before the next frame. */
gboolean ccl_backend_process (CclBackend * backend, GstVideoFrame * frame,
    gboolean device_memory, const CclSettings * settings, CclKeepFunc keep,
    gpointer keep_data, CclReport * report, GError ** error);

/* Draws the overlay of settings->overlay into the frame ccl_backend_process()
 * labeled, with shapes over it, and adds the drawing's GPU time to report. On
 * failure returns FALSE with *error set; a host frame's pixels are then
 * untouched. */
gboolean ccl_backend_draw (CclBackend * backend, GstVideoFrame * frame,
    gboolean device_memory, const CclSettings * settings,
    const CclShapes * shapes, CclReport * report, GError ** error);

/* After ccl_backend_process() with settings->analytics_mask: writes the
 * reported components of the frame into mask, the width x height rectangle of
 * the frame at (x, y), bytes_per_pixel 1 or 2 (native endian), rows stride
 * bytes apart. A pixel of reported component i (or of a piece of its group)
 * holds ids[i], any other pixel 0; ids must fit bytes_per_pixel. */
gboolean ccl_backend_write_mask (CclBackend * backend, const guint * ids,
    gint x, gint y, guint width, guint height, guint bytes_per_pixel,
    guint8 * mask, gsize stride, GError ** error);

G_END_DECLS

#endif /* __CCL_BACKEND_H__ */
