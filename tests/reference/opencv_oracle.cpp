#include "opencv_oracle.h"

#include <cctype>
#include <cmath>
#include <vector>

#include <opencv2/imgproc.hpp>

namespace ccl::test {

namespace {

// Raw moments summed over OpenCV's label image, independently of ccl::component_table.
struct Sums {
  uint64_t area = 0, sx = 0, sy = 0, sxx = 0, sxy = 0, syy = 0;
};

std::vector<Sums> sums_of(const cv::Mat& labels, int n) {
  std::vector<Sums> sums(size_t(n) + 1);
  for (int y = 0; y < labels.rows; ++y) {
    const int32_t* row = labels.ptr<int32_t>(y);
    for (int x = 0; x < labels.cols; ++x) {
      Sums& s = sums[size_t(row[x])];
      const uint64_t ux = uint64_t(x), uy = uint64_t(y);
      s.area += 1;
      s.sx += ux;
      s.sy += uy;
      s.sxx += ux * ux;
      s.sxy += ux * uy;
      s.syy += uy * uy;
    }
  }
  return sums;
}

bool close(double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(b)); }

}  // namespace

::testing::AssertionResult matches_opencv(const BinaryImage& binary, int connectivity) {
  const int w = binary.width, h = binary.height;
  Result ours;
  label_binary(binary, connectivity, ours);

  // OpenCV reads the buffer in place: no copy of what it labels.
  const cv::Mat image(h, w, CV_8UC1, const_cast<uint8_t*>(binary.pixels.data()));
  cv::Mat labels, stats, centroids;
  const int n = cv::connectedComponentsWithStats(image, labels, stats, centroids, connectivity,
                                                 CV_32S, cv::CCL_WU) - 1;

  if (ours.num_components != uint32_t(n) || ours.components.size() != size_t(n))
    return ::testing::AssertionFailure() << "component count " << ours.num_components
                                         << " (table " << ours.components.size()
                                         << "), OpenCV " << n;
  if (ours.width != w || ours.height != h || ours.labels.size() != size_t(w) * h)
    return ::testing::AssertionFailure() << "result size " << ours.width << "x" << ours.height
                                         << " with " << ours.labels.size() << " labels";

  for (int y = 0; y < h; ++y) {
    const int32_t* row = labels.ptr<int32_t>(y);
    for (int x = 0; x < w; ++x) {
      const uint32_t l = ours.labels[size_t(y) * w + x];
      if (l != uint32_t(row[x]))
        return ::testing::AssertionFailure() << "label at (" << x << "," << y << ") is " << l
                                             << ", OpenCV " << row[x];
    }
  }

  const std::vector<Sums> sums = sums_of(labels, n);
  for (int i = 1; i <= n; ++i) {
    const Component& c = ours.components[size_t(i) - 1];
    const Sums& s = sums[size_t(i)];
    auto fail = [&]() {
      return ::testing::AssertionFailure() << "component " << i << ": ";
    };
    if (c.label != uint32_t(i)) return fail() << "label field " << c.label;
    if (c.x != stats.at<int>(i, cv::CC_STAT_LEFT) || c.y != stats.at<int>(i, cv::CC_STAT_TOP) ||
        c.width != stats.at<int>(i, cv::CC_STAT_WIDTH) ||
        c.height != stats.at<int>(i, cv::CC_STAT_HEIGHT))
      return fail() << "box " << c.x << "," << c.y << " " << c.width << "x" << c.height
                    << ", OpenCV " << stats.at<int>(i, cv::CC_STAT_LEFT) << ","
                    << stats.at<int>(i, cv::CC_STAT_TOP) << " "
                    << stats.at<int>(i, cv::CC_STAT_WIDTH) << "x"
                    << stats.at<int>(i, cv::CC_STAT_HEIGHT);
    if (c.area != uint64_t(stats.at<int>(i, cv::CC_STAT_AREA)) || c.area != s.area)
      return fail() << "area " << c.area << ", OpenCV " << stats.at<int>(i, cv::CC_STAT_AREA);
    if (c.sum_x != s.sx || c.sum_y != s.sy || c.sum_xx != s.sxx || c.sum_xy != s.sxy ||
        c.sum_yy != s.syy)
      return fail() << "moments (" << c.sum_x << "," << c.sum_y << "," << c.sum_xx << ","
                    << c.sum_xy << "," << c.sum_yy << "), from OpenCV's labels (" << s.sx << ","
                    << s.sy << "," << s.sxx << "," << s.sxy << "," << s.syy << ")";
    if (!close(c.centroid_x(), centroids.at<double>(i, 0)) ||
        !close(c.centroid_y(), centroids.at<double>(i, 1)))
      return fail() << "centroid " << c.centroid_x() << "," << c.centroid_y() << ", OpenCV "
                    << centroids.at<double>(i, 0) << "," << centroids.at<double>(i, 1);
  }
  return ::testing::AssertionSuccess();
}

BinaryImage binarize_above(const GrayImage& gray, int level) {
  BinaryImage b;
  b.width = gray.width;
  b.height = gray.height;
  b.pixels.resize(gray.pixels.size());
  for (size_t i = 0; i < gray.pixels.size(); ++i) b.pixels[i] = gray.pixels[i] > level ? 1 : 0;
  return b;
}

std::string sanitize_name(const std::string& s) {
  std::string out = s;
  for (char& c : out)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
  return out;
}

}  // namespace ccl::test
