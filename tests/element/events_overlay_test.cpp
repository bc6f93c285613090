// The event shapes of overlay=events (plugin/overlay/events_overlay.h), drawn on the
// host as the CPU backend draws them: counting lines and their forward arrows, zone
// outlines (red when crowded), and the labels' bitmap text, in GRAY8, RGBA and NV12,
// against expectations computed here from the documented rules; plus the direct colors
// of overlay_math.h against the component marks and trails.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "ccl/events.h"
#include "overlay/events_overlay.h"
#include "overlay/overlay_host.h"
#include "overlay/overlay_math.h"

namespace ccl::element_test {
namespace {

using overlay::EventLabel;
using overlay::Segment;

struct Color {
  int r, g, b;
  bool operator==(const Color& o) const { return r == o.r && g == o.g && b == o.b; }
};
constexpr Color kYellow = {255, 255, 0}, kCyan = {0, 255, 255}, kRed = {255, 0, 0},
                kWhite = {255, 255, 255}, kBlack = {0, 0, 0};
constexpr Color kBack = {30, 60, 90};

std::ostream& operator<<(std::ostream& os, const Color& c) {
  return os << "(" << c.r << "," << c.g << "," << c.b << ")";
}

int full_luma(Color c) { return (77 * c.r + 150 * c.g + 29 * c.b + 128) >> 8; }
int studio_y(Color c) { return ((66 * c.r + 129 * c.g + 25 * c.b + 128) >> 8) + 16; }
int studio_u(Color c) { return ((-38 * c.r - 74 * c.g + 112 * c.b + 128) >> 8) + 128; }
int studio_v(Color c) { return ((112 * c.r - 94 * c.g - 18 * c.b + 128) >> 8) + 128; }

// A host frame of one format, drawn with the overlay's host drawer.
struct Image {
  PixelFormat format;
  int width, height;
  std::vector<uint8_t> p0, p1;  // plane 0; NV12's interleaved chroma

  Image(PixelFormat f, int w, int h) : format(f), width(w), height(h) {
    if (f == PixelFormat::RGBA) {
      p0.resize(size_t(w) * h * 4);
      for (size_t i = 0; i < p0.size(); i += 4) {
        p0[i] = uint8_t(kBack.r);
        p0[i + 1] = uint8_t(kBack.g);
        p0[i + 2] = uint8_t(kBack.b);
        p0[i + 3] = 77;  // alpha: left alone
      }
    } else {
      p0.assign(size_t(w) * h, 40);
      if (f == PixelFormat::NV12) p1.assign(size_t((w + 1) / 2) * 2 * ((h + 1) / 2), 128);
    }
  }
  overlay::Target target() {
    overlay::Target t{format, width, height, {}, {}};
    t.planes[0] = p0.data();
    t.strides[0] = size_t(width) * (format == PixelFormat::RGBA ? 4 : 1);
    if (format == PixelFormat::NV12) {
      t.planes[1] = p1.data();
      t.strides[1] = size_t((width + 1) / 2) * 2;
    }
    return t;
  }
  Color rgba(int x, int y) const {
    const uint8_t* p = &p0[(size_t(y) * width + x) * 4];
    return {p[0], p[1], p[2]};
  }
  uint8_t alpha(int x, int y) const { return p0[(size_t(y) * width + x) * 4 + 3]; }
  uint8_t luma(int x, int y) const { return p0[size_t(y) * width + x]; }
  uint8_t u(int cx, int cy) const { return p1[size_t(cy) * ((width + 1) / 2) * 2 + 2 * cx]; }
  uint8_t v(int cx, int cy) const { return p1[size_t(cy) * ((width + 1) / 2) * 2 + 2 * cx + 1]; }
};

// Draws marks (with `flags`) and segments over the frame, as the CPU backend does; the
// color keys are the labels themselves (labels 1..n_labels).
std::vector<uint32_t> draw(Image& img, const std::vector<Segment>& segments,
                           const std::vector<overlay::Mark>& marks = {},
                           uint32_t flags = overlay::kEvents, uint32_t n_labels = 8) {
  std::vector<uint32_t> owner;
  overlay::rasterize_marks_host(marks.data(), marks.size(), segments.data(), segments.size(),
                                flags, img.width, img.height, owner);
  std::vector<uint32_t> keys(n_labels + 1);
  for (uint32_t l = 0; l <= n_labels; ++l) keys[l] = l;
  const overlay::Scene scene{nullptr, keys.data(), n_labels, owner.data(), 256, 0};
  overlay::draw_host(img.target(), scene);
  return owner;
}

struct Counts {
  std::vector<uint64_t> forward, backward;
  std::vector<uint32_t> zone_count;
  std::vector<uint64_t> zone_entries;
};

std::vector<Segment> shapes(const EventConfig& config, const Counts& c, int w, int h,
                            std::vector<EventLabel>* labels = nullptr) {
  std::vector<Segment> out;
  overlay::event_shapes(config, c.forward, c.backward, c.zone_count, c.zone_entries, w, h, out,
                        labels);
  return out;
}

EventConfig one_line(double x1, double y1, double x2, double y2) {
  EventConfig config;
  config.lines.push_back({x1, y1, x2, y2});
  return config;
}

EventZone rect_zone(double x0, double y0, double x1, double y1, uint32_t max_count = 0) {
  EventZone z;
  z.points = {{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}};
  z.max_count = max_count;
  return z;
}

bool inside_box(const EventLabel& l, int x, int y) {
  return x >= l.x && x < l.x + l.width && y >= l.y && y < l.y + l.height;
}

// The side of P as events.h defines it: > 0 on the positive side.
double side(const EventLine& l, double px, double py) {
  return (l.x2 - l.x1) * (py - l.y1) - (l.y2 - l.y1) * (px - l.x1);
}
double distance_to_line(const EventLine& l, double px, double py) {
  return std::abs(side(l, px, py)) / std::hypot(l.x2 - l.x1, l.y2 - l.y1);
}

// The 5x7 bitmaps the labels must show, written out independently of the font table.
const char* const kSeven[7] = {"#####", "....#", "...#.", "..#..", ".#...", ".#...", ".#..."};
const char* const kOne[7] = {"..#..", ".##..", "..#..", "..#..", "..#..", "..#..", ".###."};

// Checks that character k of label l shows `bitmap` (white cells) on black, cell by
// cell at the label's scale, in an RGBA frame.
void expect_glyph(const Image& img, const EventLabel& l, size_t k, const char* const bitmap[7]) {
  const int s = l.scale;
  const int gx = l.x + s + int(k) * overlay::kGlyphAdvance * s, gy = l.y + s;
  for (int r = 0; r < 7; ++r)
    for (int c = 0; c < overlay::kGlyphAdvance; ++c) {
      const bool lit = c < 5 && bitmap[r][c] == '#';
      for (int dy = 0; dy < s; ++dy)
        for (int dx = 0; dx < s; ++dx) {
          const int x = gx + c * s + dx, y = gy + r * s + dy;
          if (c == 5 && k + 1 == l.text.size()) continue;  // past the last glyph: margin
          ASSERT_EQ(img.rgba(x, y), lit ? kWhite : kBlack)
              << "label '" << l.text << "' char " << k << " cell (" << c << "," << r << ")";
        }
    }
}

TEST(EventShapes, LabelTextsAndScale) {
  EXPECT_EQ(overlay::line_label(0, 12, 3), "L0 12/3");
  EXPECT_EQ(overlay::line_label(7, 0, 0), "L7 0/0");
  EXPECT_EQ(overlay::zone_label(0, 4, 0, 17), "Z0 4 in 17");
  EXPECT_EQ(overlay::zone_label(1, 6, 5, 40), "Z1 6/5 in 40");
  EXPECT_EQ(overlay::zone_label(2, 0, 0, 18446744073709551615ull), "Z2 0 in 18446744073709551615");
  EXPECT_EQ(overlay::text_scale(120), 1);
  EXPECT_EQ(overlay::text_scale(479), 1);
  EXPECT_EQ(overlay::text_scale(480), 2);
  EXPECT_EQ(overlay::text_scale(1080), 4);
  // Every character the labels use is in the font, and the digits are all different.
  uint8_t rows[overlay::kGlyphHeight];
  for (char c : std::string("0123456789LZin/ ")) EXPECT_TRUE(overlay::glyph_rows(c, rows)) << c;
  EXPECT_FALSE(overlay::glyph_rows('Q', rows));
  std::vector<std::vector<uint8_t>> digits;
  for (char c = '0'; c <= '9'; ++c) {
    overlay::glyph_rows(c, rows);
    digits.emplace_back(rows, rows + overlay::kGlyphHeight);
    EXPECT_NE(digits.back(), std::vector<uint8_t>(overlay::kGlyphHeight, 0)) << c;
  }
  std::sort(digits.begin(), digits.end());
  EXPECT_EQ(std::unique(digits.begin(), digits.end()), digits.end());
  int w, h;
  overlay::text_box_size("L0 12/3", 2, &w, &h);
  EXPECT_EQ(w, (6 * 7 - 1 + 2) * 2);
  EXPECT_EQ(h, 18);
}

TEST(EventShapes, DirectColorsOrderAndPaint) {
  using namespace overlay;
  // Above every label, and text > box > line > crowded zone > zone.
  EXPECT_GT(kEventZoneColor, 0x7FFFFFFFu);
  EXPECT_GT(kEventCrowdedColor, kEventZoneColor);
  EXPECT_GT(kEventLineColor, kEventCrowdedColor);
  EXPECT_GT(kEventBoxColor, kEventLineColor);
  EXPECT_GT(kEventTextColor, kEventBoxColor);
  EXPECT_EQ(kEventBoxColor & 0xFFFFFFu, 0u);
  EXPECT_TRUE(is_direct_color(kEventBoxColor));
  EXPECT_FALSE(is_direct_color(0x7FFFFFFFu));
  // A direct color is painted as its low 24 bits, without looking at the color keys
  // (none here: indexing them would crash).
  const Scene scene{nullptr, nullptr, 0, nullptr, 256, 0};
  const Rgb c = paint_color(scene, Paint{kSolid, direct_color(0x123456, 7)});
  EXPECT_EQ(c.r, 0x12u);
  EXPECT_EQ(c.g, 0x34u);
  EXPECT_EQ(c.b, 0x56u);
}

TEST(EventShapes, LinePixelsAndForwardArrowRgba) {
  const int W = 200, H = 120;
  for (bool reversed : {false, true}) {
    SCOPED_TRACE(reversed ? "walking -x (positive side up)" : "walking +x (positive side down)");
    const EventConfig config =
        reversed ? one_line(150, 50, 10, 50) : one_line(10, 50, 150, 50);
    const EventLine& line = config.lines[0];
    std::vector<EventLabel> labels;
    const auto segs = shapes(config, {{12}, {3}, {}, {}}, W, H, &labels);
    Image img(PixelFormat::RGBA, W, H);
    draw(img, segs);
    ASSERT_EQ(labels.size(), 1u);
    EXPECT_EQ(labels[0].text, "L0 12/3");
    // The line, 2 pixels thick: rows 50 and 51 (the copy goes down, inside the frame).
    for (int x = 10; x <= 150; ++x) {
      EXPECT_EQ(img.rgba(x, 50), kYellow) << x;
      EXPECT_EQ(img.rgba(x, 51), kYellow) << x;
      EXPECT_EQ(img.alpha(x, 50), 77);
    }
    EXPECT_EQ(img.rgba(9, 50), kBack);
    EXPECT_EQ(img.rgba(151, 50), kBack);
    EXPECT_EQ(img.rgba(12, 52), kBack);
    EXPECT_EQ(img.rgba(12, 49), kBack);
    // Every other yellow pixel is the arrow, on the positive side, which reaches
    // several pixels away from the line; the label is on the negative side.
    int arrow = 0;
    double reach = 0;
    for (int y = 0; y < H; ++y)
      for (int x = 0; x < W; ++x) {
        if (y == 50 || y == 51 || !(img.rgba(x, y) == kYellow)) continue;
        ++arrow;
        EXPECT_GT(side(line, x, y), 0) << x << "," << y;
        reach = std::max(reach, distance_to_line(line, x, y));
      }
    EXPECT_GT(arrow, 10);
    EXPECT_GE(reach, 7);
    const EventLabel& l = labels[0];
    EXPECT_LT(side(line, l.x + l.width / 2, l.y + l.height / 2), 0);
    EXPECT_FALSE(inside_box(l, 80, 50));  // the label leaves the line clear
    EXPECT_EQ(img.rgba(l.x, l.y), kBlack);
    // Its text: "L0 12/3", whose '1' is character 3.
    expect_glyph(img, l, 3, kOne);
  }
}

TEST(EventShapes, DiagonalLineArrowOnPositiveSide) {
  const int W = 320, H = 240;
  for (const EventLine& line : {EventLine{40, 30, 280, 200}, EventLine{280, 200, 40, 30},
                                EventLine{60, 220, 250, 20}, EventLine{160, 10, 160, 230}}) {
    EventConfig config;
    config.lines.push_back(line);
    std::vector<EventLabel> labels;
    const auto segs = shapes(config, {{5}, {9}, {}, {}}, W, H, &labels);
    Image img(PixelFormat::RGBA, W, H);
    draw(img, segs);
    int pos = 0;
    for (int y = 0; y < H; ++y)
      for (int x = 0; x < W; ++x) {
        if (!(img.rgba(x, y) == kYellow) || distance_to_line(line, x, y) < 2.5) continue;
        ++pos;
        EXPECT_GT(side(line, x, y), 0) << x << "," << y;
      }
    EXPECT_GT(pos, 5);
    // The endpoints are drawn, and the line's midpoint.
    EXPECT_EQ(img.rgba(int(line.x1), int(line.y1)), kYellow);
    EXPECT_EQ(img.rgba(int(line.x2), int(line.y2)), kYellow);
    EXPECT_EQ(img.rgba(int((line.x1 + line.x2) / 2), int((line.y1 + line.y2) / 2)), kYellow);
    ASSERT_EQ(labels.size(), 1u);
    EXPECT_LT(side(line, labels[0].x + labels[0].width / 2.0, labels[0].y + labels[0].height / 2.0),
              0);
  }
}

TEST(EventShapes, ZoneOutlineAndCrowdedRed) {
  const int W = 200, H = 120;
  struct Case {
    uint32_t count, max_count;
    Color color;
  };
  for (const Case& c : {Case{2, 5, kCyan}, Case{5, 5, kCyan}, Case{6, 5, kRed},
                        Case{100, 0, kCyan}}) {
    SCOPED_TRACE(std::to_string(c.count) + " of max " + std::to_string(c.max_count));
    EventConfig config;
    config.zones.push_back(rect_zone(20, 20, 100, 80, c.max_count));
    std::vector<EventLabel> labels;
    const auto segs = shapes(config, {{}, {}, {c.count}, {17}}, W, H, &labels);
    Image img(PixelFormat::RGBA, W, H);
    draw(img, segs);
    ASSERT_EQ(labels.size(), 1u);
    const EventLabel& l = labels[0];
    EXPECT_EQ(l.text, overlay::zone_label(0, c.count, c.max_count, 17));
    for (int x = 20; x <= 100; ++x) {
      EXPECT_EQ(img.rgba(x, 20), c.color) << x;
      EXPECT_EQ(img.rgba(x, 21), c.color) << x;
      EXPECT_EQ(img.rgba(x, 80), c.color) << x;
    }
    for (int y = 20; y <= 80; ++y) {
      EXPECT_EQ(img.rgba(20, y), c.color) << y;
      EXPECT_EQ(img.rgba(21, y), c.color) << y;
      EXPECT_EQ(img.rgba(100, y), c.color) << y;
      EXPECT_EQ(img.rgba(101, y), c.color) << y;
    }
    // Inside and outside the outline, away from the label: untouched.
    EXPECT_EQ(img.rgba(60, 60), kBack);
    EXPECT_EQ(img.rgba(103, 50), kBack);
    EXPECT_EQ(img.rgba(60, 83), kBack);
    EXPECT_EQ(img.rgba(17, 50), kBack);
    // The label sits inside the zone, next to its first point, clear of the outline.
    EXPECT_FALSE(inside_box(l, 21, 21));
    EXPECT_GT(l.x, 20);
    EXPECT_GT(l.y, 20);
    EXPECT_LT(l.x, 30);
    EXPECT_LT(l.y, 30);
  }
}

TEST(EventShapes, DigitBitmapInTextBox) {
  const int W = 640, H = 480;  // scale 2
  EventConfig config;
  config.zones.push_back(rect_zone(100, 100, 300, 300));
  std::vector<EventLabel> labels;
  const auto segs = shapes(config, {{}, {}, {7}, {1}}, W, H, &labels);
  Image img(PixelFormat::RGBA, W, H);
  draw(img, segs);
  ASSERT_EQ(labels.size(), 1u);
  const EventLabel& l = labels[0];
  EXPECT_EQ(l.text, "Z0 7 in 1");
  EXPECT_EQ(l.scale, 2);
  int bw, bh;
  overlay::text_box_size(l.text, 2, &bw, &bh);
  EXPECT_EQ(l.width, bw);
  EXPECT_EQ(l.height, bh);
  expect_glyph(img, l, 3, kSeven);
  expect_glyph(img, l, 8, kOne);
  // The box's margin is black all round, and just outside it nothing is drawn.
  for (int x = l.x; x < l.x + l.width; ++x)
    for (int d = 0; d < l.scale; ++d) {
      EXPECT_EQ(img.rgba(x, l.y + d), kBlack);
      EXPECT_EQ(img.rgba(x, l.y + l.height - 1 - d), kBlack);
    }
  for (int y = l.y; y < l.y + l.height; ++y) {
    EXPECT_EQ(img.rgba(l.x, y), kBlack);
    EXPECT_EQ(img.rgba(l.x + l.width - 1, y), kBlack);
    EXPECT_EQ(img.rgba(l.x + l.width, y), kBack);
  }
  // text_shapes alone: "7" at scale 3.
  std::vector<Segment> seven;
  const EventLabel s = overlay::text_shapes("7", 10, 10, 3, 100, 60, seven);
  Image small(PixelFormat::RGBA, 100, 60);
  draw(small, seven);
  EXPECT_EQ(s.x, 10);
  EXPECT_EQ(s.width, (6 - 1 + 2) * 3);
  EXPECT_EQ(s.height, 9 * 3);
  expect_glyph(small, s, 0, kSeven);
  for (const Segment& g : seven) EXPECT_EQ(g.y0, g.y1);  // horizontal runs only
  // 9*3 box rows, and 7 lit runs in '7', each 3 pixel rows.
  EXPECT_EQ(seven.size(), size_t(27 + 7 * 3));
}

// Every segment inside the frame, and, drawn into a frame with a margin of `pad`
// around it, nothing outside the frame's window.
void expect_inside(const std::vector<Segment>& segs, int W, int H) {
  for (const Segment& g : segs) {
    ASSERT_TRUE(g.x0 >= 0 && g.x1 >= 0 && g.x0 < W && g.x1 < W && g.y0 >= 0 && g.y1 >= 0 &&
                g.y0 < H && g.y1 < H)
        << g.x0 << "," << g.y0 << " " << g.x1 << "," << g.y1 << " in " << W << "x" << H;
  }
  const int pad = 40;
  std::vector<Segment> moved = segs;
  for (Segment& g : moved) {
    g.x0 += pad;
    g.x1 += pad;
    g.y0 += pad;
    g.y1 += pad;
  }
  std::vector<uint32_t> owner;
  overlay::rasterize_marks_host(nullptr, 0, moved.data(), moved.size(), overlay::kEvents,
                                W + 2 * pad, H + 2 * pad, owner);
  for (int y = 0; y < H + 2 * pad; ++y)
    for (int x = 0; x < W + 2 * pad; ++x)
      if (x < pad || y < pad || x >= W + pad || y >= H + pad) {
        ASSERT_EQ(owner[size_t(y) * (W + 2 * pad) + x], 0u) << x - pad << "," << y - pad;
      }
}

TEST(EventShapes, LabelsNearEdgesClampInsideFrame) {
  for (auto [W, H] : {std::pair{200, 120}, std::pair{320, 240}, std::pair{640, 480}}) {
    SCOPED_TRACE(std::to_string(W) + "x" + std::to_string(H));
    EventConfig config;
    // On the frame's edges (coordinates up to width and height are valid), each with
    // its positive side (arrow) inwards, so that its label, on the negative side, is
    // pushed out of the frame: top, bottom, left, right.
    config.lines.push_back({0, 0, double(W), 0});
    config.lines.push_back({double(W), double(H), 0, double(H)});
    config.lines.push_back({0, double(H), 0, 0});
    config.lines.push_back({double(W), 0, double(W), double(H)});
    config.lines.push_back({double(W) - 3, 2, double(W) - 1, double(H) - 2});
    // A zone whose first point is the bottom-right corner: its label past the corner.
    config.zones.push_back(rect_zone(W - 4, H - 4, W, H, 1));
    config.zones.push_back(rect_zone(0, 0, W, H));
    const Counts counts{{123456, 1, 2, 3, 4}, {7, 8, 9, 10, 11}, {2, 0}, {99999, 5}};
    std::vector<EventLabel> labels;
    const auto segs = shapes(config, counts, W, H, &labels);
    expect_inside(segs, W, H);
    ASSERT_EQ(labels.size(), 7u);
    Image img(PixelFormat::RGBA, W, H);
    draw(img, segs);
    for (const EventLabel& l : labels) {
      EXPECT_GE(l.x, 0) << l.text;
      EXPECT_GE(l.y, 0) << l.text;
      EXPECT_LE(l.x + l.width, W) << l.text;
      EXPECT_LE(l.y + l.height, H) << l.text;
    }
    // The crowded corner zone's label is whole, though its first point is the frame's
    // corner: its '1' of "/1" (character 5 of "Z0 2/1 in 99999") drawn in full, on a
    // frame of its own (here the other labels may overlap it).
    EXPECT_EQ(labels[5].text, "Z0 2/1 in 99999");
    EventConfig corner;
    corner.zones.push_back(config.zones[0]);
    std::vector<EventLabel> corner_labels;
    const auto corner_segs = shapes(corner, {{}, {}, {2}, {99999}}, W, H, &corner_labels);
    expect_inside(corner_segs, W, H);
    Image cimg(PixelFormat::RGBA, W, H);
    draw(cimg, corner_segs);
    ASSERT_EQ(corner_labels.size(), 1u);
    EXPECT_EQ(corner_labels[0].x + corner_labels[0].width, W);
    EXPECT_EQ(corner_labels[0].y + corner_labels[0].height, H);
    expect_glyph(cimg, corner_labels[0], 5, kOne);
    // The lines on the edges are drawn on the frame's border pixels, 2 thick inwards.
    EXPECT_EQ(img.rgba(5, 0), kYellow);
    EXPECT_EQ(img.rgba(5, 1), kYellow);
    EXPECT_EQ(img.rgba(5, H - 1), kYellow);
    EXPECT_EQ(img.rgba(5, H - 2), kYellow);
    EXPECT_EQ(img.rgba(0, H / 4), kYellow);
    EXPECT_EQ(img.rgba(1, H / 4), kYellow);
    EXPECT_EQ(img.rgba(W - 1, H / 4), kYellow);
    EXPECT_EQ(img.rgba(W - 2, H / 4), kYellow);
  }
  // A frame smaller than its labels: clipped, nothing outside.
  EventConfig config = one_line(1, 1, 18, 8);
  config.zones.push_back(rect_zone(2, 2, 15, 9, 1));
  const auto segs = shapes(config, {{5}, {5}, {9}, {9}}, 20, 10);
  EXPECT_FALSE(segs.empty());
  expect_inside(segs, 20, 10);
  // No frame at all: nothing.
  EXPECT_TRUE(shapes(config, {}, 0, 0).empty());
}

TEST(EventShapes, SizesCountsAndDeterminism) {
  for (auto [W, H] : {std::pair{64, 48}, std::pair{320, 240}, std::pair{640, 480},
                      std::pair{1280, 720}, std::pair{1920, 1080}, std::pair{101, 77}}) {
    SCOPED_TRACE(std::to_string(W) + "x" + std::to_string(H));
    EventConfig config;
    config.lines.push_back({0.1 * W, 0.5 * H, 0.9 * W, 0.45 * H});
    config.lines.push_back({0.5 * W, 0.1 * H, 0.52 * W, 0.9 * H});
    config.zones.push_back(rect_zone(0.05 * W, 0.05 * H, 0.4 * W, 0.3 * H, 3));
    EventZone tri;
    tri.points = {{0.6 * W, 0.6 * H}, {0.95 * W, 0.7 * H}, {0.7 * W, 0.95 * H}};
    config.zones.push_back(tri);
    const Counts counts{{12, 0}, {3, 456}, {4, 1}, {17, 2}};
    std::vector<EventLabel> labels;
    const auto a = shapes(config, counts, W, H, &labels);
    const auto b = shapes(config, counts, W, H);
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i)
      ASSERT_TRUE(a[i].label == b[i].label && a[i].x0 == b[i].x0 && a[i].y0 == b[i].y0 &&
                  a[i].x1 == b[i].x1 && a[i].y1 == b[i].y1);
    expect_inside(a, W, H);
    for (const Segment& g : a) EXPECT_TRUE(overlay::is_direct_color(g.label));
    ASSERT_EQ(labels.size(), 4u);
    EXPECT_EQ(labels[0].text, "L0 12/3");
    EXPECT_EQ(labels[1].text, "L1 0/456");
    EXPECT_EQ(labels[2].text, "Z0 4/3 in 17");
    EXPECT_EQ(labels[3].text, "Z1 1 in 2");
    EXPECT_EQ(labels[0].scale, std::max(1, H / 240));
    // Modest: exactly (9 + runs) * scale per label (the box's rows, then the glyph
    // rows' lit runs, each `scale` pixel rows), 8 per line (the line and the 3 strokes
    // of its arrow, each doubled), 2 per zone edge, when nothing is clipped away.
    size_t expected = 2 * 8 + (4 + 3) * 2;
    bool all_fit = true;
    for (const EventLabel& l : labels) {
      size_t runs = 0;
      for (char c : l.text) {
        uint8_t rows[overlay::kGlyphHeight];
        overlay::glyph_rows(c, rows);
        for (uint8_t r : rows)
          for (int b = 4; b >= 0; --b) runs += (r >> b & 1) && (b == 4 || !(r >> (b + 1) & 1));
      }
      expected += (9 + runs) * size_t(l.scale);
      all_fit = all_fit && l.width <= W && l.height <= H;
    }
    if (all_fit) {
      EXPECT_EQ(a.size(), expected);
    } else {
      EXPECT_LE(a.size(), expected);
    }
    std::printf("events overlay %dx%d: %zu segments\n", W, H, a.size());

    // Drawn: each shape's pixels in its color, in RGBA, GRAY8 and NV12, against an
    // expectation from the owner buffer (every event paint is opaque).
    std::vector<uint32_t> owner;
    overlay::rasterize_marks_host(nullptr, 0, a.data(), a.size(), overlay::kEvents, W, H, owner);
    auto color_at = [&](int x, int y) {
      const uint32_t o = owner[size_t(y) * W + x];
      return Color{int(o >> 16 & 255), int(o >> 8 & 255), int(o & 255)};
    };
    // Present: the crowded zone (4 > 3) red, the other cyan, the lines, the labels.
    size_t n_red = 0, n_cyan = 0, n_line = 0, n_text = 0, n_box = 0;
    for (uint32_t o : owner) {
      n_red += o == overlay::kEventCrowdedColor;
      n_cyan += o == overlay::kEventZoneColor;
      n_line += o == overlay::kEventLineColor;
      n_text += o == overlay::kEventTextColor;
      n_box += o == overlay::kEventBoxColor;
    }
    // (In the smallest frames the labels cover much of the shapes.)
    const double k = W >= 200 ? 1.0 : 0.0;
    EXPECT_GT(n_red, size_t(k * 0.3 * (W + H)));
    EXPECT_GT(n_cyan, size_t(k * 0.5 * (W + H)));
    EXPECT_GT(n_line, size_t(k * 1.0 * (W + H)));
    EXPECT_GT(n_text, 0u);
    EXPECT_GT(n_box, n_text);
    for (PixelFormat f : {PixelFormat::RGBA, PixelFormat::Gray8, PixelFormat::NV12}) {
      Image img(f, W, H);
      draw(img, a);
      for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) {
          const bool painted = owner[size_t(y) * W + x] != 0;
          const Color c = color_at(x, y);
          if (f == PixelFormat::RGBA)
            ASSERT_EQ(img.rgba(x, y), painted ? c : kBack) << x << "," << y;
          else if (f == PixelFormat::Gray8)
            ASSERT_EQ(img.luma(x, y), painted ? full_luma(c) : 40) << x << "," << y;
          else
            ASSERT_EQ(img.luma(x, y), painted ? studio_y(c) : 40) << x << "," << y;
        }
      if (f != PixelFormat::NV12) continue;
      // Chroma: the first painted pixel of the 2x2 block in raster order.
      for (int cy = 0; cy < (H + 1) / 2; ++cy)
        for (int cx = 0; cx < (W + 1) / 2; ++cx) {
          int u = 128, v = 128;
          bool found = false;
          for (int y = 2 * cy; y < std::min(2 * cy + 2, H) && !found; ++y)
            for (int x = 2 * cx; x < std::min(2 * cx + 2, W) && !found; ++x)
              if (owner[size_t(y) * W + x]) {
                u = studio_u(color_at(x, y));
                v = studio_v(color_at(x, y));
                found = true;
              }
          ASSERT_EQ(img.u(cx, cy), u) << cx << "," << cy;
          ASSERT_EQ(img.v(cx, cy), v) << cx << "," << cy;
        }
    }
  }
}

TEST(EventShapes, DirectColorsBeatComponentMarks) {
  const int W = 120, H = 80;
  // A component's box (label 5) crossed by a line and overlapped by a zone's label.
  const std::vector<overlay::Mark> marks = {{5, 30, 20, 40, 40, 50, 40}};
  EventConfig config = one_line(10, 40, 110, 40);
  const auto segs = shapes(config, {{1}, {2}, {}, {}}, W, H);
  for (uint32_t flags : {overlay::kBoxes | overlay::kEvents, overlay::kBoxes | overlay::kCentroids}) {
    Image img(PixelFormat::RGBA, W, H);
    const auto owner = draw(img, segs, marks, flags);
    const overlay::Rgb k = overlay::key_color(5);
    const Color box = {int(k.r), int(k.g), int(k.b)};
    // Where the box's left and right sides cross the line: the line wins.
    EXPECT_EQ(img.rgba(30, 40), kYellow);
    EXPECT_EQ(img.rgba(69, 41), kYellow);
    EXPECT_EQ(owner[40 * W + 30], overlay::kEventLineColor);
    // Elsewhere the box keeps its color.
    EXPECT_EQ(img.rgba(30, 25), box);
    EXPECT_EQ(img.rgba(69, 55), box);
    EXPECT_EQ(img.rgba(50, 59), box);
  }
  // Even a label at the top of the label range loses to a direct color.
  const std::vector<overlay::Mark> top = {{0x7FFFFFFFu, 30, 20, 40, 40, 50, 40}};
  std::vector<uint32_t> owner;
  overlay::rasterize_marks_host(top.data(), top.size(), segs.data(), segs.size(),
                                overlay::kBoxes, W, H, owner);
  EXPECT_EQ(owner[40 * W + 30], overlay::kEventLineColor);
  EXPECT_EQ(owner[25 * W + 30], 0x7FFFFFFFu);
}

TEST(EventShapes, TrailsKeepTheirLabelsColor) {
  const int W = 60, H = 40;
  const overlay::Segment trail{3, 5, 10, 50, 10};
  EXPECT_EQ(overlay::mark_pixel_count(trail, overlay::kTrails), 46u);
  for (uint32_t flags : {uint32_t(overlay::kTrails), overlay::kTrails | overlay::kBoxes,
                         overlay::kTrails | overlay::kEvents}) {
    Image img(PixelFormat::RGBA, W, H);
    const auto owner = draw(img, {trail}, {}, flags);
    const overlay::Rgb k = overlay::key_color(3);
    const Color c = {int(k.r), int(k.g), int(k.b)};
    for (int x = 5; x <= 50; ++x) {
      EXPECT_EQ(owner[10 * W + x], 3u);
      EXPECT_EQ(img.rgba(x, 10), c) << x;
    }
    EXPECT_EQ(img.rgba(4, 10), kBack);
    EXPECT_EQ(img.rgba(51, 10), kBack);
    EXPECT_EQ(img.rgba(20, 11), kBack);  // trails are 1 pixel thick
  }
  // A trail and an event line crossing: the line wins the crossing, the trail keeps
  // the rest; a higher trail label wins over a lower one as before.
  const EventConfig config = one_line(30, 0, 30, 39);
  auto segs = shapes(config, {{}, {}, {}, {}}, W, H);
  segs.push_back(trail);
  segs.push_back({2, 5, 10, 50, 10});
  Image img(PixelFormat::RGBA, W, H);
  const auto owner = draw(img, segs, {}, overlay::kTrails | overlay::kEvents);
  EXPECT_EQ(owner[10 * W + 30], overlay::kEventLineColor);
  EXPECT_EQ(owner[10 * W + 20], 3u);
}

}  // namespace
}  // namespace ccl::element_test
