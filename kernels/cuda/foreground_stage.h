// The foreground stage on the device: when a frame needs a mask of its own (a model
// other than the global threshold, cleanup or a region: Options::mask_stage()), it is
// written here as one byte per pixel, and the labelers read that mask as a GRAY8 frame
// thresholded at 0, through the same fused test as any frame (foreground.cuh). The
// CPU's ccl::ForegroundStage (kernels/src/foreground.cpp) writes the same bytes.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "../src/background_model.h"
#include "ccl/cuda_memory.h"
#include "ccl/types.h"
#include "foreground.cuh"
#include "geometry.h"
#include "local_threshold.h"

namespace ccl::cuda {

/// Where the light's gain is found on the device (BackgroundOptions::compensate_light):
/// the votes, the count of blocks done, the frame's gain (Q8). The votes and the count
/// are zero between frames: the gain kernel's last block clears them.
struct GainState {
  uint32_t votes[bg::kGainBins];
  uint32_t blocks_done;
  int32_t gain;
};

class ForegroundPass {
 public:
  /// Device memory for frames like `image` under `options` (the model's state, the
  /// mask and the cleanup's scratch), so that enqueue() allocates nothing. True when
  /// memory moved; the model then starts over.
  bool reserve(const ImageView& image, const Options& options);

  /// Throws ccl::Error for a frame of another size than the region, before anything
  /// of the model changes (the frame's planes are validate()'s).
  void check(const ImageView& image) const;

  /// Advances the model to the frame about to be queued and returns its parameters
  /// (part of what makes two frames' launches equal, for graph replay). Frames with
  /// ForegroundModel::Threshold reset the model.
  bg::StepParams begin_frame(const ImageView& image, const Options& options);

  /// Queues the model or the threshold (`threshold` reads the frame), the cleanup and
  /// the region on `stream`, for a frame check() took; returns the test the labelers
  /// apply to the mask.
  Foreground enqueue(const ImageView& image, const Options& options, const Foreground& threshold,
                     const bg::StepParams& params, cudaStream_t stream);

  void reset() { frames_ = 0; }
  /// Uploads the region (0 = never foreground); null clears it.
  void set_region(const uint8_t* region, int width, int height, size_t stride);
  bool has_region() const { return region_width_ > 0; }
  const uint8_t* region() const { return has_region() ? region_.get() : nullptr; }

  /// The mask: 0 or 1 per pixel, rows of pitch(width) bytes (the padding is not written).
  uint8_t* mask() const { return mask_.get(); }
  static size_t pitch(int width);
  /// Poisons the mask and scratch; on a model's first frame its state too (which that
  /// frame must not read).
  void poison(int byte, int width, int height, cudaStream_t stream);

 private:
  DeviceBuffer<uint16_t> state_;
  DeviceBuffer<uint8_t> mask_, scratch_, region_;
  DeviceBuffer<GainState> gain_;  // the light's votes and the frame's gain (Q8)
  LocalThreshold local_;  // ForegroundModel::Local's row sums
  int width_ = 0, height_ = 0;
  PixelFormat format_ = PixelFormat::Gray8;
  int region_width_ = 0, region_height_ = 0;
  uint64_t frames_ = 0;
};

}  // namespace ccl::cuda
