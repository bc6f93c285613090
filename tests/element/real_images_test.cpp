// The element on real images (photographs, microscopy, fax pages from Debian
// packages), with fixed and Otsu thresholds. A binary of its own: reading the images
// needs OpenCV's image codecs, which the main element test (carried to GPU hosts
// with a minimal runtime) does without.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "element_util.h"

namespace ccl::element_test {
namespace {

using test::Frame;
using test::GrayImage;
using test::make_frame;

TEST(RealImages, MetaEqualsReferenceWithFixedAndOtsuThresholds) {
  SKIP_UNLESS_BACKEND_RUNS();
  std::string why;
  const std::vector<GrayImage> real = test::real_images(&why);
  if (real.empty()) GTEST_SKIP() << "no real images: " << why;
  // A handful across sizes and content, in two formats each (the full set is the
  // reference tests' job).
  const std::vector<std::string> chosen = {"skimage_camera", "skimage_coins", "skimage_text",
                                           "skimage_hubble_deep_field", "ccitt1"};
  int used = 0;
  for (const GrayImage& g : real) {
    if (std::find(chosen.begin(), chosen.end(), g.name) == chosen.end()) continue;
    ++used;
    for (PixelFormat f : {PixelFormat::Gray8, PixelFormat::RGBA}) {
      for (const char* mode : {"above", "otsu"}) {
        Harness h(std::string("threshold-mode=") + mode + " threshold=100");
        const Frame frame = make_frame(g, f);
        h.set_caps(f, g.width, g.height);
        GstBuffer* out = h.process(buffer_from_frame(frame));
        expect_meta_matches_reference(
            out, frame,
            reference_options(100, std::string(mode) == "otsu" ? ThresholdMode::Otsu
                                                              : ThresholdMode::Above),
            g.name + " " + to_string(f) + " " + mode);
        if (out) gst_buffer_unref(out);
      }
    }
  }
  EXPECT_GT(used, 0) << "none of the chosen real images is in the cache";
}

}  // namespace
}  // namespace ccl::element_test
