/* Mistakes made on purpose, for the element-valgrind-canary-* tests: run under the
 * same memcheck command and suppressions as the element tests, each must be reported,
 * which shows that gstreamer.supp hides nothing of ours. The program itself exits 0;
 * a non-zero status can only come from valgrind.
 *
 *   canary leak      drops a GstBuffer and a g_malloc'd block after gst_init
 *   canary overread  reads one byte past the end of a g_malloc'd block
 *
 * The functions are not static and not inlined so that the report names them. */
#include <gst/gst.h>
#include <stdio.h>
#include <string.h>

__attribute__((noinline)) void canary_leak(void) {
  GstBuffer* buffer = gst_buffer_new_allocate(NULL, 4096, NULL);
  gchar* block = g_malloc(100);
  memset(block, 1, 100);
  printf("canary: leaking buffer %p and block %p\n", (void*)buffer, (void*)block);
}

__attribute__((noinline)) int canary_overread(volatile size_t past) {
  guint8* block = g_malloc0(100);
  const int byte = block[100 + past];
  g_free(block);
  return byte;
}

int main(int argc, char** argv) {
  gst_init(&argc, &argv);
  if (argc == 2 && strcmp(argv[1], "leak") == 0) {
    canary_leak();
  } else if (argc == 2 && strcmp(argv[1], "overread") == 0) {
    printf("canary: byte past the block %d\n", canary_overread(0) != 0);
  } else {
    fprintf(stderr, "usage: canary leak|overread\n");
    return 2;
  }
  gst_deinit();
  return 0;
}
