// The YACCLAB random grid (the anchors table): 1920x1080, 2048x2048, 3840x2160; densities 0
// to 1 by 0.1; granularity 1, 4, 16; two seeds. On every image: both algorithms, both
// connectivities, the three threshold modes; the pixel format (and a row padding)
// rotates from image to image so that the grid crosses every format with every mode.
#include <sstream>

#include "gpu_test_support.h"
#include "test_images.h"

namespace ccl::gpu_test {
namespace {

struct GridCase {
  int width, height, granularity;
  uint32_t seed;
};

std::string case_name(const testing::TestParamInfo<GridCase>& info) {
  const GridCase& c = info.param;
  std::ostringstream s;
  s << c.width << "x" << c.height << "_g" << c.granularity << "_seed" << c.seed;
  return s.str();
}

std::vector<GridCase> grid() {
  std::vector<GridCase> cases;
  for (auto [w, h] : {std::pair{1920, 1080}, std::pair{2048, 2048}, std::pair{3840, 2160}})
    for (int g : {1, 4, 16})
      for (uint32_t seed : {1u, 2u}) cases.push_back({w, h, g, seed});
  return cases;
}

constexpr ThresholdMode kModes[] = {ThresholdMode::Above, ThresholdMode::Below,
                                    ThresholdMode::Otsu};

class RandomGrid : public testing::TestWithParam<GridCase> {};

TEST_P(RandomGrid, MatchesReference) {
  CCL_REQUIRE_DEVICE();
  const GridCase& c = GetParam();
  const auto& formats = test::all_formats();
  // Densities in groups, so that the references of a group are computed in parallel
  // while few 4K label images are held at once.
  constexpr int kDensities = 11, kGroup = 3;
  for (int first = 0; first < kDensities; first += kGroup) {
    const int last = std::min(kDensities, first + kGroup);
    std::vector<test::GrayImage> images;
    for (int d = first; d < last; ++d)
      images.push_back(test::to_gray(
          test::yacclab_random(c.width, c.height, d / 10.0, c.granularity, c.seed),
          "d" + std::to_string(d * 10)));
    // Every format carries the same luma (test_images.h), so the GRAY8 frame's
    // reference serves the others.
    std::vector<test::Frame> gray;
    for (const auto& image : images) gray.push_back(test::make_frame(image, PixelFormat::Gray8));
    std::vector<std::function<Result()>> tasks;
    for (size_t i = 0; i < images.size(); ++i)
      for (int conn : {4, 8})
        for (ThresholdMode mode : kModes) {
          const ImageView view = gray[i].view;
          tasks.push_back([view, conn, mode] {
            return reference(view, make_options(Algorithm::HA, conn, mode));
          });
        }
    const std::vector<Result> refs = in_parallel(tasks);

    for (size_t i = 0; i < images.size(); ++i) {
      const int d = first + int(i);
      const PixelFormat format = formats[(d + c.seed + c.granularity) % formats.size()];
      const size_t padding = d % 3 == 0 ? 0 : size_t(d);  // odd strides too
      const test::Frame frame = test::make_frame(images[i], format, padding);
      const std::string what = images[i].name + " " + to_string(format);
      size_t r = i * 6;
      for (int conn : {4, 8})
        for (ThresholdMode mode : kModes) {
          const Result& want = refs[r++];
          for (Algorithm algorithm : all_algorithms())
            if (!expect_matches(frame.view, make_options(algorithm, conn, mode), want, what))
              return;
          if (c.width == 1920) {  // HA's 32-column variant on the smallest size
            cuda::Tuning narrow;
            narrow.ha_wide_windows = false;
            engine().set_tuning(narrow);
            const bool ok = expect_matches(frame.view, make_options(Algorithm::HA, conn, mode),
                                           want, what + " (32-column windows)");
            engine().set_tuning(cuda::Tuning{});
            if (!ok) return;
          }
        }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Gpu, RandomGrid, testing::ValuesIn(grid()), case_name);

}  // namespace
}  // namespace ccl::gpu_test
