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

  int64_t ints[CCL_INT_COLUMNS * 2];
  double floats[CCL_FLOAT_COLUMNS * 2];
  s = ccl_engine_columns(e, ints, floats);
  snprintf(name, sizeof name, "%s: columns (bbox as skimage, moments about the box corner)", what);
  ok(s == CCL_OK && ints[CCL_COL_BBOX2 * 2] == 3 && ints[CCL_COL_BBOX3 * 2 + 1] == 7 &&
         floats[CCL_COL_CENTROID0 * 2] == 1.5 && floats[CCL_COL_M01 * 2] == 6.0 &&
         floats[CCL_COL_M02 * 2] == 10.0 && floats[CCL_COL_M11 * 2] == 3.0,
     name);

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
