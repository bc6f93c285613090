// The foreground stage through the element: the background model finds a moving
// square in front of a textured scene where one global level finds the texture; shadows;
// the model's resets (flush, stream-start, a new frame size); max-area; the cleanup
// (open-radius, close-radius); mask-location with PGM and PNG files and its errors.
// Every frame's metadata is also compared with the engine's CPU stage (ForegroundStage
// + label_binary), which the CUDA backend must match bit for bit.
#include <glib/gstdio.h>
#include <gtest/gtest.h>
#include <png.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "ccl/foreground.h"
#include "element_util.h"
#include "splitmix.h"

namespace ccl::element_test {
namespace {

using test::Frame;

bool is_yuv(PixelFormat f) { return f == PixelFormat::NV12 || f == PixelFormat::I420; }

// ---- the scene: a static texture, then a square crossing it ----

constexpr int kW = 96, kH = 64;
constexpr int kSquare = 12, kSquareY = 26;
constexpr uint8_t kSquareLuma = 250;
// Frames of the texture alone before the square enters: by then the model learns at
// about 1/40 per frame, so a pixel the square covers for one frame keeps its texture
// mode well above the 90 % the background must hold.
constexpr int kWarmUp = 20;

// 4x4 blocks of luma 30..170: Otsu's level splits them into two large classes.
uint8_t texture(int x, int y) {
  return uint8_t(30 + test::splitmix64(uint64_t(y / 4) * 1000 + uint64_t(x / 4)) % 141);
}

// Left edge of the square in frame i, or -1 while it has not entered. It moves by its
// own width, so no pixel is covered two frames in a row.
int square_x(int i) { return i < kWarmUp ? -1 : 2 + kSquare * (i - kWarmUp); }

Frame scene_frame(PixelFormat f, int i, int w = kW, int h = kH) {
  const int sx = square_x(i);
  return channel_frame(f, w, h, [&](int x, int y) {
    const bool in = sx >= 0 && x >= sx && x < sx + kSquare && y >= kSquareY &&
                    y < kSquareY + kSquare;
    const uint8_t v = in ? kSquareLuma : texture(x, y);
    return is_yuv(f) ? Channels{v, 128, 128} : Channels{v, v, v};
  });
}

Options background_options() {
  Options o = reference_options();
  o.foreground = ForegroundModel::Background;
  return o;
}

// What the engine's CPU stage gives for the next frame of a stream.
Result reference_next(ForegroundStage& stage, const Frame& frame, const Options& options) {
  Result r;
  reference_label(frame.view, options, stage, r);
  return r;
}

const GstCclMeta* meta_of(GstBuffer* out) { return out ? gst_ccl_meta_get(out) : nullptr; }

// Pushes a frame and returns the output (to unref), failing the test when none came.
GstBuffer* push(Harness& h, const Frame& frame) {
  GstFlowReturn flow = GST_FLOW_OK;
  GstBuffer* out = h.process(buffer_from_frame(frame), &flow);
  EXPECT_NE(out, nullptr) << "flow " << gst_flow_get_name(flow);
  return out;
}

// Component count of a frame (total, reported or not).
guint total_of(Harness& h, const Frame& frame) {
  GstBuffer* out = push(h, frame);
  const GstCclMeta* meta = meta_of(out);
  EXPECT_NE(meta, nullptr);
  const guint n = meta ? meta->total_count : 0;
  if (out) gst_buffer_unref(out);
  return n;
}

class MovingSquare : public ::testing::TestWithParam<PixelFormat> {};

TEST_P(MovingSquare, TheBackgroundModelReportsTheSquareAndNotTheTexture) {
  SKIP_UNLESS_BACKEND_RUNS();
  const PixelFormat f = GetParam();
  Harness h("foreground=background");
  Harness otsu("threshold-mode=otsu");
  h.set_caps(f, kW, kH);
  otsu.set_caps(f, kW, kH);
  ForegroundStage stage;
  const Options options = background_options();
  for (int i = 0; i < kWarmUp + 7; ++i) {
    SCOPED_TRACE("frame " + std::to_string(i));
    const Frame frame = scene_frame(f, i);
    GstBuffer* out = push(h, frame);
    expect_meta_matches(out, reference_next(stage, frame, options), kW, kH, options,
                        to_string(f));
    const GstCclMeta* meta = meta_of(out);
    ASSERT_NE(meta, nullptr);
    EXPECT_EQ(meta->threshold, 0u) << "the model uses no level";
    if (i < kWarmUp) {
      // The first frame is learned as it is; then nothing changes.
      EXPECT_EQ(meta->total_count, 0u);
    } else {
      ASSERT_EQ(meta->total_count, 1u);
      ASSERT_EQ(meta->n_components, 1u);
      const GstCclComponent& c = meta->components[0];
      EXPECT_EQ(c.x, square_x(i));
      EXPECT_EQ(c.y, kSquareY);
      EXPECT_EQ(c.width, guint(kSquare));
      EXPECT_EQ(c.height, guint(kSquare));
      EXPECT_EQ(c.area, guint64(kSquare * kSquare));
    }
    gst_buffer_unref(out);

    if (i < kWarmUp) continue;
    // The same frame with one global level: the texture is what is found.
    GstBuffer* by_level = push(otsu, frame);
    const GstCclMeta* m = meta_of(by_level);
    ASSERT_NE(m, nullptr);
    guint64 labeled = 0;
    for (guint k = 0; k < m->n_components; ++k) labeled += m->components[k].area;
    EXPECT_GE(labeled, guint64(kW * kH / 4)) << "Otsu's level should take in the texture";
    for (guint k = 0; k < m->n_components; ++k) {
      const GstCclComponent& c = m->components[k];
      EXPECT_FALSE(c.x == square_x(i) && c.y == kSquareY && c.width == guint(kSquare) &&
                   c.height == guint(kSquare) && c.area == guint64(kSquare * kSquare))
          << "the square stood out from the texture by its level alone";
    }
    gst_buffer_unref(by_level);
  }
}

INSTANTIATE_TEST_SUITE_P(Formats, MovingSquare, ::testing::ValuesIn(test::all_formats()),
                         [](const ::testing::TestParamInfo<PixelFormat>& info) {
                           return std::string(to_string(info.param));
                         });

// ---- shadows ----

// A colored, slightly textured background; frame `shadowed` darkens a 16x16 patch to
// 60 % along its own color (for YUV: luma and the chroma's distance from 128).
Frame shadow_frame(PixelFormat f, bool shadowed) {
  constexpr int x0 = 40, y0 = 24, side = 16;
  return channel_frame(f, kW, kH, [&](int x, int y) {
    const int t = int(test::splitmix64(uint64_t(y / 4) * 1000 + uint64_t(x / 4)) % 40);
    Channels c = is_yuv(f) ? Channels{uint8_t(140 + t), 100, 170}
                           : Channels{uint8_t(180 + t), uint8_t(110 + t / 2), uint8_t(70 + t / 4)};
    const bool in = shadowed && x >= x0 && x < x0 + side && y >= y0 && y < y0 + side;
    if (!in) return c;
    auto dark = [](int v, int offset) { return uint8_t(offset + (v - offset) * 6 / 10); };
    if (is_yuv(f)) return Channels{dark(c.c0, 0), dark(c.c1, 128), dark(c.c2, 128)};
    return Channels{dark(c.c0, 0), dark(c.c1, 0), dark(c.c2, 0)};
  });
}

TEST(Shadows, ADarkerPatchOfTheBackgroundsColorIsForegroundOnlyWithoutShadowDetection) {
  SKIP_UNLESS_BACKEND_RUNS();
  for (PixelFormat f : {PixelFormat::RGBA, PixelFormat::NV12}) {
    for (bool detect : {true, false}) {
      SCOPED_TRACE(std::string(to_string(f)) + (detect ? " detect-shadows" : " no detection"));
      Harness h(std::string("foreground=background detect-shadows=") +
                (detect ? "true" : "false"));
      h.set_caps(f, kW, kH);
      Options options = background_options();
      options.background.detect_shadows = detect;
      ForegroundStage stage;
      for (int i = 0; i < kWarmUp; ++i) {
        const Frame frame = shadow_frame(f, false);
        GstBuffer* out = push(h, frame);
        expect_meta_matches(out, reference_next(stage, frame, options), kW, kH, options,
                            "warm-up");
        if (out) gst_buffer_unref(out);
      }
      const Frame frame = shadow_frame(f, true);
      GstBuffer* out = push(h, frame);
      expect_meta_matches(out, reference_next(stage, frame, options), kW, kH, options,
                          "shadowed");
      const GstCclMeta* meta = meta_of(out);
      ASSERT_NE(meta, nullptr);
      if (detect) {
        EXPECT_EQ(meta->total_count, 0u) << "the shadow was taken for an object";
      } else {
        ASSERT_EQ(meta->n_components, 1u);
        EXPECT_EQ(meta->components[0].x, 40);
        EXPECT_EQ(meta->components[0].y, 24);
        EXPECT_EQ(meta->components[0].area, 256u);
      }
      gst_buffer_unref(out);
    }
  }
}

// ---- resets ----

// Learns the texture, lets `reset` happen, then pushes the first frame with the square:
// its total component count.
guint first_count_after(const std::function<void(Harness&)>& reset, int width = kW) {
  Harness h("foreground=background");
  h.set_caps(PixelFormat::Gray8, kW, kH);
  for (int i = 0; i < kWarmUp; ++i) total_of(h, scene_frame(PixelFormat::Gray8, i));
  reset(h);
  return total_of(h, scene_frame(PixelFormat::Gray8, kWarmUp, width, kH));
}

void new_segment(Harness& h) {
  GstSegment segment;
  gst_segment_init(&segment, GST_FORMAT_TIME);
  ASSERT_TRUE(gst_harness_push_event(h.get(), gst_event_new_segment(&segment)));
}

TEST(ModelReset, WithoutAResetTheSquareIsFound) {
  SKIP_UNLESS_BACKEND_RUNS();
  EXPECT_EQ(first_count_after([](Harness&) {}), 1u);
}

TEST(ModelReset, AFlushMakesTheNextFrameTheBackground) {
  SKIP_UNLESS_BACKEND_RUNS();
  EXPECT_EQ(first_count_after([](Harness& h) {
              ASSERT_TRUE(gst_harness_push_event(h.get(), gst_event_new_flush_start()));
              ASSERT_TRUE(gst_harness_push_event(h.get(), gst_event_new_flush_stop(TRUE)));
              new_segment(h);
            }),
            0u);
}

TEST(ModelReset, StreamStartMakesTheNextFrameTheBackground) {
  SKIP_UNLESS_BACKEND_RUNS();
  EXPECT_EQ(first_count_after([](Harness& h) {
              ASSERT_TRUE(
                  gst_harness_push_event(h.get(), gst_event_new_stream_start("another stream")));
              new_segment(h);
            }),
            0u);
}

TEST(ModelReset, ANewFrameSizeMakesTheNextFrameTheBackground) {
  SKIP_UNLESS_BACKEND_RUNS();
  EXPECT_EQ(first_count_after(
                [](Harness& h) {
                  GstCaps* caps =
                      gst_caps_from_string(caps_string(PixelFormat::Gray8, kW + 8, kH).c_str());
                  ASSERT_TRUE(gst_harness_push_event(h.get(), gst_event_new_caps(caps)));
                  gst_caps_unref(caps);
                },
                kW + 8),
            0u);
}

TEST(ModelReset, TheSameCapsAgainKeepTheModel) {
  SKIP_UNLESS_BACKEND_RUNS();
  EXPECT_EQ(first_count_after([](Harness& h) {
              GstCaps* caps =
                  gst_caps_from_string((caps_string(PixelFormat::Gray8, kW, kH) + ",pixel-aspect-ratio=1/1").c_str());
              ASSERT_TRUE(gst_harness_push_event(h.get(), gst_event_new_caps(caps)));
              gst_caps_unref(caps);
            }),
            1u);
}

// ---- max-area and the cleanup, on the threshold ----

struct Rect {
  int x, y, w, h;
};

Frame rects_frame(PixelFormat f, int w, int h, const std::vector<Rect>& rects,
                  const std::vector<std::pair<int, int>>& dots = {}) {
  return channel_frame(f, w, h, [&](int x, int y) {
    bool in = false;
    for (const Rect& r : rects) in = in || (x >= r.x && x < r.x + r.w && y >= r.y && y < r.y + r.h);
    for (const auto& d : dots) in = in || (x == d.first && y == d.second);
    const uint8_t v = in ? 200 : 30;
    return is_yuv(f) ? Channels{v, 128, 128} : Channels{v, v, v};
  });
}

std::vector<guint64> reported_areas(GstBuffer* out) {
  std::vector<guint64> areas;
  const GstCclMeta* meta = meta_of(out);
  EXPECT_NE(meta, nullptr);
  if (meta)
    for (guint i = 0; i < meta->n_components; ++i) areas.push_back(meta->components[i].area);
  return areas;
}

TEST(MaxArea, ComponentsLargerAreCountedButNotReported) {
  SKIP_UNLESS_BACKEND_RUNS();
  // Areas 4, 100 and 400, in label order.
  const Frame frame =
      rects_frame(PixelFormat::Gray8, 64, 48, {{2, 2, 2, 2}, {10, 10, 10, 10}, {30, 20, 20, 20}});
  const struct {
    std::string props;
    uint64_t min_area, max_area;
    std::vector<guint64> areas;
  } cases[] = {
      {"", 1, 0, {4, 100, 400}},
      {"max-area=100", 1, 100, {4, 100}},
      {"max-area=99", 1, 99, {4}},
      {"max-area=400 min-area=5", 5, 400, {100, 400}},
      {"max-area=3", 1, 3, {}},
  };
  for (const auto& c : cases) {
    Harness h(c.props);
    h.set_caps(PixelFormat::Gray8, 64, 48);
    GstBuffer* out = push(h, frame);
    Options o = reference_options();
    o.min_area = c.min_area;
    o.max_area = c.max_area;
    expect_meta_matches_reference(out, frame, o, c.props);
    EXPECT_EQ(reported_areas(out), c.areas) << c.props;
    EXPECT_EQ(meta_of(out) ? meta_of(out)->total_count : 0u, 3u) << c.props;
    if (out) gst_buffer_unref(out);
  }
}

// The reference of a threshold frame with cleanup or a region (the stage's order:
// opening, closing, region).
Result cleaned_reference(const Frame& frame, const Options& o, const std::vector<uint8_t>& region = {},
                         int region_w = 0, int region_h = 0) {
  ForegroundStage stage;
  if (!region.empty()) stage.set_region(region.data(), region_w, region_h);
  return reference_next(stage, frame, o);
}

TEST(Cleanup, OpenRadiusRemovesIsolatedPixels) {
  SKIP_UNLESS_BACKEND_RUNS();
  for (PixelFormat f : {PixelFormat::Gray8, PixelFormat::NV12, PixelFormat::BGRx}) {
    const Frame frame =
        rects_frame(f, 64, 48, {{10, 10, 10, 10}, {40, 30, 1, 8}}, {{40, 5}, {50, 20}, {30, 40}});
    Harness plain;
    plain.set_caps(f, 64, 48);
    GstBuffer* out = push(plain, frame);
    EXPECT_EQ(reported_areas(out), (std::vector<guint64>{1, 100, 1, 8, 1})) << to_string(f);
    if (out) gst_buffer_unref(out);

    Harness h("open-radius=1");
    h.set_caps(f, 64, 48);
    out = push(h, frame);
    Options o = reference_options();
    o.open_radius = 1;
    expect_meta_matches(out, cleaned_reference(frame, o), 64, 48, o, to_string(f));
    // The dots and the 1-pixel line go; the square stays whole.
    EXPECT_EQ(reported_areas(out), (std::vector<guint64>{100})) << to_string(f);
    if (out) gst_buffer_unref(out);
  }
}

TEST(Cleanup, CloseRadiusFillsAOnePixelGap) {
  SKIP_UNLESS_BACKEND_RUNS();
  // Two 10x10 squares, column x = 20 between them.
  const Frame frame = rects_frame(PixelFormat::Gray8, 64, 48, {{10, 10, 10, 10}, {21, 10, 10, 10}});
  Harness plain;
  plain.set_caps(PixelFormat::Gray8, 64, 48);
  GstBuffer* out = push(plain, frame);
  EXPECT_EQ(reported_areas(out), (std::vector<guint64>{100, 100}));
  if (out) gst_buffer_unref(out);

  Harness h("close-radius=1");
  h.set_caps(PixelFormat::Gray8, 64, 48);
  out = push(h, frame);
  Options o = reference_options();
  o.close_radius = 1;
  expect_meta_matches(out, cleaned_reference(frame, o), 64, 48, o, "close-radius=1");
  const GstCclMeta* meta = meta_of(out);
  ASSERT_NE(meta, nullptr);
  ASSERT_EQ(meta->n_components, 1u);
  EXPECT_EQ(meta->components[0].area, 210u);
  EXPECT_EQ(meta->components[0].x, 10);
  EXPECT_EQ(meta->components[0].width, 21u);
  EXPECT_EQ(meta->components[0].height, 10u);
  gst_buffer_unref(out);
}

TEST(GroupGap, PiecesWithinTheGapAreOneComponentAndTheAreaLimitsApplyToIt) {
  SKIP_UNLESS_BACKEND_RUNS();
  // Three pieces of 60, 40 and 50 pixels: 6 empty columns between the first two, 3 rows
  // between the second and the third, 4 columns and 5 rows between the first and the
  // third; a fourth far away.
  const Frame frame = rects_frame(PixelFormat::Gray8, 96, 64,
                                  {{10, 10, 6, 10}, {22, 12, 4, 10}, {20, 25, 10, 5}, {70, 50, 3, 3}});
  const struct {
    std::string props;
    int gap;
    uint64_t min_area;
    std::vector<guint64> areas;
  } cases[] = {
      {"", -1, 1, {60, 40, 50, 9}},
      {"group-gap=3", 3, 1, {60, 90, 9}},
      {"group-gap=4", 4, 1, {60, 90, 9}},
      {"group-gap=5", 5, 1, {150, 9}},
      {"group-gap=5 min-area=100", 5, 100, {150}},
      {"group-gap=-1 min-area=100", -1, 100, {}},
  };
  for (const auto& c : cases) {
    Harness h(c.props);
    h.set_caps(PixelFormat::Gray8, 96, 64);
    GstBuffer* out = push(h, frame);
    Options o = reference_options();
    o.group_gap = c.gap;
    o.min_area = c.min_area;
    expect_meta_matches_reference(out, frame, o, c.props);
    EXPECT_EQ(reported_areas(out), c.areas) << c.props;
    if (c.gap == 5) {
      const GstCclMeta* meta = meta_of(out);
      ASSERT_NE(meta, nullptr);
      EXPECT_EQ(meta->total_count, 2u) << "total_count counts the groups";
      EXPECT_EQ(meta->components[0].x, 10);
      EXPECT_EQ(meta->components[0].y, 10);
      EXPECT_EQ(meta->components[0].width, 20u);
      EXPECT_EQ(meta->components[0].height, 20u);
    }
    if (out) gst_buffer_unref(out);
  }
}

// The scene of a lamp switched on: the texture of scene_frame, `light` times as bright.
Frame lit_frame(PixelFormat f, double light) {
  return channel_frame(f, kW, kH, [&](int x, int y) {
    // Light scales from black: 0 in RGB and gray, Y 16 in YUV.
    const int black = is_yuv(f) ? 16 : 0;
    const uint8_t v = uint8_t(std::min(255, black + int((texture(x, y) - black) * light + 0.5)));
    return is_yuv(f) ? Channels{v, 128, 128} : Channels{v, v, v};
  });
}

TEST(LightCompensation, ALampSwitchedOnIsNoObjectUnlessTurnedOff) {
  SKIP_UNLESS_BACKEND_RUNS();
  for (PixelFormat f : {PixelFormat::NV12, PixelFormat::RGBx, PixelFormat::Gray8}) {
    for (bool compensate : {true, false}) {
      const std::string props = std::string("foreground=background light-compensation=") +
                                (compensate ? "true" : "false");
      SCOPED_TRACE(std::string(to_string(f)) + " " + props);
      Harness h(props);
      h.set_caps(f, kW, kH);
      Options options = background_options();
      options.background.compensate_light = compensate;
      ForegroundStage stage;
      for (int i = 0; i < kWarmUp; ++i) {
        const Frame frame = lit_frame(f, 1.0);
        GstBuffer* out = push(h, frame);
        expect_meta_matches(out, reference_next(stage, frame, options), kW, kH, options, "warm-up");
        if (out) gst_buffer_unref(out);
      }
      for (int i = 0; i < 3; ++i) {
        const Frame frame = lit_frame(f, 1.35);
        GstBuffer* out = push(h, frame);
        expect_meta_matches(out, reference_next(stage, frame, options), kW, kH, options, "lit");
        const GstCclMeta* meta = meta_of(out);
        ASSERT_NE(meta, nullptr);
        guint64 largest = 0;
        for (guint k = 0; k < meta->n_components; ++k)
          largest = std::max<guint64>(largest, meta->components[k].area);
        if (compensate)
          EXPECT_LE(largest, guint64(kW * kH / 100)) << "frame " << i << " after the lamp";
        else if (i == 0)
          EXPECT_GT(largest, guint64(kW * kH / 4)) << "the lamp floods the frame";
        gst_buffer_unref(out);
      }
    }
  }
}

TEST(Cleanup, OpenRadiusAlsoCleansTheBackgroundModelsMask) {
  SKIP_UNLESS_BACKEND_RUNS();
  Harness h("foreground=background open-radius=1");
  h.set_caps(PixelFormat::Gray8, kW, kH);
  Options o = background_options();
  o.open_radius = 1;
  ForegroundStage stage;
  for (int i = 0; i <= kWarmUp; ++i) {
    Frame frame = scene_frame(PixelFormat::Gray8, i);
    // A speck beside the square in its first frame.
    if (i == kWarmUp) static_cast<uint8_t*>(frame.view.planes[0])[5 * kW + 80] = 255;
    GstBuffer* out = push(h, frame);
    expect_meta_matches(out, reference_next(stage, frame, o), kW, kH, o,
                        "frame " + std::to_string(i));
    if (i == kWarmUp) {
      EXPECT_EQ(reported_areas(out), (std::vector<guint64>{guint64(kSquare * kSquare)}));
    }
    if (out) gst_buffer_unref(out);
  }
}

// ---- mask-location ----

// A scratch folder for mask files, removed with its files.
class MaskFiles {
 public:
  MaskFiles() {
    gchar* dir = g_dir_make_tmp("cudaccl-mask-XXXXXX", nullptr);
    dir_ = dir ? dir : "";
    g_free(dir);
  }
  ~MaskFiles() {
    for (const std::string& f : files_) g_remove(f.c_str());
    if (!dir_.empty()) g_rmdir(dir_.c_str());
  }
  std::string path(const std::string& name) {
    std::string p = dir_ + "/" + name;
    files_.push_back(p);
    return p;
  }
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
  std::vector<std::string> files_;
};

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), std::streamsize(bytes.size()));
}

// allowed(x, y): whether the mask lets pixel (x, y) be foreground.
using Allowed = std::function<bool(int, int)>;

std::string write_pgm(MaskFiles& files, const std::string& name, int w, int h,
                      const Allowed& allowed, int maxval = 255, bool plain = false) {
  std::string data = std::string(plain ? "P2" : "P5") + "\n# a mask\n" + std::to_string(w) + " " +
                     std::to_string(h) + "\n" + std::to_string(maxval) + "\n";
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      // Allowed pixels take the smallest non-zero value: "non-zero", not "white".
      const int v = allowed(x, y) ? (maxval > 255 ? 1 : maxval) : 0;
      if (plain)
        data += std::to_string(v) + (x + 1 == w ? "\n" : " ");
      else if (maxval > 255)
        data += std::string{char(v >> 8), char(v & 255)};
      else
        data += char(v);
    }
  const std::string path = files.path(name);
  write_bytes(path, data);
  return path;
}

// channels: 1 gray, 3 RGB, 4 RGBA; pixel(x, y, allowed) gives the channel bytes.
std::string write_png(MaskFiles& files, const std::string& name, int w, int h, int channels,
                      const Allowed& allowed,
                      const std::function<std::vector<uint8_t>(bool)>& pixel) {
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  image.width = png_uint_32(w);
  image.height = png_uint_32(h);
  image.format = channels == 1 ? PNG_FORMAT_GRAY : channels == 3 ? PNG_FORMAT_RGB : PNG_FORMAT_RGBA;
  std::vector<uint8_t> data;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const std::vector<uint8_t> p = pixel(allowed(x, y));
      data.insert(data.end(), p.begin(), p.end());
    }
  const std::string path = files.path(name);
  EXPECT_TRUE(png_image_write_to_file(&image, path.c_str(), 0, data.data(), 0, nullptr))
      << image.message;
  return path;
}

constexpr int kMaskW = 64, kMaskH = 48;
// Two squares; the mask hides the left half, where the first one is.
const std::vector<Rect> kMaskRects = {{8, 8, 10, 10}, {40, 24, 10, 10}};
const Allowed kRightHalf = [](int x, int) { return x >= 32; };

std::vector<uint8_t> region_of(const Allowed& allowed, int w, int h) {
  std::vector<uint8_t> r(size_t(w) * h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) r[size_t(y) * w + x] = allowed(x, y) ? 1 : 0;
  return r;
}

// The frame with both squares through an element reading `path`: only the right one.
void expect_masked(Harness& h, const std::string& what) {
  SCOPED_TRACE(what);
  const Frame frame = rects_frame(PixelFormat::Gray8, kMaskW, kMaskH, kMaskRects);
  GstBuffer* out = push(h, frame);
  expect_meta_matches(out,
                      cleaned_reference(frame, reference_options(),
                                        region_of(kRightHalf, kMaskW, kMaskH), kMaskW, kMaskH),
                      kMaskW, kMaskH, reference_options(), what);
  const GstCclMeta* meta = meta_of(out);
  ASSERT_NE(meta, nullptr);
  ASSERT_EQ(meta->total_count, 1u);
  EXPECT_EQ(meta->components[0].x, 40);
  EXPECT_EQ(meta->components[0].y, 24);
  gst_buffer_unref(out);
}

TEST(MaskLocation, PgmAndPngFilesHideTheirBlackRegion) {
  SKIP_UNLESS_BACKEND_RUNS();
  MaskFiles files;
  ASSERT_FALSE(files.dir().empty());
  const std::vector<std::pair<std::string, std::string>> masks = {
      {"binary PGM", write_pgm(files, "mask.pgm", kMaskW, kMaskH, kRightHalf)},
      {"plain PGM", write_pgm(files, "plain.pgm", kMaskW, kMaskH, kRightHalf, 255, true)},
      {"16-bit PGM", write_pgm(files, "deep.pgm", kMaskW, kMaskH, kRightHalf, 65535)},
      {"gray PNG", write_png(files, "gray.png", kMaskW, kMaskH, 1, kRightHalf,
                             [](bool a) { return std::vector<uint8_t>{uint8_t(a ? 255 : 0)}; })},
      // One dim channel is enough.
      {"RGB PNG", write_png(files, "rgb.png", kMaskW, kMaskH, 3, kRightHalf,
                            [](bool a) { return std::vector<uint8_t>{0, 0, uint8_t(a ? 3 : 0)}; })},
      // Alpha is ignored: transparent but colored allows, opaque black hides.
      {"RGBA PNG", write_png(files, "rgba.png", kMaskW, kMaskH, 4, kRightHalf, [](bool a) {
         return a ? std::vector<uint8_t>{9, 0, 0, 0} : std::vector<uint8_t>{0, 0, 0, 255};
       })},
      // The content decides, not the name.
      {"PNG named .pgm", write_png(files, "really-png.pgm", kMaskW, kMaskH, 1, kRightHalf,
                                   [](bool a) { return std::vector<uint8_t>{uint8_t(a)}; })},
  };
  for (const auto& m : masks) {
    Harness h("mask-location=" + m.second);
    h.set_caps(PixelFormat::Gray8, kMaskW, kMaskH);
    expect_masked(h, m.first);
  }
}

TEST(MaskLocation, AppliesToTheBackgroundModelToo) {
  SKIP_UNLESS_BACKEND_RUNS();
  MaskFiles files;
  // Hides the square's path from x = 40 on.
  const Allowed left = [](int x, int) { return x < 40; };
  const std::string path = write_pgm(files, "left.pgm", kW, kH, left);
  Harness h("foreground=background mask-location=" + path);
  h.set_caps(PixelFormat::NV12, kW, kH);
  ForegroundStage stage;
  const std::vector<uint8_t> region = region_of(left, kW, kH);
  stage.set_region(region.data(), kW, kH);
  const Options o = background_options();
  for (int i = 0; i < kWarmUp + 7; ++i) {
    const Frame frame = scene_frame(PixelFormat::NV12, i);
    GstBuffer* out = push(h, frame);
    expect_meta_matches(out, reference_next(stage, frame, o), kW, kH, o,
                        "frame " + std::to_string(i));
    const GstCclMeta* meta = meta_of(out);
    ASSERT_NE(meta, nullptr);
    const int sx = square_x(i);
    const guint64 visible = sx < 0 ? 0 : guint64(std::max(0, std::min(sx + kSquare, 40) - sx)) * kSquare;
    EXPECT_EQ(meta->total_count, visible ? 1u : 0u) << "frame " << i;
    if (visible && meta->n_components) {
      EXPECT_EQ(meta->components[0].area, visible);
    }
    gst_buffer_unref(out);
  }
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Starts a bare element reading `location`: it must fail to start with `code`, naming
// the file; then, with a good mask, the same element labels.
void expect_start_error(const std::string& location, int code, const std::string& good_mask) {
  SCOPED_TRACE(location);
  GstElement* e = gst_element_factory_make("cudaccl", nullptr);
  ASSERT_NE(e, nullptr);
  GstBus* bus = gst_bus_new();
  gst_element_set_bus(e, bus);
  gst_util_set_object_arg(G_OBJECT(e), "backend", backend_under_test().c_str());
  g_object_set(e, "mask-location", location.c_str(), nullptr);
  EXPECT_EQ(gst_element_set_state(e, GST_STATE_PAUSED), GST_STATE_CHANGE_FAILURE);
  GstMessage* msg = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR);
  const ErrorMessage err = parse_error(msg);
  if (msg) gst_message_unref(msg);
  EXPECT_TRUE(err.posted) << "no error on the bus";
  EXPECT_EQ(err.domain, GST_RESOURCE_ERROR) << err.message;
  EXPECT_EQ(err.code, code) << err.message;
  EXPECT_TRUE(contains(err.message, location)) << err.message;
  gst_element_set_state(e, GST_STATE_NULL);
  gst_bus_set_flushing(bus, TRUE);
  gst_object_unref(bus);

  // Corrected: the same element, another file.
  g_object_set(e, "mask-location", good_mask.c_str(), nullptr);
  Harness h(e);
  gst_object_unref(e);
  h.set_caps(PixelFormat::Gray8, kMaskW, kMaskH);
  expect_masked(h, "after the correction");
  EXPECT_FALSE(pop_error(h).posted);
}

TEST(MaskLocation, AMissingFileIsANotFoundErrorNamingIt) {
  SKIP_UNLESS_BACKEND_RUNS();
  MaskFiles files;
  const std::string good = write_pgm(files, "good.pgm", kMaskW, kMaskH, kRightHalf);
  expect_start_error(files.dir() + "/no-such-mask.png", GST_RESOURCE_ERROR_NOT_FOUND, good);
}

TEST(MaskLocation, AnUnreadableFileIsAnOpenReadErrorNamingIt) {
  SKIP_UNLESS_BACKEND_RUNS();
  MaskFiles files;
  const std::string good = write_pgm(files, "good.pgm", kMaskW, kMaskH, kRightHalf);
  const std::string text = files.path("notes.txt");
  write_bytes(text, "not an image at all\n");
  expect_start_error(text, GST_RESOURCE_ERROR_OPEN_READ, good);
  // A PNG cut short, and a PGM whose samples stop early.
  std::string png;
  {
    std::ifstream in(write_png(files, "whole.png", kMaskW, kMaskH, 1, kRightHalf,
                               [](bool a) { return std::vector<uint8_t>{uint8_t(a ? 255 : 0)}; }),
                     std::ios::binary);
    png.assign(std::istreambuf_iterator<char>(in), {});
  }
  const std::string cut = files.path("cut.png");
  write_bytes(cut, png.substr(0, png.size() / 2));
  expect_start_error(cut, GST_RESOURCE_ERROR_OPEN_READ, good);
  const std::string short_pgm = files.path("short.pgm");
  write_bytes(short_pgm, "P5\n64 48\n255\n" + std::string(100, '\xff'));
  expect_start_error(short_pgm, GST_RESOURCE_ERROR_OPEN_READ, good);
  expect_start_error(files.dir(), GST_RESOURCE_ERROR_OPEN_READ, good);
}

TEST(MaskLocation, AMaskOfAnotherSizeIsAFormatErrorNamingBothSizes) {
  SKIP_UNLESS_BACKEND_RUNS();
  MaskFiles files;
  const std::string path = write_pgm(files, "small.pgm", kMaskW, kMaskH, kRightHalf);
  Harness h("mask-location=" + path);
  h.set_caps(PixelFormat::Gray8, 80, 60);
  GstFlowReturn flow = GST_FLOW_OK;
  EXPECT_EQ(h.process(buffer_from_frame(rects_frame(PixelFormat::Gray8, 80, 60, kMaskRects)),
                      &flow),
            nullptr);
  EXPECT_EQ(flow, GST_FLOW_NOT_NEGOTIATED);
  const ErrorMessage err = pop_error(h);
  ASSERT_TRUE(err.posted);
  EXPECT_EQ(err.domain, GST_STREAM_ERROR);
  EXPECT_EQ(err.code, GST_STREAM_ERROR_FORMAT);
  EXPECT_TRUE(contains(err.message, path)) << err.message;
  EXPECT_TRUE(contains(err.message, "64x48")) << err.message;
  EXPECT_TRUE(contains(err.message, "80x60")) << err.message;

  // Frames of the mask's size: labeled, with the mask applied.
  while (GstMessage* m = h.pop_message(GST_MESSAGE_ERROR)) gst_message_unref(m);
  GstCaps* caps = gst_caps_from_string(caps_string(PixelFormat::Gray8, kMaskW, kMaskH).c_str());
  ASSERT_TRUE(gst_harness_push_event(h.get(), gst_event_new_caps(caps)));
  gst_caps_unref(caps);
  expect_masked(h, "frames of the mask's size");
}

}  // namespace
}  // namespace ccl::element_test
