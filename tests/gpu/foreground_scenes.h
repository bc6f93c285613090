// Color video for the foreground stage (issue 26): a static textured background (made
// up, or a real image's luma tinted), textured objects that move, stop, appear and
// vanish, each casting a darker copy of the background of the same color (a shadow),
// per-frame sensor noise and an optional slow change of the light. The GPU foreground
// tests, gpu_fuzz and bench/foreground_bench share it, so that the frames a benchmark
// times are the kind the tests check.
//
// Everything is integer arithmetic on a splitmix64 hash: a spec gives the same bytes
// with every compiler and library, so a printed seed reproduces its frames.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "ccl/types.h"
#include "test_images.h"

namespace ccl::test {

/// Row-major RGB, 3 bytes a pixel, no padding.
struct ColorImage {
  int width = 0;
  int height = 0;
  std::vector<uint8_t> rgb;
};

struct SceneSpec {
  int width = 320;
  int height = 240;
  uint64_t seed = 1;
  int objects = 4;
  /// Each channel of each pixel moves by up to +-noise every frame.
  int noise = 3;
  /// Objects cast shadows: the background beside them darkened to 45..85 % (the same
  /// chromaticity), which the model's shadow test takes as background.
  bool shadows = true;
  /// Brightness change of the whole frame, in 1/256 per frame (0: steady light).
  int drift = 0;
  /// From frame step_at on (-1: never), the light is step/256 higher at once (a lamp
  /// switched on, auto-exposure).
  int step_at = -1;
  int step = 0;
  /// When set, its luma (stretched to the frame) is the background's texture. Must
  /// outlive the Scene.
  const GrayImage* backdrop = nullptr;
};

class Scene {
 public:
  explicit Scene(const SceneSpec& spec);

  const SceneSpec& spec() const { return spec_; }
  int width() const { return spec_.width; }
  int height() const { return spec_.height; }

  /// Frame t (any t >= 0; objects bounce off the edges).
  ColorImage frame(int t) const;
  /// Rows [y0, y1) of frame t into `rgb` (the whole frame's buffer, width*height*3),
  /// so that callers can render a large frame on several threads.
  void render_rows(int t, int y0, int y1, uint8_t* rgb) const;

 private:
  struct Object {
    bool disc;
    int w, h;              // size (a disc: the ellipse inscribed in w x h)
    int x0, y0, vx, vy;    // position at t = 0 and velocity, px per frame
    int stop_at;           // from this frame on the object stands still (-1: never)
    int from, until;       // visible in [from, until)
    uint8_t color[3];
    int pattern, period;   // texture: 0 stripes, 1 checks, 2 rings
    int shade;             // shadow brightness, 1/256
    int shadow_dx, shadow_dy;
  };
  // Where the object's top-left corner is at frame t.
  void position(const Object& o, int t, int* x, int* y) const;
  static bool covers(const Object& o, int ox, int oy, int x, int y);

  SceneSpec spec_;
  std::vector<uint8_t> background_;  // RGB, width*height*3
  std::vector<Object> objects_;
};

/// The frame of `format` that carries `image`: luma by BT.601 (ccl::bt601_luma), chroma
/// of 2x2 blocks for NV12 / I420 (full-range BT.601), GRAY16_LE with dither in its low
/// byte, the RGB formats in their byte order with a varying 4th byte. Each plane's rows
/// are padded by `extra_stride` bytes of poison (test::poison_byte), as make_frame does.
Frame to_frame(const ColorImage& image, PixelFormat format, size_t extra_stride = 0);

/// A region mask (set_region): width*height bytes, row stride `stride` (>= width, the
/// padding filled with garbage), from seed: either mostly allowed with excluded blobs or
/// mostly excluded with allowed blobs; allowed bytes are any non-zero value.
std::vector<uint8_t> blob_region(int width, int height, uint64_t seed, size_t stride);

}  // namespace ccl::test
