/* cudaccl: connected-component labeling of video frames.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * SECTION:element-cudaccl
 * @title: cudaccl
 *
 * Finds each frame's foreground, by default by thresholding its luma (the Y
 * plane of YUV, BT.601 luma of RGB, the value of GRAY), or with a local
 * threshold, a color range or an adaptive model of the scene's background
 * (below), labels its connected components on an
 * NVIDIA GPU (or on the CPU through OpenCV) and attaches what it found to the
 * buffer as a #GstCclMeta: bounding box, area, first and second raw moments
 * and centroid of each component. Optionally it also attaches one
 * #GstVideoRegionOfInterestMeta per component, posts a per-frame element
 * message and draws a colored overlay into the frame. Every backend and
 * algorithm gives identical labels and features; components are numbered in
 * raster order of their first pixel.
 *
 * With #GstCudaCcl:tracking (the default) every reported component also carries
 * the id of its track: the same object keeps the same id from frame to frame,
 * while it moves (faster than its own size too: tracks predict where they go),
 * is missed for up to #GstCudaCcl:track-max-lost frames, splits (the largest
 * part keeps the id, the others record it as their parent) or merges with
 * others (the merged component keeps the id of its largest part; the others
 * take theirs back when it splits again). Ids are 64-bit, never reused within a
 * stream and deterministic: the same frames and settings give the same ids on
 * every run, backend and algorithm. Tracks end on a flush, on stream-start (where
 * ids start again at 1) and when the frame size changes. The overlay colors
 * follow the track ids, and `overlay=trails` draws each track's recent path.
 *
 * ## Foreground models and cleanup
 *
 * #GstCudaCcl:foreground decides which pixels are labeled. `threshold` (the
 * default) compares each pixel's luma with one level per frame, fixed or Otsu's.
 * `background` keeps an adaptive model of the scene instead: each pixel holds a
 * few modes (a mean color and a spread each) weighted by how often the pixel was
 * seen there, and a pixel that matches none of the modes making up the background
 * is foreground, whatever its brightness. That finds moving objects in front of a
 * textured or unevenly lit scene, where one global level would label the scene
 * itself. Gray formats are modeled on their luma, YUV and RGB formats on their
 * three color channels, NV12 and I420 converted to R, G, B first (BT.601, limited
 * range), so that #GstCudaCcl:variance-threshold means the same in every color
 * format; with #GstCudaCcl:detect-shadows a pixel that is only a
 * darker version of the background's color is a shadow and not foreground. With
 * #GstCudaCcl:light-compensation (on by default) each frame's global light is
 * measured against the model, and when lights are switched on or the camera's
 * exposure jumps, the model follows at once instead of reporting the whole
 * scene as foreground. The
 * first frame after a start, a flush, stream-start or a new frame size is taken
 * as the background and gives no components. The model then learns each frame
 * with a weight of 1/(2n) at its n-th frame, so that it settles within a few
 * frames, down to 1/#GstCudaCcl:history from frame history/2 on
 * (#GstCudaCcl:learning-rate fixes the weight instead; 0 freezes the model after
 * its first frame). In its very first frames the model learns so fast that an
 * object entering then may already count as background: give it a few frames
 * of the empty scene.
 *
 * An object that stops joins the background after a while: the modes of the
 * background must hold 90 % of a pixel's weight, so the object's mode becomes
 * part of it once it holds more than 10 %. With the default history of 500 that
 * takes 56 frames (a little more than ln 0.9 / ln (1 - 1/500) = 53), sooner in the
 * model's first 250 frames; a longer history keeps still objects longer, a shorter
 * one forgets them sooner.
 *
 * `local` is a threshold for uneven light (a page under a lamp, a vignetted
 * microscope field, a board photographed at an angle), where one level for the
 * whole frame loses the dim part: each pixel's luma is compared with the mean
 * luma of the #GstCudaCcl:block-size x #GstCudaCcl:block-size window around it,
 * less #GstCudaCcl:offset. With #GstCudaCcl:threshold-mode `above` a pixel is
 * foreground when its luma is greater than that level, with `below` when it is at
 * or under it (`otsu` is an error). The mask is identical, pixel for pixel, to
 * cv::adaptiveThreshold (luma, 255, ADAPTIVE_THRESH_MEAN_C, THRESH_BINARY or
 * THRESH_BINARY_INV, block-size, offset), its rounding of the mean and its
 * repeated edge pixels included. A flat area lies at its own mean, so the sign of
 * the offset decides whether it is foreground: dark ink on paper takes
 * `threshold-mode=below` and a positive offset, bright objects `above` and a
 * negative one.
 *
 * `color` takes the pixels whose color, in OpenCV's 8-bit HSV (hue 0-179 in
 * degrees / 2, saturation and value 0-255), lies within #GstCudaCcl:color-low and
 * #GstCudaCcl:color-high, both included: the mask of cv::cvtColor to HSV (from
 * NV12 and I420 through OpenCV's own YUV to RGB conversion) followed by
 * cv::inRange. Each bound is three integers, written `color-low="<H,S,V>"` on a
 * gst-launch line; a hue range whose low end is above its high end wraps around
 * red (`<170,...>` to `<10,...>` takes hues 170-179 and 0-10). Gray frames have no
 * color: with `foreground=color`, GRAY8 and GRAY16_LE are refused when the caps
 * are set, with an error naming the format.
 *
 * Before labeling, for every model, the foreground mask can be cleaned:
 * #GstCudaCcl:open-radius removes specks and thin lines narrower than a
 * (2r+1) x (2r+1) square, #GstCudaCcl:close-radius then fills gaps and holes
 * that narrow, so that one object is one component. #GstCudaCcl:mask-location
 * names a PGM or PNG image of the frame's size whose black pixels are never
 * foreground (a road's edges, a timestamp burnt into the picture).
 * #GstCudaCcl:group-gap reports pieces whose boxes come within that many pixels
 * of each other as one component (the box, area and moments of their union), so
 * that a person whose legs, torso and head separate from each other in the mask
 * stays one object with one track; #GstCudaCcl:min-area and #GstCudaCcl:max-area
 * then apply to the groups.
 * #GstCudaCcl:max-area leaves components larger than a limit out (a global
 * lighting change), as #GstCudaCcl:min-area leaves out small ones, and
 * `overlay=foreground` tints every foreground pixel, reported or not, so that the
 * settings can be tuned by eye:
 * |[
 * gst-launch-1.0 filesrc location=street.mp4 ! decodebin ! videoconvert ! cudaccl foreground=background close-radius=2 min-area=50 overlay=boxes+trails+foreground ! videoconvert ! autovideosink
 * ]| Follows the moving objects of a street scene, showing what the model
 * takes for foreground.
 * |[
 * gst-launch-1.0 filesrc location=street.mp4 ! decodebin ! cudaccl foreground=background close-radius=2 group-gap=8 min-area=120 overlay=boxes+trails ! videoconvert ! autovideosink
 * ]| The decoder's NV12 as it comes, pieces of one person up to 8 pixels apart
 * reported as one object.
 * |[
 * gst-launch-1.0 filesrc location=street.mp4 ! decodebin ! videoconvert ! cudaccl foreground=background history=2000 detect-shadows=false open-radius=1 max-area=20000 mask-location=road.png overlay=fill ! videoconvert ! autovideosink
 * ]| A slower model that keeps still objects for about 200 frames, counting
 * shadows as foreground, without specks, ignoring what the mask hides and
 * anything larger than 20000 pixels.
 * |[
 * gst-launch-1.0 filesrc location=page.png ! pngdec ! videoconvert ! cudaccl foreground=local threshold-mode=below block-size=31 offset=10 overlay=fill ! videoconvert ! pngenc ! filesink location=labeled.png
 * ]| Labels the letters of a photographed page, also where the lamp's light
 * fades (with `threshold-mode=otsu` the dim part becomes one large component).
 * |[
 * gst-launch-1.0 v4l2src ! videoconvert ! cudaccl foreground=color color-low="<170,120,70>" color-high="<10,255,255>" open-radius=1 close-radius=2 min-area=200 overlay=boxes+trails ! videoconvert ! autovideosink
 * ]| Follows a red ball: hues 170-179 and 0-10 (red wraps around hue 0),
 * saturated and not too dark, without specks and with its highlights' gaps closed.
 *
 * ## Blob analysis
 *
 * #GstCudaCcl:blob-properties computes, for every reported component, what
 * scikit-image's regionprops calls intensity_mean, intensity_std,
 * intensity_min and intensity_max (of the luma, in the format's range), the
 * mean of each color channel, the perimeter, the circularity (4 pi area /
 * perimeter^2) and the Euler number, from exact integer sums, identical on the
 * GPU and the CPU. The #GstCclMeta then holds one #GstCclBlob per component
 * (with the shape from the moments: orientation, axis lengths,
 * eccentricity), the ROI metas a "cudaccl-blob" parameter structure and the
 * messages one list per field. #GstCudaCcl:min-circularity,
 * #GstCudaCcl:max-circularity, #GstCudaCcl:min-intensity,
 * #GstCudaCcl:max-intensity, #GstCudaCcl:min-eccentricity and
 * #GstCudaCcl:max-eccentricity leave components out as #GstCudaCcl:min-area
 * does (on the GPU, before max-components picks the largest); a max of 0 is
 * no limit.
 * |[
 * gst-launch-1.0 -m v4l2src ! videoconvert ! cudaccl blob-properties=intensity+perimeter min-area=30 min-circularity=0.8 max-eccentricity=0.6 post-messages=true overlay=boxes ! videoconvert ! autovideosink
 * ]| Finds round bright spots, leaving out bars and ragged shapes, and posts
 * their mean brightness and perimeter.
 *
 * ## Counting lines and zones
 *
 * #GstCudaCcl:lines are segments in pixels. A track crosses one when the step
 * from its centroid in its previous reported frame to this frame's meets the
 * segment; forward is from the line's left to its right, seen walking from its
 * first point to its second (y grows downwards). #GstCudaCcl:zones are polygons:
 * each frame counts the reported components whose centroid is inside, and the
 * tracks that enter and leave, with how long they stayed. Each frame's message
 * (#GstCudaCcl:post-messages) then carries the counts since the last reset (a
 * flush, a new stream, a change of lines or zones), and #GstCudaCcl:post-events
 * posts one "cudaccl-event" message per crossing, entry, exit and zone-max
 * (more components in a zone than #GstCudaCcl:zone-max allows). Crossings,
 * entries and exits need #GstCudaCcl:tracking.
 * |[
 * gst-launch-1.0 -m filesrc location=street.mp4 ! decodebin ! cudaccl foreground=background close-radius=2 min-area=200 lines="<<320,0,320,479>>" zones="<<400,300,639,300,639,479,400,479>>" zone-max="<3>" post-messages=true post-events=true ! fakesink
 * ]| Counts who walks across the middle of a 640x480 view, in each direction,
 * and who is in the lower right corner, and warns when more than 3 are there.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 videotestsrc pattern=ball ! cudaccl overlay=fill+boxes ! videoconvert ! autovideosink
 * ]| Outlines the moving ball.
 * |[
 * gst-launch-1.0 videotestsrc pattern=ball ! cudaccl overlay=boxes+trails track-max-lost=30 ! videoconvert ! autovideosink
 * ]| Follows the ball, drawing the path of its track.
 * |[
 * gst-launch-1.0 -m videotestsrc num-buffers=3 ! cudaccl post-messages=true ! fakesink
 * ]| Prints the components of three frames on the bus.
 * |[
 * gst-launch-1.0 filesrc location=clip.mp4 ! qtdemux ! h264parse ! nvh264dec ! cudaccl overlay=boxes ! cudadownload ! autovideosink
 * ]| Labels decoded frames where the decoder left them, in GPU memory.
 *
 * ## CUDA memory
 *
 * Both pads take `video/x-raw(memory:CUDAMemory)` as well as system memory, and
 * offer CUDA memory first, so that neighbours able to do both (cudaupload,
 * cudadownload, nvh264dec) keep the frames on the GPU. The element shares the
 * pipeline's #GstCudaContext with its neighbours through #GstContext queries and
 * messages (creating one on #GstCclCudaTransform:cuda-device-id when nobody has
 * one yet), labels and draws every frame inside it, and reads and writes
 * GstCudaMemory of that context in place: no copy of the image is made. It
 * proposes a CUDA buffer pool of the context to upstream when downstream offers
 * none. That part is the job of its base class, #GstCclCudaTransform.
 *
 * GRAY8 and GRAY16_LE come in system memory only: GStreamer 1.22's CUDA memory
 * cannot hold them.
 *
 * With `backend=cpu`, or when `backend=auto` fell back to the CPU, only system
 * memory is accepted: the CPU backend would otherwise download, and possibly
 * upload again, every frame behind the user's back. Put cudadownload before
 * cudaccl to label CUDA frames on the CPU.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudaccl.h"

#include <gst/video/gstvideometa.h>

/* CCL_CAPS_FEATURE_CUDA_MEMORY; the context itself is the base class's. */
#include "cudacontext.h"
#include "cclregion.h"
#include "gstcudacclreport.h"
#include "cclevents.h"
#ifdef HAVE_GST_ANALYTICS
#include "cclanalytics.h"
#endif

GST_DEBUG_CATEGORY_STATIC (gst_cuda_ccl_debug);
#define GST_CAT_DEFAULT gst_cuda_ccl_debug

#define DEFAULT_BACKEND GST_CUDA_CCL_BACKEND_AUTO
#define DEFAULT_ALGORITHM GST_CCL_ALGORITHM_UNION_FIND
#define DEFAULT_CONNECTIVITY GST_CUDA_CCL_CONNECTIVITY_8
#define DEFAULT_THRESHOLD 128
#define DEFAULT_THRESHOLD_MODE GST_CUDA_CCL_THRESHOLD_ABOVE
#define DEFAULT_MIN_AREA 1
#define DEFAULT_MAX_AREA 0
#define DEFAULT_FOREGROUND GST_CUDA_CCL_FOREGROUND_THRESHOLD
#define DEFAULT_HISTORY 500
#define MAX_HISTORY 100000
#define DEFAULT_LEARNING_RATE -1.0
#define DEFAULT_VARIANCE_THRESHOLD 16.0
#define DEFAULT_DETECT_SHADOWS TRUE
#define DEFAULT_OPEN_RADIUS 0
#define DEFAULT_CLOSE_RADIUS 0
#define DEFAULT_LIGHT_COMPENSATION TRUE
#define DEFAULT_GROUP_GAP -1
#define MAX_GROUP_GAP 1024
#define DEFAULT_BLOB_PROPERTIES GST_CCL_BLOB_PROPERTIES_NONE
/* The blob filters' ranges, ccl::validate's; a max of 0 is no limit. Digital
 * discs of a few pixels exceed a circularity of 1 (scikit-image's perimeter is
 * short there), hence no bound of 1. */
#define DEFAULT_BLOB_FILTER 0.0
#define MAX_CIRCULARITY 1e6
#define MAX_INTENSITY 65535.0
#define MAX_ECCENTRICITY 1.0
/* ccl::kMaxCleanupRadius */
#define MAX_CLEANUP_RADIUS 32
#define DEFAULT_MASK_LOCATION NULL
/* ccl::LocalOptions: an odd window side, as cv::adaptiveThreshold takes */
#define DEFAULT_BLOCK_SIZE 31
#define MIN_BLOCK_SIZE 3
#define MAX_BLOCK_SIZE 255
#define DEFAULT_OFFSET 10.0
#define MAX_OFFSET 255.0
/* ccl::ColorOptions: OpenCV's 8-bit HSV, hue in degrees / 2 */
#define MAX_HUE 179
#define MAX_SAT_VAL 255
static const gint default_color_low[3] = { 0, 0, 0 };
static const gint default_color_high[3] = { MAX_HUE, MAX_SAT_VAL, MAX_SAT_VAL };
/* Enough for what people track and count, and it keeps a noise frame's host work
 * (metadata, tracking: a few hundred ns per component) within a millisecond; the
 * selection runs on the GPU, so only what is reported costs on the host. */
#define DEFAULT_MAX_COMPONENTS 1024
#define DEFAULT_OVERLAY GST_CUDA_CCL_OVERLAY_NONE
#define DEFAULT_OVERLAY_ALPHA 0.5
#define DEFAULT_ROI_META TRUE
#define DEFAULT_ANALYTICS_META TRUE
#define DEFAULT_MAX_ROI_METAS 64
#define DEFAULT_POST_MESSAGES FALSE
#define DEFAULT_POST_EVENTS FALSE
#define DEFAULT_ZONE_FILTER GST_CUDA_CCL_ZONE_FILTER_NONE
#define DEFAULT_ANALYTICS_MASK FALSE
#define DEFAULT_TRACKING TRUE
#define DEFAULT_TRACK_MAX_LOST 15
#define MAX_TRACK_MAX_LOST 1000

enum
{
  PROP_0,
  PROP_BACKEND,
  PROP_ALGORITHM,
  PROP_CONNECTIVITY,
  PROP_THRESHOLD,
  PROP_THRESHOLD_MODE,
  PROP_MIN_AREA,
  PROP_MAX_COMPONENTS,
  PROP_OVERLAY,
  PROP_OVERLAY_ALPHA,
  PROP_ROI_META,
  PROP_MAX_ROI_METAS,
  PROP_POST_MESSAGES,
  PROP_TRACKING,
  PROP_TRACK_MAX_LOST,
  PROP_FOREGROUND,
  PROP_HISTORY,
  PROP_LEARNING_RATE,
  PROP_VARIANCE_THRESHOLD,
  PROP_DETECT_SHADOWS,
  PROP_OPEN_RADIUS,
  PROP_CLOSE_RADIUS,
  PROP_LIGHT_COMPENSATION,
  PROP_GROUP_GAP,
  PROP_MAX_AREA,
  PROP_MASK_LOCATION,
  PROP_BLOCK_SIZE,
  PROP_OFFSET,
  PROP_COLOR_LOW,
  PROP_COLOR_HIGH,
  PROP_ANALYTICS_META,
  PROP_BLOB_PROPERTIES,
  PROP_MIN_CIRCULARITY,
  PROP_MAX_CIRCULARITY,
  PROP_MIN_INTENSITY,
  PROP_MAX_INTENSITY,
  PROP_MIN_ECCENTRICITY,
  PROP_MAX_ECCENTRICITY,
  PROP_LINES,
  PROP_ZONES,
  PROP_ZONE_MAX,
  PROP_POST_EVENTS,
  PROP_ZONE_FILTER,
  PROP_ANALYTICS_MASK,
};

#define CCL_FORMATS "{ GRAY8, GRAY16_LE, NV12, I420, RGBA, BGRA, RGBx, BGRx }"
/* GStreamer 1.22's CUDA allocator has no gray formats (it aborts on them), so
 * no CUDA element can produce them: in CUDA memory, the others only. */
#define CCL_CUDA_FORMATS "{ NV12, I420, RGBA, BGRA, RGBx, BGRx }"

/* CUDA memory first: the order that negotiation prefers. */
#define CCL_CAPS \
    GST_VIDEO_CAPS_MAKE_WITH_FEATURES (CCL_CAPS_FEATURE_CUDA_MEMORY, CCL_CUDA_FORMATS) \
    "; " GST_VIDEO_CAPS_MAKE (CCL_FORMATS)

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK,
    GST_PAD_ALWAYS,
    GST_STATIC_CAPS (CCL_CAPS));

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC,
    GST_PAD_ALWAYS,
    GST_STATIC_CAPS (CCL_CAPS));

#define GST_TYPE_CUDA_CCL_BACKEND (gst_cuda_ccl_backend_get_type ())
static GType
gst_cuda_ccl_backend_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_CUDA_CCL_BACKEND_AUTO,
        "CUDA when a device is usable, otherwise the CPU (with a warning)",
        "auto"},
    {GST_CUDA_CCL_BACKEND_CUDA, "CUDA engine (error when no device is usable)",
        "cuda"},
    {GST_CUDA_CCL_BACKEND_CPU, "CPU (OpenCV)", "cpu"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstCudaCclBackend", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

#define GST_TYPE_CUDA_CCL_CONNECTIVITY (gst_cuda_ccl_connectivity_get_type ())
static GType
gst_cuda_ccl_connectivity_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_CUDA_CCL_CONNECTIVITY_4, "4-connected: edge neighbours", "4"},
    {GST_CUDA_CCL_CONNECTIVITY_8, "8-connected: edge and corner neighbours",
        "8"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstCudaCclConnectivity", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

#define GST_TYPE_CUDA_CCL_THRESHOLD_MODE (gst_cuda_ccl_threshold_mode_get_type ())
static GType
gst_cuda_ccl_threshold_mode_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_CUDA_CCL_THRESHOLD_ABOVE, "Foreground where luma > threshold",
        "above"},
    {GST_CUDA_CCL_THRESHOLD_BELOW, "Foreground where luma <= threshold",
        "below"},
    {GST_CUDA_CCL_THRESHOLD_OTSU,
        "Otsu's level computed per frame, foreground above it", "otsu"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstCudaCclThresholdMode", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

#define GST_TYPE_CUDA_CCL_FOREGROUND (gst_cuda_ccl_foreground_get_type ())
static GType
gst_cuda_ccl_foreground_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_CUDA_CCL_FOREGROUND_THRESHOLD,
        "One luma level per frame (threshold, threshold-mode)", "threshold"},
    {GST_CUDA_CCL_FOREGROUND_BACKGROUND,
          "Per-pixel adaptive background model: what differs from the learned "
          "scene is foreground, shadows are not", "background"},
    {GST_CUDA_CCL_FOREGROUND_LOCAL,
          "Local threshold for uneven light: luma against the mean of its "
          "block-size window less offset (threshold-mode above or below)",
        "local"},
    {GST_CUDA_CCL_FOREGROUND_COLOR,
          "Color range: HSV color within color-low..color-high (color formats "
          "only)", "color"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstCudaCclForeground", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

#define GST_TYPE_CUDA_CCL_OVERLAY (gst_cuda_ccl_overlay_get_type ())
static GType
gst_cuda_ccl_overlay_get_type (void)
{
  static GType type = 0;
  static const GFlagsValue values[] = {
    {GST_CUDA_CCL_OVERLAY_NONE, "Draw nothing", "none"},
    {GST_CUDA_CCL_OVERLAY_FILL,
        "Tint each reported component with its track's color (its label's without tracking)", "fill"},
    {GST_CUDA_CCL_OVERLAY_BOXES, "Outline each reported component's bounding box",
        "boxes"},
    {GST_CUDA_CCL_OVERLAY_CENTROIDS, "Mark each reported component's centroid",
        "centroids"},
    {GST_CUDA_CCL_OVERLAY_TRAILS,
        "Draw each tracked component's recent centroid path (needs tracking)",
        "trails"},
    {GST_CUDA_CCL_OVERLAY_FOREGROUND,
          "Tint every foreground pixel, reported or not, in one color (magenta) "
          "at overlay-alpha", "foreground"},
    {GST_CUDA_CCL_OVERLAY_EVENTS,
          "Draw the counting lines (yellow, an arrow towards their forward "
          "side) and zones (cyan, red while over zone-max) with their counts",
        "events"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_flags_register_static ("GstCudaCclOverlay", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

#define GST_TYPE_CUDA_CCL_ZONE_FILTER (gst_cuda_ccl_zone_filter_get_type ())
static GType
gst_cuda_ccl_zone_filter_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_CUDA_CCL_ZONE_FILTER_NONE, "Report every component; the zones only "
          "count", "none"},
    {GST_CUDA_CCL_ZONE_FILTER_INSIDE, "Report only the components whose "
          "centroid lies in a zone", "inside"},
    {GST_CUDA_CCL_ZONE_FILTER_OUTSIDE, "Report only the components whose "
          "centroid lies in no zone", "outside"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstCudaCclZoneFilter", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

#define gst_cuda_ccl_parent_class parent_class
G_DEFINE_TYPE (GstCudaCcl, gst_cuda_ccl, GST_TYPE_CCL_CUDA_TRANSFORM);
#if GST_CHECK_VERSION (1, 20, 0)
GST_ELEMENT_REGISTER_DEFINE (cudaccl, "cudaccl", GST_RANK_NONE,
    GST_TYPE_CUDA_CCL);
#else
gboolean
gst_element_register_cudaccl (GstPlugin * plugin)
{
  return gst_element_register (plugin, "cudaccl", GST_RANK_NONE,
      GST_TYPE_CUDA_CCL);
}
#endif

static void gst_cuda_ccl_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
static void gst_cuda_ccl_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);
static void gst_cuda_ccl_finalize (GObject * object);
static gboolean gst_cuda_ccl_start (GstBaseTransform * trans);
static gboolean gst_cuda_ccl_stop (GstBaseTransform * trans);
static GstFlowReturn gst_cuda_ccl_transform_ip (GstBaseTransform * trans,
    GstBuffer * buf);
static gboolean gst_cuda_ccl_set_caps (GstBaseTransform * trans,
    GstCaps * incaps, GstCaps * outcaps);
static GstCaps *gst_cuda_ccl_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter);
static gboolean gst_cuda_ccl_accept_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps);
static gboolean gst_cuda_ccl_sink_event (GstBaseTransform * trans,
    GstEvent * event);
static gboolean gst_cuda_ccl_set_info (GstVideoFilter * filter,
    GstCaps * incaps, GstVideoInfo * in_info, GstCaps * outcaps,
    GstVideoInfo * out_info);

#define PARAM_FLAGS (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS)

/* blob-properties and the blob filters (ccl::Options::properties and its
 * min_ / max_ bounds). */
/* Lines, zones and their events (cclevents.h). */
static void
install_event_properties (GObjectClass * gobject_class)
{
  g_object_class_install_property (gobject_class, PROP_LINES,
      gst_param_spec_array ("lines", "Lines",
          "Counting lines, each <x1,y1,x2,y2> in whole pixels, for example "
          "lines=\"<<320,0,320,479>,<0,240,639,240>>\": tracks crossing each "
          "one are counted by direction (forward: from the left of the line, "
          "walking from its first point to its second, to its right), in the "
          "messages' line-forward and line-backward. A line of other than four "
          "numbers, of two equal points or outside the frame is refused with a "
          "warning and the previous lines kept", gst_param_spec_array ("line",
              "Line", "x1, y1, x2, y2", g_param_spec_int ("coordinate",
                  "Coordinate", "x or y in pixels", G_MININT, G_MAXINT, 0,
                  G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS),
              G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS),
          PARAM_FLAGS | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_ZONES,
      gst_param_spec_array ("zones", "Zones",
          "Zones, each a polygon <x1,y1,x2,y2,x3,y3,...> of at least 3 points "
          "in whole pixels: the reported components whose centroid is inside are "
          "counted each frame (zone-count), the tracks entering and leaving "
          "(zone-entries, zone-exits) with how long they stay. An odd count of "
          "numbers, fewer than 3 points or points outside the frame are refused "
          "with a warning and the previous zones kept",
          gst_param_spec_array ("zone", "Zone", "x1, y1, x2, y2, x3, y3, ...",
              g_param_spec_int ("coordinate", "Coordinate", "x or y in pixels",
                  G_MININT, G_MAXINT, 0, G_PARAM_READWRITE |
                  G_PARAM_STATIC_STRINGS),
              G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS),
          PARAM_FLAGS | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_ZONE_MAX,
      gst_param_spec_array ("zone-max", "Zone max",
          "Per zone, in the order of zones, the most components it may hold: "
          "one more posts a zone-max event (once, until the count falls back). "
          "0 or missing: no limit", g_param_spec_int ("max", "Max",
              "Most components in the zone", 0, G_MAXINT, 0,
              G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS),
          PARAM_FLAGS | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_POST_EVENTS,
      g_param_spec_boolean ("post-events", "Post events",
          "Post an element message \"cudaccl-event\" for every line crossing, "
          "zone entry and exit and zone-max of a frame (event, index of the "
          "line or zone, track id, centroid, running time; dwell of an exit)",
          DEFAULT_POST_EVENTS, PARAM_FLAGS | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_ZONE_FILTER,
      g_param_spec_enum ("zone-filter", "Zone filter",
          "Whether the zones also decide what is reported, by each component's "
          "centroid: a component left out is out of the metadata, messages, "
          "overlay, tracking and counting, like those below min-area. Without "
          "zones every component is reported", GST_TYPE_CUDA_CCL_ZONE_FILTER,
          DEFAULT_ZONE_FILTER, PARAM_FLAGS | GST_PARAM_MUTABLE_PLAYING));
}

static void
install_blob_properties (GObjectClass * gobject_class)
{
  g_object_class_install_property (gobject_class, PROP_BLOB_PROPERTIES,
      g_param_spec_flags ("blob-properties", "Blob properties",
          "Blob analysis of every reported component, into the GstCclMeta's "
          "blobs (GstCclBlob), the ROI metas' \"cudaccl-blob\" parameters and "
          "the messages, as scikit-image's regionprops defines them: intensity "
          "(mean, standard deviation, minimum and maximum of the luma), color "
          "(mean of each channel), perimeter (with circularity), euler (the "
          "Euler number) or a combination (e.g. intensity+perimeter); with any "
          "of them, or a blob filter, the shape from the moments too "
          "(orientation, axis lengths, eccentricity). Each group costs GPU time "
          "of its own: none by default", GST_TYPE_CCL_BLOB_PROPERTIES,
          DEFAULT_BLOB_PROPERTIES, PARAM_FLAGS | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_MIN_CIRCULARITY,
      g_param_spec_double ("min-circularity", "Minimum circularity",
          "Components whose circularity (4 pi area / perimeter^2 with "
          "scikit-image's perimeter: 0.9 to 0.95 for discs of radius 5 to 20, "
          "above 1 for discs of a few pixels, near pi/4 for a large square, less "
          "for elongated or ragged shapes) is lower are counted but left "
          "out of the metadata, messages and overlay, like those below "
          "min-area (0-1000000; 0: no limit). Computes the perimeter whatever "
          "blob-properties says", 0.0, MAX_CIRCULARITY, DEFAULT_BLOB_FILTER,
          PARAM_FLAGS | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_MAX_CIRCULARITY,
      g_param_spec_double ("max-circularity", "Maximum circularity",
          "Components whose circularity is higher are left out, like those "
          "below min-circularity (0-1000000; 0: no limit; below "
          "min-circularity: an error when the frame is labeled)", 0.0,
          MAX_CIRCULARITY, DEFAULT_BLOB_FILTER,
          PARAM_FLAGS | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_MIN_INTENSITY,
      g_param_spec_double ("min-intensity", "Minimum intensity",
          "Components whose mean luma (in the format's range: 0-255, 0-65535 "
          "for GRAY16_LE) is lower are counted but left out of the metadata, "
          "messages and overlay, like those below min-area (0-65535; 0: no "
          "limit). Computes the intensity whatever blob-properties says", 0.0,
          MAX_INTENSITY, DEFAULT_BLOB_FILTER,
          PARAM_FLAGS | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_MAX_INTENSITY,
      g_param_spec_double ("max-intensity", "Maximum intensity",
          "Components whose mean luma is higher are left out, like those "
          "below min-intensity (0-65535; 0: no limit; below min-intensity: "
          "an error when the frame is labeled)", 0.0, MAX_INTENSITY,
          DEFAULT_BLOB_FILTER, PARAM_FLAGS | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_MIN_ECCENTRICITY,
      g_param_spec_double ("min-eccentricity", "Minimum eccentricity",
          "Components whose eccentricity (sqrt (1 - minor / major eigenvalue "
          "of their pixels' covariance): 0 for a disc, towards 1 for a line) "
          "is lower are counted but left out of the metadata, messages and "
          "overlay, like those below min-area (0-1; 0: no limit). From the "
          "moments, at no extra cost. Eccentricity rather than OpenCV's "
          "inertia ratio (minor / major eigenvalue = 1 - eccentricity^2, so a "
          "bound on one is a bound on the other) because it is scikit-image's "
          "column name", 0.0, MAX_ECCENTRICITY, DEFAULT_BLOB_FILTER,
          PARAM_FLAGS | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_MAX_ECCENTRICITY,
      g_param_spec_double ("max-eccentricity", "Maximum eccentricity",
          "Components whose eccentricity is higher (elongated ones: bars, "
          "lines) are left out, like those below min-eccentricity (0-1; 0: no "
          "limit; below min-eccentricity: an error when the frame is labeled). "
          "Eccentricity rather than OpenCV's inertia ratio (1 - "
          "eccentricity^2) because it is scikit-image's column name", 0.0,
          MAX_ECCENTRICITY, DEFAULT_BLOB_FILTER,
          PARAM_FLAGS | GST_PARAM_MUTABLE_PLAYING));
}

static void
gst_cuda_ccl_class_init (GstCudaCclClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstVideoFilterClass *filter_class = GST_VIDEO_FILTER_CLASS (klass);

  gobject_class->set_property = gst_cuda_ccl_set_property;
  gobject_class->get_property = gst_cuda_ccl_get_property;
  gobject_class->finalize = gst_cuda_ccl_finalize;

  g_object_class_install_property (gobject_class, PROP_BACKEND,
      g_param_spec_enum ("backend", "Backend",
          "Where frames are labeled: auto picks CUDA when a device is usable "
          "and otherwise the CPU (posting one warning); cuda fails to start "
          "without a usable device; cpu uses OpenCV. Both give identical "
          "results", GST_TYPE_CUDA_CCL_BACKEND, DEFAULT_BACKEND,
          PARAM_FLAGS | GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_ALGORITHM,
      g_param_spec_enum ("algorithm", "Algorithm",
          "Labeling algorithm on the GPU: any value of GstCclAlgorithm (the "
          "engine's registry of algorithms; gst-inspect-1.0 lists them). Every "
          "algorithm gives the same labels and features; label-equivalence and "
          "row-col-unify wait on the host between their rounds. The default, "
          "union-find, was the fastest at both connectivities on the benchmark "
          "(docs/PERFORMANCE.md)",
          GST_TYPE_CCL_ALGORITHM, DEFAULT_ALGORITHM,
          PARAM_FLAGS | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_CONNECTIVITY,
      g_param_spec_enum ("connectivity", "Connectivity",
          "Pixel neighbourhood that joins foreground pixels into a component: "
          "4 or 8", GST_TYPE_CUDA_CCL_CONNECTIVITY, DEFAULT_CONNECTIVITY,
          PARAM_FLAGS | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_THRESHOLD,
      g_param_spec_uint ("threshold", "Threshold",
          "Luma level separating foreground from background (0-255; compared "
          "against level x 257 for 16-bit formats); ignored by "
          "threshold-mode=otsu", 0, 255, DEFAULT_THRESHOLD,
          PARAM_FLAGS | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_THRESHOLD_MODE,
      g_param_spec_enum ("threshold-mode", "Threshold mode",
          "Which pixels are foreground: above (luma > threshold), below "
          "(luma <= threshold) or otsu (Otsu's level computed per frame, then "
          "above). With foreground=local the level is each pixel's window "
          "mean less offset, above or below it (otsu is an error there)",
          GST_TYPE_CUDA_CCL_THRESHOLD_MODE, DEFAULT_THRESHOLD_MODE,
          PARAM_FLAGS | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_MIN_AREA,
      g_param_spec_uint ("min-area", "Minimum area",
          "Components with fewer pixels are counted but left out of the "
          "metadata, messages and overlay", 1, G_MAXUINT, DEFAULT_MIN_AREA,
          PARAM_FLAGS | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_MAX_AREA,
      g_param_spec_uint ("max-area", "Maximum area",
          "Components with more pixels are counted but left out of the "
          "metadata, messages and overlay, like those below min-area (0: no "
          "limit)", 0, G_MAXUINT, DEFAULT_MAX_AREA,
          PARAM_FLAGS | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_MAX_COMPONENTS,
      g_param_spec_uint ("max-components", "Maximum components",
          "Most components reported per frame; when more pass min-area and "
          "max-area the largest are reported, largest first (equal areas by "
          "label). Chosen on the GPU: only reported components reach the host", 0,
          G_MAXUINT, DEFAULT_MAX_COMPONENTS,
          PARAM_FLAGS | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_OVERLAY,
      g_param_spec_flags ("overlay", "Overlay",
          "What to draw into the frame for each reported component, in a "
          "color fixed per track (per label without tracking): fill, boxes, "
          "centroids, trails or a combination (e.g. fill+boxes+trails); "
          "foreground tints every foreground pixel, reported or not, in one "
          "color", GST_TYPE_CUDA_CCL_OVERLAY, DEFAULT_OVERLAY,
          PARAM_FLAGS | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_OVERLAY_ALPHA,
      g_param_spec_double ("overlay-alpha", "Overlay alpha",
          "Opacity of the fill and foreground overlays (0: invisible, 1: "
          "opaque); boxes, centroids and trails are always opaque", 0.0, 1.0, DEFAULT_OVERLAY_ALPHA,
          PARAM_FLAGS | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_ROI_META,
      g_param_spec_boolean ("roi-meta", "ROI meta",
          "Also attach one GstVideoRegionOfInterestMeta (type \"" GST_CUDA_CCL_ROI_TYPE
          "\") per reported component, up to max-roi-metas of them, its area, "
          "centroid, moments and track in a parameter structure", DEFAULT_ROI_META,
          PARAM_FLAGS | GST_PARAM_MUTABLE_PLAYING));
#ifdef HAVE_GST_ANALYTICS
  g_object_class_install_property (gobject_class, PROP_ANALYTICS_META,
      g_param_spec_boolean ("analytics-meta", "Analytics meta",
          "Also attach GStreamer's analytics metadata (GstAnalyticsRelationMeta): "
          "an object-detection entry of type \"" GST_CUDA_CCL_ANALYTICS_TYPE
          "\" per reported component (its box, confidence 1.0) and, with "
          "tracking, a tracking entry per track (id, first and last seen as "
          "running times, lost while unseen) related to its box. Read by "
          "objectdetectionoverlay and any application using GstAnalytics. Only "
          "in builds against GStreamer 1.24 or newer", DEFAULT_ANALYTICS_META,
          PARAM_FLAGS | GST_PARAM_MUTABLE_PLAYING));
#endif
#ifdef HAVE_GST_ANALYTICS_SEGMENTATION
  g_object_class_install_property (gobject_class, PROP_ANALYTICS_MASK,
      g_param_spec_boolean ("analytics-mask", "Analytics mask",
          "Also attach the label image of the reported components as an "
          "instance segmentation entry (GstAnalyticsSegmentationMtd) related to "
          "each component's object-detection entry (attached with it): a GRAY8 "
          "or GRAY16 mask cropped to the union of their boxes, each pixel its "
          "component's label, or its track id with tracking (ids beyond 16 bits "
          "get stand-ins), 0 elsewhere. Read by segmentationoverlay (1.28 reads "
          "GRAY8 masks only). Costs a copy of that rectangle to system memory "
          "per frame (docs/SEGMENTATION.md). Only in builds against GStreamer "
          "1.26 or newer", DEFAULT_ANALYTICS_MASK,
          PARAM_FLAGS | GST_PARAM_MUTABLE_PLAYING));
#endif
  g_object_class_install_property (gobject_class, PROP_MAX_ROI_METAS,
      g_param_spec_uint ("max-roi-metas", "Maximum ROI metas",
          "With roi-meta, attach ROI metas for at most this many reported "
          "components: the largest (equal areas by label), in the order they "
          "are reported in (0: none). Downstream overlay and analytics elements "
          "handle a few dozen regions, not thousands; the GstCclMeta always "
          "holds every reported component", 0, G_MAXUINT, DEFAULT_MAX_ROI_METAS,
          PARAM_FLAGS | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_POST_MESSAGES,
      g_param_spec_boolean ("post-messages", "Post messages",
          "Post an element message \"cudaccl\" per frame with its timestamp, "
          "counts, threshold used and the reported components (label, "
          "bounding box, area, centroid, track)", DEFAULT_POST_MESSAGES,
          PARAM_FLAGS | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_TRACKING,
      g_param_spec_boolean ("tracking", "Tracking",
          "Give every reported component the id of its track, kept from frame "
          "to frame (with parent id, age, velocity and predicted box); ids are "
          "unique within a stream and never reused. Switching it off ends every "
          "track", DEFAULT_TRACKING, PARAM_FLAGS | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_TRACK_MAX_LOST,
      g_param_spec_uint ("track-max-lost", "Track max lost",
          "Frames a track may go unseen (missed, or merged into another "
          "component) and still take its id back; after that it ends", 0,
          MAX_TRACK_MAX_LOST, DEFAULT_TRACK_MAX_LOST,
          PARAM_FLAGS | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_FOREGROUND,
      g_param_spec_enum ("foreground", "Foreground",
          "What makes a pixel foreground: threshold (one luma level per frame, "
          "threshold and threshold-mode), background (a per-pixel model of "
          "the scene learned over history frames: what differs from it is "
          "foreground; the model starts over on a flush, stream-start or new "
          "frame size, whose first frame gives no components), local (luma "
          "against the mean of its block-size window less offset, for uneven "
          "light: cv::adaptiveThreshold's MEAN_C) or color (HSV color within "
          "color-low..color-high: cv::cvtColor to HSV + cv::inRange; color "
          "formats only, GRAY8 and GRAY16_LE are refused)",
          GST_TYPE_CUDA_CCL_FOREGROUND, DEFAULT_FOREGROUND,
          PARAM_FLAGS | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_HISTORY,
      g_param_spec_uint ("history", "History",
          "foreground=background: frames the model remembers (1-100000). With "
          "learning-rate < 0 each frame's weight is 1/(2n) at the n-th frame "
          "since the model started over, and 1/history from frame history/2 "
          "on; a still object then joins the background after about "
          "history/9 frames (56 at 500)", 1, MAX_HISTORY, DEFAULT_HISTORY,
          PARAM_FLAGS | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_LEARNING_RATE,
      g_param_spec_double ("learning-rate", "Learning rate",
          "foreground=background: weight of each new frame in the model, up to "
          "1; negative (the default): from history; 0: the model is frozen "
          "after its first frame", -1.0, 1.0, DEFAULT_LEARNING_RATE,
          PARAM_FLAGS | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_VARIANCE_THRESHOLD,
      g_param_spec_double ("variance-threshold", "Variance threshold",
          "foreground=background: squared distance, in variances of a "
          "background mode, within which a pixel is background (1-255): "
          "lower finds fainter differences and more noise",
          1.0, 255.0, DEFAULT_VARIANCE_THRESHOLD,
          PARAM_FLAGS | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_DETECT_SHADOWS,
      g_param_spec_boolean ("detect-shadows", "Detect shadows",
          "foreground=background: a pixel darker than the background but of "
          "its color is a shadow, and not foreground", DEFAULT_DETECT_SHADOWS,
          PARAM_FLAGS | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_OPEN_RADIUS,
      g_param_spec_uint ("open-radius", "Open radius",
          "Morphological opening of the foreground mask before labeling, for "
          "every foreground model: removes specks and lines narrower than a "
          "(2r+1) x (2r+1) square (0-32; 0: off). Applied before close-radius",
          0, MAX_CLEANUP_RADIUS, DEFAULT_OPEN_RADIUS,
          PARAM_FLAGS | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_CLOSE_RADIUS,
      g_param_spec_uint ("close-radius", "Close radius",
          "Morphological closing of the foreground mask before labeling, for "
          "every foreground model: fills gaps and holes narrower than a "
          "(2r+1) x (2r+1) square, joining the parts of one object (0-32; 0: "
          "off)", 0, MAX_CLEANUP_RADIUS, DEFAULT_CLOSE_RADIUS,
          PARAM_FLAGS | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_LIGHT_COMPENSATION,
      g_param_spec_boolean ("light-compensation", "Light compensation",
          "foreground=background: measure each frame's global light against "
          "the model and let the model follow a change of more than 1 % "
          "before comparing (lights switched on, auto-exposure); off: such a "
          "change makes much of the frame foreground until it is relearned",
          DEFAULT_LIGHT_COMPENSATION, PARAM_FLAGS | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_GROUP_GAP,
      g_param_spec_int ("group-gap", "Group gap",
          "Components whose bounding boxes come within this many pixels of "
          "each other (directly or through other components) are reported as "
          "one, with the box, area and moments of their union, so that an "
          "object whose mask breaks into pieces keeps one track (0: boxes "
          "that touch or overlap; -1: off). min-area and max-area apply to "
          "the groups", -1, MAX_GROUP_GAP, DEFAULT_GROUP_GAP,
          PARAM_FLAGS | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_MASK_LOCATION,
      g_param_spec_string ("mask-location", "Mask location",
          "PGM or PNG image of the frame's size: where it is 0 (black, in "
          "every color channel; alpha is ignored) no pixel is foreground, "
          "whatever the model. Read when the element starts; a missing or "
          "unreadable file, or one of another size than the frames, is an "
          "error. NULL: every pixel may be foreground",
          DEFAULT_MASK_LOCATION, PARAM_FLAGS | GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_BLOCK_SIZE,
      g_param_spec_int ("block-size", "Block size",
          "foreground=local: side of the square window whose mean, less "
          "offset, is each pixel's level (odd, 3-255; an even value is "
          "refused with a warning and the previous one kept). Take it larger "
          "than the objects and smaller than the light's changes; the frame's "
          "edge pixels are repeated beyond it, as cv::adaptiveThreshold does",
          MIN_BLOCK_SIZE, MAX_BLOCK_SIZE, DEFAULT_BLOCK_SIZE,
          PARAM_FLAGS | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_OFFSET,
      g_param_spec_double ("offset", "Offset",
          "foreground=local: subtracted from the window mean (fractional or "
          "negative values too, as cv::adaptiveThreshold's C). "
          "threshold-mode=below (dark objects, e.g. ink) takes pixels at or "
          "under mean - offset: a positive offset keeps flat areas out; "
          "threshold-mode=above takes pixels over mean - offset: use a "
          "negative offset for bright objects", -MAX_OFFSET, MAX_OFFSET,
          DEFAULT_OFFSET, PARAM_FLAGS | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_COLOR_LOW,
      gst_param_spec_array ("color-low", "Color low",
          "foreground=color: lowest hue, saturation and value of the "
          "foreground, three integers written color-low=\"<H,S,V>\" (H 0-179, "
          "S and V 0-255: OpenCV's 8-bit HSV, hue in degrees / 2; default "
          "<0,0,0>). A hue above color-high's wraps around red: "
          "color-low=\"<170,120,70>\" color-high=\"<10,255,255>\" takes hues "
          "170-179 and 0-10. A value of another count or out of range is "
          "refused with a warning and the previous one kept",
          g_param_spec_int ("hsv", "HSV bound", "H (0-179), S or V (0-255)",
              0, MAX_SAT_VAL, 0, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS),
          PARAM_FLAGS | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_COLOR_HIGH,
      gst_param_spec_array ("color-high", "Color high",
          "foreground=color: highest hue, saturation and value of the "
          "foreground, inclusive, written like color-low: "
          "color-high=\"<H,S,V>\" (default <179,255,255>). Its S and V must "
          "not be below color-low's: an empty range is an error when the "
          "frame is labeled",
          g_param_spec_int ("hsv", "HSV bound", "H (0-179), S or V (0-255)",
              0, MAX_SAT_VAL, MAX_SAT_VAL,
              G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS),
          PARAM_FLAGS | GST_PARAM_MUTABLE_PLAYING));

  install_blob_properties (gobject_class);
  install_event_properties (gobject_class);

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "Connected component labeling", "Filter/Analyzer/Video",
      "Labels the connected components of each video frame's foreground (a "
      "threshold, a local threshold, a color range or a background model) "
      "on a CUDA GPU (or the CPU) and "
      "attaches bounding boxes, areas, moments, centroids and optionally "
      "blob properties as metadata, optionally drawing them",
      "cudaccl developers");

  trans_class->passthrough_on_same_caps = FALSE;
  trans_class->transform_ip_on_passthrough = FALSE;
  trans_class->start = GST_DEBUG_FUNCPTR (gst_cuda_ccl_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_cuda_ccl_stop);
  trans_class->transform_ip = GST_DEBUG_FUNCPTR (gst_cuda_ccl_transform_ip);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_cuda_ccl_set_caps);
  trans_class->transform_caps = GST_DEBUG_FUNCPTR (gst_cuda_ccl_transform_caps);
  trans_class->accept_caps = GST_DEBUG_FUNCPTR (gst_cuda_ccl_accept_caps);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_cuda_ccl_sink_event);
  filter_class->set_info = GST_DEBUG_FUNCPTR (gst_cuda_ccl_set_info);

  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_CCL_BACKEND, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_CCL_CONNECTIVITY, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_CCL_THRESHOLD_MODE, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_CCL_OVERLAY, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_CCL_FOREGROUND, 0);

  GST_DEBUG_CATEGORY_INIT (gst_cuda_ccl_debug, "cudaccl", 0,
      "connected component labeling");
}

static void
gst_cuda_ccl_init (GstCudaCcl * self)
{
  guint i;

  self->backend_choice = DEFAULT_BACKEND;
  self->settings.threshold = DEFAULT_THRESHOLD;
  self->settings.threshold_mode = (CclThresholdMode) DEFAULT_THRESHOLD_MODE;
  self->settings.connectivity = DEFAULT_CONNECTIVITY;
  self->settings.algorithm = DEFAULT_ALGORITHM;
  self->settings.min_area = DEFAULT_MIN_AREA;
  self->settings.max_area = DEFAULT_MAX_AREA;
  self->settings.foreground = (CclForegroundModel) DEFAULT_FOREGROUND;
  self->settings.history = DEFAULT_HISTORY;
  self->settings.learning_rate = DEFAULT_LEARNING_RATE;
  self->settings.variance_threshold = DEFAULT_VARIANCE_THRESHOLD;
  self->settings.detect_shadows = DEFAULT_DETECT_SHADOWS;
  self->settings.open_radius = DEFAULT_OPEN_RADIUS;
  self->settings.close_radius = DEFAULT_CLOSE_RADIUS;
  self->settings.light_compensation = DEFAULT_LIGHT_COMPENSATION;
  self->settings.group_gap = DEFAULT_GROUP_GAP;
  self->settings.blob_properties = DEFAULT_BLOB_PROPERTIES;
  self->settings.min_circularity = self->settings.max_circularity =
      DEFAULT_BLOB_FILTER;
  self->settings.min_intensity = self->settings.max_intensity =
      DEFAULT_BLOB_FILTER;
  self->settings.min_eccentricity = self->settings.max_eccentricity =
      DEFAULT_BLOB_FILTER;
  self->mask_location = g_strdup (DEFAULT_MASK_LOCATION);
  self->settings.block_size = DEFAULT_BLOCK_SIZE;
  self->settings.offset = DEFAULT_OFFSET;
  for (i = 0; i < 3; i++) {
    self->settings.color_low[i] = default_color_low[i];
    self->settings.color_high[i] = default_color_high[i];
  }
  self->settings.max_components = DEFAULT_MAX_COMPONENTS;
  self->settings.overlay = DEFAULT_OVERLAY;
  self->settings.overlay_alpha = DEFAULT_OVERLAY_ALPHA;
  self->roi_meta = DEFAULT_ROI_META;
  self->analytics_meta = DEFAULT_ANALYTICS_META;
  self->settings.max_roi_metas = DEFAULT_MAX_ROI_METAS;
  self->post_messages = DEFAULT_POST_MESSAGES;
  self->settings.tracking = DEFAULT_TRACKING;
  self->settings.track_max_lost = DEFAULT_TRACK_MAX_LOST;
  self->events = ccl_events_new ();
  self->post_events = DEFAULT_POST_EVENTS;
  self->zone_filter = DEFAULT_ZONE_FILTER;
  self->analytics_mask = DEFAULT_ANALYTICS_MASK;

  /* Always in place: the output is the input buffer, with metadata added and
   * the overlay drawn into it. */
  gst_base_transform_set_in_place (GST_BASE_TRANSFORM (self), TRUE);
  /* Input and output caps are always equal, so "passthrough caps first" would
   * only let downstream's order override ours (CUDA memory first). */
  gst_base_transform_set_prefer_passthrough (GST_BASE_TRANSFORM (self), FALSE);
}

/* color-low or color-high from its GstValueArray into bounds; FALSE, leaving
 * bounds alone, with a warning saying what is wrong, for a count other than three or
 * a hue over 179. (The element spec has already refused what is not an integer of
 * 0..255, as GObject refuses any value outside a property's range.) */
static gboolean
color_bounds_from_value (GstCudaCcl * self, const GValue * value,
    const gchar * name, gint bounds[3])
{
  guint i, n = gst_value_array_get_size (value);
  gint got[3];

  if (n != 3) {
    g_warning ("%s: %s takes three values, \"<H,S,V>\", not %u: keeping "
        "<%d,%d,%d>", GST_STR_NULL (GST_OBJECT_NAME (self)), name, n,
        bounds[0], bounds[1], bounds[2]);
    return FALSE;
  }
  for (i = 0; i < 3; i++) {
    const GValue *v = gst_value_array_get_value (value, i);
    gint top = i == 0 ? MAX_HUE : MAX_SAT_VAL;

    got[i] = G_VALUE_HOLDS_INT (v) ? g_value_get_int (v) : -1;
    if (got[i] < 0 || got[i] > top) {
      g_warning ("%s: %s: %c must be an integer within 0-%d: keeping "
          "<%d,%d,%d>", GST_STR_NULL (GST_OBJECT_NAME (self)), name, "HSV"[i],
          top, bounds[0], bounds[1], bounds[2]);
      return FALSE;
    }
  }
  for (i = 0; i < 3; i++)
    bounds[i] = got[i];
  return TRUE;
}

static void
color_bounds_to_value (const gint bounds[3], GValue * value)
{
  GValue v = G_VALUE_INIT;
  guint i;

  g_value_init (&v, G_TYPE_INT);
  for (i = 0; i < 3; i++) {
    g_value_set_int (&v, bounds[i]);
    gst_value_array_append_value (value, &v);
  }
  g_value_unset (&v);
}

static void
gst_cuda_ccl_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCudaCcl *self = GST_CUDA_CCL (object);
  gboolean late_mask = FALSE;

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_BACKEND:
      self->backend_choice = g_value_get_enum (value);
      break;
    case PROP_ALGORITHM:
      self->settings.algorithm = g_value_get_enum (value);
      break;
    case PROP_CONNECTIVITY:
      self->settings.connectivity = g_value_get_enum (value);
      break;
    case PROP_THRESHOLD:
      self->settings.threshold = g_value_get_uint (value);
      break;
    case PROP_THRESHOLD_MODE:
      self->settings.threshold_mode = g_value_get_enum (value);
      break;
    case PROP_MIN_AREA:
      self->settings.min_area = g_value_get_uint (value);
      break;
    case PROP_MAX_COMPONENTS:
      self->settings.max_components = g_value_get_uint (value);
      break;
    case PROP_OVERLAY:
      self->settings.overlay = g_value_get_flags (value);
      break;
    case PROP_OVERLAY_ALPHA:
      self->settings.overlay_alpha = g_value_get_double (value);
      break;
    case PROP_ANALYTICS_META:
      self->analytics_meta = g_value_get_boolean (value);
      break;
    case PROP_ROI_META:
      self->roi_meta = g_value_get_boolean (value);
      break;
    case PROP_MAX_ROI_METAS:
      self->settings.max_roi_metas = g_value_get_uint (value);
      break;
    case PROP_POST_MESSAGES:
      self->post_messages = g_value_get_boolean (value);
      break;
    case PROP_TRACKING:
      self->settings.tracking = g_value_get_boolean (value);
      break;
    case PROP_TRACK_MAX_LOST:
      self->settings.track_max_lost = g_value_get_uint (value);
      break;
    case PROP_FOREGROUND:
      self->settings.foreground = g_value_get_enum (value);
      break;
    case PROP_HISTORY:
      self->settings.history = g_value_get_uint (value);
      break;
    case PROP_LEARNING_RATE:
      self->settings.learning_rate = g_value_get_double (value);
      break;
    case PROP_VARIANCE_THRESHOLD:
      self->settings.variance_threshold = g_value_get_double (value);
      break;
    case PROP_DETECT_SHADOWS:
      self->settings.detect_shadows = g_value_get_boolean (value);
      break;
    case PROP_OPEN_RADIUS:
      self->settings.open_radius = g_value_get_uint (value);
      break;
    case PROP_CLOSE_RADIUS:
      self->settings.close_radius = g_value_get_uint (value);
      break;
    case PROP_LIGHT_COMPENSATION:
      self->settings.light_compensation = g_value_get_boolean (value);
      break;
    case PROP_GROUP_GAP:
      self->settings.group_gap = g_value_get_int (value);
      break;
    case PROP_BLOB_PROPERTIES:
      self->settings.blob_properties = g_value_get_flags (value);
      break;
    case PROP_MIN_CIRCULARITY:
      self->settings.min_circularity = g_value_get_double (value);
      break;
    case PROP_MAX_CIRCULARITY:
      self->settings.max_circularity = g_value_get_double (value);
      break;
    case PROP_MIN_INTENSITY:
      self->settings.min_intensity = g_value_get_double (value);
      break;
    case PROP_MAX_INTENSITY:
      self->settings.max_intensity = g_value_get_double (value);
      break;
    case PROP_MIN_ECCENTRICITY:
      self->settings.min_eccentricity = g_value_get_double (value);
      break;
    case PROP_MAX_ECCENTRICITY:
      self->settings.max_eccentricity = g_value_get_double (value);
      break;
    case PROP_MAX_AREA:
      self->settings.max_area = g_value_get_uint (value);
      break;
    case PROP_MASK_LOCATION:
      late_mask = self->started;
      g_free (self->mask_location);
      self->mask_location = g_value_dup_string (value);
      break;
    case PROP_BLOCK_SIZE:
      /* The spec holds the range; a window has a centre pixel only when odd
       * (cv::adaptiveThreshold asserts it). Refused like an out-of-range value,
       * rather than rounded: the user should learn the setting was not taken. */
      if (g_value_get_int (value) % 2 == 0)
        g_warning ("%s: block-size must be odd (3, 5, ..., 255), not %d: "
            "keeping %d", GST_STR_NULL (GST_OBJECT_NAME (self)),
            g_value_get_int (value), self->settings.block_size);
      else
        self->settings.block_size = g_value_get_int (value);
      break;
    case PROP_OFFSET:
      self->settings.offset = g_value_get_double (value);
      break;
    case PROP_COLOR_LOW:
      color_bounds_from_value (self, value, "color-low",
          self->settings.color_low);
      break;
    case PROP_COLOR_HIGH:
      color_bounds_from_value (self, value, "color-high",
          self->settings.color_high);
      break;
    case PROP_LINES:
    case PROP_ZONES:
    case PROP_ZONE_MAX:{
      gchar *why = NULL;
      gboolean ok = prop_id == PROP_LINES ?
          ccl_events_set_lines (self->events, value, &why) :
          prop_id == PROP_ZONES ? ccl_events_set_zones (self->events, value,
          &why) : ccl_events_set_zone_max (self->events, value, &why);

      if (!ok) {
        g_warning ("%s: %s: %s: keeping the previous value",
            GST_STR_NULL (GST_OBJECT_NAME (self)), pspec->name, why);
        g_free (why);
      }
      break;
    }
    case PROP_POST_EVENTS:
      self->post_events = g_value_get_boolean (value);
      break;
    case PROP_ZONE_FILTER:
      self->zone_filter = g_value_get_enum (value);
      break;
    case PROP_ANALYTICS_MASK:
      self->analytics_mask = g_value_get_boolean (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
  /* Logged unlocked: describing the object takes its lock. */
  if (late_mask)
    GST_WARNING_OBJECT (self, "mask-location changed while running: it is "
        "read at the next start");
}

static void
gst_cuda_ccl_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstCudaCcl *self = GST_CUDA_CCL (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_BACKEND:
      g_value_set_enum (value, self->backend_choice);
      break;
    case PROP_ALGORITHM:
      g_value_set_enum (value, self->settings.algorithm);
      break;
    case PROP_CONNECTIVITY:
      g_value_set_enum (value, self->settings.connectivity);
      break;
    case PROP_THRESHOLD:
      g_value_set_uint (value, self->settings.threshold);
      break;
    case PROP_THRESHOLD_MODE:
      g_value_set_enum (value, self->settings.threshold_mode);
      break;
    case PROP_MIN_AREA:
      g_value_set_uint (value, self->settings.min_area);
      break;
    case PROP_MAX_COMPONENTS:
      g_value_set_uint (value, self->settings.max_components);
      break;
    case PROP_OVERLAY:
      g_value_set_flags (value, self->settings.overlay);
      break;
    case PROP_OVERLAY_ALPHA:
      g_value_set_double (value, self->settings.overlay_alpha);
      break;
    case PROP_ANALYTICS_META:
      g_value_set_boolean (value, self->analytics_meta);
      break;
    case PROP_ROI_META:
      g_value_set_boolean (value, self->roi_meta);
      break;
    case PROP_MAX_ROI_METAS:
      g_value_set_uint (value, self->settings.max_roi_metas);
      break;
    case PROP_POST_MESSAGES:
      g_value_set_boolean (value, self->post_messages);
      break;
    case PROP_TRACKING:
      g_value_set_boolean (value, self->settings.tracking);
      break;
    case PROP_TRACK_MAX_LOST:
      g_value_set_uint (value, self->settings.track_max_lost);
      break;
    case PROP_FOREGROUND:
      g_value_set_enum (value, self->settings.foreground);
      break;
    case PROP_HISTORY:
      g_value_set_uint (value, self->settings.history);
      break;
    case PROP_LEARNING_RATE:
      g_value_set_double (value, self->settings.learning_rate);
      break;
    case PROP_VARIANCE_THRESHOLD:
      g_value_set_double (value, self->settings.variance_threshold);
      break;
    case PROP_DETECT_SHADOWS:
      g_value_set_boolean (value, self->settings.detect_shadows);
      break;
    case PROP_OPEN_RADIUS:
      g_value_set_uint (value, self->settings.open_radius);
      break;
    case PROP_CLOSE_RADIUS:
      g_value_set_uint (value, self->settings.close_radius);
      break;
    case PROP_LIGHT_COMPENSATION:
      g_value_set_boolean (value, self->settings.light_compensation);
      break;
    case PROP_GROUP_GAP:
      g_value_set_int (value, self->settings.group_gap);
      break;
    case PROP_BLOB_PROPERTIES:
      g_value_set_flags (value, self->settings.blob_properties);
      break;
    case PROP_MIN_CIRCULARITY:
      g_value_set_double (value, self->settings.min_circularity);
      break;
    case PROP_MAX_CIRCULARITY:
      g_value_set_double (value, self->settings.max_circularity);
      break;
    case PROP_MIN_INTENSITY:
      g_value_set_double (value, self->settings.min_intensity);
      break;
    case PROP_MAX_INTENSITY:
      g_value_set_double (value, self->settings.max_intensity);
      break;
    case PROP_MIN_ECCENTRICITY:
      g_value_set_double (value, self->settings.min_eccentricity);
      break;
    case PROP_MAX_ECCENTRICITY:
      g_value_set_double (value, self->settings.max_eccentricity);
      break;
    case PROP_MAX_AREA:
      g_value_set_uint (value, self->settings.max_area);
      break;
    case PROP_MASK_LOCATION:
      g_value_set_string (value, self->mask_location);
      break;
    case PROP_BLOCK_SIZE:
      g_value_set_int (value, self->settings.block_size);
      break;
    case PROP_OFFSET:
      g_value_set_double (value, self->settings.offset);
      break;
    case PROP_COLOR_LOW:
      color_bounds_to_value (self->settings.color_low, value);
      break;
    case PROP_COLOR_HIGH:
      color_bounds_to_value (self->settings.color_high, value);
      break;
    case PROP_LINES:
      ccl_events_get_lines (self->events, value);
      break;
    case PROP_ZONES:
      ccl_events_get_zones (self->events, value);
      break;
    case PROP_ZONE_MAX:
      ccl_events_get_zone_max (self->events, value);
      break;
    case PROP_POST_EVENTS:
      g_value_set_boolean (value, self->post_events);
      break;
    case PROP_ZONE_FILTER:
      g_value_set_enum (value, self->zone_filter);
      break;
    case PROP_ANALYTICS_MASK:
      g_value_set_boolean (value, self->analytics_mask);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_cuda_ccl_finalize (GObject * object)
{
  GstCudaCcl *self = GST_CUDA_CCL (object);

  g_free (self->mask_location);
  ccl_events_free (self->events);
#ifdef HAVE_GST_ANALYTICS
  ccl_analytics_free (self->analytics);
#endif
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

/* The GStreamer error class of a backend failure (CCL_BACKEND_ERROR's code). */
static void
backend_error_class (const GError * error, GQuark * domain, gint * code)
{
  *domain = GST_LIBRARY_ERROR;
  *code = GST_LIBRARY_ERROR_FAILED;
  if (error->domain != CCL_BACKEND_ERROR)
    return;
  switch ((CclBackendError) error->code) {
    case CCL_BACKEND_ERROR_FAILED:
      break;
    case CCL_BACKEND_ERROR_SETTINGS:
      *code = GST_LIBRARY_ERROR_SETTINGS;
      break;
    case CCL_BACKEND_ERROR_INPUT:
      *domain = GST_STREAM_ERROR;
      *code = GST_STREAM_ERROR_FORMAT;
      break;
    case CCL_BACKEND_ERROR_NO_DEVICE:
      *domain = GST_RESOURCE_ERROR;
      *code = GST_RESOURCE_ERROR_NOT_FOUND;
      break;
    case CCL_BACKEND_ERROR_CUDA:
      *domain = GST_RESOURCE_ERROR;
      *code = GST_RESOURCE_ERROR_FAILED;
      break;
    case CCL_BACKEND_ERROR_NO_MEMORY:
      *domain = GST_RESOURCE_ERROR;
      *code = GST_RESOURCE_ERROR_NO_SPACE_LEFT;
      break;
  }
}

/* GST_ELEMENT_ERROR of the class that error calls for (and frees error): text,
 * a parenthesized format and arguments as GST_ELEMENT_ERROR takes them, says
 * what the element was doing; the backend's message is the debug part. */
#define POST_BACKEND_ERROR(self, error, text) G_STMT_START {              \
  GQuark _domain;                                                         \
  gint _code;                                                             \
  backend_error_class ((error), &_domain, &_code);                        \
  gst_element_message_full (GST_ELEMENT (self), GST_MESSAGE_ERROR,        \
      _domain, _code, g_strdup_printf text, g_strdup ((error)->message),  \
      __FILE__, GST_FUNCTION, __LINE__);                                  \
  g_clear_error (&(error));                                               \
} G_STMT_END

/* Calls of a CUDA backend run inside the element's GstCudaContext (the base
 * class's): the CUDA runtime works in whichever context is current. */
static gboolean
gst_cuda_ccl_enter (GstCudaCcl * self)
{
  return gst_ccl_cuda_transform_enter (GST_CCL_CUDA_TRANSFORM (self));
}

static void
gst_cuda_ccl_leave (GstCudaCcl * self)
{
  gst_ccl_cuda_transform_leave (GST_CCL_CUDA_TRANSFORM (self));
}

/* The CUDA backend in the pipeline's CUDA context (shared with the neighbours,
 * or created on device_id); NULL with *error (CCL_BACKEND_ERROR) otherwise. */
static CclBackend *
gst_cuda_ccl_open_cuda (GstCudaCcl * self, gint device_id, GError ** error)
{
  GstCclCudaTransform *base = GST_CCL_CUDA_TRANSFORM (self);
  gboolean shared = FALSE;
  gchar *context_why = NULL;
  CclBackend *backend = NULL;
  gint context_device;

  if (!gst_ccl_cuda_transform_open (base, &shared, &context_why)) {
    /* The engine names a missing driver or device best; the context's own
     * failure only when the engine sees nothing wrong. */
    if (ccl_backend_cuda_usable (device_id, error))
      g_set_error_literal (error, CCL_BACKEND_ERROR,
          CCL_BACKEND_ERROR_NO_DEVICE, context_why);
    g_free (context_why);
    return NULL;
  }

  context_device = gst_ccl_cuda_transform_get_context_device (base);
  if (!gst_cuda_ccl_enter (self)) {
    g_set_error (error, CCL_BACKEND_ERROR, CCL_BACKEND_ERROR_CUDA,
        "could not make the CUDA context of device %d current",
        context_device);
  } else {
    backend = ccl_backend_new (CCL_BACKEND_CUDA, context_device, error);
    gst_cuda_ccl_leave (self);
  }

  if (!backend) {
    gst_ccl_cuda_transform_close (base);
    return NULL;
  }
  /* The pointer, as GStreamer's CUDA library prints it when it announces a
   * context: pipelines/zero-copy.sh checks that the pipeline has one. */
  GST_INFO_OBJECT (self, "CUDA context %" GST_PTR_FORMAT " (%p) on device %d, %s",
      gst_ccl_cuda_transform_get_context (base),
      gst_ccl_cuda_transform_get_context (base), context_device,
      shared ? "given by the pipeline" : "found or created at start");
  return backend;
}

/* Decodes mask-location, if set, into self->region; posts the error (naming the
 * file) and returns FALSE when it cannot be had. Its size is checked against the
 * frames' at caps. */
static gboolean
gst_cuda_ccl_load_region (GstCudaCcl * self)
{
  gchar *location;
  GError *error = NULL;

  GST_OBJECT_LOCK (self);
  location = g_strdup (self->mask_location);
  GST_OBJECT_UNLOCK (self);

  g_clear_pointer (&self->region, ccl_region_free);
  if (!location || !*location) {
    g_free (location);
    return TRUE;
  }
  self->region = ccl_region_load (location, &error);
  if (!self->region) {
    gst_element_message_full (GST_ELEMENT (self), GST_MESSAGE_ERROR,
        error->domain, error->code, g_strdup (error->message),
        g_strdup_printf ("mask-location=%s", location), __FILE__,
        GST_FUNCTION, __LINE__);
    g_clear_error (&error);
    g_free (location);
    return FALSE;
  }
  GST_INFO_OBJECT (self, "mask %s: %dx%d", location, self->region->width,
      self->region->height);
  g_free (location);
  return TRUE;
}

static gboolean
gst_cuda_ccl_start (GstBaseTransform * trans)
{
  GstCudaCcl *self = GST_CUDA_CCL (trans);
  GstCudaCclBackend choice;
  gint device_id;
  GError *error = NULL;

  if (!GST_BASE_TRANSFORM_CLASS (parent_class)->start (trans))
    return FALSE;
  /* Before any device is opened: a wrong path is the commonest mistake, and it
   * should not wait for (or be hidden behind) the backend's start. */
  if (!gst_cuda_ccl_load_region (self))
    return FALSE;
  GST_OBJECT_LOCK (self);
  choice = self->backend_choice;
  GST_OBJECT_UNLOCK (self);
  device_id = gst_ccl_cuda_transform_get_device_id (GST_CCL_CUDA_TRANSFORM (self));

  if (choice != GST_CUDA_CCL_BACKEND_CPU)
    self->backend = gst_cuda_ccl_open_cuda (self, device_id, &error);

  if (!self->backend && choice == GST_CUDA_CCL_BACKEND_CUDA) {
    POST_BACKEND_ERROR (self, error,
        ("backend=cuda, but CUDA device %d is not usable", device_id));
    g_clear_pointer (&self->region, ccl_region_free);
    return FALSE;
  }
  if (!self->backend && choice == GST_CUDA_CCL_BACKEND_AUTO &&
      !self->warned_fallback) {
    GST_ELEMENT_WARNING (self, RESOURCE, NOT_FOUND,
        ("No usable CUDA device, labeling on the CPU"), ("%s",
            error->message));
    self->warned_fallback = TRUE;
  }
  g_clear_error (&error);

  if (!self->backend) {
    self->backend = ccl_backend_new (CCL_BACKEND_CPU, device_id, &error);
    if (!self->backend) {
      POST_BACKEND_ERROR (self, error, ("Could not start the cpu backend"));
      g_clear_pointer (&self->region, ccl_region_free);
      return FALSE;
    }
  }

  GST_OBJECT_LOCK (self);
  self->started = TRUE;
  self->on_cuda = ccl_backend_get_kind (self->backend) == CCL_BACKEND_CUDA;
  self->track_reset = 0;
  GST_OBJECT_UNLOCK (self);
#ifdef HAVE_GST_ANALYTICS
  if (!self->analytics)
    self->analytics = ccl_analytics_new ();
  ccl_analytics_reset (self->analytics);
#endif
  GST_INFO_OBJECT (self, "labeling with the %s backend",
      ccl_backend_get_name (self->backend));
  return TRUE;
}

static gboolean
gst_cuda_ccl_stop (GstBaseTransform * trans)
{
  GstCudaCcl *self = GST_CUDA_CCL (trans);
  gboolean entered;

  if (self->backend) {
    /* Device memory, streams and events are freed in the context they were
     * made in. */
    entered = gst_cuda_ccl_enter (self);
    g_clear_pointer (&self->backend, ccl_backend_free);
    if (entered)
      gst_cuda_ccl_leave (self);
  }
  g_clear_pointer (&self->region, ccl_region_free);
  GST_OBJECT_LOCK (self);
  self->started = FALSE;
  self->on_cuda = FALSE;
  GST_OBJECT_UNLOCK (self);
  /* The base class gives the context up. */
  return GST_BASE_TRANSFORM_CLASS (parent_class)->stop (trans);
}

static gboolean
caps_have_cuda_memory (GstCaps * caps, guint index)
{
  GstCapsFeatures *features = gst_caps_get_features (caps, index);

  return features && !gst_caps_features_is_any (features) &&
      gst_caps_features_contains (features, CCL_CAPS_FEATURE_CUDA_MEMORY);
}

/* Whether CUDA memory caps can be labeled: never with backend=cpu; once
 * started, only on the CUDA backend (auto may have fallen back to the CPU);
 * before start, as far as the backend property tells. */
static gboolean
gst_cuda_ccl_takes_cuda_memory (GstCudaCcl * self, const gchar ** why)
{
  gboolean ok;

  GST_OBJECT_LOCK (self);
  if (self->backend_choice == GST_CUDA_CCL_BACKEND_CPU) {
    ok = FALSE;
    *why = "backend=cpu labels system memory only (put cudadownload before "
        "cudaccl to label CUDA frames on the CPU)";
  } else if (self->started && !self->on_cuda) {
    ok = FALSE;
    *why = "labeling on the CPU (no usable CUDA device), which takes system "
        "memory only";
  } else {
    ok = TRUE;
    *why = NULL;
  }
  GST_OBJECT_UNLOCK (self);
  return ok;
}

/* In place, so the other pad has the same caps, memory feature included. CUDA
 * memory is listed first: a neighbour that can do both then picks it, and the
 * frames stay on the GPU. */
static GstCaps *
gst_cuda_ccl_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  GstCudaCcl *self = GST_CUDA_CCL (trans);
  GstCaps *cuda, *system, *result;
  const gchar *why;
  gboolean takes_cuda = gst_cuda_ccl_takes_cuda_memory (self, &why);
  guint i, dropped = 0;

  if (gst_caps_is_any (caps)) {
    result = gst_caps_ref (caps);
  } else {
    cuda = gst_caps_new_empty ();
    system = gst_caps_new_empty ();
    for (i = 0; i < gst_caps_get_size (caps); i++) {
      GstStructure *s = gst_structure_copy (gst_caps_get_structure (caps, i));
      GstCapsFeatures *f = gst_caps_get_features (caps, i);

      f = f ? gst_caps_features_copy (f) : NULL;
      if (!caps_have_cuda_memory (caps, i))
        gst_caps_append_structure_full (system, s, f);
      else if (takes_cuda)
        gst_caps_append_structure_full (cuda, s, f);
      else {
        gst_structure_free (s);
        if (f)
          gst_caps_features_free (f);
        dropped++;
      }
    }
    if (dropped)
      GST_DEBUG_OBJECT (self, "leaving out %u CUDA memory structure(s): %s",
          dropped, why);
    gst_caps_append (cuda, system);
    result = cuda;
  }

  if (filter) {
    GstCaps *tmp = gst_caps_intersect_full (result, filter,
        GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (result);
    result = tmp;
  }
  GST_LOG_OBJECT (self, "%s caps %" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT,
      direction == GST_PAD_SINK ? "sink" : "src", caps, result);
  return result;
}

/* The default check falls back on the pad template (both memories) when a pad
 * has no peer, so the CUDA memory refusal is repeated here. */
static gboolean
gst_cuda_ccl_accept_caps (GstBaseTransform * trans, GstPadDirection direction,
    GstCaps * caps)
{
  GstCudaCcl *self = GST_CUDA_CCL (trans);
  const gchar *why;
  guint i;

  if (!gst_cuda_ccl_takes_cuda_memory (self, &why)) {
    for (i = 0; i < gst_caps_get_size (caps); i++) {
      if (caps_have_cuda_memory (caps, i)) {
        GST_DEBUG_OBJECT (self, "refusing %" GST_PTR_FORMAT ": %s", caps, why);
        return FALSE;
      }
    }
  }
  return GST_BASE_TRANSFORM_CLASS (parent_class)->accept_caps (trans,
      direction, caps);
}

/* Asks for the tracks to end before the next frame; a new stream (ids from 1)
 * outranks a plain end. */
static void
gst_cuda_ccl_request_track_reset (GstCudaCcl * self, CclTrackReset how)
{
  GST_OBJECT_LOCK (self);
  self->track_reset = MAX (self->track_reset, (guint) how + 1);
  GST_OBJECT_UNLOCK (self);
  /* The counts go with the tracks they were counted from. */
  ccl_events_request_reset (self->events);
}

/* A flush (seek) or a new stream ends the tracks and resets the foreground
 * model: what comes next does not continue what was seen. (A new frame size does
 * both too: the tracker and the model each start afresh when the size they are
 * given changes.) The request is applied by the
 * streaming thread at the next frame, since flush-stop may arrive while a frame
 * is still being labeled. */
static gboolean
gst_cuda_ccl_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstCudaCcl *self = GST_CUDA_CCL (trans);

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_FLUSH_STOP:
      GST_DEBUG_OBJECT (self, "flush: tracks end, the foreground model resets");
      gst_cuda_ccl_request_track_reset (self, CCL_TRACKS_END);
      break;
    case GST_EVENT_STREAM_START:
      GST_DEBUG_OBJECT (self, "stream-start: tracks end, ids start at 1, the "
          "foreground model resets");
      gst_cuda_ccl_request_track_reset (self, CCL_TRACKS_NEW_STREAM);
      break;
    default:
      break;
  }
  return GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
}

/* The size limit is checked on the raw caps: GstVideoInfo itself cannot
 * describe some of the frames refused here, and the user should learn why. */
static gboolean
gst_cuda_ccl_set_caps (GstBaseTransform * trans, GstCaps * incaps,
    GstCaps * outcaps)
{
  GstCudaCcl *self = GST_CUDA_CCL (trans);
  GstStructure *s = gst_caps_get_structure (incaps, 0);
  gint width = 0, height = 0;
  gint64 pixels;
  const gchar *why;

  if (caps_have_cuda_memory (incaps, 0) &&
      !gst_cuda_ccl_takes_cuda_memory (self, &why)) {
    GST_WARNING_OBJECT (self, "refusing caps %" GST_PTR_FORMAT ": %s", incaps,
        why);
    return FALSE;
  }
  if (gst_structure_get_int (s, "width", &width) &&
      gst_structure_get_int (s, "height", &height)) {
    pixels = (gint64) width * height;
    if (pixels > CCL_MAX_PIXELS) {
      GST_ELEMENT_ERROR (trans, CORE, NEGOTIATION,
          ("Frame size %dx%d is too large to label", width, height),
          ("%dx%d = %" G_GINT64_FORMAT " pixels; cudaccl labels frames of at "
              "most 2^31-1 pixels (32-bit label indices)", width, height,
              pixels));
      return FALSE;
    }
  }
  return GST_BASE_TRANSFORM_CLASS (parent_class)->set_caps (trans, incaps,
      outcaps);
}

static gboolean
gst_cuda_ccl_wants_color (GstCudaCcl * self)
{
  gboolean color;

  GST_OBJECT_LOCK (self);
  color = self->settings.foreground == CCL_FOREGROUND_COLOR;
  GST_OBJECT_UNLOCK (self);
  return color;
}

static gboolean
gst_cuda_ccl_set_info (GstVideoFilter * filter, GstCaps * incaps,
    GstVideoInfo * in_info, GstCaps * outcaps, GstVideoInfo * out_info)
{
  GstCudaCcl *self = GST_CUDA_CCL (filter);
  gint width = GST_VIDEO_INFO_WIDTH (in_info);
  gint height = GST_VIDEO_INFO_HEIGHT (in_info);
  GError *error = NULL, *region_error = NULL;
  gboolean configured, region_set = TRUE;

  if (!ccl_backend_supports_format (GST_VIDEO_INFO_FORMAT (in_info))) {
    GST_WARNING_OBJECT (self, "refusing caps %" GST_PTR_FORMAT
        ": format %s is not supported", incaps,
        GST_VIDEO_INFO_NAME (in_info));
    return FALSE;
  }
  if (!self->backend) {
    GST_WARNING_OBJECT (self, "caps set before start");
    return FALSE;
  }
  if (self->region && (self->region->width != width ||
          self->region->height != height)) {
    gchar *location;

    GST_OBJECT_LOCK (self);
    location = g_strdup (self->mask_location);
    GST_OBJECT_UNLOCK (self);
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("Mask file \"%s\" is %dx%d, but the frames are %dx%d", location,
            self->region->width, self->region->height, width, height),
        ("mask-location must be an image of the frame size"));
    g_free (location);
    return FALSE;
  }
  if (GST_VIDEO_INFO_IS_GRAY (in_info) && gst_cuda_ccl_wants_color (self)) {
    /* Refused here, with the property named, rather than left out of the caps:
     * a gray-only upstream would otherwise fail with a bare not-negotiated. */
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("foreground=color needs a color format, but the frames are %s",
            GST_VIDEO_INFO_NAME (in_info)),
        ("gray frames have no hue or saturation: convert them (videoconvert "
            "to RGBA, BGRx, NV12 or I420) or choose another foreground"));
    return FALSE;
  }
  if (!gst_cuda_ccl_enter (self)) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("Could not make the CUDA context current"), (NULL));
    return FALSE;
  }
  configured = ccl_backend_configure (self->backend, in_info, &error);
  if (configured && self->region)
    region_set = ccl_backend_set_region (self->backend, self->region,
        &region_error);
  gst_cuda_ccl_leave (self);
  if (!configured) {
    POST_BACKEND_ERROR (self, error,
        ("Could not prepare the %s backend for %dx%d %s frames",
            ccl_backend_get_name (self->backend), width, height,
            GST_VIDEO_INFO_NAME (in_info)));
    return FALSE;
  }
  if (!region_set) {
    POST_BACKEND_ERROR (self, region_error,
        ("Could not apply the mask of mask-location to %dx%d frames", width,
            height));
    return FALSE;
  }
  {
    gchar *why = NULL;

    if (!ccl_events_set_frame_size (self->events, width, height, &why)) {
      GST_ELEMENT_WARNING (self, RESOURCE, SETTINGS,
          ("The lines or zones do not fit in %dx%d frames: %s", width, height,
              why), ("they stay, and count what lies within the frame"));
      g_free (why);
    }
  }
  GST_DEBUG_OBJECT (self, "configured for %dx%d %s in %s", width, height,
      GST_VIDEO_INFO_NAME (in_info), caps_have_cuda_memory (incaps, 0) ?
      "CUDA memory" : "system memory");
  return TRUE;
}

/* The zone filter of one frame (CclKeepFunc). */
typedef struct
{
  CclEvents *events;
  gboolean inside;
} ZoneKeep;

static gboolean
zone_keeps (gdouble x, gdouble y, gpointer data)
{
  const ZoneKeep *k = data;

  return ccl_events_in_any_zone (k->events, x, y) == k->inside;
}

/* Labels, counts and draws the mapped frame, inside the CUDA context: the
 * backend's steps, with the counting between tracking and drawing so that the
 * overlay shows this frame's counts. */
static gboolean
process_frame (GstCudaCcl * self, GstVideoFrame * frame, gboolean on_device,
    const CclSettings * settings, GstCudaCclZoneFilter zone_filter,
    GstClockTime running_time, CclReport * report, gboolean * counting,
    GError ** error)
{
  ZoneKeep keep = { self->events, zone_filter == GST_CUDA_CCL_ZONE_FILTER_INSIDE };
  const CclShapes *shapes = NULL;
  gboolean filters;

  /* A change of lines or zones takes effect here, for the filter and the
   * counts alike. */
  filters = ccl_events_prepare (self->events) &&
      zone_filter != GST_CUDA_CCL_ZONE_FILTER_NONE &&
      ccl_events_has_zones (self->events);
  if (!ccl_backend_process (self->backend, frame, on_device, settings,
          filters ? zone_keeps : NULL, &keep, report, error))
    return FALSE;
  /* Lines and zones count the components as reported, tracked or not. */
  *counting = ccl_events_update (self->events, report->components,
      report->n_components, report->tracking, running_time);
  if (*counting && (settings->overlay & CCL_OVERLAY_EVENTS))
    shapes = ccl_events_shapes (self->events, GST_VIDEO_FRAME_WIDTH (frame),
        GST_VIDEO_FRAME_HEIGHT (frame));
#ifdef HAVE_GST_ANALYTICS_SEGMENTATION
  if (settings->analytics_mask && !ccl_analytics_read_mask (self->analytics,
          self->backend, report->components, report->n_components,
          report->tracking, error))
    return FALSE;
#endif
  return ccl_backend_draw (self->backend, frame, on_device, settings, shapes,
      report, error);
}

static GstFlowReturn
gst_cuda_ccl_transform_ip (GstBaseTransform * trans, GstBuffer * buf)
{
  GstCudaCcl *self = GST_CUDA_CCL (trans);
  GstVideoFilter *filter = GST_VIDEO_FILTER (trans);
  GstClockTime t0 = gst_util_get_timestamp ();
  GstVideoFrame frame;
  GstMapFlags flags;
  CclSettings settings;
  CclReport report = { 0, };
  gboolean roi_meta, post_messages, post_events, analytics_meta, on_device,
      draws, ok, counting = FALSE;
  GstCudaCclZoneFilter zone_filter;
  GstClockTime running_time;
  guint track_reset;
  GstCclMeta *meta;
  GError *error = NULL;

  if (G_UNLIKELY (!filter->negotiated || !self->backend))
    return GST_FLOW_NOT_NEGOTIATED;

  GST_OBJECT_LOCK (self);
  settings = self->settings;
  roi_meta = self->roi_meta;
  analytics_meta = self->analytics_meta;
  post_messages = self->post_messages;
  post_events = self->post_events;
  zone_filter = self->zone_filter;
  track_reset = self->track_reset;
  self->track_reset = 0;
#ifdef HAVE_GST_ANALYTICS_SEGMENTATION
  settings.analytics_mask = self->analytics_mask;
#else
  settings.analytics_mask = FALSE;
#endif
  GST_OBJECT_UNLOCK (self);

  /* Metadata alone needs no write access: mapping for reading keeps memory
   * shared with other buffers from being copied. GST_MAP_CUDA maps CUDA memory
   * to its device address, so nothing is copied to or from the host. */
  on_device = gst_ccl_cuda_transform_buffer_on_device (GST_CCL_CUDA_TRANSFORM
      (self), buf);
  draws = ccl_settings_overlay_flags (&settings) != 0;
  flags = draws ? GST_MAP_READWRITE : GST_MAP_READ;
  if (on_device)
    flags |= gst_ccl_cuda_transform_device_map_flags ();
  running_time = gst_segment_to_running_time (&trans->segment, GST_FORMAT_TIME,
      GST_BUFFER_PTS (buf));

  if (!gst_cuda_ccl_enter (self)) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("Could not make the CUDA context current"), (NULL));
    return GST_FLOW_ERROR;
  }
  /* What comes after a flush or a new stream does not continue the scene the
   * tracks and the foreground model know. Inside the context: the model may
   * live on the device. */
  if (track_reset) {
    ccl_backend_reset_tracks (self->backend, (CclTrackReset) (track_reset - 1));
#ifdef HAVE_GST_ANALYTICS
    ccl_analytics_reset (self->analytics);
#endif
    if (!ccl_backend_reset_foreground (self->backend, &error)) {
      gst_cuda_ccl_leave (self);
      POST_BACKEND_ERROR (self, error, ("Could not reset the foreground model "
              "on the %s backend", ccl_backend_get_name (self->backend)));
      return GST_FLOW_ERROR;
    }
  }
  if (!gst_video_frame_map (&frame, &filter->in_info, buf, flags)) {
    gst_cuda_ccl_leave (self);
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Could not map the frame"),
        ("%s%s mapping failed", draws ? "read/write" : "read",
            on_device ? " CUDA" : ""));
    return GST_FLOW_ERROR;
  }
  ok = process_frame (self, &frame, on_device, &settings, zone_filter,
      running_time, &report, &counting, &error);
  gst_video_frame_unmap (&frame);
  gst_cuda_ccl_leave (self);

  if (!ok) {
    g_free (report.components);
    g_free (report.blobs);
    POST_BACKEND_ERROR (self, error, ("Labeling failed on the %s backend",
            ccl_backend_get_name (self->backend)));
    return GST_FLOW_ERROR;
  }

  /* The meta takes the reported components as they are (it frees them with
   * g_free): one block, built once, no copy. */
  meta = gst_ccl_meta_add (buf, GST_VIDEO_INFO_WIDTH (&filter->in_info),
      GST_VIDEO_INFO_HEIGHT (&filter->in_info), report.total_count, NULL, 0);
  meta->components = report.components;
  meta->n_components = report.n_components;
  meta->threshold = report.threshold;
  meta->algorithm = settings.algorithm;
  meta->connectivity = settings.connectivity;
  meta->gpu_time = report.gpu_time;
  meta->tracking = report.tracking;
  /* The blobs likewise (NULL without blob analysis). */
  meta->blobs = report.blobs;
  if (counting)
    ccl_events_add_meta (self->events, meta);

  if (roi_meta)
    gst_cuda_ccl_report_add_roi_metas (buf, &report);
#ifdef HAVE_GST_ANALYTICS
  if (analytics_meta || settings.analytics_mask)
    ccl_analytics_attach (self->analytics, buf, report.components,
        report.n_components, report.tracking, running_time,
        settings.track_max_lost);
#else
  (void) analytics_meta;
#endif
  if (post_messages) {
    GstMessage *m = gst_cuda_ccl_report_message (GST_OBJECT (self), buf,
        &trans->segment, &filter->in_info, &report);

    if (counting)
      ccl_events_add_counts (self->events, gst_message_writable_structure (m));
    gst_element_post_message (GST_ELEMENT (self), m);
  }
  if (counting && post_events)
    ccl_events_post (self->events, GST_ELEMENT (self));

  /* wall: this call, on the CPU, from entry to here (GPU waits included). */
  GST_LOG_OBJECT (self, "%" GST_TIME_FORMAT ": %u components, %u reported, "
      "threshold %u, %s memory, GPU %" G_GUINT64_FORMAT " ns, wall %"
      G_GUINT64_FORMAT " ns (label %" G_GUINT64_FORMAT ", entries %"
      G_GUINT64_FORMAT ", track %" G_GUINT64_FORMAT ", draw %" G_GUINT64_FORMAT
      ", roi pick %" G_GUINT64_FORMAT ")", GST_TIME_ARGS (GST_BUFFER_PTS (buf)),
      report.total_count, report.n_components, report.threshold,
      on_device ? "CUDA" : "host", report.gpu_time,
      gst_util_get_timestamp () - t0, report.step_ns[0], report.step_ns[1],
      report.step_ns[2], report.step_ns[3], report.step_ns[4]);

  return GST_FLOW_OK;
}
