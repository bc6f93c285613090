/* The C interface (ccl/ccl.h) from C, on the CPU backend (and the CUDA one when a
   device is usable): labels and table of a small image, sized structs of an older
   caller, every error path returning a status and a message. Prints TAP. */
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

  printf("1..%d\n", count);
  return failed ? 1 : 0;
}
