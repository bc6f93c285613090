// Random fuzz cases for the labelers: one seed gives a frame size, pixel format, row
// padding, threshold, algorithm, connectivity, tracking on or off and content chosen to
// stress labelers (noise of every density and granularity, checkerboards, rings,
// spirals, snakes crossing strip and tile borders, all foreground, all background).
//
// A case prints as one line (to_line) holding every parameter, and parse_fuzz_case
// reads that line back into the same case, so a failure reproduces from the line alone
// whatever the generator's weights become later.
#pragma once

#include <cstdint>
#include <functional>
#include <istream>
#include <string>

#include "ccl/reference.h"
#include "ccl/types.h"
#include "test_images.h"

namespace ccl::test {

enum class FuzzContent {
  Noise,          // yacclab_random(density, granularity)
  Checkerboard,   // cells of `thickness` px; 1 px gives the most labels
  Rings,          // concentric rings around (cx, cy): width `thickness`, gaps `gap`
  Spiral,         // square spiral around (cx, cy): arm `thickness`, gaps `gap`
  Snake,          // serpentine of `thickness`, rows (or columns if vertical) `gap` apart
  AllForeground,
  AllBackground,
};

struct FuzzCase {
  uint64_t seed = 0;  // the case's seed: noise and gray values follow from it
  int width = 1, height = 1;
  PixelFormat format = PixelFormat::Gray8;
  int padding = 0;  // extra bytes per row (test::make_frame's extra_stride)
  ThresholdMode mode = ThresholdMode::Above;
  int level = 128;
  Algorithm algorithm = Algorithm::HA;
  int connectivity = 8;
  int frames = 0;  // 0: tracking off; otherwise a sequence of this many frames
  int shift_x = 0, shift_y = 0;  // per frame of the sequence (content wraps around)
  FuzzContent content = FuzzContent::Noise;
  int density_ppm = 500000;  // noise density, parts per million
  int granularity = 1;
  int thickness = 1;
  int gap = 1;
  int cx = 0, cy = 0;
  bool vertical = false;
  int sprinkle_ppm = 0;  // pixels flipped at random over the content, parts per million
};

struct FuzzLimits {
  int max_side = 4096;         // width and height at most this
  int64_t max_pixels = 4096 * 4096;
  bool tracking = true;        // whether cases may have frames > 0
};

/// The case of `seed` (deterministic: same seed and limits, same case).
FuzzCase random_fuzz_case(uint64_t seed, const FuzzLimits& limits = {});

/// One line, "seed=... size=WxH format=... ..." with every field.
std::string to_line(const FuzzCase& c);

/// Reads a to_line() line back; false with the reason in *why on malformed text.
/// Missing keys keep FuzzCase's defaults.
bool parse_fuzz_case(const std::string& line, FuzzCase* out, std::string* why);

const char* to_string(FuzzContent c);

/// What a case line's reader made of one key=value word.
enum class FieldRead { Ok, BadValue, UnknownKey };

/// The word loop of the case lines (parse_fuzz_case, and gpu/foreground_fuzz.h's):
/// every word left in `words` must be key=value and goes to `read`. False with the
/// reason in *why (when given) at the first word that is not key=value, has a key
/// `read` does not know, or a value it rejects or throws std::exception on.
bool read_key_values(std::istream& words,
                     const std::function<FieldRead(const std::string& key,
                                                   const std::string& value)>& read,
                     std::string* why);

/// Two ints with `sep` between ("640x480", "-3,2"); false when malformed.
bool parse_int_pair(const std::string& value, char sep, int* a, int* b);

/// A pixel format by its name (ccl::to_string), among all_formats().
bool parse_format(const std::string& value, PixelFormat* format);

/// The Options of a case: every component reported (a tracked sequence: the 1024
/// largest, as the element reports by default), labels written.
Options fuzz_options(const FuzzCase& c);

/// Number of frames a case labels: max(1, frames).
int fuzz_frame_count(const FuzzCase& c);

/// The binary content of frame `t` (0 .. fuzz_frame_count - 1): the base content moved
/// by t * shift, wrapping around, then sprinkled.
BinaryImage fuzz_content(const FuzzCase& c, int t);

/// Gray image of frame `t`: foreground pixels of the content get values that the
/// case's threshold takes as foreground (values at and next to the level included),
/// background pixels values it takes as background. Where the level makes one side
/// impossible (above 255, below 255) every pixel falls on the other side; *expected
/// (optional) receives the binary image thresholding must give (not for Otsu).
GrayImage fuzz_gray(const FuzzCase& c, int t, BinaryImage* expected = nullptr);

/// fuzz_gray as a frame of the case's format and padding.
Frame fuzz_frame(const FuzzCase& c, int t);

}  // namespace ccl::test
