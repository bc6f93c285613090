// Helpers of the cudaccl element tests: a GstHarness around the element with the
// backend under test, frames of the test-image library as buffers (with GstVideoMeta
// carrying their padded strides), and reading frames and metadata back.
#pragma once

#include <gst/check/gstharness.h>
#include <gst/gst.h>
#include <gst/video/video.h>

#include <functional>
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

/// Fails at the first byte of `got` that differs from `want`, naming `what`.
void expect_planes_equal(const std::vector<std::vector<uint8_t>>& got,
                         const std::vector<std::vector<uint8_t>>& want, const std::string& what);

/// A harness around "cudaccl backend=<backend_under_test()> <props>" with a bus, so
/// that element messages, warnings and errors can be inspected.
class Harness {
 public:
  explicit Harness(const std::string& properties = "", const std::string& backend = "");
  /// Around an element made by the caller (in the NULL state), which the harness
  /// takes a reference of and starts.
  explicit Harness(GstElement* element);
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

/// gtest assertions: the meta of `out` holds what `ref` found in a frame of
/// width x height (every reported component, count and level).
void expect_meta_matches(GstBuffer* out, const Result& ref, int width, int height,
                         const Options& options, const std::string& context);

/// The reference result of a frame.
Result reference_of(const test::Frame& frame, const Options& options);

/// Three 8-bit channels of one pixel: R, G, B for the RGB formats, Y, U, V for NV12
/// and I420, the first alone for the gray formats.
struct Channels {
  uint8_t c0 = 0, c1 = 0, c2 = 0;
};

/// A frame of `format` (packed rows, no padding) whose pixels are at(x, y); a 4:2:0
/// chroma sample takes the chroma of the top-left pixel of its 2x2 block; GRAY16_LE
/// stores c0 * 257; alpha and X bytes are 255.
test::Frame channel_frame(PixelFormat format, int width, int height,
                          const std::function<Channels(int, int)>& at);

/// An error message popped from the harness's bus, parsed (empty when none).
struct ErrorMessage {
  bool posted = false;
  GQuark domain = 0;
  int code = 0;
  std::string message, debug;
};
ErrorMessage pop_error(Harness& h);
ErrorMessage parse_error(GstMessage* msg);

/// Small random images of the YACCLAB recipe as gray, for quick broad checks.
test::GrayImage random_gray(int width, int height, double density, int granularity,
                            uint32_t seed);

}  // namespace ccl::element_test
