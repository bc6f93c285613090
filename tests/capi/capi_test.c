/* The C interface (ccl/ccl.h) from C, on the CPU backend (and the CUDA one when a
   device is usable): labels and table of a small image, sized structs of an older
   caller, every error path returning a status and a message; the tracker and the
   counting lines and zones. Prints TAP. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ccl/ccl.h"

static int count, failed;

static void ok(int pass, const char* name) {
  ++count;
  if (!pass) ++failed;
  printf("%s %d - %s\n", pass ? "ok" : "not ok", count, name);
  if (!pass) printf("# last error: %s\n", ccl_last_error());
}

/* 6 x 8 rows: a 2 x 3 block at (1, 1) and one pixel at (4, 6); 3 bytes of row padding. */
enum { W = 8, H = 6, STRIDE = 11 };
static unsigned char image[H * STRIDE];

static ccl_image make_image(void) {
  ccl_image im;
  memset(&im, 0, sizeof im);
  im.size = sizeof im;
  im.width = W;
  im.height = H;
  im.format = CCL_FORMAT_GRAY8;
  im.memory = CCL_MEMORY_HOST;
  im.data = image;
  im.stride = STRIDE;
  return im;
}

static double absolute(double v) { return v < 0 ? -v : v; }

/* Blob properties on the image: the block (six pixels of 200) and the pixel (255). */
static void blob_cases(ccl_engine* e, const char* what) {
  char name[160];
  ccl_image im = make_image();
  ccl_result r;
  memset(&r, 0, sizeof r);
  r.size = sizeof r;
  ccl_options o;
  ccl_options_init(&o);
  o.properties = CCL_PROPERTY_ALL;
  ccl_status s = ccl_engine_label(e, NULL, &im, &o, NULL, &r);
  const ccl_blob* b = NULL;
  uint32_t n = 0;
  ccl_status s2 = ccl_engine_blobs(e, &b, &n);
  snprintf(name, sizeof name, "%s: every property: the blobs' sums", what);
  ok(s == CCL_OK && s2 == CCL_OK && n == 2 && b != NULL && b[0].intensity_sum == 1200 &&
         b[0].intensity_sum_sq == 240000 && b[0].intensity_min == 200 &&
         b[0].intensity_max == 200 && b[0].channel_sum[0] == 1200 &&
         b[0].channel_sum[2] == 1200 && b[0].perimeter_counts[0] == 6 &&
         b[0].perimeter_counts[1] == 0 && b[0].perimeter_counts[2] == 0 && b[0].euler == 1 &&
         b[1].intensity_sum == 255 && b[1].intensity_min == 255 && b[1].euler == 1,
     name);

  double f[CCL_BLOB_COLUMNS * 2];
  s = ccl_engine_blob_columns(e, f);
  snprintf(name, sizeof name, "%s: blob columns as skimage's regionprops gives them", what);
  ok(s == CCL_OK && f[CCL_BLOB_COL_INTENSITY_MEAN * 2] == 200.0 &&
         f[CCL_BLOB_COL_INTENSITY_MEAN * 2 + 1] == 255.0 &&
         f[CCL_BLOB_COL_INTENSITY_STD * 2] == 0.0 && f[CCL_BLOB_COL_INTENSITY_MAX * 2 + 1] == 255.0 &&
         f[CCL_BLOB_COL_COLOR_MEAN0 * 2] == 200.0 && f[CCL_BLOB_COL_PERIMETER * 2] == 6.0 &&
         f[CCL_BLOB_COL_PERIMETER * 2 + 1] == 0.0 &&
         absolute(f[CCL_BLOB_COL_CIRCULARITY * 2] - 2.0943951023931953) < 1e-15 &&
         f[CCL_BLOB_COL_CIRCULARITY * 2 + 1] == 0.0 && f[CCL_BLOB_COL_EULER_NUMBER * 2] == 1.0 &&
         absolute(f[CCL_BLOB_COL_ORIENTATION * 2] - 1.5707963267948966) < 1e-15 &&
         absolute(f[CCL_BLOB_COL_AXIS_MAJOR_LENGTH * 2] - 3.265986323710904) < 1e-14 &&
         absolute(f[CCL_BLOB_COL_AXIS_MINOR_LENGTH * 2] - 2.0) < 1e-14 &&
         absolute(f[CCL_BLOB_COL_ECCENTRICITY * 2] - 0.7905694150420949) < 1e-15 &&
         f[CCL_BLOB_COL_INERTIA_RATIO * 2] == 0.375 && f[CCL_BLOB_COL_ECCENTRICITY * 2 + 1] == 0.0,
     name);

  /* One property: the other groups' columns are NaN; the shape's are always there. */
  o.properties = CCL_PROPERTY_PERIMETER;
  s = ccl_engine_label(e, NULL, &im, &o, NULL, &r);
  s2 = ccl_engine_blob_columns(e, f);
  snprintf(name, sizeof name, "%s: columns of properties not computed are NaN", what);
  ok(s == CCL_OK && s2 == CCL_OK && f[CCL_BLOB_COL_PERIMETER * 2] == 6.0 &&
         f[CCL_BLOB_COL_INTENSITY_MEAN * 2] != f[CCL_BLOB_COL_INTENSITY_MEAN * 2] &&
         f[CCL_BLOB_COL_COLOR_MEAN2 * 2 + 1] != f[CCL_BLOB_COL_COLOR_MEAN2 * 2 + 1] &&
         f[CCL_BLOB_COL_EULER_NUMBER * 2] != f[CCL_BLOB_COL_EULER_NUMBER * 2] &&
         f[CCL_BLOB_COL_INERTIA_RATIO * 2] == 0.375,
     name);

  /* No property: no blobs. */
  ccl_options_init(&o);
  s = ccl_engine_label(e, NULL, &im, &o, NULL, &r);
  s2 = ccl_engine_blobs(e, &b, &n);
  snprintf(name, sizeof name, "%s: without properties the blobs are NULL, 0", what);
  ok(s == CCL_OK && s2 == CCL_OK && b == NULL && n == 0 &&
         ccl_engine_blob_columns(e, f) == CCL_OK &&
         f[CCL_BLOB_COL_PERIMETER * 2] != f[CCL_BLOB_COL_PERIMETER * 2],
     name);

  /* A circularity filter computes the perimeter; the pixel (circularity 0) is left out. */
  o.min_circularity = 0.5;
  s = ccl_engine_label(e, NULL, &im, &o, NULL, &r);
  s2 = ccl_engine_blobs(e, &b, &n);
  snprintf(name, sizeof name, "%s: min_circularity reports the block only", what);
  ok(s == CCL_OK && s2 == CCL_OK && r.num_components == 2 && r.num_reported == 1 && n == 1 &&
         b[0].perimeter_counts[0] == 6 && b[0].intensity_sum == 0,
     name);
  ccl_options_init(&o);
  o.max_eccentricity = 0.5;
  const ccl_component* c = NULL;
  s = ccl_engine_label(e, NULL, &im, &o, NULL, &r);
  s2 = ccl_engine_components(e, &c, &n);
  snprintf(name, sizeof name, "%s: max_eccentricity reports the pixel only", what);
  ok(s == CCL_OK && s2 == CCL_OK && r.num_reported == 1 && n == 1 && c[0].label == 2, name);
  o.min_eccentricity = 0.9;
  s = ccl_engine_label(e, NULL, &im, &o, NULL, &r);
  snprintf(name, sizeof name, "%s: a filter's max below its min is refused", what);
  ok(s == CCL_ERROR_INVALID_ARGUMENT && strstr(ccl_last_error(), "eccentricity") != NULL, name);

  /* An older caller's struct (it ends at group_gap): the blob members are not read. */
  ccl_options old;
  ccl_options_init(&old);
  old.size = (uint32_t)offsetof(ccl_options, properties);
  old.properties = CCL_PROPERTY_ALL;
  old.min_circularity = 1e5;
  s = ccl_engine_label(e, NULL, &im, &old, NULL, &r);
  s2 = ccl_engine_blobs(e, &b, &n);
  snprintf(name, sizeof name, "%s: an options struct of before blob analysis gets no properties", what);
  ok(s == CCL_OK && s2 == CCL_OK && r.num_reported == 2 && b == NULL && n == 0, name);
}

static void label_on(int backend, const char* what) {
  char name[160];
  ccl_engine* e = NULL;
  if (ccl_engine_create(backend, -1, &e) != CCL_OK) {
    snprintf(name, sizeof name, "%s: engine created", what);
    ok(0, name);
    return;
  }
  ccl_image im = make_image();
  ccl_options o;
  ccl_options_init(&o);
  int32_t labels[H * W];
  memset(labels, 0x7f, sizeof labels);
  ccl_labels out = {sizeof(ccl_labels), labels, W * 4, CCL_MEMORY_HOST};
  ccl_result r;
  memset(&r, 0, sizeof r);
  r.size = sizeof r;
  ccl_status s = ccl_engine_label(e, NULL, &im, &o, &out, &r);
  snprintf(name, sizeof name, "%s: two components, labels in raster order", what);
  ok(s == CCL_OK && r.num_components == 2 && r.num_reported == 2 && labels[1 * W + 1] == 1 &&
         labels[2 * W + 3] == 1 && labels[4 * W + 6] == 2 && labels[0] == 0 && labels[5 * W + 7] == 0,
     name);

  const ccl_component* c = NULL;
  uint32_t n = 0;
  s = ccl_engine_components(e, &c, &n);
  snprintf(name, sizeof name, "%s: component table", what);
  ok(s == CCL_OK && n == 2 && c[0].x == 1 && c[0].y == 1 && c[0].width == 3 && c[0].height == 2 &&
         c[0].area == 6 && c[0].sum_x == 12 && c[0].sum_y == 9 && c[1].area == 1,
     name);

  /* A host image is labeled by ccl_engine_submit as by ccl_engine_label (only device
     frames are left in flight); ccl_engine_wait writes the same result again. */
  ccl_result submitted, waited;
  memset(&submitted, 0, sizeof submitted);
  memset(&waited, 0, sizeof waited);
  submitted.size = waited.size = sizeof(ccl_result);
  s = ccl_engine_submit(e, NULL, &im, &o, NULL, &submitted);
  ccl_status s2 = ccl_engine_wait(e, &waited);
  snprintf(name, sizeof name, "%s: submit of a host image labels it; wait gives its result", what);
  ok(s == CCL_OK && s2 == CCL_OK && submitted.num_components == 2 && submitted.num_reported == 2 &&
         waited.num_components == 2 && waited.num_reported == 2 && waited.width == W &&
         waited.backend == backend,
     name);

  int64_t ints[CCL_INT_COLUMNS * 2];
  double floats[CCL_FLOAT_COLUMNS * 2];
  s = ccl_engine_columns(e, ints, floats);
  snprintf(name, sizeof name, "%s: columns (bbox as skimage, moments about the box corner)", what);
  ok(s == CCL_OK && ints[CCL_COL_BBOX2 * 2] == 3 && ints[CCL_COL_BBOX3 * 2 + 1] == 7 &&
         floats[CCL_COL_CENTROID0 * 2] == 1.5 && floats[CCL_COL_M01 * 2] == 6.0 &&
         floats[CCL_COL_M02 * 2] == 10.0 && floats[CCL_COL_M11 * 2] == 3.0,
     name);

  blob_cases(e, what);

  /* An older caller's options: only the members before `foreground`; the rest default. */
  ccl_options old;
  ccl_options_init(&old);
  old.size = (uint32_t)offsetof(ccl_options, foreground);
  old.threshold = 250;
  old.foreground = 99; /* beyond its size: never read */
  s = ccl_engine_label(e, NULL, &im, &old, NULL, &r);
  snprintf(name, sizeof name, "%s: a shorter options struct is read up to its size", what);
  ok(s == CCL_OK && r.num_components == 1, name);

  /* A shorter result struct: nothing written past its size. */
  unsigned char short_result[sizeof(ccl_result)];
  memset(short_result, 0xAB, sizeof short_result);
  ((ccl_result*)short_result)->size = (uint32_t)offsetof(ccl_result, backend);
  s = ccl_engine_label(e, NULL, &im, &o, NULL, (ccl_result*)short_result);
  snprintf(name, sizeof name, "%s: a shorter result struct is written up to its size", what);
  ok(s == CCL_OK && ((ccl_result*)short_result)->num_reported == 2 &&
         short_result[offsetof(ccl_result, backend)] == 0xAB,
     name);

  ccl_image bad = make_image();
  bad.stride = W - 1;
  s = ccl_engine_label(e, NULL, &bad, &o, NULL, &r);
  snprintf(name, sizeof name, "%s: short stride is CCL_ERROR_INVALID_ARGUMENT with a message", what);
  ok(s == CCL_ERROR_INVALID_ARGUMENT && strstr(ccl_last_error(), "stride") != NULL, name);
  bad = make_image();
  bad.size = 0;
  s = ccl_engine_label(e, NULL, &bad, &o, NULL, &r);
  snprintf(name, sizeof name, "%s: size 0 is refused", what);
  ok(s == CCL_ERROR_INVALID_ARGUMENT && strstr(ccl_last_error(), "size") != NULL, name);
  o.connectivity = 6;
  s = ccl_engine_label(e, NULL, &im, &o, NULL, &r);
  snprintf(name, sizeof name, "%s: connectivity 6 is refused", what);
  ok(s == CCL_ERROR_INVALID_ARGUMENT && strstr(ccl_last_error(), "connectivity") != NULL, name);
  ccl_options_init(&o);
  o.foreground = CCL_FOREGROUND_BACKGROUND;
  s = ccl_engine_label(e, NULL, &im, &o, NULL, &r);
  snprintf(name, sizeof name, "%s: the background model without a ccl_foreground is refused", what);
  ok(s == CCL_ERROR_INVALID_ARGUMENT && strstr(ccl_last_error(), "ccl_foreground") != NULL, name);

  ccl_foreground* fg = NULL;
  s = ccl_foreground_create(e, &fg);
  int first = -1, second = -1;
  if (s == CCL_OK) {
    ccl_engine_label(e, fg, &im, &o, NULL, &r);
    first = (int)r.num_components;
    memset(image + 5 * STRIDE, 200, 2);
    ccl_engine_label(e, fg, &im, &o, NULL, &r);
    second = (int)r.num_components;
    memset(image + 5 * STRIDE, 0, 2);
  }
  snprintf(name, sizeof name, "%s: background model: the first frame is learned, a change shows", what);
  ok(s == CCL_OK && first == 0 && second == 1, name);
  ccl_foreground_destroy(fg);
  ccl_engine_destroy(e);
}

/* Counting lines and zones (ccl_events_*): a line x = 50 walked upwards (positive is
   x > 50, so moving right is forward) and a square zone [70, 90] x [30, 70] that holds
   one component before it is overcrowded. */
static const double events_line[4] = {50, 100, 50, 0};
static const double events_zone[8] = {70, 30, 90, 30, 90, 70, 70, 70};
static const uint32_t events_zone_points[1] = {4};
static const uint32_t events_zone_max[1] = {1};

static ccl_events_config events_config(void) {
  ccl_events_config c;
  ccl_events_config_init(&c);
  c.n_lines = 1;
  c.lines = events_line;
  c.n_zones = 1;
  c.zone_points = events_zone_points;
  c.zone_xy = events_zone;
  c.zone_max = events_zone_max;
  c.width = 100;
  c.height = 100;
  return c;
}

/* The frame's events, or NULL with *n 0 on failure. */
static const ccl_event* frame_events(ccl_events* ev, uint32_t* n) {
  const ccl_event* e = NULL;
  if (ccl_events_events(ev, &e, n) != CCL_OK) *n = 0;
  return e;
}

/* One configuration's fault: refused with a message that holds `what`. */
static void refused(ccl_events* ev, const ccl_events_config* c, const char* what,
                    const char* name) {
  ok(ccl_events_configure(ev, c) == CCL_ERROR_INVALID_ARGUMENT &&
         strstr(ccl_last_error(), what) != NULL,
     name);
}

static void events_faults(ccl_events* ev) {
  ccl_events_config c = events_config();
  double same[4] = {10, 10, 10, 10};
  c.lines = same;
  refused(ev, &c, "identical", "events: a line of two equal points is refused");
  c = events_config();
  uint32_t two[1] = {2};
  c.zone_points = two;
  refused(ev, &c, "at least 3", "events: a zone of 2 points is refused");
  c = events_config();
  double nan_line[4] = {0, 0, 10, 0};
  nan_line[2] = nan_line[2] / 0.0 * 0.0; /* NaN, without math.h */
  c.lines = nan_line;
  refused(ev, &c, "not finite", "events: a coordinate that is not finite is refused");
  c = events_config();
  c.width = 60;
  refused(ev, &c, "outside", "events: a zone outside the frame is refused");
  c = events_config();
  c.n_lines = CCL_MAX_EVENT_LINES + 1;
  refused(ev, &c, "at most 64", "events: 65 lines are refused");
  c = events_config();
  c.forget_after = 0;
  refused(ev, &c, "forget_after", "events: forget_after 0 is refused");
  c = events_config();
  c.zone_xy = NULL;
  refused(ev, &c, "NULL", "events: NULL zone points are refused");
  c = events_config();
  c.size = 0;
  refused(ev, &c, "size", "events: a config of size 0 is refused");
  ok(ccl_events_configure(NULL, &c) == CCL_ERROR_INVALID_ARGUMENT &&
         ccl_events_reset(NULL) == CCL_ERROR_INVALID_ARGUMENT &&
         ccl_events_update(NULL, NULL, NULL, NULL, 0, 0, 0) == CCL_ERROR_INVALID_ARGUMENT &&
         ccl_events_create(NULL) == CCL_ERROR_INVALID_ARGUMENT,
     "events: NULL handles are refused");
}

/* A crossing, entries, overcrowding and an exit, frame by frame. */
static void events_counts(ccl_events* ev) {
  ccl_events_config c = events_config();
  ok(ccl_events_configure(ev, &c) == CCL_OK, "events: configured");
  events_faults(ev); /* the configuration above stays through them */

  uint32_t id[2] = {1, 2};
  double x[2] = {40, 0}, y[2] = {50, 0};
  uint32_t n = 0;
  ccl_status s = ccl_events_update(ev, id, x, y, 1, 0, 0);
  frame_events(ev, &n);
  ok(s == CCL_OK && n == 0, "events: a track first seen crosses nothing");
  x[0] = 60;
  s = ccl_events_update(ev, id, x, y, 1, 1, 1000);
  const ccl_event* e = frame_events(ev, &n);
  uint64_t fwd = 9, bwd = 9;
  ccl_events_line_counts(ev, &fwd, &bwd);
  ok(s == CCL_OK && n == 1 && e[0].kind == CCL_EVENT_LINE_FORWARD && e[0].index == 0 &&
         e[0].track_id == 1 && e[0].x == 60 && e[0].y == 50 && e[0].frame == 1 &&
         e[0].running_time == 1000 && fwd == 1 && bwd == 0,
     "events: moving right across the line is one forward crossing (the faulty configurations left it)");

  x[0] = 80;
  s = ccl_events_update(ev, id, x, y, 1, 2, 2000);
  e = frame_events(ev, &n);
  uint32_t count = 9;
  uint64_t entries = 9, exits = 9;
  ccl_events_zone_counts(ev, &count, &entries, &exits);
  ccl_zone_dwell d;
  memset(&d, 0, sizeof d);
  d.size = sizeof d;
  ccl_status s2 = ccl_events_dwell(ev, 1, 0, &d);
  ok(s == CCL_OK && n == 1 && e[0].kind == CCL_EVENT_ZONE_ENTER && e[0].track_id == 1 &&
         e[0].count == 1 && e[0].entry_time == 2000 && count == 1 && entries == 1 &&
         exits == 0 && s2 == CCL_OK && d.frames == 1 && d.entry_frame == 2 &&
         d.entry_time == 2000,
     "events: a track entering the zone, its dwell");

  x[1] = 85;
  y[1] = 60;
  s = ccl_events_update(ev, id, x, y, 2, 3, 3000);
  e = frame_events(ev, &n);
  ccl_events_zone_counts(ev, &count, NULL, NULL);
  ok(s == CCL_OK && n == 2 && e[0].kind == CCL_EVENT_ZONE_ENTER && e[0].track_id == 2 &&
         e[1].kind == CCL_EVENT_ZONE_MAX && e[1].index == 0 && e[1].count == 2 &&
         e[1].track_id == 0 && count == 2,
     "events: a second track inside overcrowds the zone (zone-max after the entries)");

  x[0] = 95;
  s = ccl_events_update(ev, id, x, y, 2, 4, 4000);
  e = frame_events(ev, &n);
  ccl_events_zone_counts(ev, &count, &entries, &exits);
  s2 = ccl_events_dwell(ev, 1, 0, &d);
  ok(s == CCL_OK && n == 1 && e[0].kind == CCL_EVENT_ZONE_EXIT && e[0].track_id == 1 &&
         e[0].count == 2 && e[0].entry_time == 2000 && e[0].x == 95 && count == 1 &&
         entries == 2 && exits == 1 && s2 == CCL_OK && d.frames == 0,
     "events: leaving the zone is an exit with the frames it stayed");

  /* Untracked components count inside the zone only. */
  double ux[2] = {80, 75}, uy[2] = {40, 40};
  s = ccl_events_update(ev, NULL, ux, uy, 2, 5, 5000);
  e = frame_events(ev, &n);
  ccl_events_zone_counts(ev, &count, &entries, NULL);
  ok(s == CCL_OK && n == 1 && e[0].kind == CCL_EVENT_ZONE_MAX && count == 2 && entries == 2,
     "events: untracked components count in the zone, and enter nothing");
  ok(ccl_events_dwell(ev, 2, 1, &d) == CCL_ERROR_INVALID_ARGUMENT &&
         strstr(ccl_last_error(), "zone 1") != NULL &&
         ccl_events_update(ev, id, NULL, y, 1, 6, 0) == CCL_ERROR_INVALID_ARGUMENT,
     "events: the dwell of no such zone, NULL centroids are refused");

  s = ccl_events_reset(ev);
  e = frame_events(ev, &n);
  ccl_events_line_counts(ev, &fwd, &bwd);
  ccl_events_zone_counts(ev, &count, &entries, &exits);
  ccl_events_dwell(ev, 2, 0, &d);
  ok(s == CCL_OK && n == 0 && e == NULL && fwd == 0 && bwd == 0 && count == 0 &&
         entries == 0 && exits == 0 && d.frames == 0,
     "events: reset zeroes the counts and forgets the tracks");

  /* A track unseen for forget_after updates exits where it was last. */
  c.forget_after = 2;
  ccl_events_configure(ev, &c);
  id[0] = 7;
  x[0] = 80;
  y[0] = 50;
  ccl_events_update(ev, id, x, y, 1, 0, 0);
  ccl_events_update(ev, id, x, y, 0, 1, 0);
  frame_events(ev, &n);
  const uint32_t after_one = n;
  ccl_events_update(ev, id, x, y, 0, 2, 77);
  e = frame_events(ev, &n);
  ok(after_one == 0 && n == 1 && e[0].kind == CCL_EVENT_ZONE_EXIT && e[0].track_id == 7 &&
         e[0].x == 80 && e[0].frame == 2 && e[0].running_time == 77 && e[0].count == 1,
     "events: a forgotten track exits the zone it was in");
}

/* ccl_events_update_engine: the engine's components by their centroids, with the
   tracker's ids. The block's centroid is (2, 1.5), the pixel's (6, 4). */
static void events_engine(ccl_events* ev) {
  ccl_engine* e = NULL;
  ccl_tracker* t = NULL;
  ccl_status s = ccl_engine_create(CCL_BACKEND_CPU, -1, &e);
  ccl_status s2 = ccl_tracker_create(NULL, &t);
  ok(s == CCL_OK && s2 == CCL_OK, "events: an engine and a tracker to feed them");
  if (s != CCL_OK || s2 != CCL_OK) return;
  const double zone[6] = {0, 0, 4, 0, 0, 4};
  const uint32_t points[1] = {3};
  ccl_events_config c;
  ccl_events_config_init(&c);
  c.n_zones = 1;
  c.zone_points = points;
  c.zone_xy = zone;
  c.width = W;
  c.height = H;
  ccl_events_configure(ev, &c);
  ok(ccl_events_update_engine(ev, e, NULL, 0, 0) == CCL_ERROR_INVALID_ARGUMENT &&
         strstr(ccl_last_error(), "no labeled frame") != NULL,
     "events: an engine without a frame is refused");
  ccl_image im = make_image();
  ccl_options o;
  ccl_options_init(&o);
  ccl_result r;
  memset(&r, 0, sizeof r);
  r.size = sizeof r;
  ccl_track tr[2];
  uint32_t count = 0, n = 0;
  s = ccl_engine_label(e, NULL, &im, &o, NULL, &r);
  s2 = ccl_tracker_update_engine(t, e, tr);
  ccl_status s3 = ccl_events_update_engine(ev, e, tr, 0, 0);
  const ccl_event* got = frame_events(ev, &n);
  ccl_events_zone_counts(ev, &count, NULL, NULL);
  ok(s == CCL_OK && s2 == CCL_OK && s3 == CCL_OK && count == 1 && n == 1 &&
         got[0].kind == CCL_EVENT_ZONE_ENTER && got[0].track_id == tr[0].id &&
         got[0].x == 2.0 && got[0].y == 1.5,
     "events: the engine's block enters the zone with its track id and centroid");
  s3 = ccl_events_update_engine(ev, e, NULL, 1, 0);
  frame_events(ev, &n);
  ccl_events_zone_counts(ev, &count, NULL, NULL);
  ok(s3 == CCL_OK && count == 1 && n == 0, "events: untracked, the block is counted only");
  ccl_tracker_destroy(t);
  ccl_engine_destroy(e);
}

static void events_cases(void) {
  ccl_events_config c;
  ccl_events_config_init(&c);
  ok(c.size == sizeof c && c.forget_after == 30 && c.n_lines == 0 && c.lines == NULL &&
         sizeof(ccl_event) == 56,
     "events: config defaults; ccl_event is 56 bytes");
  ccl_events* ev = NULL;
  ok(ccl_events_create(&ev) == CCL_OK && ev != NULL, "events: created");
  if (!ev) return;
  double x = 1, y = 1;
  uint32_t id = 1, n = 9;
  ok(ccl_events_update(ev, &id, &x, &y, 1, 0, 0) == CCL_OK && frame_events(ev, &n) == NULL &&
         n == 0,
     "events: unconfigured, it counts nothing");
  events_counts(ev);
  events_engine(ev);
  ccl_events_destroy(ev);
}

int main(void) {
  memset(image, 0, sizeof image);
  for (int y = 1; y < 3; ++y) memset(image + y * STRIDE + 1, 200, 3);
  image[4 * STRIDE + 6] = 255;
  for (int y = 0; y < H; ++y) memset(image + y * STRIDE + W, 0xFF, STRIDE - W); /* padding */

  ok(ccl_abi_version() == CCL_ABI_VERSION, "ABI version matches the header");
  ccl_options defaults;
  ccl_options_init(&defaults);
  ok(sizeof(ccl_blob) == 64 && defaults.size == sizeof(ccl_options) && defaults.properties == 0 &&
         defaults.min_circularity == 0 && defaults.max_eccentricity == 0,
     "ccl_blob is 64 bytes; options default to no property and no blob filter");
  ok(ccl_algorithm_count() > 0 && ccl_algorithm_name(0) != NULL &&
         ccl_algorithm_name(ccl_algorithm_count()) == NULL,
     "algorithm registry");
  label_on(CCL_BACKEND_CPU, "cpu");
  char why[256];
  if (ccl_cuda_device_usable(-1, why, sizeof why)) {
    label_on(CCL_BACKEND_CUDA, "cuda, host image");
  } else {
    ccl_engine* e = NULL;
    ccl_status s = ccl_engine_create(CCL_BACKEND_CUDA, -1, &e);
    ok(s == CCL_ERROR_UNSUPPORTED && e == NULL && strlen(ccl_last_error()) > 0,
       "no usable device: the CUDA engine is CCL_ERROR_UNSUPPORTED with a message");
  }
  ok(ccl_engine_label(NULL, NULL, NULL, NULL, NULL, NULL) == CCL_ERROR_INVALID_ARGUMENT,
     "NULL engine is refused");
  ccl_engine* e = NULL;
  ok(ccl_engine_create(7, -1, &e) == CCL_ERROR_INVALID_ARGUMENT, "unknown backend is refused");
  ccl_result none;
  none.size = sizeof none;
  ok(ccl_engine_create(CCL_BACKEND_CPU, -1, &e) == CCL_OK &&
         ccl_engine_wait(e, &none) == CCL_ERROR_INVALID_ARGUMENT &&
         strstr(ccl_last_error(), "no labeled frame") != NULL &&
         ccl_engine_wait(e, NULL) == CCL_ERROR_INVALID_ARGUMENT,
     "wait without a frame, or without a result, is refused");
  ccl_engine_destroy(e);

  ccl_tracker* t = NULL;
  ccl_tracker_options to;
  ccl_tracker_options_init(&to);
  ok(ccl_tracker_create(&to, &t) == CCL_OK, "tracker created");
  ccl_component comp = {1, 10, 10, 4, 4, 16, 16 * 12, 16 * 12, 0, 0, 0};
  ccl_track tr[1];
  int ids_ok = 1;
  for (int f = 0; f < 5; ++f) {
    comp.x += 2;
    comp.sum_x += 32;
    ids_ok &= ccl_tracker_update(t, 100, 100, &comp, 1, tr) == CCL_OK && tr[0].id == 1 &&
              tr[0].age == (uint32_t)(f + 1);
  }
  ok(ids_ok && tr[0].velocity_x > 1.0, "a moving component keeps track 1 and gains velocity");
  ok(ccl_tracker_update(t, 0, 100, &comp, 1, tr) == CCL_ERROR_INVALID_ARGUMENT,
     "an empty frame size is refused");
  ccl_tracker_destroy(t);
  to.max_lost = -1;
  ok(ccl_tracker_create(&to, &t) == CCL_ERROR_INVALID_ARGUMENT, "negative max_lost is refused");

  events_cases();

  printf("1..%d\n", count);
  return failed ? 1 : 0;
}
