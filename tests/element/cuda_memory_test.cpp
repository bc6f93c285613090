// CUDA memory through the element on a device: the GstCudaContext it shares, the
// CUDA buffer pool it proposes, and frames in GstCudaMemory labeled and drawn in place
// with the same metadata and pixels as system memory on the CPU backend. Skips
// without a device.
#include <cuda_runtime_api.h>
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "element_util.h"

namespace ccl::element_test {
namespace {

using Planes = std::vector<std::vector<uint8_t>>;

// Every component reported (min-area 1), so the metadata can be checked against the reference.
constexpr const char* kOverlay = "overlay=fill+boxes+centroids overlay-alpha=0.37";

std::string cuda_caps(PixelFormat f, int width, int height) {
  std::string s = caps_string(f, width, height);
  return s.replace(0, std::strlen("video/x-raw"), "video/x-raw(memory:CUDAMemory)");
}

class CudaMemory : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!cuda_usable(&why)) GTEST_SKIP() << "needs a CUDA device: " << why;
    if (!gst_cuda_load_library()) GTEST_SKIP() << "GStreamer's CUDA library cannot load libcuda";
    gst_cuda_memory_init_once();
    context_ = gst_cuda_context_new(0);
    ASSERT_NE(context_, nullptr);
  }
  void TearDown() override { gst_clear_object(&context_); }

  /// cudaccl with `properties`, given the application's CUDA context before it starts
  /// (as a pipeline's GstContext would), inside a harness.
  GstHarness* harness(const std::string& properties, GstCudaContext* context) {
    GError* error = nullptr;
    GstElement* e = gst_parse_launch(("cudaccl backend=cuda " + properties).c_str(), &error);
    EXPECT_NE(e, nullptr) << (error ? error->message : "");
    g_clear_error(&error);
    bus_ = gst_bus_new();
    gst_element_set_bus(e, bus_);
    if (context) {
      GstContext* c = gst_context_new_cuda_context(context);
      gst_element_set_context(e, c);
      gst_context_unref(c);
    }
    GstHarness* h = gst_harness_new_with_element(e, "sink", "src");
    gst_object_unref(e);
    return h;
  }
  void teardown(GstHarness* h) {
    gst_harness_teardown(h);
    gst_bus_set_flushing(bus_, TRUE);
    gst_clear_object(&bus_);
  }

  /// The CUDA context the element answers a context query with (ref), or nullptr.
  static GstCudaContext* context_of(GstElement* e) {
    GstQuery* q = gst_query_new_context(GST_CUDA_CONTEXT_TYPE);
    GstCudaContext* found = nullptr;
    if (gst_element_query(e, q)) {
      GstContext* c = nullptr;
      gst_query_parse_context(q, &c);
      if (c)
        gst_structure_get(gst_context_get_structure(c), GST_CUDA_CONTEXT_TYPE,
                          GST_TYPE_CUDA_CONTEXT, &found, nullptr);
    }
    gst_query_unref(q);
    return found;
  }

  /// The pool the element proposes for caps (ref), through an allocation query.
  static GstBufferPool* proposed_pool(GstHarness* h, GstCaps* caps) {
    GstQuery* q = gst_query_new_allocation(caps, TRUE);
    GstBufferPool* pool = nullptr;
    if (gst_pad_peer_query(h->srcpad, q) && gst_query_get_n_allocation_pools(q) > 0)
      gst_query_parse_nth_allocation_pool(q, 0, &pool, nullptr, nullptr, nullptr);
    gst_query_unref(q);
    return pool;
  }

  /// A buffer of `pool` holding the frame, copied to the device through a CUDA mapping,
  /// as an upstream CUDA element writes it. (A host mapping would first download the
  /// pool's unwritten device memory, which compute-sanitizer's initcheck reports.)
  static GstBuffer* upload(GstBufferPool* pool, const test::Frame& frame) {
    GstBuffer* buf = nullptr;
    EXPECT_EQ(gst_buffer_pool_acquire_buffer(pool, &buf, nullptr), GST_FLOW_OK);
    if (!buf) return nullptr;
    GstVideoInfo info;
    gst_video_info_set_format(&info, gst_format(frame.view.format), guint(frame.view.width),
                              guint(frame.view.height));
    GstVideoFrame vf;
    EXPECT_TRUE(gst_video_frame_map(&vf, &info, buf, GstMapFlags(GST_MAP_WRITE | GST_MAP_CUDA)));
    // In the memory's own context (one test's pool belongs to another context).
    EXPECT_TRUE(gst_cuda_context_push(GST_CUDA_MEMORY_CAST(gst_buffer_peek_memory(buf, 0))->context));
    const Planes planes = read_planes(frame);
    for (size_t p = 0; p < planes.size(); ++p) {
      const size_t rows = p == 0 ? size_t(frame.view.height) : size_t(frame.view.height + 1) / 2;
      const size_t row_bytes = planes[p].size() / rows;
      EXPECT_EQ(cudaMemcpy2D(GST_VIDEO_FRAME_PLANE_DATA(&vf, p),
                             size_t(GST_VIDEO_FRAME_PLANE_STRIDE(&vf, p)), planes[p].data(),
                             row_bytes, row_bytes, rows, cudaMemcpyHostToDevice),
                cudaSuccess);
    }
    gst_cuda_context_pop(nullptr);
    gst_video_frame_unmap(&vf);
    GST_BUFFER_PTS(buf) = 0;
    GST_BUFFER_DURATION(buf) = GST_SECOND / 30;
    return buf;
  }

  /// What the CPU backend makes of the frame in system memory: its planes.
  static Planes on_the_cpu(const test::Frame& frame) {
    Harness cpu(kOverlay, "cpu");
    cpu.set_caps(frame.view.format, frame.view.width, frame.view.height);
    GstBuffer* out = cpu.process(buffer_from_frame(frame));
    EXPECT_NE(out, nullptr);
    if (!out) return {};
    Planes planes = read_planes(out, frame.view.format, frame.view.width, frame.view.height);
    gst_buffer_unref(out);
    return planes;
  }

  GstCudaContext* context_ = nullptr;
  GstBus* bus_ = nullptr;
};

TEST_F(CudaMemory, EveryFormatIsLabeledAndDrawnInPlaceAsOnTheCpu) {
  uint32_t seed = 4100;
  for (PixelFormat f : test::all_formats()) {
    // GStreamer 1.22's CUDA memory has no gray formats (its allocator aborts).
    if (f == PixelFormat::Gray8 || f == PixelFormat::Gray16LE) continue;
    // Even heights: 1.22's CUDA memory lays odd-height I420 out with U's last row
    // on V's first.
    for (const auto& size : {std::pair{97, 62}, std::pair{640, 360}}) {
      SCOPED_TRACE(std::string(to_string(f)) + " " + std::to_string(size.first) + "x" +
                   std::to_string(size.second));
      const test::GrayImage g = random_gray(size.first, size.second, 0.45, 3, seed++);
      const test::Frame frame = test::make_frame(g, f, 9);

      GstHarness* h = harness(kOverlay, context_);
      const std::string caps = cuda_caps(f, g.width, g.height);
      gst_harness_set_src_caps_str(h, caps.c_str());
      GstCaps* c = gst_caps_from_string(caps.c_str());
      GstBufferPool* pool = proposed_pool(h, c);
      gst_caps_unref(c);
      ASSERT_NE(pool, nullptr) << "no pool proposed for CUDA memory";
      ASSERT_TRUE(GST_IS_CUDA_BUFFER_POOL(pool)) << "the proposed pool is not a CUDA pool";
      EXPECT_EQ(GST_CUDA_BUFFER_POOL(pool)->context, context_) << "pool of another context";
      ASSERT_TRUE(gst_buffer_pool_set_active(pool, TRUE));

      GstBuffer* in = upload(pool, frame);
      ASSERT_NE(in, nullptr);
      GstMemory* in_mem = gst_buffer_peek_memory(in, 0);
      ASSERT_TRUE(gst_is_cuda_memory(in_mem));
      ASSERT_EQ(gst_harness_push(h, in), GST_FLOW_OK);
      GstBuffer* out = gst_harness_pull(h);
      ASSERT_NE(out, nullptr);

      // In place and on the device: the very memory came back, written on the GPU
      // (its host copy is stale until someone maps it for the host).
      EXPECT_EQ(gst_buffer_peek_memory(out, 0), in_mem) << "the frame was copied";
      EXPECT_TRUE(GST_MEMORY_FLAG_IS_SET(gst_buffer_peek_memory(out, 0),
                                         GST_CUDA_MEMORY_TRANSFER_NEED_DOWNLOAD))
          << "the overlay was not drawn on the device";
      expect_meta_matches_reference(out, frame, reference_options(), "CUDA memory");
      const GstCclMeta* meta = gst_ccl_meta_get(out);
      ASSERT_NE(meta, nullptr);
      EXPECT_NE(meta->gpu_time, GST_CLOCK_TIME_NONE);

      const Planes drawn = read_planes(out, f, g.width, g.height);
      const Planes expected = on_the_cpu(frame);
      ASSERT_EQ(drawn.size(), expected.size());
      for (size_t p = 0; p < drawn.size(); ++p)
        EXPECT_TRUE(drawn[p] == expected[p]) << "plane " << p << " differs from the CPU's";

      gst_buffer_unref(out);
      gst_buffer_pool_set_active(pool, FALSE);
      gst_object_unref(pool);
      teardown(h);
    }
  }
}

TEST_F(CudaMemory, TheApplicationsContextIsUsedAndAnswered) {
  GstHarness* h = harness("", context_);
  GstCudaContext* used = context_of(h->element);
  EXPECT_EQ(used, context_) << "the element did not take the context it was given";
  gst_clear_object(&used);
  teardown(h);
}

TEST_F(CudaMemory, WithoutAContextTheElementCreatesAndAnnouncesOne) {
  GstHarness* h = harness("", nullptr);
  GstCudaContext* used = context_of(h->element);
  ASSERT_NE(used, nullptr) << "no CUDA context after start";
  bool announced = false;
  while (GstMessage* m = gst_bus_pop_filtered(bus_, GST_MESSAGE_HAVE_CONTEXT)) {
    GstContext* c = nullptr;
    gst_message_parse_have_context(m, &c);
    GstCudaContext* in_message = nullptr;
    if (c && gst_structure_get(gst_context_get_structure(c), GST_CUDA_CONTEXT_TYPE,
                               GST_TYPE_CUDA_CONTEXT, &in_message, nullptr)) {
      announced = announced || in_message == used;
      gst_object_unref(in_message);
    }
    if (c) gst_context_unref(c);
    gst_message_unref(m);
  }
  EXPECT_TRUE(announced) << "the created context was not posted in a have-context message";
  gst_object_unref(used);
  teardown(h);
}

TEST_F(CudaMemory, MemoryOfAnotherContextIsStillLabeledRightWithOneWarning) {
  GstCudaContext* other = gst_cuda_context_new(0);
  ASSERT_NE(other, nullptr);
  const test::GrayImage g = random_gray(77, 41, 0.5, 2, 4242);
  const test::Frame frame = test::make_frame(g, PixelFormat::NV12);
  GstHarness* h = harness("", context_);
  gst_harness_set_src_caps_str(h, cuda_caps(PixelFormat::NV12, g.width, g.height).c_str());

  GstBufferPool* pool = gst_cuda_buffer_pool_new(other);
  GstStructure* config = gst_buffer_pool_get_config(pool);
  GstCaps* caps = gst_caps_from_string(cuda_caps(PixelFormat::NV12, g.width, g.height).c_str());
  gst_buffer_pool_config_set_params(config, caps, guint(g.width * g.height * 3 / 2), 0, 0);
  gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  gst_caps_unref(caps);
  ASSERT_TRUE(gst_buffer_pool_set_config(pool, config));
  ASSERT_TRUE(gst_buffer_pool_set_active(pool, TRUE));
  for (int i = 0; i < 2; ++i) {
    ASSERT_EQ(gst_harness_push(h, upload(pool, frame)), GST_FLOW_OK);
    GstBuffer* out = gst_harness_pull(h);
    expect_meta_matches_reference(out, frame, reference_options(), "memory of another context");
    if (out) gst_buffer_unref(out);
  }
  int warnings = 0;
  while (GstMessage* m = gst_bus_pop_filtered(bus_, GST_MESSAGE_WARNING)) {
    ++warnings;
    gst_message_unref(m);
  }
  EXPECT_EQ(warnings, 1);
  gst_buffer_pool_set_active(pool, FALSE);
  gst_object_unref(pool);
  teardown(h);
  gst_object_unref(other);
}

}  // namespace
}  // namespace ccl::element_test
