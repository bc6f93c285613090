// The test-image library every test (and bench/) shares: YACCLAB random images,
// awkward shapes, real images from Debian packages, and frames in every pixel format.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ccl/reference.h"
#include "ccl/types.h"

namespace ccl::test {

/// An 8-bit gray image (row-major, no padding) with a name for test output.
struct GrayImage {
  std::string name;
  int width = 0;
  int height = 0;
  std::vector<uint8_t> pixels;
};

/// The YACCLAB granularity recipe of the anchors table: std::mt19937(seed); g x g blocks in
/// row-major block order (last row/column cropped); a block is foreground iff the next
/// raw 32-bit gen() output is below llround(density * 2^32). Pixels are 0 or 1.
BinaryImage yacclab_random(int width, int height, double density, int granularity,
                           uint32_t seed);

/// Binary image as gray: foreground 255, background 0 (threshold 128 'above' gives it back).
GrayImage to_gray(const BinaryImage& binary, const std::string& name);

/// 1x1, 1xN, Nx1, widths 31/32/33/63/64/65/1001, all foreground, all background,
/// checkerboards of 1 and 2 px, spirals, nested rings, a single diagonal line...
std::vector<GrayImage> awkward_images();

/// Real gray images (CCITT fax pages from jbigkit-testdata decoded with jbgtopbm,
/// python3-skimage's data images), fetched with apt-get download + dpkg-deb -x into
/// a cache (env CCL_TESTDATA_DIR, default <build>/testdata) without installing them.
/// Returns an empty vector and sets *why when they cannot be had.
std::vector<GrayImage> real_images(std::string* why);

/// A frame of `format` whose luma equals `gray` (exactly for GRAY/YUV; for RGB the
/// channels are chosen so BT.601 luma gives the gray value back), each plane's rows
/// padded by `extra_stride` bytes of poison. GRAY16_LE uses value * 257.
struct Frame {
  ImageView view;  // host memory, planes point into storage
  std::vector<std::vector<uint8_t>> storage;

  Frame() = default;
  // Copies re-point the view's planes at their own storage.
  Frame(const Frame& other);
  Frame& operator=(const Frame& other);
  Frame(Frame&&) = default;
  Frame& operator=(Frame&&) = default;
};
Frame make_frame(const GrayImage& gray, PixelFormat format, size_t extra_stride = 0);

/// All formats the element takes (docs/CONTRACT.md, "Input").
const std::vector<PixelFormat>& all_formats();

/// Bytes of each poisoned padding pixel make_frame writes: pixel i of the padding is
/// all 0xFF when i is even and all 0x00 when odd, so reading padding as image data
/// changes the foreground whatever the threshold mode.
uint8_t poison_byte(size_t padding_byte, int bytes_per_pixel);

/// The (r, g, b) make_frame writes for gray value v: bt601_luma(r, g, b) == v, and
/// among such triples one whose luma with r and b swapped is as far from v as
/// possible, so that reading BGR as RGB (or the reverse) shows in a test.
struct Rgb {
  uint8_t r = 0, g = 0, b = 0;
};
Rgb rgb_for_luma(uint8_t v);

/// Directory of the real-image cache: CCL_TESTDATA_DIR, else <build>/testdata (also
/// found when the build folder was copied to another path, e.g. a GPU machine).
std::string testdata_dir();

}  // namespace ccl::test
