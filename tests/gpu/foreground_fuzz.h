// Random foreground sequences for gpu_fuzz (and a few fixed seeds in the GPU suite): one
// seed gives a frame size, pixel format, row padding, algorithm, connectivity, the
// model's settings (or a global or a local threshold), cleanup radii, a region that may be cleared
// on the way, a reset of the model, area limits, and the scene (foreground_scenes.h).
// As with fuzz_frames.h, a case prints as one line that parse_foreground_case reads
// back into the same case, whatever the generator's weights become later.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ccl/reference.h"
#include "ccl/types.h"
#include "foreground_scenes.h"
#include "test_images.h"

namespace ccl::test {

struct ForegroundFuzzCase {
  uint64_t seed = 0;
  int width = 1, height = 1;
  PixelFormat format = PixelFormat::Gray8;
  int padding = 0;  // extra bytes per row of every plane
  Algorithm algorithm = Algorithm::HA;
  int connectivity = 8;
  int frames = 2;
  bool write_labels = true;
  ForegroundModel model = ForegroundModel::Background;
  ThresholdMode mode = ThresholdMode::Above;  // the threshold model's
  int level = 128;
  int block_size = 31;      // ForegroundModel::Local's window
  int offset_tenths = 100;  // and its offset, in tenths
  int history = 500;
  int rate_ppm = -1;  // learning rate in millionths; -1: from history
  int variance_threshold = 16;
  bool shadows = true;
  bool compensate = true;  // BackgroundOptions::compensate_light
  ColorOptions color;  // ForegroundModel::Color's bounds (hsv_low=, hsv_high= in the line)
  int open_radius = 0, close_radius = 0;
  uint64_t region = 0;    // blob_region's seed; 0: no region
  int region_clear = -1;  // the region is cleared before this frame (-1: never)
  int reset = -1;         // the model is reset before this frame (-1: never)
  uint64_t min_area = 0, max_area = 0;
  uint32_t max_components = UINT32_MAX;
  int group_gap = -1;  // Options::group_gap
  // The scene.
  int objects = 4, noise = 3, drift = 0;
  int step_at = -1, step = 0;  // a jump of the light (SceneSpec)
  bool scene_shadows = true;
};

/// The case of `seed`; sides at most max_side.
ForegroundFuzzCase random_foreground_case(uint64_t seed, int max_side = 4096);

/// One line starting with "foreground", then key=value for every field.
std::string to_line(const ForegroundFuzzCase& c);
/// True when `line` is a foreground case's (to_line of ForegroundFuzzCase).
bool is_foreground_line(const std::string& line);
/// Reads to_line's text back; false with the reason on malformed text.
bool parse_foreground_case(const std::string& line, ForegroundFuzzCase* out, std::string* why);

Options foreground_options(const ForegroundFuzzCase& c);
SceneSpec foreground_scene(const ForegroundFuzzCase& c);
/// Frame t of the case's scene in its format and padding.
Frame foreground_frame(const Scene& scene, const ForegroundFuzzCase& c, int t);
/// The case's region (empty without one) and its row stride.
std::vector<uint8_t> foreground_region(const ForegroundFuzzCase& c, size_t* stride);

/// Empty when the GPU's mask (Engine::copy_mask) equals the CPU's; otherwise the first
/// pixel that differs and how many do.
std::string mask_difference(const std::vector<uint8_t>& gpu, const BinaryImage& cpu);

}  // namespace ccl::test
