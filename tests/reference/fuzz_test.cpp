// The CPU reference against OpenCV on random fuzz cases (tests/common/fuzz_frames.h,
// the generator gpu_fuzz uses), at CI scale: sizes up to 512x512. Each case's frame is
// thresholded by the reference (every format, padding and mode); for 'above' and
// 'below' the binary image must be the one the generator drew, and its labels, boxes,
// areas and moments must equal OpenCV's. The run's seed is printed (env CCL_FUZZ_SEED
// sets it, CCL_FUZZ_FRAMES the number of cases); a failure prints the case's line,
// which `gpu_fuzz --case "<line>"` also takes.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <string>

#include "fuzz_frames.h"
#include "opencv_oracle.h"

namespace ccl::test {
namespace {

uint64_t env_or(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::stoull(v) : fallback;
}

TEST(ReferenceFuzz, ReferenceEqualsOpenCVOnRandomCases) {
  const uint64_t seed = env_or(
      "CCL_FUZZ_SEED",
      uint64_t(std::chrono::system_clock::now().time_since_epoch().count()) % 1000000007ull);
  const uint64_t cases = env_or("CCL_FUZZ_FRAMES", 3000);
  std::cout << "reference fuzz: seed " << seed << " (CCL_FUZZ_SEED), " << cases << " cases"
            << std::endl;
  RecordProperty("seed", std::to_string(seed));

  FuzzLimits limits;
  limits.max_side = 512;
  limits.max_pixels = 512 * 512;
  limits.tracking = false;
  int failures = 0;
  for (uint64_t i = 0; i < cases && failures < 10; ++i) {
    const FuzzCase c = random_fuzz_case(seed * 1000003ull + i, limits);
    const std::string line = to_line(c);

    // The line gives the case back.
    FuzzCase again;
    std::string why;
    ASSERT_TRUE(parse_fuzz_case(line, &again, &why)) << line << ": " << why;
    ASSERT_EQ(to_line(again), line);

    BinaryImage expected, binary;
    const GrayImage gray = fuzz_gray(c, 0, &expected);
    const Frame frame = make_frame(gray, c.format, size_t(c.padding));
    threshold_image(frame.view, fuzz_options(c), binary);
    if (c.mode != ThresholdMode::Otsu && binary.pixels != expected.pixels) {
      ADD_FAILURE() << "thresholding differs from the generator's content: " << line;
      ++failures;
      continue;
    }
    const ::testing::AssertionResult same = matches_opencv(binary, c.connectivity);
    if (!same) {
      ADD_FAILURE() << line << "\n" << same.message();
      ++failures;
    }
  }
  std::cout << "reference fuzz: seed " << seed << ", " << failures << " failing cases" << std::endl;
}

}  // namespace
}  // namespace ccl::test
