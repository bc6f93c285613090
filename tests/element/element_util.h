// Helpers of the cudaccl element tests: a GstHarness around the element with the
// backend under test, frames of the test-image library as buffers (with GstVideoMeta
// carrying their padded strides), and reading frames and metadata back.
#pragma once

#include <gst/check/gstharness.h>
#include <gst/gst.h>
#include <gst/video/video.h>

#include <memory>
#include <string>
#include <vector>

#include <gst/ccl/gstcclmeta.h>

#include "ccl/reference.h"
#include "ccl/types.h"
#include "test_images.h"

namespace ccl::element_test {

/// The backend the suite runs with: env CCL_TEST_BACKEND (cpu, the default, or cuda).
const std::string& backend_under_test();

/// True when a CUDA device is usable; otherwise false with the reason.
bool cuda_usable(std::string* why);

/// GTEST_SKIP()s the calling test when it would need CUDA and has none.
#define SKIP_UNLESS_BACKEND_RUNS()                                                     \
  do {                                                                                 \
    std::string why_;                                                                  \
    if (::ccl::element_test::backend_under_test() == "cuda" &&                         \
        !::ccl::element_test::cuda_usable(&why_))                                      \
      GTEST_SKIP() << "backend=cuda needs a CUDA device: " << why_;                   \
  } while (0)

GstVideoFormat gst_format(PixelFormat f);
std::string caps_string(PixelFormat f, int width, int height);

/// A buffer holding the frame's planes back to back, with a GstVideoMeta giving the
/// frame's (padded) strides and the plane offsets.
GstBuffer* buffer_from_frame(const test::Frame& frame);

/// Every plane of a buffer's frame, rows packed (row bytes = content only).
std::vector<std::vector<uint8_t>> read_planes(GstBuffer* buffer, PixelFormat f, int width,
                                              int height);
std::vector<std::vector<uint8_t>> read_planes(const test::Frame& frame);

/// A harness around "cudaccl backend=<backend_under_test()> <props>" with a bus, so
/// that element messages, warnings and errors can be inspected.
class Harness {
 public:
  explicit Harness(const std::string& properties = "", const std::string& backend = "");
  ~Harness();
  Harness(const Harness&) = delete;
  Harness& operator=(const Harness&) = delete;

  GstHarness* get() const { return h_; }
  GstElement* element() const { return h_->element; }
  void set_caps(PixelFormat f, int width, int height);
  void set_caps(const std::string& caps);

  /// Pushes the buffer and pulls the result (nullptr when the push failed).
  GstBuffer* process(GstBuffer* in, GstFlowReturn* flow = nullptr);

  /// Next bus message of the given type (nullptr when none), to unref.
  GstMessage* pop_message(GstMessageType types);

 private:
  GstHarness* h_ = nullptr;
  GstBus* bus_ = nullptr;
};

/// The element's default max-components.
constexpr uint32_t kDefaultMaxComponents = 1024;

/// Options equivalent to the element's default settings, for the reference labeler
/// (which applies the same selection of reported components).
Options reference_options(int threshold = 128, ThresholdMode mode = ThresholdMode::Above,
                          int connectivity = 8);

/// gtest assertions: the meta of `out` equals what the reference labeler finds in
/// `frame` (every component reported).
void expect_meta_matches_reference(GstBuffer* out, const test::Frame& frame,
                                   const Options& options, const std::string& context);

/// The reference result of a frame.
Result reference_of(const test::Frame& frame, const Options& options);

/// Small random images of the YACCLAB recipe as gray, for quick broad checks.
test::GrayImage random_gray(int width, int height, double density, int granularity,
                            uint32_t seed);

}  // namespace ccl::element_test
