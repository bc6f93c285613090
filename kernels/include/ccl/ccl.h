/* cudaccl engine: the C interface (docs/PYTHON.md uses it through ctypes).
 *
 * Opaque handles for an engine (a backend: the CPU reference or a CUDA device), a
 * foreground model (the per-pixel background model, which keeps state between frames),
 * a tracker and a counter of line crossings and zones (ccl_events). Every function
 * returns a ccl_status; on failure ccl_last_error() gives the message of the calling
 * thread's last failure. No C++ exception crosses this interface.
 *
 * Structs that callers fill or receive start with a `size` member, set to
 * sizeof(the struct) by the caller (the *_init functions do it): a later version may
 * append members and still read and write what an older caller passes. ccl_component,
 * ccl_blob, ccl_track and ccl_event are arrays' elements and never grow: a new layout
 * gets a new name.
 *
 * Threads: one handle is used by one thread at a time; different handles may be used
 * by different threads at once. */
#ifndef CCL_CCL_H
#define CCL_CCL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped when a function or a struct changes in a way older callers would notice. */
#define CCL_ABI_VERSION 1

typedef enum {
  CCL_OK = 0,
  CCL_ERROR_INVALID_ARGUMENT = 1, /* bad image, options or handle: the message says which */
  CCL_ERROR_CUDA = 2,             /* a CUDA call failed: ccl_last_cuda_error() names it */
  CCL_ERROR_OUT_OF_MEMORY = 3,    /* host, device or pinned memory */
  CCL_ERROR_UNSUPPORTED = 4,      /* e.g. the CUDA backend in a build without CUDA */
  CCL_ERROR_INTERNAL = 5
} ccl_status;

typedef enum { CCL_BACKEND_CPU = 0, CCL_BACKEND_CUDA = 1 } ccl_backend;

typedef enum { CCL_MEMORY_HOST = 0, CCL_MEMORY_DEVICE = 1 } ccl_memory;

typedef enum {
  CCL_FORMAT_GRAY8 = 0,
  CCL_FORMAT_GRAY16LE = 1, /* little-endian; pixels are compared with threshold * 257 */
  /* 3 bytes per pixel: widened to RGBx by the interface (on the host for host images,
     by a device-to-device copy on the image's stream for device images). */
  CCL_FORMAT_RGB = 2,
  CCL_FORMAT_RGBA = 3,
  CCL_FORMAT_BGRA = 4,
  CCL_FORMAT_RGBX = 5,
  CCL_FORMAT_BGRX = 6
} ccl_format;

typedef enum { CCL_MODE_ABOVE = 0, CCL_MODE_BELOW = 1, CCL_MODE_OTSU = 2 } ccl_threshold_mode;

typedef enum {
  CCL_FOREGROUND_THRESHOLD = 0,
  CCL_FOREGROUND_BACKGROUND = 1, /* needs a ccl_foreground handle */
  CCL_FOREGROUND_LOCAL = 2,
  CCL_FOREGROUND_COLOR = 3
} ccl_foreground_model;

/* One frame. Only the first plane is read (packed formats). */
typedef struct {
  uint32_t size;
  int32_t width, height;
  int32_t format; /* ccl_format */
  int32_t memory; /* ccl_memory */
  const void* data;
  int64_t stride; /* bytes from one row to the next, at least a row's bytes */
  /* Device images: the cudaStream_t the frame's work is queued on (0: the legacy
     default stream). Ignored for host images. */
  uintptr_t stream;
} ccl_image;

/* Settings of a frame; ccl_options_init gives the engine's defaults. */
typedef struct {
  uint32_t size;
  int32_t threshold;    /* 0..255 */
  int32_t mode;         /* ccl_threshold_mode */
  int32_t connectivity; /* 4 or 8 */
  int32_t algorithm;    /* index into the registry (ccl_algorithm_name) */
  int32_t write_labels; /* 0: features only */
  uint32_t max_components;
  uint64_t min_area, max_area; /* max_area 0: no limit */
  int32_t foreground;          /* ccl_foreground_model */
  /* CCL_FOREGROUND_BACKGROUND */
  int32_t history;
  double learning_rate;
  double variance_threshold;
  int32_t detect_shadows;
  /* CCL_FOREGROUND_LOCAL */
  int32_t block_size;
  double offset;
  /* CCL_FOREGROUND_COLOR: H 0..179, S and V 0..255, inclusive */
  int32_t color_low[3], color_high[3];
  /* cleanup of the mask, every model */
  int32_t open_radius, close_radius;
  /* Added in 0.3; a shorter struct (older callers) gets the defaults. */
  int32_t compensate_light; /* CCL_FOREGROUND_BACKGROUND: follow global light changes (1) */
  int32_t group_gap;        /* pieces whose boxes are this close are one component; -1: off */
  /* Added with blob analysis; a struct that ends at group_gap (128 bytes, older
     callers) gets the defaults: no property, no blob filter. */
  uint32_t properties; /* CCL_PROPERTY_* bits: ccl_engine_blobs, ccl_engine_blob_columns */
  /* Blob filters, applied where min_area and max_area are (with group_gap, to the
     groups): a component is reported only when its circularity (4 pi area /
     perimeter^2), mean luma (the format's range: 0..255, 0..65535 for GRAY16LE) and
     eccentricity lie within these inclusive bounds; a max of 0 is no limit. A filter
     that is set computes what it reads (CCL_PROPERTY_PERIMETER, _INTENSITY) whether or
     not `properties` asks for it. */
  double min_circularity, max_circularity;
  double min_intensity, max_intensity;
  double min_eccentricity, max_eccentricity;
} ccl_options;

/* Blob properties (ccl_options.properties), each computed only when asked for (or
   needed by a filter). */
enum {
  CCL_PROPERTY_INTENSITY = 1, /* luma sum, sum of squares, min, max */
  /* each channel's sum: R, G, B of the RGB formats; the value thrice for gray */
  CCL_PROPERTY_COLOR = 2,
  CCL_PROPERTY_PERIMETER = 4, /* scikit-image's perimeter (4-neighbourhood) */
  CCL_PROPERTY_EULER = 8,     /* components minus holes, with the labeling's connectivity */
  CCL_PROPERTY_ALL = 15
};

/* Where the label image goes: int32 (0 background, 1..N), caller's memory. For a device
   destination the copy is queued on the image's stream and not waited for. */
typedef struct {
  uint32_t size;
  void* data;
  int64_t stride; /* bytes per row, at least 4 * width */
  int32_t memory; /* ccl_memory; device destinations need a device image */
} ccl_labels;

typedef struct {
  uint32_t size;
  int32_t width, height;
  int32_t threshold_used;
  uint32_t num_components; /* every component of the frame */
  uint32_t num_reported;   /* those the options report: the table's rows */
  int32_t backend;         /* ccl_backend that ran */
  int32_t device;          /* CUDA device, -1 for the CPU */
  /* The memory the frame was read from: the caller's own pointer and its kind, so a
     caller can check that a device array was read in place. */
  uintptr_t read_pointer;
  int32_t read_memory;
  uintptr_t stream; /* the stream the work went to (device images) */
  float gpu_ms;     /* the engine's GPU time when profiling is on, else 0 */
} ccl_result;

/* One component, as the engine reports it (sums over its pixels, x = column,
   y = row, box [x, x + width) x [y, y + height)). */
typedef struct {
  uint32_t label;
  int32_t x, y, width, height;
  uint64_t area;
  uint64_t sum_x, sum_y;
  uint64_t sum_xx, sum_xy, sum_yy;
} ccl_component;

/* The columns ccl_engine_columns writes, one row of n values each: integers, then
   floating point. r is the row, c the column; bbox as min_row, min_col, max_row + 1,
   max_col + 1; moments_p_q = sum (r - min_row)^p (c - min_col)^q (about the box's
   corner); image_moments about the image's corner. */
enum {
  CCL_COL_LABEL = 0,
  CCL_COL_BBOX0, CCL_COL_BBOX1, CCL_COL_BBOX2, CCL_COL_BBOX3,
  CCL_COL_AREA,
  CCL_COL_IMAGE_M10, CCL_COL_IMAGE_M01, CCL_COL_IMAGE_M20, CCL_COL_IMAGE_M11, CCL_COL_IMAGE_M02,
  CCL_INT_COLUMNS
};
enum {
  CCL_COL_CENTROID0 = 0, CCL_COL_CENTROID1,
  CCL_COL_M00, CCL_COL_M10, CCL_COL_M01, CCL_COL_M20, CCL_COL_M11, CCL_COL_M02,
  CCL_FLOAT_COLUMNS
};

/* One component's blob properties, as ccl::Blob (ccl/types.h): exact integer sums over
   its pixels, 0 in the fields of properties that were not computed. luma is the
   engine's (the value for gray, BT.601 of R, G, B for color formats). */
typedef struct {
  uint64_t intensity_sum;    /* CCL_PROPERTY_INTENSITY: sum of luma */
  uint64_t intensity_sum_sq; /* sum of luma squared */
  uint64_t channel_sum[3];   /* CCL_PROPERTY_COLOR */
  uint32_t intensity_min, intensity_max;
  /* CCL_PROPERTY_PERIMETER: boundary pixels weighted 1, sqrt 2 and (1 + sqrt 2) / 2 */
  uint32_t perimeter_counts[3];
  int32_t euler; /* CCL_PROPERTY_EULER */
} ccl_blob;

/* The columns ccl_engine_blob_columns writes, as scikit-image's regionprops defines
   them (radians, pixels, the image's values). A column whose property the frame did not
   compute is NaN: intensity_* without CCL_PROPERTY_INTENSITY, color_mean* without
   CCL_PROPERTY_COLOR, perimeter and circularity without CCL_PROPERTY_PERIMETER,
   euler_number without CCL_PROPERTY_EULER. The shape columns (orientation ..
   inertia_ratio) come from the moments and are always written. */
enum {
  CCL_BLOB_COL_INTENSITY_MEAN = 0,
  CCL_BLOB_COL_INTENSITY_STD, /* population standard deviation (numpy's std) */
  CCL_BLOB_COL_INTENSITY_MIN, CCL_BLOB_COL_INTENSITY_MAX,
  CCL_BLOB_COL_COLOR_MEAN0, CCL_BLOB_COL_COLOR_MEAN1, CCL_BLOB_COL_COLOR_MEAN2,
  CCL_BLOB_COL_PERIMETER,
  CCL_BLOB_COL_CIRCULARITY, /* 4 pi area / perimeter^2; 0 when the perimeter is 0 */
  CCL_BLOB_COL_EULER_NUMBER,
  CCL_BLOB_COL_ORIENTATION, /* -pi/2..pi/2: the major axis against the rows' axis */
  CCL_BLOB_COL_AXIS_MAJOR_LENGTH, CCL_BLOB_COL_AXIS_MINOR_LENGTH,
  CCL_BLOB_COL_ECCENTRICITY,
  CCL_BLOB_COL_INERTIA_RATIO, /* minor / major eigenvalue of the inertia tensor */
  CCL_BLOB_COLUMNS
};

/* A track, as ccl::TrackInfo. */
typedef struct {
  uint64_t id, parent_id;
  uint32_t age, frames_unseen;
  double velocity_x, velocity_y;
  int32_t predicted_x, predicted_y, predicted_width, predicted_height;
} ccl_track;

typedef struct {
  uint32_t size;
  int32_t max_lost; /* frames a track may go unseen and keep its id */
} ccl_tracker_options;

typedef struct ccl_engine ccl_engine;
typedef struct ccl_foreground ccl_foreground;
typedef struct ccl_tracker ccl_tracker;

int ccl_abi_version(void);
const char* ccl_version(void);
/* The message of this thread's last failure ("" when none). */
const char* ccl_last_error(void);
/* For CCL_ERROR_CUDA: the cudaError_t value and its name ("cudaErrorMemoryAllocation"). */
int ccl_last_cuda_error(void);
const char* ccl_last_cuda_error_name(void);

/* 1 when this build has the CUDA engine. */
int ccl_cuda_compiled(void);
/* 1 when `device` (-1: current) can run the engine; else 0 and why in `why`. */
int ccl_cuda_device_usable(int device, char* why, size_t why_size);
/* The CUDA device that holds `pointer`, or CCL_ERROR_INVALID_ARGUMENT for host memory. */
ccl_status ccl_cuda_pointer_device(uintptr_t pointer, int* device);

int ccl_algorithm_count(void);
const char* ccl_algorithm_name(int index); /* NULL outside 0..count-1 */

void ccl_options_init(ccl_options* options);
void ccl_tracker_options_init(ccl_tracker_options* options);

ccl_status ccl_engine_create(int backend, int device, ccl_engine** out);
void ccl_engine_destroy(ccl_engine* engine);
/* GPU time of each frame in ccl_result.gpu_ms (costs a few events per frame). */
ccl_status ccl_engine_set_profiling(ccl_engine* engine, int on);

/* Labels one frame. `foreground` is needed for CCL_FOREGROUND_BACKGROUND (NULL
   otherwise) and must belong to this engine's backend and device; `labels` may be NULL.
   The reported components stay with the engine until its next frame. */
ccl_status ccl_engine_label(ccl_engine* engine, ccl_foreground* foreground,
                            const ccl_image* image, const ccl_options* options,
                            const ccl_labels* labels, ccl_result* result);
/* The same, without waiting for the frame where it can: a device image on the CUDA
   backend, without a foreground model and without profiling, is queued on its stream
   and the call returns at once. The result's counts are then CCL_COUNT_PENDING; the
   label image is written on the stream. ccl_engine_wait (or any call that reads the
   frame's table, or the engine's next frame) waits for the frame and fills the counts.
   Every other frame is labeled as ccl_engine_label labels it. */
#define CCL_COUNT_PENDING 0xffffffffu
ccl_status ccl_engine_submit(ccl_engine* engine, ccl_foreground* foreground,
                             const ccl_image* image, const ccl_options* options,
                             const ccl_labels* labels, ccl_result* result);
/* Waits for the engine's last frame and writes its result (as ccl_engine_label would
   have); a frame already waited for just has its result written again. Errors of the
   frame's GPU work are reported here. */
ccl_status ccl_engine_wait(ccl_engine* engine, ccl_result* result);
/* The last frame's reported components (num_reported of them), valid until the
   engine's next frame. */
ccl_status ccl_engine_components(ccl_engine* engine, const ccl_component** data,
                                 uint32_t* count);
/* The last frame's table as columns: ints[CCL_INT_COLUMNS * n], floats[CCL_FLOAT_COLUMNS
   * n], column-major as the enums above list them (n = num_reported). */
ccl_status ccl_engine_columns(ccl_engine* engine, int64_t* ints, double* floats);
/* The same columns in device memory (ints and floats are device pointers of the
   engine's device), for every component of the last frame (num_components rows, in
   label order, whatever the options reported): the table never leaves the device.
   Needs the last frame to be a device image on the CUDA backend; queued on its stream,
   not waited for. Options reporting no component (max_components 0) spare that frame
   the table's copy to the host. */
ccl_status ccl_engine_device_columns(ccl_engine* engine, int64_t* ints, double* floats);
/* The same, written on `stream` (a cudaStream_t; 0 the legacy default stream), ordered
   after the frame's own work whatever stream that was queued on: for a frame that
   ccl_engine_submit left in flight, whose stream may be gone by the time its columns
   are wanted. */
ccl_status ccl_engine_device_columns_on(ccl_engine* engine, int64_t* ints, double* floats,
                                        uintptr_t stream);
/* The last frame's blobs (num_reported of them, parallel to ccl_engine_components),
   valid until the engine's next frame; *data NULL and *count 0 when the frame's options
   asked for no property and set no blob filter. */
ccl_status ccl_engine_blobs(ccl_engine* engine, const ccl_blob** data, uint32_t* count);
/* The last frame's blob values as columns: floats[CCL_BLOB_COLUMNS * n], column-major
   in the order of the CCL_BLOB_COL_* enum (n = num_reported rows, in the order of
   ccl_engine_columns'). */
ccl_status ccl_engine_blob_columns(ccl_engine* engine, double* floats);

/* A background model on the engine's backend and device. */
ccl_status ccl_foreground_create(ccl_engine* engine, ccl_foreground** out);
void ccl_foreground_destroy(ccl_foreground* foreground);
/* Forgets the background: the next frame is learned as it. */
ccl_status ccl_foreground_reset(ccl_foreground* foreground);

ccl_status ccl_tracker_create(const ccl_tracker_options* options, ccl_tracker** out);
void ccl_tracker_destroy(ccl_tracker* tracker);
/* Ends every track; reset_ids also restarts ids at 1 (a new stream). */
ccl_status ccl_tracker_reset(ccl_tracker* tracker, int reset_ids);
/* Tracks of one frame's components: out[i] for components[i]. */
ccl_status ccl_tracker_update(ccl_tracker* tracker, int width, int height,
                              const ccl_component* components, size_t count, ccl_track* out);
/* The same on the engine's last frame (its reported components, in order). */
ccl_status ccl_tracker_update_engine(ccl_tracker* tracker, ccl_engine* engine, ccl_track* out);

/* Counting lines and zones (docs/EVENTS.md; the engine's ccl::EventCounter,
   ccl/events.h): fed each frame's component centroids with their track ids, a
   ccl_events counts the tracks crossing each line in each direction, the components
   inside each zone, the tracks entering and leaving each zone and how long they stay,
   and reports each of these as a ccl_event. Geometry in pixels, in the frame's
   coordinates (x to the right, y down). */
typedef struct ccl_events ccl_events;

#define CCL_MAX_EVENT_LINES 64
#define CCL_MAX_EVENT_ZONES 64

/* ccl_event.kind. */
enum {
  CCL_EVENT_LINE_FORWARD = 0,  /* a track crossed a line from its negative side to its positive */
  CCL_EVENT_LINE_BACKWARD = 1, /* ... from the positive side to the negative */
  CCL_EVENT_ZONE_ENTER = 2,    /* a track is inside a zone and was not in its previous report */
  CCL_EVENT_ZONE_EXIT = 3,     /* a track inside a zone left it, or was forgotten inside */
  CCL_EVENT_ZONE_MAX = 4       /* a zone's count rose above its limit */
};

/* Lines and zones; ccl_events_config_init gives none and the defaults. */
typedef struct {
  uint32_t size;
  uint32_t n_lines;           /* at most CCL_MAX_EVENT_LINES */
  uint32_t n_zones;           /* at most CCL_MAX_EVENT_ZONES */
  /* A track not reported in this many frames (updates) in a row is forgotten (a zone
     it was inside sees it exit); one reported again later is a new track. At least 1;
     30 by default. */
  uint32_t forget_after;
  /* n_lines segments, 4 numbers each: x1, y1, x2, y2. A point's side of a line is
     the sign of (x2-x1)(y-y1) - (y2-y1)(x-x1); a point on the line is negative. */
  const double* lines;
  /* n_zones polygons (closed, even-odd rule): zone_points[z] points each (at least
     3), their x, y pairs back to back in zone_xy, zone 0's first. */
  const uint32_t* zone_points;
  const double* zone_xy;
  /* Per zone, the most components it may hold before a CCL_EVENT_ZONE_MAX (0: no
     limit); NULL: no limit anywhere. */
  const uint32_t* zone_max;
  /* The frame's size, when both are > 0: every point must lie within [0, width] x
     [0, height]. 0: not checked. */
  int32_t width, height;
} ccl_events_config;

/* One event, as ccl::Event. An array's element: never grows. */
typedef struct {
  uint32_t kind;     /* CCL_EVENT_* */
  uint32_t index;    /* the line's or the zone's */
  uint32_t track_id; /* 0 for CCL_EVENT_ZONE_MAX */
  /* ZONE_MAX: the zone's count. ZONE_ENTER: 1. ZONE_EXIT: the frames the track was
     inside (its dwell). Otherwise 0. */
  uint32_t count;
  double x, y; /* the track's centroid (a forgotten track's: its last); 0 for ZONE_MAX */
  uint64_t frame;       /* as given to the update (a forgotten track's: that update's) */
  int64_t running_time; /* likewise */
  int64_t entry_time;   /* ZONE_ENTER, ZONE_EXIT: the running time the track entered at */
} ccl_event;

/* How long a track has been inside a zone. */
typedef struct {
  uint32_t size;
  uint32_t frames;      /* frames reported inside since it entered (1 on entry); 0: not inside */
  uint64_t entry_frame; /* the frame it entered in */
  int64_t entry_time;   /* the running time it entered at: its dwell is now - this */
} ccl_zone_dwell;

void ccl_events_config_init(ccl_events_config* config);

/* A counter with no line and no zone: it counts nothing until configured. */
ccl_status ccl_events_create(ccl_events** out);
void ccl_events_destroy(ccl_events* events);
/* Replaces the lines and zones and resets (ccl_events_reset). A faulty configuration
   (a line of two equal points, a zone of fewer than 3 points, a coordinate that is
   not finite or lies outside the frame, too many lines or zones, forget_after 0) is
   CCL_ERROR_INVALID_ARGUMENT with ccl_last_error() naming it; the previous
   configuration, counts and tracks stay. */
ccl_status ccl_events_configure(ccl_events* events, const ccl_events_config* config);
/* Zeroes every count and forgets every track, reporting no event for it. */
ccl_status ccl_events_reset(ccl_events* events);

/* One frame's reported components: n centroids (x, y) with their track ids
   (track_ids NULL, or an id 0: untracked, counted in the zones' counts only; ids need
   only be distinct within a frame and stable across frames). `frame` and
   `running_time` (ns, any clock) are only passed on to the events and dwells. The
   frame's events replace the previous frame's (ccl_events_events): per component in
   the order given its crossings by line, then its entries and exits by zone; then the
   exits of the tracks forgotten in this frame; then ZONE_MAX by zone. */
ccl_status ccl_events_update(ccl_events* events, const uint32_t* track_ids, const double* x,
                             const double* y, uint32_t n, uint64_t frame, int64_t running_time);
/* The same for the engine's last frame: its reported components (ccl_engine_components)
   by their centroids, with the tracks ccl_tracker_update_engine wrote for them (NULL:
   untracked). Track ids are taken modulo 2^32. */
ccl_status ccl_events_update_engine(ccl_events* events, ccl_engine* engine,
                                    const ccl_track* tracks, uint64_t frame,
                                    int64_t running_time);

/* Per line (n_lines values each), the tracks that crossed it since the last reset,
   forward and backward; either pointer may be NULL. */
ccl_status ccl_events_line_counts(const ccl_events* events, uint64_t* forward, uint64_t* backward);
/* Per zone (n_zones values each): the components inside it in the last frame, and the
   entries and exits since the last reset; any pointer may be NULL. */
ccl_status ccl_events_zone_counts(const ccl_events* events, uint32_t* count, uint64_t* entries,
                                  uint64_t* exits);
/* The last update's events, valid until the counter's next update, reset or
   configure (*data NULL when *count is 0). */
ccl_status ccl_events_events(const ccl_events* events, const ccl_event** data, uint32_t* count);
/* How long track `track_id` has been inside zone `zone` (frames 0 when it is not);
   a zone beyond the configuration's is CCL_ERROR_INVALID_ARGUMENT. */
ccl_status ccl_events_dwell(const ccl_events* events, uint32_t track_id, uint32_t zone,
                            ccl_zone_dwell* out);

#ifdef __cplusplus
}
#endif

#endif /* CCL_CCL_H */
