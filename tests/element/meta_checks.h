// Checks that need no test framework, shared by the gtest suites that run pipelines
// (app_pipeline.h) and the soak program (tests/soak).
#pragma once

#include <gst/ccl/gstcclmeta.h>
#include <gst/gst.h>

namespace ccl::element_test {

/// Whether GStreamer has an element factory of that name (cudaupload, ...).
inline bool have_factory(const char* name) {
  GstElementFactory* f = gst_element_factory_find(name);
  if (f) gst_object_unref(f);
  return f != nullptr;
}

/// Whatever the settings: the component's box lies in the width x height frame, its
/// area fits the box and its centroid lies inside it.
inline bool plausible_component(const GstCclComponent& k, int width, int height) {
  return k.width > 0 && k.height > 0 && k.x >= 0 && k.y >= 0 && k.x + k.width <= width &&
         k.y + k.height <= height && k.area >= 1 &&
         k.area <= guint64(k.width) * guint64(k.height) && k.centroid_x >= k.x &&
         k.centroid_x <= k.x + k.width - 1 && k.centroid_y >= k.y &&
         k.centroid_y <= k.y + k.height - 1;
}

}  // namespace ccl::element_test
