// The two detectors the quality suite compares, fed the same frames:
//  - ours: ccl::ForegroundStage (ForegroundModel::Background) with a 5x5 closing,
//    label_binary (8-connected), select_reported (min_area), ccl::Tracker;
//  - the peer: OpenCV's MOG2 with its defaults, the same 5x5 closing (cv::morphologyEx),
//    connectedComponentsWithStats (8-connected), the same min_area; its components go
//    through the same ccl::Tracker so that the id columns compare like with like.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/video/background_segm.hpp>

#include "ccl/foreground.h"
#include "ccl/tracker.h"
#include "ccl/types.h"

namespace ccl::quality {

/// The pixel formats a sequence is run in.
enum class Format { RGBx, NV12, Gray8 };
const char* to_string(Format f);

/// One frame as both detectors see it. Ours reads `view` (RGBx, NV12 limited-range
/// BT.601 with 2x2 chroma, or GRAY8 = ccl's BT.601 luma); the peer reads `peer`, the
/// same content as OpenCV takes it: BGR for RGBx, the NV12 frame converted to BGR by
/// OpenCV (so both see the same subsampled chroma), the same gray plane for GRAY8.
struct Input {
  ImageView view;
  cv::Mat peer;
  std::vector<uint8_t> plane0, plane1;  // storage behind view
};
void convert(const cv::Mat& rgb, Format format, Input& out);

struct Detection {
  int x = 0, y = 0, width = 0, height = 0;
  uint64_t area = 0;
  uint64_t track = 0;
};

/// Settings both detectors share.
struct Cleanup {
  int close_radius = 2;  // (2r+1)^2 square: 5x5
  uint64_t min_area = 30;
};

class Detector {
 public:
  virtual ~Detector() = default;
  /// Advances by one frame: the reported components (with track ids) and the cleaned
  /// foreground mask (0/1), before the area selection.
  virtual void process(const Input& in, std::vector<Detection>& out, BinaryImage& mask) = 0;
};

std::unique_ptr<Detector> make_ours(const Cleanup& cleanup);
std::unique_ptr<Detector> make_mog2(const Cleanup& cleanup);

}  // namespace ccl::quality
