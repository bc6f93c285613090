// Awkward shapes and sizes, and real images: every algorithm x connectivity (test
// parameters) x threshold mode x pixel format, with and without row padding.
#include <map>
#include <mutex>
#include <sstream>
#include <tuple>

#include "gpu_test_support.h"
#include "test_images.h"

namespace ccl::gpu_test {
namespace {

using Variant = std::tuple<Algorithm, int>;

std::string variant_name(const testing::TestParamInfo<Variant>& info) {
  const auto [algorithm, conn] = info.param;
  return test_name(algorithm) + "_" + std::to_string(conn);
}

constexpr ThresholdMode kModes[] = {ThresholdMode::Above, ThresholdMode::Below,
                                    ThresholdMode::Otsu};

/// References of one image under every connectivity and mode, computed on first use
/// and shared by the tests of both algorithms.
const Result& cached_reference(const test::GrayImage& image, int conn, ThresholdMode mode,
                               const std::string& set) {
  static std::mutex mutex;
  static std::map<std::string, std::vector<Result>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  const std::string key = set + "/" + image.name;
  auto it = cache.find(key);
  if (it == cache.end()) {
    const test::Frame gray = test::make_frame(image, PixelFormat::Gray8);
    std::vector<std::function<Result()>> tasks;
    for (int c : {4, 8})
      for (ThresholdMode m : kModes)
        tasks.push_back([&gray, c, m] { return reference(gray.view, make_options(Algorithm::HA, c, m)); });
    it = cache.emplace(key, in_parallel(tasks)).first;
  }
  int index = (conn == 4 ? 0 : 3);
  for (ThresholdMode m : kModes) {
    if (m == mode) break;
    ++index;
  }
  return it->second[size_t(index)];
}

/// One image: every mode x format, padded rows for every other format.
void check_image(const test::GrayImage& image, Algorithm algorithm, int conn,
                 const std::string& set) {
  const auto& formats = test::all_formats();
  for (ThresholdMode mode : kModes) {
    const Result& want = cached_reference(image, conn, mode, set);
    for (size_t f = 0; f < formats.size(); ++f) {
      const test::Frame frame = test::make_frame(image, formats[f], f % 2 ? 5 : 0);
      if (!expect_matches(frame.view, make_options(algorithm, conn, mode), want,
                          set + " " + image.name + " " + to_string(formats[f])))
        return;
    }
    if (algorithm == Algorithm::HA) {
      cuda::Tuning narrow;
      narrow.ha_wide_windows = false;
      engine().set_tuning(narrow);
      const test::Frame frame = test::make_frame(image, PixelFormat::Gray8);
      const bool ok = expect_matches(frame.view, make_options(algorithm, conn, mode), want,
                                     set + " " + image.name + " (32-column windows)");
      engine().set_tuning(cuda::Tuning{});
      if (!ok) return;
    }
  }
}

class AwkwardImages : public testing::TestWithParam<Variant> {};

TEST_P(AwkwardImages, MatchReference) {
  CCL_REQUIRE_DEVICE();
  const auto [algorithm, conn] = GetParam();
  for (const auto& image : test::awkward_images()) check_image(image, algorithm, conn, "awkward");
}

class RealImages : public testing::TestWithParam<Variant> {};

TEST_P(RealImages, MatchReference) {
  CCL_REQUIRE_DEVICE();
  std::string why;
  const auto images = test::real_images(&why);
  if (images.empty()) GTEST_SKIP() << "no real images: " << why;
  const auto [algorithm, conn] = GetParam();
  for (const auto& image : images) check_image(image, algorithm, conn, "real");
}

const auto kVariants = testing::Combine(testing::ValuesIn(all_algorithms()),
                                        testing::Values(4, 8));
INSTANTIATE_TEST_SUITE_P(Gpu, AwkwardImages, kVariants, variant_name);
INSTANTIATE_TEST_SUITE_P(Gpu, RealImages, kVariants, variant_name);

}  // namespace
}  // namespace ccl::gpu_test
