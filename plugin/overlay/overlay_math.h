// What the overlay draws, pixel by pixel: one definition for the host drawer (CPU
// backend) and the CUDA kernels (CUDA backend), in integer arithmetic so that both
// write the same bytes.
//
// A pixel is covered by at most one paint: a solid mark (box outline, centroid
// cross, trail or event shape) of the highest owner value whose mark touches it (a
// direct color, kDirectColor, beats every label), else the fill of its
// own component when that component is reported, else the foreground tint when it
// is foreground at all (labeled, reported or not), else nothing. A label's color
// comes from its color key (the track id when tracking, else the label), so that an
// object keeps its color from frame to frame; the foreground tint has one color of
// its own. A subsampled chroma sample takes the strongest paint of the luma pixels
// it covers (solid over fill over tint, ties to the first in raster order).
#pragma once

#include <cstddef>
#include <cstdint>

#include "ccl/luma.h"
#include "ccl/types.h"

namespace ccl::overlay {

/// Overlay flags, the values of the element's GstCudaCclOverlay flags.
enum Flags : uint32_t {
  kFill = 1u << 0,
  kBoxes = 1u << 1,
  kCentroids = 1u << 2,
  kTrails = 1u << 3,
  kForeground = 1u << 4,
  kEvents = 1u << 5,  ///< counting lines and zones with their counts (events_overlay.h)
};

/// The flags drawn as solid marks into the owner buffer.
constexpr uint32_t kSolidFlags = kBoxes | kCentroids | kTrails | kEvents;

/// Direct colors: an owner value (a Mark's or a Segment's label) with this bit set is
/// a solid paint of its own color, the low 24 bits 0xRRGGBB, not a component's.
/// Labels are always below 2^31, so the two never collide, and a direct color beats
/// every label in the highest-wins rule. Bits 24..30 are a layer (0..127) that orders
/// direct colors among themselves: the higher layer wins, then the higher color.
constexpr uint32_t kDirectColor = 0x80000000u;
constexpr uint32_t kDirectLayers = 128;

/// The owner value of color 0xRRGGBB drawn on `layer` (0..127, higher wins).
CCL_HD constexpr uint32_t direct_color(uint32_t rgb, uint32_t layer) {
  return kDirectColor | ((layer & (kDirectLayers - 1u)) << 24) | (rgb & 0xFFFFFFu);
}
CCL_HD constexpr bool is_direct_color(uint32_t owner) { return (owner & kDirectColor) != 0; }

/// Arm length of the centroid cross, in pixels.
constexpr int kCrossArm = 2;

/// One reported component as the marks need it.
struct Mark {
  uint32_t label;
  int32_t x, y, width, height;  // bounding box
  int32_t cx, cy;               // centroid rounded to a pixel
};

/// A straight run of pixels from (x0, y0) to (x1, y1), both ends included: one step
/// of a track's trail, drawn for the component `label` (whose color key colors it), or
/// a piece of an event shape (events_overlay.h), whose label is a direct color.
struct Segment {
  uint32_t label;
  int32_t x0, y0, x1, y1;
};

/// A frame's planes, in host or device memory.
struct Target {
  PixelFormat format;
  int width, height;
  uint8_t* planes[3];
  size_t strides[3];
};

/// What decides the paint of each pixel (pointers into the same memory space as the
/// target). labels: width*height, row pitch = width; color_key[l] is label l's color key
/// (1..n_labels), 0 when l is not reported; owner: width*height marks, 0 = none (null:
/// no marks). tints: which of kFill and kForeground the labels are read for (labels
/// may be null when neither).
struct Scene {
  const uint32_t* labels;
  const uint32_t* color_key;
  uint32_t n_labels;
  const uint32_t* owner;
  uint32_t alpha256;  // fill and tint opacity, 0..256
  uint32_t tints;
};

/// Ordered by strength: a chroma sample takes the strongest paint of its block.
enum PaintKind : uint32_t { kNone = 0, kTinted = 1, kFilled = 2, kSolid = 3 };

/// The foreground tint's color: a channel at 0 is one no color key gives (their
/// channels are at least 64), so the tint is never mistaken for an object's fill.
constexpr uint32_t kTintR = 255, kTintG = 0, kTintB = 255;

struct Paint {
  uint32_t kind;
  uint32_t label;
};

struct Rgb {
  uint32_t r, g, b;
};

/// A bright, stable color per color key (an integer hash, so frames agree).
CCL_HD Rgb key_color(uint32_t key) {
  uint32_t h = key * 0x9E3779B1u;
  h ^= h >> 15;
  h *= 0x85EBCA77u;
  h ^= h >> 13;
  // 64..254 per channel: never near black, so marks show on dark frames.
  return {64u + (((h >> 0) & 0xFFu) * 191u >> 8), 64u + (((h >> 8) & 0xFFu) * 191u >> 8),
          64u + (((h >> 16) & 0xFFu) * 191u >> 8)};
}

/// The color key of a track: its id folded to 32 bits, never 0 (0 means unreported).
CCL_HD uint32_t track_color_key(uint64_t track_id) {
  const uint32_t k = uint32_t(track_id ^ (track_id >> 32));
  return k ? k : 1u;
}

/// Studio-range BT.601 in integers (the usual 8-bit approximation). The +32768
/// keeps the chroma sums non-negative so that the shift is a plain division.
CCL_HD uint32_t yuv_y(Rgb c) { return ((66u * c.r + 129u * c.g + 25u * c.b + 128u) >> 8) + 16u; }
CCL_HD uint32_t yuv_u(Rgb c) {
  return ((112u * c.b + 128u + 32768u - 38u * c.r - 74u * c.g) >> 8);
}
CCL_HD uint32_t yuv_v(Rgb c) {
  return ((112u * c.r + 128u + 32768u - 94u * c.g - 18u * c.b) >> 8);
}

/// (color * a + value * (256 - a) + 128) / 256, a in 0..256.
CCL_HD uint32_t blend(uint32_t value, uint32_t color, uint32_t a) {
  return (color * a + value * (256u - a) + 128u) >> 8;
}

/// Centroid rounded half up to a pixel, from the integer sums.
CCL_HD int32_t centroid_pixel(uint64_t sum, uint64_t area) {
  return area ? int32_t((2 * sum + area) / (2 * area)) : 0;
}

/// Pixels of the marks of one component: the box outline then the centroid cross.
CCL_HD uint32_t box_pixel_count(const Mark& m) {
  const uint32_t w = uint32_t(m.width), h = uint32_t(m.height);
  if (w == 0 || h == 0) return 0;
  return w * (h > 1 ? 2u : 1u) + (h > 2 ? h - 2 : 0u) * (w > 1 ? 2u : 1u);
}
constexpr uint32_t kCrossPixels = 4 * kCrossArm + 1;

CCL_HD uint32_t mark_pixel_count(const Mark& m, uint32_t flags) {
  return ((flags & kBoxes) ? box_pixel_count(m) : 0u) +
         ((flags & kCentroids) ? kCrossPixels : 0u);
}

/// The i-th mark pixel of m; false when it falls outside the frame.
CCL_HD bool mark_pixel(const Mark& m, uint32_t flags, uint32_t i, int width, int height,
                       int* px, int* py) {
  int x, y;
  const uint32_t box = (flags & kBoxes) ? box_pixel_count(m) : 0u;
  if (i < box) {
    const uint32_t w = uint32_t(m.width), h = uint32_t(m.height);
    const uint32_t rows = h > 1 ? 2u : 1u;
    if (i < w * rows) {  // top row, then bottom row
      x = m.x + int(i % w);
      y = i < w ? m.y : m.y + int(h) - 1;
    } else {  // left column, then right column, corners excluded
      const uint32_t j = i - w * rows, side = h - 2;
      x = j < side ? m.x : m.x + int(w) - 1;
      y = m.y + 1 + int(j % side);
    }
  } else {
    const int j = int(i - box);  // 0 centre, then arms: left, right, up, down
    const int arm = j == 0 ? 0 : (j - 1) / kCrossArm, step = j == 0 ? 0 : (j - 1) % kCrossArm + 1;
    x = m.cx + (arm == 0 ? -step : arm == 1 ? step : 0);
    y = m.cy + (arm == 2 ? -step : arm == 3 ? step : 0);
  }
  *px = x;
  *py = y;
  return x >= 0 && y >= 0 && x < width && y < height;
}

/// The color of a direct-color owner value.
CCL_HD Rgb direct_rgb(uint32_t owner) {
  return {(owner >> 16) & 0xFFu, (owner >> 8) & 0xFFu, owner & 0xFFu};
}

/// Pixels of a segment: one per step along its longer axis.
CCL_HD uint32_t segment_pixel_count(const Segment& g) {
  const int32_t dx = g.x1 - g.x0, dy = g.y1 - g.y0;
  const int32_t adx = dx < 0 ? -dx : dx, ady = dy < 0 ? -dy : dy;
  return uint32_t(adx > ady ? adx : ady) + 1u;
}

/// a * i / n rounded half away from zero, in integers (n > 0).
CCL_HD int32_t scaled_step(int32_t a, uint32_t i, uint32_t n) {
  const int64_t num = int64_t(a) * int64_t(i) * 2;
  const int64_t den = int64_t(n) * 2;
  return int32_t(num >= 0 ? (num + int64_t(n)) / den : -((-num + int64_t(n)) / den));
}

/// The i-th pixel of g; false when it falls outside the frame.
CCL_HD bool segment_pixel(const Segment& g, uint32_t i, int width, int height, int* px,
                          int* py) {
  const uint32_t steps = segment_pixel_count(g) - 1u;
  const int x = steps ? g.x0 + scaled_step(g.x1 - g.x0, i, steps) : g.x0;
  const int y = steps ? g.y0 + scaled_step(g.y1 - g.y0, i, steps) : g.y0;
  *px = x;
  *py = y;
  return x >= 0 && y >= 0 && x < width && y < height;
}

/// A segment as a mark, so that one rasterizer serves both. Segments are drawn
/// whatever the flags: the caller lists only those asked for (trail segments with
/// kTrails, event shapes with kEvents).
CCL_HD uint32_t mark_pixel_count(const Segment& g, uint32_t) {
  return segment_pixel_count(g);
}
CCL_HD bool mark_pixel(const Segment& g, uint32_t, uint32_t i, int width, int height, int* px,
                       int* py) {
  return segment_pixel(g, i, width, height, px, py);
}

CCL_HD Paint paint_at(const Scene& s, int width, int x, int y) {
  const size_t p = size_t(y) * size_t(width) + size_t(x);
  if (s.owner && s.owner[p]) return {kSolid, s.owner[p]};
  if (s.labels && s.alpha256 && s.tints) {
    const uint32_t l = s.labels[p];
    if (!l) return {kNone, 0};
    if ((s.tints & kFill) && l <= s.n_labels && s.color_key[l]) return {kFilled, l};
    if (s.tints & kForeground) return {kTinted, l};
  }
  return {kNone, 0};
}

/// The color a paint draws in.
CCL_HD Rgb paint_color(const Scene& s, const Paint& p) {
  if (p.kind == kTinted) return Rgb{kTintR, kTintG, kTintB};
  if (is_direct_color(p.label)) return direct_rgb(p.label);
  return key_color(s.color_key[p.label]);
}

/// The paint of the chroma sample covering luma pixels [x0, x0+2) x [y0, y0+2).
CCL_HD Paint paint_of_block(const Scene& s, int width, int height, int x0, int y0) {
  Paint best = {kNone, 0};
  for (int y = y0; y < y0 + 2 && y < height; ++y)
    for (int x = x0; x < x0 + 2 && x < width; ++x) {
      const Paint p = paint_at(s, width, x, y);
      if (p.kind > best.kind) best = p;
    }
  return best;
}

CCL_HD uint32_t alpha_of(const Scene& s, const Paint& p) {
  return p.kind == kSolid ? 256u : p.kind != kNone ? s.alpha256 : 0u;
}

/// Draws the paint of luma pixel (x, y) into plane 0 (the only plane of GRAY/RGB, the
/// Y plane of YUV).
CCL_HD void draw_pixel(const Target& t, const Scene& s, int x, int y) {
  const Paint p = paint_at(s, t.width, x, y);
  if (p.kind == kNone) return;
  const uint32_t a = alpha_of(s, p);
  const Rgb c = paint_color(s, p);
  uint8_t* row = t.planes[0] + size_t(y) * t.strides[0];
  switch (t.format) {
    case PixelFormat::Gray8:
      row[x] = uint8_t(blend(row[x], bt601_luma(c.r, c.g, c.b), a));
      break;
    case PixelFormat::Gray16LE: {
      uint8_t* px = row + 2 * x;
      const uint32_t v = blend(uint32_t(px[0]) | (uint32_t(px[1]) << 8),
                               bt601_luma(c.r, c.g, c.b) * 257u, a);
      px[0] = uint8_t(v & 0xFFu);
      px[1] = uint8_t(v >> 8);
      break;
    }
    case PixelFormat::RGBA:
    case PixelFormat::RGBx:
    case PixelFormat::BGRA:
    case PixelFormat::BGRx: {
      uint8_t* px = row + 4 * x;
      const bool rgb = t.format == PixelFormat::RGBA || t.format == PixelFormat::RGBx;
      px[0] = uint8_t(blend(px[0], rgb ? c.r : c.b, a));
      px[1] = uint8_t(blend(px[1], c.g, a));
      px[2] = uint8_t(blend(px[2], rgb ? c.b : c.r, a));
      break;  // the alpha / padding byte is left as it was
    }
    case PixelFormat::NV12:
    case PixelFormat::I420:
      row[x] = uint8_t(blend(row[x], yuv_y(c), a));
      break;
  }
}

/// Chroma plane size of the 4:2:0 formats.
CCL_HD int chroma_width(int width) { return (width + 1) / 2; }
CCL_HD int chroma_height(int height) { return (height + 1) / 2; }

/// Draws chroma sample (cx, cy) of NV12 (interleaved UV in plane 1) or I420 (U in
/// plane 1, V in plane 2).
CCL_HD void draw_chroma(const Target& t, const Scene& s, int cx, int cy) {
  const Paint p = paint_of_block(s, t.width, t.height, 2 * cx, 2 * cy);
  if (p.kind == kNone) return;
  const uint32_t a = alpha_of(s, p);
  const Rgb c = paint_color(s, p);
  uint8_t* u;
  uint8_t* v;
  if (t.format == PixelFormat::NV12) {
    u = t.planes[1] + size_t(cy) * t.strides[1] + 2 * cx;
    v = u + 1;
  } else {
    u = t.planes[1] + size_t(cy) * t.strides[1] + cx;
    v = t.planes[2] + size_t(cy) * t.strides[2] + cx;
  }
  *u = uint8_t(blend(*u, yuv_u(c), a));
  *v = uint8_t(blend(*v, yuv_v(c), a));
}

CCL_HD bool has_chroma(PixelFormat f) { return f == PixelFormat::NV12 || f == PixelFormat::I420; }

}  // namespace ccl::overlay
