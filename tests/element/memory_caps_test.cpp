// CUDA memory caps without a device: the pad templates, the order and the features
// the element answers caps queries with, and what backend=cpu (or auto fallen back to
// the CPU) does with CUDA memory (refused at negotiation, saying why).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "element_util.h"

namespace ccl::element_test {
namespace {

constexpr const char* kCuda = "memory:CUDAMemory";
const char* const kFormats[] = {"GRAY8", "GRAY16_LE", "NV12", "I420",
                                "RGBA",  "BGRA",      "RGBx", "BGRx"};
// GStreamer 1.22's CUDA memory has no gray formats (its allocator aborts on them).
bool cuda_memory_format(const std::string& f) { return f != "GRAY8" && f != "GRAY16_LE"; }

bool is_cuda(GstCaps* caps, guint i) {
  GstCapsFeatures* f = gst_caps_get_features(caps, i);
  return f && gst_caps_features_contains(f, kCuda);
}

GstCaps* caps_from(const std::string& s) { return gst_caps_from_string(s.c_str()); }

// "system; CUDA" as cudaupload offers them and cudadownload answers.
std::string both_system_first(const char* format) {
  const std::string fields = std::string(",format=") + format + ",width=64,height=48,framerate=30/1";
  return "video/x-raw" + fields + "; video/x-raw(memory:CUDAMemory)" + fields;
}

// The element between two test pads, not started (as when gst-launch links), with a
// downstream neighbour that answers caps queries with `downstream_caps`.
class Neighbours {
 public:
  Neighbours(const char* backend, const std::string& downstream_caps) {
    element_ = gst_element_factory_make("cudaccl", nullptr);
    EXPECT_NE(element_, nullptr);
    gst_util_set_object_arg(G_OBJECT(element_), "backend", backend);
    upstream_ = gst_pad_new("up", GST_PAD_SRC);
    downstream_ = gst_pad_new("down", GST_PAD_SINK);
    downstream_caps_ = caps_from(downstream_caps);
    g_object_set_data(G_OBJECT(downstream_), "caps", downstream_caps_);
    gst_pad_set_query_function(downstream_, [](GstPad* pad, GstObject*, GstQuery* q) -> gboolean {
      if (GST_QUERY_TYPE(q) != GST_QUERY_CAPS) return FALSE;
      auto* mine = static_cast<GstCaps*>(g_object_get_data(G_OBJECT(pad), "caps"));
      GstCaps* filter = nullptr;
      gst_query_parse_caps(q, &filter);
      GstCaps* answer = filter ? gst_caps_intersect_full(mine, filter, GST_CAPS_INTERSECT_FIRST)
                               : gst_caps_ref(mine);
      gst_query_set_caps_result(q, answer);
      gst_caps_unref(answer);
      return TRUE;
    });
    GstPad* sink = gst_element_get_static_pad(element_, "sink");
    GstPad* src = gst_element_get_static_pad(element_, "src");
    EXPECT_EQ(gst_pad_link(upstream_, sink), GST_PAD_LINK_OK);
    EXPECT_EQ(gst_pad_link(src, downstream_), GST_PAD_LINK_OK);
    gst_object_unref(sink);
    gst_object_unref(src);
  }
  ~Neighbours() {
    gst_object_unref(upstream_);
    gst_object_unref(downstream_);
    gst_object_unref(element_);
    gst_caps_unref(downstream_caps_);
  }
  /// What upstream learns when it asks which of `offer` it may send.
  GstCaps* ask(const std::string& offer) {
    GstCaps* filter = caps_from(offer);
    GstCaps* answer = gst_pad_peer_query_caps(upstream_, filter);
    gst_caps_unref(filter);
    return answer;
  }
  bool accepts(const std::string& caps) {
    GstPad* sink = gst_element_get_static_pad(element_, "sink");
    GstCaps* c = caps_from(caps);
    const bool ok = gst_pad_query_accept_caps(sink, c);
    gst_caps_unref(c);
    gst_object_unref(sink);
    return ok;
  }

 private:
  GstElement* element_ = nullptr;
  GstPad* upstream_ = nullptr;
  GstPad* downstream_ = nullptr;
  GstCaps* downstream_caps_ = nullptr;
};

// Debug lines of the cudaccl category while alive (to check the refusal says why).
class DebugCapture {
 public:
  DebugCapture() {
    gst_debug_set_threshold_for_name("cudaccl", GST_LEVEL_DEBUG);
    gst_debug_remove_log_function(gst_debug_log_default);
    gst_debug_add_log_function(&DebugCapture::log, this, nullptr);
  }
  ~DebugCapture() {
    gst_debug_remove_log_function_by_data(this);
    gst_debug_add_log_function(gst_debug_log_default, nullptr, nullptr);
    gst_debug_unset_threshold_for_name("cudaccl");
  }
  bool saw(const std::string& text) const {
    for (const auto& l : lines_)
      if (l.find(text) != std::string::npos) return true;
    return false;
  }

 private:
  static void log(GstDebugCategory* cat, GstDebugLevel, const gchar*, const gchar*, gint,
                  GObject*, GstDebugMessage* message, gpointer self) {
    if (g_strcmp0(gst_debug_category_get_name(cat), "cudaccl") == 0)
      static_cast<DebugCapture*>(self)->lines_.push_back(gst_debug_message_get(message));
  }
  std::vector<std::string> lines_;
};

TEST(MemoryCaps, TemplatesOfferCudaMemoryFirstThenSystemMemory) {
  GstElementFactory* factory = gst_element_factory_find("cudaccl");
  ASSERT_NE(factory, nullptr);
  for (const char* name : {"sink", "src"}) {
    GstElement* e = gst_element_factory_create(factory, nullptr);
    GstPad* pad = gst_element_get_static_pad(e, name);
    GstCaps* templ = gst_pad_get_pad_template_caps(pad);
    ASSERT_EQ(gst_caps_get_size(templ), 2u) << name << ": " << gst_caps_to_string(templ);
    EXPECT_TRUE(is_cuda(templ, 0)) << name;
    EXPECT_FALSE(is_cuda(templ, 1)) << name;
    for (guint i = 0; i < 2; ++i)
      for (const char* format : kFormats) {
        const std::string one = std::string(i == 0 ? "video/x-raw(memory:CUDAMemory)" : "video/x-raw") +
                                ",format=" + format + ",width=33,height=17,framerate=0/1";
        GstCaps* c = caps_from(one);
        EXPECT_EQ(bool(gst_caps_is_subset(c, templ)), i == 1 || cuda_memory_format(format))
            << name << ": " << one;
        gst_caps_unref(c);
      }
    gst_caps_unref(templ);
    gst_object_unref(pad);
    gst_object_unref(e);
  }
  gst_object_unref(factory);
}

TEST(MemoryCaps, CudaMemoryComesFirstWhenBothNeighboursTakeBoth) {
  // Upstream offers system memory first (cudaupload's order), downstream answers
  // system memory first (cudadownload's): the element still puts CUDA memory first,
  // so upstream fixates to it and frames stay on the GPU.
  Neighbours n("auto", both_system_first("NV12"));
  GstCaps* answer = n.ask(both_system_first("NV12"));
  ASSERT_EQ(gst_caps_get_size(answer), 2u) << gst_caps_to_string(answer);
  EXPECT_TRUE(is_cuda(answer, 0)) << gst_caps_to_string(answer);
  EXPECT_FALSE(is_cuda(answer, 1));
  GstCaps* fixed = gst_caps_fixate(answer);
  EXPECT_TRUE(is_cuda(fixed, 0)) << "upstream would pick " << gst_caps_to_string(fixed);
  gst_caps_unref(fixed);
}

TEST(MemoryCaps, FeaturesAreKeptNotConverted) {
  // In place: what comes in goes out, memory included; never one memory for the other.
  Neighbours n("auto", both_system_first("RGBA"));
  GstCaps* cuda_only = n.ask("video/x-raw(memory:CUDAMemory),format=RGBA,width=64,height=48,framerate=30/1");
  ASSERT_EQ(gst_caps_get_size(cuda_only), 1u) << gst_caps_to_string(cuda_only);
  EXPECT_TRUE(is_cuda(cuda_only, 0));
  gst_caps_unref(cuda_only);
  GstCaps* system_only = n.ask("video/x-raw,format=RGBA,width=64,height=48,framerate=30/1");
  ASSERT_EQ(gst_caps_get_size(system_only), 1u) << gst_caps_to_string(system_only);
  EXPECT_FALSE(is_cuda(system_only, 0));
  gst_caps_unref(system_only);

  // A downstream that only takes system memory leaves upstream no CUDA memory.
  Neighbours system_sink("auto", "video/x-raw,format=RGBA,width=64,height=48,framerate=30/1");
  GstCaps* answer = system_sink.ask(both_system_first("RGBA"));
  ASSERT_EQ(gst_caps_get_size(answer), 1u) << gst_caps_to_string(answer);
  EXPECT_FALSE(is_cuda(answer, 0));
  gst_caps_unref(answer);
  EXPECT_TRUE(n.accepts("video/x-raw(memory:CUDAMemory),format=NV12,width=8,height=8,framerate=0/1"));
  EXPECT_FALSE(n.accepts("video/x-raw(memory:CUDAMemory),format=GRAY8,width=8,height=8,framerate=0/1"))
      << "GStreamer 1.22's CUDA memory cannot hold GRAY8";
}

TEST(MemoryCaps, CpuBackendOffersAndAcceptsSystemMemoryOnly) {
  Neighbours n("cpu", both_system_first("I420"));
  GstCaps* answer = n.ask(both_system_first("I420"));
  ASSERT_EQ(gst_caps_get_size(answer), 1u) << gst_caps_to_string(answer);
  EXPECT_FALSE(is_cuda(answer, 0));
  gst_caps_unref(answer);
  EXPECT_FALSE(n.accepts("video/x-raw(memory:CUDAMemory),format=I420,width=8,height=8,framerate=0/1"));
  EXPECT_TRUE(n.accepts("video/x-raw,format=I420,width=8,height=8,framerate=0/1"));
}

TEST(MemoryCaps, CudaOnlyUpstreamWithCpuBackendIsNotNegotiatedAndSaysWhy) {
  DebugCapture debug;
  Harness h("", "cpu");
  h.set_caps("video/x-raw(memory:CUDAMemory),format=NV12,width=16,height=16,framerate=30/1");
  GstFlowReturn flow = GST_FLOW_OK;
  GstBuffer* out = h.process(gst_buffer_new_allocate(nullptr, 16 * 16 * 3 / 2, nullptr), &flow);
  EXPECT_EQ(out, nullptr);
  EXPECT_EQ(flow, GST_FLOW_NOT_NEGOTIATED);
  EXPECT_TRUE(debug.saw("backend=cpu labels system memory only"))
      << "the refusal should name the reason in the debug log";
}

TEST(MemoryCaps, AutoFallenBackToTheCpuRefusesCudaMemory) {
  std::string why;
  if (cuda_usable(&why)) GTEST_SKIP() << "a CUDA device is usable here: auto labels CUDA memory";
  Harness h("", "auto");  // started by the harness: on the CPU, with one warning
  GstPad* sink = gst_element_get_static_pad(h.element(), "sink");
  GstCaps* cuda = caps_from("video/x-raw(memory:CUDAMemory),format=RGBx,width=8,height=8,framerate=0/1");
  GstCaps* system = caps_from("video/x-raw,format=RGBx,width=8,height=8,framerate=0/1");
  EXPECT_FALSE(gst_pad_query_accept_caps(sink, cuda));
  EXPECT_TRUE(gst_pad_query_accept_caps(sink, system));
  gst_caps_unref(cuda);
  gst_caps_unref(system);
  gst_object_unref(sink);
}

TEST(MemoryCaps, SystemMemoryStillLabels) {
  SKIP_UNLESS_BACKEND_RUNS();
  const test::GrayImage g = random_gray(41, 23, 0.4, 2, 9);
  const test::Frame frame = test::make_frame(g, PixelFormat::NV12);
  Harness h;
  h.set_caps(PixelFormat::NV12, g.width, g.height);
  GstBuffer* out = h.process(buffer_from_frame(frame));
  expect_meta_matches_reference(out, frame, reference_options(), "system memory");
  if (out) gst_buffer_unref(out);
}

}  // namespace
}  // namespace ccl::element_test
