// Overlay pixels against an expectation computed here, pixel by pixel, from the
// documented rules (per-label palette, integer blend, BT.601 luma / studio-range YUV,
// 4:2:0 chroma from the strongest paint of its 2x2 luma block), for every format.
// With a CUDA device the device overlay is also compared byte for byte with the host's.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "ccl/foreground.h"
#include "element_util.h"
#include "overlay/overlay_math.h"

namespace ccl::element_test {
namespace {

using test::Frame;
using test::GrayImage;
using test::make_frame;

constexpr uint8_t kBackground = 30, kForeground = 200;

struct Rect {
  int x, y, w, h;
};

GrayImage scene(int w, int h, const std::vector<Rect>& rects) {
  GrayImage g{"scene", w, h, std::vector<uint8_t>(size_t(w) * h, kBackground)};
  for (const Rect& r : rects)
    for (int y = r.y; y < r.y + r.h; ++y)
      for (int x = r.x; x < r.x + r.w; ++x) g.pixels[size_t(y) * w + x] = kForeground;
  return g;
}

// Three components: two even-aligned squares and a lone pixel (labels 1, 2, 3).
const std::vector<Rect> kRects = {{4, 2, 8, 8}, {20, 6, 10, 14}, {35, 25, 1, 1}};
constexpr int kW = 40, kH = 30;

int label_at(const std::vector<Rect>& rects, int x, int y) {
  for (size_t i = 0; i < rects.size(); ++i) {
    const Rect& r = rects[i];
    if (x >= r.x && x < r.x + r.w && y >= r.y && y < r.y + r.h) return int(i) + 1;
  }
  return 0;
}

// What covers a pixel: a label and an opacity out of 256; strength orders paints
// (kSolid mark, kFill, kTint: the foreground tint, in its fixed color; 0 nothing).
constexpr int kTint = 1, kFill = 2, kSolid = 3;
struct Expect {
  int label = 0;
  int alpha = 0;
  int strength = 0;
};
using ExpectFn = std::function<Expect(int x, int y)>;

int mix(int value, int color, int a) { return (color * a + value * (256 - a) + 128) >> 8; }

struct Color {
  int r, g, b;
};
Color color_of(int label) {
  const overlay::Rgb c = overlay::key_color(uint32_t(label));
  return {int(c.r), int(c.g), int(c.b)};
}
// The foreground tint's color: magenta, which no label's color can be (their channels
// are 64 or more).
constexpr Color kTintColor = {255, 0, 255};
Color color_of(const Expect& e) { return e.strength == kTint ? kTintColor : color_of(e.label); }
int full_luma(Color c) { return (77 * c.r + 150 * c.g + 29 * c.b + 128) >> 8; }
int studio_y(Color c) { return ((66 * c.r + 129 * c.g + 25 * c.b + 128) >> 8) + 16; }
int studio_u(Color c) { return ((-38 * c.r - 74 * c.g + 112 * c.b + 128) >> 8) + 128; }
int studio_v(Color c) { return ((112 * c.r - 94 * c.g - 18 * c.b + 128) >> 8) + 128; }

// The frame's packed planes with the expected overlay applied.
std::vector<std::vector<uint8_t>> expected_planes(const Frame& frame, const ExpectFn& at) {
  auto planes = read_planes(frame);
  const PixelFormat f = frame.view.format;
  const int w = frame.view.width, h = frame.view.height;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const Expect e = at(x, y);
      if (!e.strength) continue;
      const Color c = color_of(e);
      switch (f) {
        case PixelFormat::Gray8: {
          uint8_t& v = planes[0][size_t(y) * w + x];
          v = uint8_t(mix(v, full_luma(c), e.alpha));
          break;
        }
        case PixelFormat::Gray16LE: {
          uint8_t* p = &planes[0][(size_t(y) * w + x) * 2];
          const int v = mix(p[0] | (p[1] << 8), full_luma(c) * 257, e.alpha);
          p[0] = uint8_t(v & 255);
          p[1] = uint8_t(v >> 8);
          break;
        }
        case PixelFormat::NV12:
        case PixelFormat::I420: {
          uint8_t& v = planes[0][size_t(y) * w + x];
          v = uint8_t(mix(v, studio_y(c), e.alpha));
          break;
        }
        default: {
          uint8_t* p = &planes[0][(size_t(y) * w + x) * 4];
          const bool bgr = f == PixelFormat::BGRA || f == PixelFormat::BGRx;
          p[0] = uint8_t(mix(p[0], bgr ? c.b : c.r, e.alpha));
          p[1] = uint8_t(mix(p[1], c.g, e.alpha));
          p[2] = uint8_t(mix(p[2], bgr ? c.r : c.b, e.alpha));
        }
      }
    }
  if (f != PixelFormat::NV12 && f != PixelFormat::I420) return planes;
  const int cw = (w + 1) / 2, ch = (h + 1) / 2;
  for (int cy = 0; cy < ch; ++cy)
    for (int cx = 0; cx < cw; ++cx) {
      Expect best;
      for (int y = 2 * cy; y < std::min(2 * cy + 2, h); ++y)
        for (int x = 2 * cx; x < std::min(2 * cx + 2, w); ++x) {
          const Expect e = at(x, y);
          if (e.strength > best.strength) best = e;
        }
      if (!best.strength) continue;
      const Color c = color_of(best);
      uint8_t* u = f == PixelFormat::NV12 ? &planes[1][size_t(cy) * 2 * cw + 2 * cx]
                                          : &planes[1][size_t(cy) * cw + cx];
      uint8_t* v = f == PixelFormat::NV12 ? u + 1 : &planes[2][size_t(cy) * cw + cx];
      *u = uint8_t(mix(*u, studio_u(c), best.alpha));
      *v = uint8_t(mix(*v, studio_v(c), best.alpha));
    }
  return planes;
}

void check_overlay(const std::string& props, const GrayImage& g, const ExpectFn& at) {
  for (PixelFormat f : test::all_formats()) {
    Harness h(props);
    const Frame frame = make_frame(g, f, 6);
    h.set_caps(f, g.width, g.height);
    GstBuffer* out = h.process(buffer_from_frame(frame));
    ASSERT_NE(out, nullptr) << to_string(f);
    expect_planes_equal(read_planes(out, f, g.width, g.height), expected_planes(frame, at),
                        props + " " + to_string(f));
    gst_buffer_unref(out);
  }
}

TEST(Overlay, NoneLeavesEveryByteAlone) {
  SKIP_UNLESS_BACKEND_RUNS();
  check_overlay("overlay=none", scene(kW, kH, kRects), [](int, int) { return Expect{}; });
}

TEST(Overlay, OpaqueFillPaintsEachComponentInItsLabelColor) {
  SKIP_UNLESS_BACKEND_RUNS();
  check_overlay("overlay=fill overlay-alpha=1.0", scene(kW, kH, kRects), [](int x, int y) {
    const int l = label_at(kRects, x, y);
    return l ? Expect{l, 256, kFill} : Expect{};
  });
}

TEST(Overlay, HalfAlphaFillBlends) {
  SKIP_UNLESS_BACKEND_RUNS();
  check_overlay("overlay=fill overlay-alpha=0.5", scene(kW, kH, kRects), [](int x, int y) {
    const int l = label_at(kRects, x, y);
    return l ? Expect{l, 128, kFill} : Expect{};
  });
}

TEST(Overlay, ZeroAlphaFillDrawsNothing) {
  SKIP_UNLESS_BACKEND_RUNS();
  check_overlay("overlay=fill overlay-alpha=0.0", scene(kW, kH, kRects),
                [](int, int) { return Expect{}; });
}

TEST(Overlay, OnlyReportedComponentsAreDrawn) {
  SKIP_UNLESS_BACKEND_RUNS();
  check_overlay("overlay=fill overlay-alpha=1.0 min-area=2", scene(kW, kH, kRects),
                [](int x, int y) {
                  const int l = label_at(kRects, x, y);
                  return l && l != 3 ? Expect{l, 256, kFill} : Expect{};
                });
}

bool on_outline(const Rect& r, int x, int y) {
  const bool inside = x >= r.x && x < r.x + r.w && y >= r.y && y < r.y + r.h;
  return inside && (x == r.x || x == r.x + r.w - 1 || y == r.y || y == r.y + r.h - 1);
}

TEST(Overlay, BoxesOutlineTheBoundingBoxesOpaquely) {
  SKIP_UNLESS_BACKEND_RUNS();
  check_overlay("overlay=boxes overlay-alpha=0.2", scene(kW, kH, kRects), [](int x, int y) {
    for (size_t i = 0; i < kRects.size(); ++i)
      if (on_outline(kRects[i], x, y)) return Expect{int(i) + 1, 256, kSolid};
    return Expect{};
  });
}

TEST(Overlay, CentroidsAreCrossesAtTheRoundedCentroid) {
  SKIP_UNLESS_BACKEND_RUNS();
  // Centroids rounded half up: (7.5, 5.5) -> (8, 6); (24.5, 12.5) -> (25, 13); (35, 25).
  const int centres[][2] = {{8, 6}, {25, 13}, {35, 25}};
  check_overlay("overlay=centroids", scene(kW, kH, kRects), [&](int x, int y) {
    for (int i = 0; i < 3; ++i) {
      const int dx = x - centres[i][0], dy = y - centres[i][1];
      if ((dx == 0 && std::abs(dy) <= 2) || (dy == 0 && std::abs(dx) <= 2))
        return Expect{i + 1, 256, kSolid};
    }
    return Expect{};
  });
}

TEST(Overlay, MarksOverFillAndTheHigherLabelWinsWhereBoxesCross) {
  SKIP_UNLESS_BACKEND_RUNS();
  // Label 1: an L (row y=2, x 0..20; column x=0, y 2..10), box (0,2)-(20,10).
  // Label 2: a block x 5..15, y 6..12, whose box outline crosses label 1's bottom edge.
  const std::vector<Rect> rects = {{0, 2, 21, 1}, {0, 2, 1, 9}, {5, 6, 11, 7}};
  const GrayImage g = scene(24, 16, rects);
  const Rect box1{0, 2, 21, 9}, box2{5, 6, 11, 7};
  check_overlay("overlay=fill+boxes overlay-alpha=0.75", g, [&](int x, int y) {
    if (on_outline(box2, x, y)) return Expect{2, 256, kSolid};
    if (on_outline(box1, x, y)) return Expect{1, 256, kSolid};
    const int l = label_at(rects, x, y);
    return l ? Expect{l == 3 ? 2 : 1, 192, kFill} : Expect{};
  });
}

TEST(Overlay, OddSizedFramesDrawTheirLastChromaSamples) {
  SKIP_UNLESS_BACKEND_RUNS();
  // 7x5 with the bottom-right pixel foreground: the last, half-covered chroma sample.
  const std::vector<Rect> rects = {{6, 4, 1, 1}, {0, 0, 3, 1}};
  check_overlay("overlay=fill overlay-alpha=1.0", scene(7, 5, rects), [&](int x, int y) {
    const int l = label_at(rects, x, y);
    return l ? Expect{l == 1 ? 2 : 1, 256, kFill} : Expect{};
  });
}

// ---- the foreground tint (overlay=foreground) ----

// Every labeled pixel of kRects, in the tint at `alpha`.
Expect tinted(int x, int y, int alpha) {
  return label_at(kRects, x, y) ? Expect{0, alpha, kTint} : Expect{};
}

TEST(OverlayForeground, TintsEveryForegroundPixelReportedOrNot) {
  SKIP_UNLESS_BACKEND_RUNS();
  // The lone pixel (label 3) is below min-area: tinted all the same.
  check_overlay("overlay=foreground overlay-alpha=0.5 min-area=2", scene(kW, kH, kRects),
                [](int x, int y) { return tinted(x, y, 128); });
  // Label 2 (140 pixels) is above max-area.
  check_overlay("overlay=foreground overlay-alpha=1.0 max-area=100", scene(kW, kH, kRects),
                [](int x, int y) { return tinted(x, y, 256); });
}

TEST(OverlayForeground, TintsEvenWhenNothingIsReported) {
  SKIP_UNLESS_BACKEND_RUNS();
  check_overlay("overlay=foreground overlay-alpha=0.25 max-components=0", scene(kW, kH, kRects),
                [](int x, int y) { return tinted(x, y, 64); });
}

TEST(OverlayForeground, ZeroAlphaTintsNothing) {
  SKIP_UNLESS_BACKEND_RUNS();
  check_overlay("overlay=fill+foreground overlay-alpha=0.0", scene(kW, kH, kRects),
                [](int, int) { return Expect{}; });
}

TEST(OverlayForeground, FillOfReportedComponentsOverTheTint) {
  SKIP_UNLESS_BACKEND_RUNS();
  check_overlay("overlay=fill+foreground overlay-alpha=1.0 min-area=2", scene(kW, kH, kRects),
                [](int x, int y) {
                  const int l = label_at(kRects, x, y);
                  if (!l) return Expect{};
                  return l == 3 ? Expect{0, 256, kTint} : Expect{l, 256, kFill};
                });
}

TEST(OverlayForeground, BoxesOverTheTint) {
  SKIP_UNLESS_BACKEND_RUNS();
  // Label 2 is not reported (max-area): tinted, no box.
  // Without tracking, so that a box's color key is its label.
  check_overlay("overlay=boxes+foreground overlay-alpha=0.75 max-area=100 tracking=false",
                scene(kW, kH, kRects),
                [](int x, int y) {
                  for (size_t i = 0; i < kRects.size(); ++i)
                    if (i != 1 && on_outline(kRects[i], x, y))
                      return Expect{int(i) + 1, 256, kSolid};
                  return tinted(x, y, 192);
                });
}

// The background model's foreground, tinted: exactly the pixels of the engine's CPU
// stage's mask, frame after frame, on a scene whose square sits at odd positions too
// (chroma samples half covered).
TEST(OverlayForeground, TintsExactlyTheBackgroundModelsMask) {
  SKIP_UNLESS_BACKEND_RUNS();
  constexpr int w = 53, h = 37;
  for (PixelFormat f : test::all_formats()) {
    SCOPED_TRACE(to_string(f));
    const bool yuv = f == PixelFormat::NV12 || f == PixelFormat::I420;
    Harness harness("foreground=background overlay=foreground overlay-alpha=0.6");
    harness.set_caps(f, w, h);
    Options o = reference_options();
    o.foreground = ForegroundModel::Background;
    ForegroundStage stage;
    // The square enters once the model learns slowly enough (1/18 per frame) that a
    // new color at a pixel is foreground, not a mode of the background yet.
    constexpr int kLearn = 8;
    for (int i = 0; i < kLearn + 6; ++i) {
      const int sx = i < kLearn ? -100 : 3 + 5 * (i - kLearn);
      const Frame frame = element_test::channel_frame(f, w, h, [&](int x, int y) {
        const bool in = x >= sx && x < sx + 9 && y >= 11 && y < 20;
        const uint8_t v = in ? 230 : uint8_t(40 + (x * 7 + y * 13) % 50);
        return yuv ? Channels{v, uint8_t(90 + x % 3), 150} : Channels{v, uint8_t(v / 2), 90};
      });
      BinaryImage mask;
      Result ref;
      reference_label(frame.view, o, stage, ref, &mask);
      GstBuffer* out = harness.process(buffer_from_frame(frame));
      ASSERT_NE(out, nullptr);
      expect_planes_equal(read_planes(out, f, w, h),
                          expected_planes(frame,
                                          [&](int x, int y) {
                                            return mask.pixels[size_t(y) * w + x]
                                                       ? Expect{0, 154, kTint}
                                                       : Expect{};
                                          }),
                          "frame " + std::to_string(i));
      if (i >= kLearn) {
        EXPECT_GT(ref.num_components, 0u) << "frame " << i << ": nothing to tint";
      }
      gst_buffer_unref(out);
    }
  }
}

TEST(Overlay, CudaDrawsTheSameBytesAsTheHost) {
  std::string why;
  if (!cuda_usable(&why)) GTEST_SKIP() << "needs a CUDA device: " << why;
  uint32_t seed = 900;
  for (const char* props : {"overlay=fill+boxes+centroids overlay-alpha=0.37 min-area=3",
                            "overlay=fill+boxes+foreground overlay-alpha=0.37 min-area=3 "
                            "max-area=200"}) {
    for (PixelFormat f : test::all_formats()) {
      for (const auto& size : {std::pair{97, 61}, std::pair{640, 360}}) {
        const GrayImage g = random_gray(size.first, size.second, 0.45, 3, seed++);
        const Frame frame = make_frame(g, f, 9);
        std::vector<std::vector<uint8_t>> results[2];
        for (int i = 0; i < 2; ++i) {
          Harness h(props, i == 0 ? "cpu" : "cuda");
          h.set_caps(f, g.width, g.height);
          GstBuffer* out = h.process(buffer_from_frame(frame));
          ASSERT_NE(out, nullptr);
          results[i] = read_planes(out, f, g.width, g.height);
          gst_buffer_unref(out);
        }
        expect_planes_equal(results[1], results[0],
                            std::string(props) + ": cuda vs cpu " + to_string(f));
      }
    }
  }
}

// The background model and its tint on both backends, frame after frame (host frames:
// the CUDA backend uploads every plane for the model).
TEST(OverlayForeground, CudaTintsTheSameBytesAsTheHost) {
  std::string why;
  if (!cuda_usable(&why)) GTEST_SKIP() << "needs a CUDA device: " << why;
  constexpr int w = 161, h = 93;
  for (PixelFormat f : test::all_formats()) {
    Harness cpu("foreground=background close-radius=1 overlay=foreground+boxes", "cpu");
    Harness cuda("foreground=background close-radius=1 overlay=foreground+boxes", "cuda");
    cpu.set_caps(f, w, h);
    cuda.set_caps(f, w, h);
    for (int i = 0; i < 16; ++i) {
      const Frame frame = element_test::channel_frame(f, w, h, [&](int x, int y) {
        const int dx = x - (10 + 9 * i), dy = y - 40;
        const bool disc = i >= 6 && dx * dx + dy * dy < 150;
        const uint8_t v = disc ? 210 : uint8_t(30 + (x * 3 + y * 5) % 90);
        return Channels{v, uint8_t(disc ? 70 : 120 + y % 7), uint8_t(disc ? 200 : 128)};
      });
      std::vector<std::vector<uint8_t>> results[2];
      Harness* hs[2] = {&cpu, &cuda};
      for (int k = 0; k < 2; ++k) {
        GstBuffer* out = hs[k]->process(buffer_from_frame(frame));
        ASSERT_NE(out, nullptr);
        results[k] = read_planes(out, f, w, h);
        gst_buffer_unref(out);
      }
      expect_planes_equal(results[1], results[0],
                          std::string("cuda vs cpu ") + to_string(f) + " frame " +
                              std::to_string(i));
    }
  }
}

}  // namespace
}  // namespace ccl::element_test
