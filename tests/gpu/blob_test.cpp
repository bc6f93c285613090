// The blob pass (Options::properties) and the blob filters on the device against the
// CPU (measure_blobs and select_reported over the reference's table), byte for byte:
// every algorithm, 4- and 8-connected, every pixel format, random and real images,
// each property alone and all together, the filters with every way the report picks
// the largest, grouping, and features-only frames. Outputs are poisoned before each
// frame and every frame runs twice (expect_matches).
#include <algorithm>
#include <random>

#include "ccl/blob.h"
#include "color_images.h"
#include "gpu_test_support.h"
#include "test_images.h"

namespace ccl::gpu_test {
namespace {

/// Images whose components cover what the pass meets: noise of single pixels and of
/// blocks (many components per warp row, 2x2 windows of several labels), large blobs
/// with holes, the frame's edges.
std::vector<test::GrayImage> blob_images() {
  std::vector<test::GrayImage> images;
  uint32_t seed = 7;
  for (const auto& [w, h, density, granularity] :
       std::vector<std::tuple<int, int, double, int>>{{97, 61, 0.5, 1},
                                                      {256, 128, 0.3, 1},
                                                      {333, 200, 0.6, 4},
                                                      {640, 480, 0.45, 16},
                                                      {1030, 70, 0.7, 2}})
    images.push_back(test::to_gray(test::yacclab_random(w, h, density, granularity, seed++),
                                   "random " + std::to_string(w) + "x" + std::to_string(h)));
  // Gray levels, so that intensity sums, squares and extremes differ per pixel.
  std::mt19937 gen(11);
  for (test::GrayImage& image : images)
    for (uint8_t& p : image.pixels)
      if (p) p = uint8_t(129 + gen() % 127);
  return images;
}

void expect_blobs(const ImageView& view, Options options, const std::string& what) {
  expect_matches(view, options, reference(view, options), what);
}

TEST(DeviceBlobs, AllPropertiesEveryAlgorithmConnectivityAndFormat) {
  CCL_REQUIRE_DEVICE();
  const std::vector<test::GrayImage> images = blob_images();
  for (Algorithm a : all_algorithms())
    for (int connectivity : {4, 8})
      for (size_t i = 0; i < images.size(); ++i) {
        const auto& formats = test::all_formats();
        const PixelFormat format = formats[(i + size_t(a)) % formats.size()];
        const test::Frame frame = test::make_frame(images[i], format, i % 2 ? 3 : 0);
        Options o = make_options(a, connectivity, ThresholdMode::Above);
        o.properties = kAllProperties;
        expect_blobs(frame.view, o, images[i].name + " " + to_string(format));
      }
}

TEST(DeviceBlobs, EachPropertyAloneAndFeaturesOnly) {
  CCL_REQUIRE_DEVICE();
  const std::vector<test::GrayImage> images = blob_images();
  for (uint32_t p : {uint32_t(kPropertyIntensity), uint32_t(kPropertyColor),
                     uint32_t(kPropertyPerimeter), uint32_t(kPropertyEuler)})
    for (const PixelFormat format : test::all_formats()) {
      const test::Frame frame = test::make_frame(images[2], format);
      Options o = make_options(Algorithm::HA, p == kPropertyEuler ? 4 : 8, ThresholdMode::Above);
      o.properties = p;
      expect_blobs(frame.view, o, "property " + std::to_string(p));
      o.write_labels = false;  // the pass needs the label image all the same
      expect_blobs(frame.view, o, "features only, property " + std::to_string(p));
    }
}

TEST(DeviceBlobs, RealImages) {
  CCL_REQUIRE_DEVICE();
  std::string why;
  const std::vector<test::GrayImage> gray = test::real_images(&why);
  const std::vector<test::RgbImage> color = test::real_color_images(&why);
  if (gray.empty() && color.empty()) GTEST_SKIP() << "no real images: " << why;
  for (const test::GrayImage& image : gray)
    for (int connectivity : {4, 8}) {
      const test::Frame frame = test::make_frame(image, PixelFormat::Gray8);
      Options o = make_options(Algorithm::HA, connectivity, ThresholdMode::Otsu);
      o.properties = kAllProperties;
      expect_blobs(frame.view, o, image.name);
    }
  for (const test::RgbImage& image : color) {
    std::vector<uint8_t> rgbx(size_t(image.width) * image.height * 4, 255);
    for (size_t p = 0; p < size_t(image.width) * image.height; ++p)
      std::copy_n(&image.rgb[3 * p], 3, &rgbx[4 * p]);
    ImageView view;
    view.width = image.width;
    view.height = image.height;
    view.format = PixelFormat::RGBx;
    view.planes[0] = rgbx.data();
    view.strides[0] = size_t(image.width) * 4;
    Options o = make_options(Algorithm::UnionFind, 8, ThresholdMode::Otsu);
    o.properties = kAllProperties;
    expect_blobs(view, o, image.name + " RGBx");
  }
}

TEST(DeviceBlobs, FiltersSelectAsTheHost) {
  CCL_REQUIRE_DEVICE();
  const std::vector<test::GrayImage> images = blob_images();
  struct Bounds {
    double min_c, max_c, min_i, max_i, min_e, max_e;
    uint64_t min_area;
    uint32_t max_components;
  };
  // Each filter alone, combined, with min-area, and with max_components cutting the
  // passing ones (ordered in the frame's kernels, or sorted after a wait).
  const std::vector<Bounds> bounds = {
      {0.5, 0, 0, 0, 0, 0, 0, UINT32_MAX},   {0, 0.8, 0, 0, 0, 0, 0, UINT32_MAX},
      {0, 0, 180, 0, 0, 0, 0, UINT32_MAX},   {0, 0, 0, 200, 0, 0, 0, UINT32_MAX},
      {0, 0, 0, 0, 0.5, 0, 0, UINT32_MAX},   {0, 0, 0, 0, 0, 0.9, 0, UINT32_MAX},
      {0.2, 3, 150, 240, 0.1, 0.95, 3, UINT32_MAX},
      {0.1, 0, 0, 0, 0, 0.99, 2, 5},         {0, 0, 140, 0, 0, 0, 0, 100},
      {0, 0, 0, 0, 0.3, 0, 0, 1}};
  for (size_t i = 0; i < images.size(); ++i)
    for (const Bounds& b : bounds) {
      const test::Frame frame = test::make_frame(images[i], PixelFormat::Gray8);
      Options o = make_options(Algorithm::Komura, i % 2 ? 4 : 8, ThresholdMode::Above);
      o.min_circularity = b.min_c;
      o.max_circularity = b.max_c;
      o.min_intensity = b.min_i;
      o.max_intensity = b.max_i;
      o.min_eccentricity = b.min_e;
      o.max_eccentricity = b.max_e;
      o.min_area = b.min_area;
      o.max_components = b.max_components;
      // Filters alone compute what they read; with properties, everything is reported.
      expect_blobs(frame.view, o, images[i].name + " filtered");
      o.properties = kAllProperties;
      expect_blobs(frame.view, o, images[i].name + " filtered, all properties");
    }
}

TEST(DeviceBlobs, LargeComponentsSortedAfterTheFrame) {
  CCL_REQUIRE_DEVICE();
  // Components of kSizeOrderWithoutWait pixels and more, more than max_components
  // passing: the report sorts after a second wait, and gathers the blobs too.
  const test::GrayImage image =
      test::to_gray(test::yacclab_random(1200, 900, 0.55, 32, 5), "large blocks");
  const test::Frame frame = test::make_frame(image, PixelFormat::Gray8);
  Options o = make_options(Algorithm::UnionFind, 8, ThresholdMode::Above);
  o.properties = kAllProperties;
  o.max_components = 3;
  o.max_eccentricity = 0.97;
  expect_blobs(frame.view, o, "large, sorted");
  EXPECT_TRUE(engine().last_report_sorted());
}

TEST(DeviceBlobs, GroupsCarryTheirPiecesBlobs) {
  CCL_REQUIRE_DEVICE();
  const std::vector<test::GrayImage> images = blob_images();
  for (int gap : {0, 3})
    for (size_t i = 0; i < 3; ++i) {
      const test::Frame frame = test::make_frame(images[i], PixelFormat::NV12);
      Options o = make_options(Algorithm::HA, 8, ThresholdMode::Above);
      o.properties = kAllProperties;
      o.group_gap = gap;
      o.min_circularity = 0.05;
      expect_blobs(frame.view, o, images[i].name + " grouped " + std::to_string(gap));
    }
}

}  // namespace
}  // namespace ccl::gpu_test
