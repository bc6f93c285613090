// The two detectors the quality suite compares, fed the same frames, with the settings
// of the users who reported the issue (close radius 2, min area 120 at 640x360):
//  - ours: reference_label with ccl::ForegroundStage (ForegroundModel::Background) and
//    the options of ours_options(), then ccl::Tracker;
//  - the peer: OpenCV's MOG2 with its defaults, the same closing (cv::morphologyEx),
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
enum class Format { RGBx, NV12, I420, Gray8 };
const char* to_string(Format f);

/// One frame as both detectors see it. Ours reads `view` (RGBx; NV12 or I420,
/// limited-range BT.601, each 2x2 block's chroma from the block's mean color; or GRAY8
/// = ccl's BT.601 luma); the peer reads `peer`, the same content as OpenCV takes it: BGR
/// for RGBx, the NV12 or I420 frame converted to BGR by OpenCV (COLOR_YUV2BGR_NV12 /
/// _I420, so both see the same subsampled chroma), the same gray plane for GRAY8.
struct Input {
  ImageView view;
  cv::Mat peer;
  std::vector<uint8_t> plane0, plane1, plane2;  // storage behind view
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
  uint64_t min_area = 120;
};

/// The issue's settings for a width x height frame: close radius 2, and min_area 120 at
/// 640x360 scaled by the frame's area (40 at 320x240). The same scene at a lower
/// resolution shows every object over proportionally fewer pixels, so the floor that
/// keeps the same objects (and drops specks of the same relative size) scales with the
/// area; noise specks that survive the closing are a few pixels whatever the size, far
/// below either floor.
Cleanup issue_cleanup(int width, int height);

/// Our pipeline's options: the background model and the cleanup. Every setting of ours
/// is made here, and only here (the model's own options included), so that a change of
/// the model's settings is one edit.
/// The backend of ours' detector: CCL_QUALITY_BACKEND, "cpu" (the default) or "cuda".
/// With cuda each frame runs on the GPU (ccl::cuda::Engine) and is scored from there,
/// after the CPU stage's frame was computed too and compared with it: mask, table and
/// count. backend_frames() counts those comparisons, backend_mismatches() the frames
/// that differed (0 unless the GPU and the CPU disagree).
std::string ours_backend();
uint64_t backend_frames();
uint64_t backend_mismatches();

Options ours_options(const Cleanup& cleanup);

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
