// The CPU reference against OpenCV on real images (fax pages, photographs, microscopy)
// fetched from Debian packages. The images are only known at run time, so the cases
// are registered in main(): one per image, threshold and connectivity. Without the
// images a single case skips and prints why.
#include <gtest/gtest.h>

#include <opencv2/imgproc.hpp>

#include "ccl/luma.h"
#include "opencv_oracle.h"

namespace ccl::test {
namespace {

enum class Level { Fixed128, Otsu };

class RealImage : public ::testing::Test {
 public:
  RealImage(const GrayImage* image, Level level, int connectivity)
      : image_(image), level_(level), connectivity_(connectivity) {}

  void TestBody() override {
    const GrayImage& g = *image_;
    Options options;
    options.connectivity = connectivity_;
    options.mode = level_ == Level::Otsu ? ThresholdMode::Otsu : ThresholdMode::Above;
    options.threshold = 128;

    // The reference's own threshold of the frame...
    const Frame frame = make_frame(g, PixelFormat::Gray8);
    BinaryImage binary;
    const int level = threshold_image(frame.view, options, binary);

    // ...must match OpenCV's: the same fixed level, and Otsu's level as OpenCV finds it.
    if (level_ == Level::Otsu) {
      const cv::Mat src(g.height, g.width, CV_8UC1, const_cast<uint8_t*>(g.pixels.data()));
      cv::Mat dst;
      const double cv_level = cv::threshold(src, dst, 0, 255, cv::THRESH_BINARY | cv::THRESH_OTSU);
      EXPECT_EQ(level, int(cv_level)) << "Otsu level differs from OpenCV's";
    } else {
      EXPECT_EQ(level, 128);
    }
    const BinaryImage expected = binarize_above(g, level);
    ASSERT_EQ(binary.pixels, expected.pixels) << "thresholded image differs";

    EXPECT_TRUE(matches_opencv(binary, connectivity_)) << g.name << " at level " << level;
  }

 private:
  const GrayImage* image_;
  Level level_;
  int connectivity_;
};

class RealImagesMissing : public ::testing::Test {
 public:
  explicit RealImagesMissing(std::string why) : why_(std::move(why)) {}
  void TestBody() override { GTEST_SKIP() << "real test images unavailable: " << why_; }

 private:
  std::string why_;
};

void register_cases(const std::vector<GrayImage>& images, const std::string& why) {
  if (images.empty()) {
    ::testing::RegisterTest("RealImages", "Unavailable", nullptr, nullptr, __FILE__, __LINE__,
                            [why]() -> ::testing::Test* { return new RealImagesMissing(why); });
    return;
  }
  for (const GrayImage& g : images) {
    for (Level level : {Level::Fixed128, Level::Otsu}) {
      for (int connectivity : {4, 8}) {
        const std::string name = sanitize_name(g.name) +
                                 (level == Level::Otsu ? "_otsu" : "_t128") + "_c" +
                                 std::to_string(connectivity);
        const GrayImage* image = &g;
        ::testing::RegisterTest("RealImages", name.c_str(), nullptr, nullptr, __FILE__, __LINE__,
                                [=]() -> ::testing::Test* {
                                  return new RealImage(image, level, connectivity);
                                });
      }
    }
  }
}

}  // namespace
}  // namespace ccl::test

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  std::string why;
  static const std::vector<ccl::test::GrayImage> images = ccl::test::real_images(&why);
  if (images.empty()) std::printf("real test images unavailable: %s\n", why.c_str());
  ccl::test::register_cases(images, why);
  return RUN_ALL_TESTS();
}
