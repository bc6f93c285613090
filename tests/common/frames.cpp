// Frames in every pixel format the element takes (docs/CONTRACT.md, "Input") whose luma is a given gray image, with
// poisoned row padding and chroma/alpha that varies, so that reading the wrong bytes
// changes the result of a test.
#include <array>
#include <cstdlib>
#include <stdexcept>

#include "ccl/luma.h"
#include "test_images.h"

namespace ccl::test {

namespace {

// Bytes that must never be read as image content: alpha, X and chroma.
uint8_t filler(int x, int y, int channel) {
  return uint8_t(x * 37 + y * 101 + channel * 59 + 13);
}

// Row-major plane of `row_bytes` content bytes per row plus poisoned padding.
std::vector<uint8_t> padded_plane(size_t row_bytes, int rows, size_t extra, int bpp,
                                  size_t* stride) {
  *stride = row_bytes + extra;
  std::vector<uint8_t> p(*stride * size_t(rows));
  for (int y = 0; y < rows; ++y)
    for (size_t i = 0; i < extra; ++i) p[size_t(y) * *stride + row_bytes + i] = poison_byte(i, bpp);
  return p;
}

std::array<Rgb, 256> build_rgb_table() {
  std::array<Rgb, 256> table{};
  for (int v = 0; v < 256; ++v) {
    int best_gap = -1;
    for (int r = 0; r < 256; ++r) {
      for (int b = 0; b < 256; ++b) {
        // the smallest g whose luma reaches v; if it overshoots, no g fits
        const int rest = 256 * v - 77 * r - 29 * b - 128;
        const int g = rest <= 0 ? 0 : (rest + 149) / 150;
        if (g > 255 || int(bt601_luma(r, g, b)) != v) continue;
        const int gap = std::abs(int(bt601_luma(b, g, r)) - v);
        if (gap > best_gap) {
          best_gap = gap;
          table[v] = Rgb{uint8_t(r), uint8_t(g), uint8_t(b)};
        }
      }
    }
    if (best_gap < 0) throw std::logic_error("no RGB triple has luma " + std::to_string(v));
  }
  return table;
}

}  // namespace

uint8_t poison_byte(size_t padding_byte, int bytes_per_pixel) {
  return (padding_byte / size_t(bytes_per_pixel)) % 2 == 0 ? 0xFF : 0x00;
}

Rgb rgb_for_luma(uint8_t v) {
  static const std::array<Rgb, 256> table = build_rgb_table();
  return table[v];
}

const std::vector<PixelFormat>& all_formats() {
  static const std::vector<PixelFormat> formats = {
      PixelFormat::Gray8, PixelFormat::Gray16LE, PixelFormat::NV12, PixelFormat::I420,
      PixelFormat::RGBA,  PixelFormat::BGRA,     PixelFormat::RGBx, PixelFormat::BGRx};
  return formats;
}

Frame::Frame(const Frame& other) { *this = other; }

Frame& Frame::operator=(const Frame& other) {
  if (this == &other) return *this;
  view = other.view;
  storage = other.storage;
  for (size_t i = 0; i < 3; ++i) view.planes[i] = i < storage.size() ? storage[i].data() : nullptr;
  return *this;
}

Frame make_frame(const GrayImage& gray, PixelFormat format, size_t extra_stride) {
  const int w = gray.width, h = gray.height;
  if (w < 1 || h < 1 || gray.pixels.size() != size_t(w) * h)
    throw std::invalid_argument("make_frame: malformed gray image " + gray.name);
  Frame f;
  f.view.width = w;
  f.view.height = h;
  f.view.format = format;
  f.view.space = MemorySpace::Host;
  const int bpp = luma_bytes_per_pixel(format);
  auto value = [&](int x, int y) { return gray.pixels[size_t(y) * w + x]; };

  // Luma plane.
  f.storage.push_back(padded_plane(size_t(w) * bpp, h, extra_stride, bpp, &f.view.strides[0]));
  for (int y = 0; y < h; ++y) {
    uint8_t* row = f.storage[0].data() + size_t(y) * f.view.strides[0];
    for (int x = 0; x < w; ++x) {
      const uint8_t v = value(x, y);
      uint8_t* px = row + size_t(x) * bpp;
      switch (format) {
        case PixelFormat::Gray16LE: {
          const uint16_t v16 = uint16_t(v * 257);
          px[0] = uint8_t(v16 & 0xFF);
          px[1] = uint8_t(v16 >> 8);
          break;
        }
        case PixelFormat::RGBA:
        case PixelFormat::RGBx:
        case PixelFormat::BGRA:
        case PixelFormat::BGRx: {
          const Rgb c = rgb_for_luma(v);
          const bool rgb_order = format == PixelFormat::RGBA || format == PixelFormat::RGBx;
          px[0] = rgb_order ? c.r : c.b;
          px[1] = c.g;
          px[2] = rgb_order ? c.b : c.r;
          px[3] = filler(x, y, 3);
          break;
        }
        default:
          px[0] = v;
      }
    }
  }

  // Chroma planes (4:2:0, sizes rounded up).
  const int cw = (w + 1) / 2, ch = (h + 1) / 2;
  if (format == PixelFormat::NV12) {
    f.storage.push_back(padded_plane(size_t(cw) * 2, ch, extra_stride, 2, &f.view.strides[1]));
    for (int y = 0; y < ch; ++y)
      for (int x = 0; x < 2 * cw; ++x)
        f.storage[1][size_t(y) * f.view.strides[1] + x] = filler(x, y, 1);
  } else if (format == PixelFormat::I420) {
    for (int p = 1; p <= 2; ++p) {
      f.storage.push_back(padded_plane(size_t(cw), ch, extra_stride, 1, &f.view.strides[p]));
      for (int y = 0; y < ch; ++y)
        for (int x = 0; x < cw; ++x) f.storage[p][size_t(y) * f.view.strides[p] + x] = filler(x, y, p);
    }
  }
  for (size_t i = 0; i < f.storage.size(); ++i) f.view.planes[i] = f.storage[i].data();
  return f;
}

}  // namespace ccl::test
