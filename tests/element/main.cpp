// Entry point of the element tests: GStreamer first, then GoogleTest. The build sets
// GST_PLUGIN_PATH to the build's plugin folder and GST_REGISTRY to a file beside
// the test, so the uninstalled plugin is found and no user registry is touched.
#include <gst/gst.h>
#include <gtest/gtest.h>

#include <cstdio>

#include "element_util.h"

int main(int argc, char** argv) {
  gst_init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  std::string why;
  const bool cuda = ccl::element_test::cuda_usable(&why);
  std::printf("cudaccl element tests: backend=%s; CUDA device %s%s\n",
              ccl::element_test::backend_under_test().c_str(), cuda ? "usable" : "not usable: ",
              cuda ? "" : why.c_str());
  const int rc = RUN_ALL_TESTS();
  gst_deinit();
  return rc;
}
