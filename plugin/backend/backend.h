// The backends behind cclbackend.h. A frame goes through label(), then the element's
// selection of reported components, then draw() when the overlay changes pixels.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "backend/selection.h"
#include "ccl/types.h"

namespace ccl::plugin {

class Backend {
 public:
  virtual ~Backend() = default;
  virtual const char* name() const = 0;

  /// Sizes scratch memory for frames of this format and size (every caps change).
  virtual void configure(PixelFormat format, int width, int height) = 0;

  /// Labels the frame (threshold, labels, features, the options' selection of reported
  /// components) into out's count and level, and returns the reported components,
  /// valid until the next label(); out.components and out.labels may stay empty. The
  /// frame is in host memory, or for the CUDA backend possibly in device memory of the
  /// current context (frame.space), where it is read in place.
  /// keep_labels: draw() follows and needs the label image; with_planes: it also
  /// needs every plane of the frame (the CUDA backend uploads those of host frames).
  virtual TableView label(const ImageView& frame, const Options& options, bool keep_labels,
                          bool with_planes, Result& out) = 0;

  /// The foreground model forgets what it learned (ccl::ForegroundStage::reset,
  /// Engine::reset_foreground).
  virtual void reset_foreground() = 0;

  /// Pixels where `region` (width x height bytes, packed rows) is 0 are never
  /// foreground; null clears it.
  virtual void set_region(const uint8_t* region, int width, int height) = 0;

  /// Draws the overlay of the last labeled frame into `frame` (the same frame).
  /// Writes a host frame's memory only once everything else succeeded; a device
  /// frame is drawn in place and complete when this returns.
  virtual void draw(const ImageView& frame, const Selection& selection, uint32_t flags,
                    uint32_t alpha256) = 0;

  /// Writes the last labeled frame's label image, through id_of (label -> id, 0 for
  /// labels not reported), into `mask`: the width x height rectangle of the frame at
  /// (x, y), bytes_per_pixel 1 or 2 (native endian), rows `stride` bytes apart.
  /// frame_width: the labeled frame's width, the label image's row pitch (the caller
  /// has checked that the rectangle lies inside the frame). The label image must have
  /// been kept (label()'s keep_labels).
  virtual void write_mask(const std::vector<uint32_t>& id_of, int frame_width, int x, int y,
                          int width, int height, int bytes_per_pixel, uint8_t* mask,
                          size_t stride) = 0;

  /// GPU time of the last frame (label and draw) in nanoseconds, or -1 when the
  /// backend does not run on a GPU.
  virtual int64_t gpu_time_ns() const { return -1; }
};

std::unique_ptr<Backend> make_cpu_backend();

/// Throws ccl::Error when the device cannot be used (or CUDA is not compiled in).
std::unique_ptr<Backend> make_cuda_backend(int device_id);

}  // namespace ccl::plugin
