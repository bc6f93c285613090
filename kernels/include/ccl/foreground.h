// The foreground stage on the CPU: the model of Options::foreground (a global threshold
// or the per-pixel background model), the region mask and the cleanup (opening, then
// closing), written as a binary mask before labeling. The CUDA engine runs the same
// stage on the device (ccl::cuda::Engine) and writes the same mask bit for bit; how the
// model works is in docs/FOREGROUND.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "ccl/reference.h"
#include "ccl/types.h"

namespace ccl {

/// Channels the background model keeps for a format: 3 for NV12, I420 and the RGB
/// formats (Y, U, V or the three colors), 1 (luma) for the gray ones.
int background_channels(PixelFormat format);

/// Bytes of device or host memory the background model keeps per pixel.
size_t background_state_bytes_per_pixel(PixelFormat format);

/// Erodes (min) or dilates (max) a 0/1 mask in place with a (2r+1) x (2r+1) square;
/// pixels outside the frame are ignored (what cv::erode / cv::dilate do with their
/// default border). `scratch` is resized as needed.
void erode_mask(BinaryImage& mask, int radius, std::vector<uint8_t>& scratch);
void dilate_mask(BinaryImage& mask, int radius, std::vector<uint8_t>& scratch);

/// Opening by open_radius then closing by close_radius (each skipped at 0), then the
/// region (non-zero = may be foreground; null = everywhere) cleared out of the mask.
void clean_mask(BinaryImage& mask, int open_radius, int close_radius, const uint8_t* region,
                std::vector<uint8_t>& scratch);

/// Per stream: holds the background model (reset on a new size or format), the region
/// mask and scratch. Not thread safe.
class ForegroundStage {
 public:
  ForegroundStage();
  ~ForegroundStage();
  ForegroundStage(ForegroundStage&&) noexcept;
  ForegroundStage& operator=(ForegroundStage&&) noexcept;

  /// Writes the frame's foreground (0/1 per pixel) into `mask` as Options says: the
  /// threshold or the background model (whose state advances by one frame), then the
  /// cleanup and the region. Returns the level used (Options::threshold, Otsu's level,
  /// or 0 for the other models). Throws ccl::Error for a host view it cannot read
  /// (validate()), or a region of another size.
  int apply(const ImageView& frame, const Options& options, BinaryImage& mask);

  /// The model forgets everything: the next frame is learned as the background.
  void reset();

  /// Threads apply() splits its rows over: that many (at most one per row), or with 0,
  /// the default, the CPUs this process may run on (CCL_CPU_THREADS when set), fewer for
  /// small frames. The mask does not depend on it.
  void set_threads(int threads);
  int threads() const;

  /// Frames the model has learned since its reset.
  uint64_t frames() const;

  /// The change of light the model followed at the last frame (BackgroundOptions::
  /// compensate_light): 1 when none, 1.35 when the frame was 35 % brighter than the model.
  double light_gain() const;

  /// Pixels where region is 0 are never foreground. width x height bytes, `stride` bytes
  /// per row (0: width), copied; null clears the region.
  void set_region(const uint8_t* region, int width, int height, size_t stride = 0);
  bool has_region() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// The whole CPU pipeline, as the GPU must match it: `stage` writes the mask, which is
/// labeled with label_binary and reported with select_reported. `mask`, if not null,
/// receives the stage's mask.
void reference_label(const ImageView& image, const Options& options, ForegroundStage& stage,
                     Result& out, BinaryImage* mask = nullptr);

}  // namespace ccl
