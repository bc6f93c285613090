// OpenCV as the independent oracle of the CPU reference labeler (docs/CONTRACT.md, "Output": the label
// numbering of connectedComponentsWithStats with CCL_WU, the SAUF algorithm under its name in every OpenCV 4 release).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "ccl/reference.h"
#include "test_images.h"

namespace ccl::test {

/// Labels `binary` with ccl::label_binary and with OpenCV (CCL_WU) and compares:
/// component count, label image pixel for pixel, bounding boxes and areas against
/// OpenCV's stats, first and second moments against sums taken over OpenCV's label
/// image, centroids against OpenCV's. Describes the first difference on failure.
::testing::AssertionResult matches_opencv(const BinaryImage& binary, int connectivity);

/// Binary image of a gray image: foreground where value > level (threshold 'above').
BinaryImage binarize_above(const GrayImage& gray, int level);

/// gtest-friendly parameter names: anything but [A-Za-z0-9_] becomes '_'.
std::string sanitize_name(const std::string& s);

}  // namespace ccl::test
