// Properties (defaults, ranges, refusals), caps negotiation and start-up errors.
#include <gtest/gtest.h>

#include <string>

#include "element_util.h"

namespace ccl::element_test {
namespace {

GParamSpec* pspec(GstElement* e, const char* name) {
  return g_object_class_find_property(G_OBJECT_GET_CLASS(e), name);
}

// Counts the GLib-GObject warnings that refused property values produce.
class WarningCounter {
 public:
  WarningCounter() {
    id_ = g_log_set_handler("GLib-GObject", GLogLevelFlags(G_LOG_LEVEL_WARNING | G_LOG_LEVEL_CRITICAL),
                            [](const gchar*, GLogLevelFlags, const gchar*, gpointer self) {
                              ++static_cast<WarningCounter*>(self)->count;
                            },
                            this);
  }
  ~WarningCounter() { g_log_remove_handler("GLib-GObject", id_); }
  int count = 0;

 private:
  guint id_;
};

TEST(Properties, EverySpecPropertyHasItsDefault) {
  GstElement* e = gst_element_factory_make("cudaccl", nullptr);
  ASSERT_NE(e, nullptr) << "cudaccl not found: is GST_PLUGIN_PATH set to the build's plugin dir?";
  gint backend, device, algorithm, connectivity, mode;
  guint threshold, min_area, max_components, overlay;
  gdouble alpha;
  gboolean roi, post, tracking;
  guint max_lost, max_roi;
  g_object_get(e, "tracking", &tracking, "track-max-lost", &max_lost, "max-roi-metas", &max_roi, "backend", &backend, "cuda-device-id", &device, "algorithm", &algorithm,
               "connectivity", &connectivity, "threshold", &threshold, "threshold-mode", &mode,
               "min-area", &min_area, "max-components", &max_components, "overlay", &overlay,
               "overlay-alpha", &alpha, "roi-meta", &roi, "post-messages", &post, nullptr);
  EXPECT_EQ(backend, 0);  // auto
  EXPECT_EQ(device, -1);
  EXPECT_EQ(algorithm, GST_CCL_ALGORITHM_UNION_FIND);
  EXPECT_EQ(connectivity, 8);
  EXPECT_EQ(threshold, 128u);
  EXPECT_EQ(mode, 0);  // above
  EXPECT_EQ(min_area, 1u);
  EXPECT_EQ(max_components, 1024u);
  EXPECT_EQ(overlay, 0u);
  EXPECT_DOUBLE_EQ(alpha, 0.5);
  EXPECT_TRUE(roi);
  EXPECT_FALSE(post);
  EXPECT_TRUE(tracking);
  EXPECT_EQ(max_lost, 15u);
  EXPECT_EQ(max_roi, 64u);
  for (const char* name : {"backend", "cuda-device-id", "algorithm", "connectivity", "threshold",
                           "threshold-mode", "min-area", "max-components", "overlay",
                           "overlay-alpha", "roi-meta", "max-roi-metas", "post-messages", "tracking",
                           "track-max-lost"}) {
    GParamSpec* p = pspec(e, name);
    ASSERT_NE(p, nullptr) << name;
    EXPECT_GT(strlen(g_param_spec_get_blurb(p)), 20u) << name << " needs a real blurb";
  }
  gst_object_unref(e);
}

TEST(Properties, RangesAreThoseOfTheSpec) {
  GstElement* e = gst_element_factory_make("cudaccl", nullptr);
  ASSERT_NE(e, nullptr);
  auto* threshold = G_PARAM_SPEC_UINT(pspec(e, "threshold"));
  EXPECT_EQ(threshold->minimum, 0u);
  EXPECT_EQ(threshold->maximum, 255u);
  auto* alpha = G_PARAM_SPEC_DOUBLE(pspec(e, "overlay-alpha"));
  EXPECT_EQ(alpha->minimum, 0.0);
  EXPECT_EQ(alpha->maximum, 1.0);
  EXPECT_EQ(G_PARAM_SPEC_INT(pspec(e, "cuda-device-id"))->minimum, -1);
  EXPECT_EQ(G_PARAM_SPEC_UINT(pspec(e, "min-area"))->minimum, 1u);
  EXPECT_EQ(G_PARAM_SPEC_UINT(pspec(e, "track-max-lost"))->minimum, 0u);
  EXPECT_EQ(G_PARAM_SPEC_UINT(pspec(e, "track-max-lost"))->maximum, 1000u);
  GFlagsClass* overlay_flags = G_PARAM_SPEC_FLAGS(pspec(e, "overlay"))->flags_class;
  ASSERT_NE(g_flags_get_value_by_nick(overlay_flags, "trails"), nullptr);

  GEnumClass* conn = G_PARAM_SPEC_ENUM(pspec(e, "connectivity"))->enum_class;
  ASSERT_EQ(conn->n_values, 2u);
  EXPECT_EQ(conn->values[0].value, 4);
  EXPECT_EQ(conn->values[1].value, 8);
  GFlagsClass* overlay = G_PARAM_SPEC_FLAGS(pspec(e, "overlay"))->flags_class;
  for (const char* nick : {"none", "fill", "boxes", "centroids"})
    EXPECT_NE(g_flags_get_value_by_nick(overlay, nick), nullptr) << nick;
  GEnumClass* modes = G_PARAM_SPEC_ENUM(pspec(e, "threshold-mode"))->enum_class;
  for (const char* nick : {"above", "below", "otsu"})
    EXPECT_NE(g_enum_get_value_by_nick(modes, nick), nullptr) << nick;
  GEnumClass* backends = G_PARAM_SPEC_ENUM(pspec(e, "backend"))->enum_class;
  for (const char* nick : {"auto", "cuda", "cpu"})
    EXPECT_NE(g_enum_get_value_by_nick(backends, nick), nullptr) << nick;
  // The algorithms are the meta's enum, generated from the engine's registry.
  EXPECT_EQ(G_PARAM_SPEC_VALUE_TYPE(pspec(e, "algorithm")), GST_TYPE_CCL_ALGORITHM);
  GEnumClass* algos = G_PARAM_SPEC_ENUM(pspec(e, "algorithm"))->enum_class;
  for (const char* nick : {"ha4", "komura", "stava", "label-equivalence", "row-col-unify",
                           "union-find"})
    EXPECT_NE(g_enum_get_value_by_nick(algos, nick), nullptr) << nick;
  gst_object_unref(e);
}

TEST(Properties, OutOfRangeValuesAreRefused) {
  GstElement* e = gst_element_factory_make("cudaccl", nullptr);
  ASSERT_NE(e, nullptr);
  WarningCounter warnings;
  g_object_set(e, "threshold", 256u, nullptr);
  g_object_set(e, "overlay-alpha", 1.5, nullptr);
  g_object_set(e, "overlay-alpha", -0.1, nullptr);
  g_object_set(e, "connectivity", 6, nullptr);
  g_object_set(e, "connectivity", 5, nullptr);
  g_object_set(e, "min-area", 0u, nullptr);
  g_object_set(e, "cuda-device-id", -2, nullptr);
  g_object_set(e, "threshold-mode", 7, nullptr);
  g_object_set(e, "overlay", 0x40u, nullptr);
  EXPECT_EQ(warnings.count, 9);

  guint threshold, min_area, overlay;
  gint connectivity, device, mode;
  gdouble alpha;
  g_object_get(e, "threshold", &threshold, "overlay-alpha", &alpha, "connectivity",
               &connectivity, "min-area", &min_area, "cuda-device-id", &device,
               "threshold-mode", &mode, "overlay", &overlay, nullptr);
  EXPECT_EQ(threshold, 128u);
  EXPECT_DOUBLE_EQ(alpha, 0.5);
  EXPECT_EQ(connectivity, 8);
  EXPECT_EQ(min_area, 1u);
  EXPECT_EQ(device, -1);
  EXPECT_EQ(mode, 0);
  EXPECT_EQ(overlay, 0u);

  // From gst-launch syntax: connectivity is 4 or 8 and nothing else.
  gst_util_set_object_arg(G_OBJECT(e), "connectivity", "4");
  g_object_get(e, "connectivity", &connectivity, nullptr);
  EXPECT_EQ(connectivity, 4);
  gst_util_set_object_arg(G_OBJECT(e), "connectivity", "6");
  g_object_get(e, "connectivity", &connectivity, nullptr);
  EXPECT_EQ(connectivity, 4);
  gst_util_set_object_arg(G_OBJECT(e), "overlay", "fill+boxes+centroids");
  g_object_get(e, "overlay", &overlay, nullptr);
  EXPECT_EQ(overlay, 7u);
  gst_object_unref(e);
}

TEST(Properties, ForegroundPropertiesHaveTheirDefaultsAndRanges) {
  GstElement* e = gst_element_factory_make("cudaccl", nullptr);
  ASSERT_NE(e, nullptr);
  gint foreground;
  guint history, open_radius, close_radius, max_area;
  gdouble rate, variance;
  gboolean shadows;
  gchar* mask = nullptr;
  g_object_get(e, "foreground", &foreground, "history", &history, "learning-rate", &rate,
               "variance-threshold", &variance, "detect-shadows", &shadows, "open-radius",
               &open_radius, "close-radius", &close_radius, "max-area", &max_area,
               "mask-location", &mask, nullptr);
  EXPECT_EQ(foreground, 0);  // threshold
  EXPECT_EQ(history, 500u);
  EXPECT_DOUBLE_EQ(rate, -1.0);
  EXPECT_DOUBLE_EQ(variance, 16.0);
  EXPECT_TRUE(shadows);
  EXPECT_EQ(open_radius, 0u);
  EXPECT_EQ(close_radius, 0u);
  EXPECT_EQ(max_area, 0u);
  EXPECT_EQ(mask, nullptr);
  g_free(mask);

  GParamSpec* fg = pspec(e, "foreground");
  ASSERT_NE(fg, nullptr);
  EXPECT_STREQ(g_type_name(G_PARAM_SPEC_VALUE_TYPE(fg)), "GstCudaCclForeground");
  GEnumClass* models = G_PARAM_SPEC_ENUM(fg)->enum_class;
  ASSERT_EQ(models->n_values, 4u);  // local and color: local_color_test.cpp
  EXPECT_EQ(g_enum_get_value_by_nick(models, "threshold")->value, 0);
  EXPECT_EQ(g_enum_get_value_by_nick(models, "background")->value, 1);

  auto* h = G_PARAM_SPEC_UINT(pspec(e, "history"));
  EXPECT_EQ(h->minimum, 1u);
  EXPECT_EQ(h->maximum, 100000u);
  auto* lr = G_PARAM_SPEC_DOUBLE(pspec(e, "learning-rate"));
  EXPECT_EQ(lr->minimum, -1.0);
  EXPECT_EQ(lr->maximum, 1.0);
  auto* vt = G_PARAM_SPEC_DOUBLE(pspec(e, "variance-threshold"));
  EXPECT_EQ(vt->minimum, 1.0);
  EXPECT_EQ(vt->maximum, 255.0);
  for (const char* name : {"open-radius", "close-radius"}) {
    auto* r = G_PARAM_SPEC_UINT(pspec(e, name));
    EXPECT_EQ(r->minimum, 0u) << name;
    EXPECT_EQ(r->maximum, 32u) << name;
  }
  auto* ma = G_PARAM_SPEC_UINT(pspec(e, "max-area"));
  EXPECT_EQ(ma->minimum, 0u);
  EXPECT_EQ(ma->maximum, G_MAXUINT);
  EXPECT_EQ(G_PARAM_SPEC_VALUE_TYPE(pspec(e, "mask-location")), G_TYPE_STRING);
  gboolean light = FALSE;
  gint group = 0;
  g_object_get(e, "light-compensation", &light, "group-gap", &group, nullptr);
  EXPECT_TRUE(light) << "the model follows light changes unless told not to";
  auto* gg = G_PARAM_SPEC_INT(pspec(e, "group-gap"));
  EXPECT_EQ(gg->minimum, -1);
  EXPECT_EQ(gg->maximum, 1024);
  EXPECT_EQ(group, gg->default_value);
  g_object_set(e, "group-gap", 12, "light-compensation", FALSE, nullptr);
  g_object_get(e, "light-compensation", &light, "group-gap", &group, nullptr);
  EXPECT_FALSE(light);
  EXPECT_EQ(group, 12);
  // The foreground tint comes after trails, so existing values keep their bits.
  GFlagsClass* overlay = G_PARAM_SPEC_FLAGS(pspec(e, "overlay"))->flags_class;
  const GFlagsValue* tint = g_flags_get_value_by_nick(overlay, "foreground");
  ASSERT_NE(tint, nullptr);
  EXPECT_EQ(tint->value, 0x10u);
  for (const char* name : {"foreground", "history", "learning-rate", "variance-threshold",
                           "detect-shadows", "open-radius", "close-radius", "max-area",
                           "mask-location", "light-compensation", "group-gap"})
    EXPECT_GT(strlen(g_param_spec_get_blurb(pspec(e, name))), 40u) << name;
  gst_object_unref(e);
}

TEST(Properties, OutOfRangeForegroundValuesAreRefused) {
  GstElement* e = gst_element_factory_make("cudaccl", nullptr);
  ASSERT_NE(e, nullptr);
  g_object_set(e, "history", 1u, "learning-rate", 0.0, "variance-threshold", 255.0,
               "open-radius", 32u, "close-radius", 32u, "foreground", 1, nullptr);
  WarningCounter warnings;
  g_object_set(e, "history", 0u, nullptr);
  g_object_set(e, "history", 100001u, nullptr);
  g_object_set(e, "learning-rate", -1.5, nullptr);
  g_object_set(e, "learning-rate", 1.01, nullptr);
  g_object_set(e, "variance-threshold", 0.5, nullptr);
  g_object_set(e, "variance-threshold", 255.5, nullptr);
  g_object_set(e, "open-radius", 33u, nullptr);
  g_object_set(e, "close-radius", 1000u, nullptr);
  g_object_set(e, "foreground", 4, nullptr);
  EXPECT_EQ(warnings.count, 9);

  guint history, open_radius, close_radius;
  gdouble rate, variance;
  gint foreground;
  g_object_get(e, "history", &history, "learning-rate", &rate, "variance-threshold", &variance,
               "open-radius", &open_radius, "close-radius", &close_radius, "foreground",
               &foreground, nullptr);
  EXPECT_EQ(history, 1u);
  EXPECT_DOUBLE_EQ(rate, 0.0);
  EXPECT_DOUBLE_EQ(variance, 255.0);
  EXPECT_EQ(open_radius, 32u);
  EXPECT_EQ(close_radius, 32u);
  EXPECT_EQ(foreground, 1);

  // gst-launch syntax, as users type it.
  gst_util_set_object_arg(G_OBJECT(e), "foreground", "threshold");
  g_object_get(e, "foreground", &foreground, nullptr);
  EXPECT_EQ(foreground, 0);
  gst_util_set_object_arg(G_OBJECT(e), "overlay", "boxes+trails+foreground");
  guint overlay;
  g_object_get(e, "overlay", &overlay, nullptr);
  EXPECT_EQ(overlay, 0x1Au);
  gst_object_unref(e);
}

TEST(Caps, UnsupportedFormatsAreRefused) {
  SKIP_UNLESS_BACKEND_RUNS();
  for (const char* format : {"YUY2", "RGB", "GRAY16_BE", "NV21", "v210"}) {
    Harness h;
    GstCaps* caps = gst_caps_from_string(
        (std::string("video/x-raw,format=") + format + ",width=16,height=16,framerate=30/1")
            .c_str());
    GstPad* sink = gst_element_get_static_pad(h.element(), "sink");
    EXPECT_FALSE(gst_pad_query_accept_caps(sink, caps)) << format;
    gst_object_unref(sink);
    gst_caps_unref(caps);

    h.set_caps(std::string("video/x-raw,format=") + format + ",width=16,height=16,framerate=30/1");
    GstFlowReturn flow;
    GstBuffer* out = h.process(gst_buffer_new_allocate(nullptr, 16 * 16 * 4, nullptr), &flow);
    EXPECT_EQ(out, nullptr) << format;
    EXPECT_EQ(flow, GST_FLOW_NOT_NEGOTIATED) << format;
  }
  Harness h;
  GstPad* sink = gst_element_get_static_pad(h.element(), "sink");
  GstCaps* gl = gst_caps_from_string("video/x-raw(memory:GLMemory),format=RGBA,width=4,height=4");
  EXPECT_FALSE(gst_pad_query_accept_caps(sink, gl)) << "unsupported memory";
  gst_caps_unref(gl);
  gst_object_unref(sink);
}

TEST(Caps, FramesOfTwoToThe31PixelsOrMoreAreRefusedWithAReason) {
  SKIP_UNLESS_BACKEND_RUNS();
  for (const auto& size : {std::pair{65536, 32768}, std::pair{46341, 46341}, std::pair{2147483647, 2}}) {
    Harness h;
    h.set_caps(PixelFormat::Gray8, size.first, size.second);
    GstFlowReturn flow;
    GstBuffer* out = h.process(gst_buffer_new_allocate(nullptr, 64, nullptr), &flow);
    EXPECT_EQ(out, nullptr);
    EXPECT_EQ(flow, GST_FLOW_NOT_NEGOTIATED);
    GstMessage* msg = h.pop_message(GST_MESSAGE_ERROR);
    ASSERT_NE(msg, nullptr) << "no error message naming the size limit";
    GError* err = nullptr;
    gchar* debug = nullptr;
    gst_message_parse_error(msg, &err, &debug);
    EXPECT_TRUE(g_error_matches(err, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION));
    EXPECT_NE(std::string(debug).find("2^31-1 pixels"), std::string::npos) << debug;
    g_error_free(err);
    g_free(debug);
    gst_message_unref(msg);
  }
}

TEST(Backend, CudaWithoutADeviceFailsToStartNamingWhy) {
  std::string why;
  if (cuda_usable(&why)) GTEST_SKIP() << "a CUDA device is usable here, the error cannot happen";
  GstElement* e = gst_element_factory_make("cudaccl", nullptr);
  ASSERT_NE(e, nullptr);
  GstBus* bus = gst_bus_new();
  gst_element_set_bus(e, bus);
  gst_util_set_object_arg(G_OBJECT(e), "backend", "cuda");
  EXPECT_EQ(gst_element_set_state(e, GST_STATE_PAUSED), GST_STATE_CHANGE_FAILURE);
  GstMessage* msg = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR);
  ASSERT_NE(msg, nullptr);
  GError* err = nullptr;
  gchar* debug = nullptr;
  gst_message_parse_error(msg, &err, &debug);
  EXPECT_NE(std::string(err->message).find("backend=cuda"), std::string::npos) << err->message;
  EXPECT_TRUE(g_error_matches(err, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND))
      << g_quark_to_string(err->domain) << " " << err->code;
  EXPECT_EQ(std::string(debug).find(why) != std::string::npos, true) << debug;
  g_error_free(err);
  g_free(debug);
  gst_message_unref(msg);
  gst_element_set_state(e, GST_STATE_NULL);
  gst_bus_set_flushing(bus, TRUE);
  gst_object_unref(bus);
  gst_object_unref(e);
}

TEST(Backend, AutoWithoutADeviceWarnsOnceAndLabelsOnTheCpu) {
  std::string why;
  if (cuda_usable(&why)) GTEST_SKIP() << "a CUDA device is usable here, auto picks it";
  Harness h("", "auto");
  const test::GrayImage g = random_gray(30, 20, 0.5, 1, 77);
  const test::Frame frame = test::make_frame(g, PixelFormat::Gray8);
  h.set_caps(PixelFormat::Gray8, g.width, g.height);
  for (int i = 0; i < 3; ++i) {
    GstBuffer* out = h.process(buffer_from_frame(frame));
    expect_meta_matches_reference(out, frame, reference_options(), "auto on cpu");
    if (out) gst_buffer_unref(out);
  }
  GstMessage* warning = h.pop_message(GST_MESSAGE_WARNING);
  ASSERT_NE(warning, nullptr);
  gst_message_unref(warning);
  EXPECT_EQ(h.pop_message(GST_MESSAGE_WARNING), nullptr) << "warned more than once";
}

// A frame the engine refuses reaches the application as an error of its kind: a
// stream format error (the backend's CCL_BACKEND_ERROR_INPUT) naming why, not a
// generic failure.
TEST(Backend, AFrameTheEngineRefusesIsAStreamFormatErrorNamingWhy) {
  SKIP_UNLESS_BACKEND_RUNS();
  Harness h;
  h.set_caps(PixelFormat::Gray8, 16, 4);
  // Rows of 8 bytes for a frame 16 pixels wide: no labeler can read that.
  GstBuffer* in = gst_buffer_new_allocate(nullptr, 16 * 4, nullptr);
  gsize offsets[GST_VIDEO_MAX_PLANES] = {0};
  gint strides[GST_VIDEO_MAX_PLANES] = {8};
  gst_buffer_add_video_meta_full(in, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_FORMAT_GRAY8, 16, 4, 1,
                                 offsets, strides);
  GstFlowReturn flow = GST_FLOW_OK;
  EXPECT_EQ(h.process(in, &flow), nullptr);
  EXPECT_EQ(flow, GST_FLOW_ERROR);
  GstMessage* msg = h.pop_message(GST_MESSAGE_ERROR);
  ASSERT_NE(msg, nullptr);
  GError* err = nullptr;
  gchar* debug = nullptr;
  gst_message_parse_error(msg, &err, &debug);
  EXPECT_TRUE(g_error_matches(err, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT))
      << g_quark_to_string(err->domain) << " " << err->code << ": " << err->message;
  EXPECT_NE(std::string(err->message).find("Labeling failed"), std::string::npos) << err->message;
  EXPECT_NE(std::string(debug).find("row stride 8"), std::string::npos) << debug;
  g_error_free(err);
  g_free(debug);
  gst_message_unref(msg);
}

}  // namespace
}  // namespace ccl::element_test
