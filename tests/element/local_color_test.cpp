// The local threshold (foreground=local) and the color range (foreground=color)
// through the element: their properties (defaults, gst-launch syntax, refusals), the
// refusal of gray caps by the color range, and frames whose components must equal both
// the engine's CPU stage (ForegroundStage + label_binary, which the CUDA backend
// matches bit for bit) and an OpenCV oracle that shares no code with the engine:
// cv::adaptiveThreshold (MEAN_C) or cv::cvtColor to HSV + cv::inRange, then
// cv::connectedComponentsWithStats. The cleanup (open-radius, close-radius, min-area,
// max-area, mask-location) is checked to apply to both models.
#include <glib/gstdio.h>
#include <gtest/gtest.h>

#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <fstream>
#include <string>
#include <tuple>
#include <vector>

#include "ccl/foreground.h"
#include "element_util.h"

namespace ccl::element_test {
namespace {

using test::Frame;
using test::GrayImage;

GParamSpec* pspec(GstElement* e, const char* name) {
  return g_object_class_find_property(G_OBJECT_GET_CLASS(e), name);
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Counts the warnings of refused property values: GObject's own (range, type) and the
// element's (an even block-size, a color bound of the wrong count or hue).
class WarningCounter {
 public:
  WarningCounter() {
    gobject_id_ = g_log_set_handler("GLib-GObject", kLevels, count, &gobject);
    element_id_ = g_log_set_handler(nullptr, kLevels, count, &element);
  }
  ~WarningCounter() {
    g_log_remove_handler("GLib-GObject", gobject_id_);
    g_log_remove_handler(nullptr, element_id_);
  }
  int gobject = 0;
  int element = 0;

 private:
  static constexpr GLogLevelFlags kLevels =
      GLogLevelFlags(G_LOG_LEVEL_WARNING | G_LOG_LEVEL_CRITICAL);
  static void count(const gchar*, GLogLevelFlags, const gchar*, gpointer n) {
    ++*static_cast<int*>(n);
  }
  guint gobject_id_ = 0, element_id_ = 0;
};

using Hsv = std::vector<int>;

Hsv get_bounds(GstElement* e, const char* name) {
  GValue v = G_VALUE_INIT;
  g_value_init(&v, GST_TYPE_ARRAY);
  g_object_get_property(G_OBJECT(e), name, &v);
  Hsv out;
  for (guint i = 0; i < gst_value_array_get_size(&v); ++i) {
    const GValue* item = gst_value_array_get_value(&v, i);
    out.push_back(G_VALUE_HOLDS_INT(item) ? g_value_get_int(item) : -1000);
  }
  g_value_unset(&v);
  return out;
}

// Sets a bound from integers, as an application would (g_object_set_property).
void set_bounds(GstElement* e, const char* name, const Hsv& values) {
  GValue v = G_VALUE_INIT, item = G_VALUE_INIT;
  g_value_init(&v, GST_TYPE_ARRAY);
  g_value_init(&item, G_TYPE_INT);
  for (int x : values) {
    g_value_set_int(&item, x);
    gst_value_array_append_value(&v, &item);
  }
  g_object_set_property(G_OBJECT(e), name, &v);
  g_value_unset(&item);
  g_value_unset(&v);
}

// ---- properties ----

TEST(LocalColorProperties, DefaultsRangesAndBlurbs) {
  GstElement* e = gst_element_factory_make("cudaccl", nullptr);
  ASSERT_NE(e, nullptr);
  gint block_size = 0;
  gdouble offset = 0;
  g_object_get(e, "block-size", &block_size, "offset", &offset, nullptr);
  EXPECT_EQ(block_size, 31);
  EXPECT_DOUBLE_EQ(offset, 10.0);
  EXPECT_EQ(get_bounds(e, "color-low"), (Hsv{0, 0, 0}));
  EXPECT_EQ(get_bounds(e, "color-high"), (Hsv{179, 255, 255}));

  GEnumClass* models = G_PARAM_SPEC_ENUM(pspec(e, "foreground"))->enum_class;
  ASSERT_EQ(models->n_values, 4u);
  // The values are ccl::ForegroundModel's order: existing ones keep theirs.
  EXPECT_EQ(g_enum_get_value_by_nick(models, "threshold")->value, 0);
  EXPECT_EQ(g_enum_get_value_by_nick(models, "background")->value, 1);
  ASSERT_NE(g_enum_get_value_by_nick(models, "local"), nullptr);
  ASSERT_NE(g_enum_get_value_by_nick(models, "color"), nullptr);
  EXPECT_EQ(g_enum_get_value_by_nick(models, "local")->value, 2);
  EXPECT_EQ(g_enum_get_value_by_nick(models, "color")->value, 3);

  auto* bs = G_PARAM_SPEC_INT(pspec(e, "block-size"));
  EXPECT_EQ(bs->minimum, 3);
  EXPECT_EQ(bs->maximum, 255);
  auto* off = G_PARAM_SPEC_DOUBLE(pspec(e, "offset"));
  EXPECT_EQ(off->minimum, -255.0);
  EXPECT_EQ(off->maximum, 255.0);
  for (const char* name : {"color-low", "color-high"}) {
    GParamSpec* p = pspec(e, name);
    ASSERT_TRUE(GST_IS_PARAM_SPEC_ARRAY_LIST(p)) << name;
    GParamSpec* item = GST_PARAM_SPEC_ARRAY_LIST(p)->element_spec;
    ASSERT_NE(item, nullptr) << name;
    EXPECT_EQ(G_PARAM_SPEC_VALUE_TYPE(item), G_TYPE_INT) << name;
    // The gst-launch syntax is in the blurb.
    EXPECT_TRUE(contains(g_param_spec_get_blurb(p), "=\"<H,S,V>\"")) << name;
    EXPECT_TRUE((p->flags & GST_PARAM_MUTABLE_PLAYING)) << name;
  }
  EXPECT_TRUE(contains(g_param_spec_get_blurb(pspec(e, "color-low")),
                       "color-low=\"<170,120,70>\" color-high=\"<10,255,255>\""));
  for (const char* name : {"block-size", "offset"}) {
    EXPECT_GT(strlen(g_param_spec_get_blurb(pspec(e, name))), 80u) << name;
    EXPECT_TRUE((pspec(e, name)->flags & GST_PARAM_MUTABLE_PLAYING)) << name;
  }
  gst_object_unref(e);
}

TEST(LocalColorProperties, ValuesRoundTripAndGstLaunchSyntaxWorks) {
  GstElement* e = gst_element_factory_make("cudaccl", nullptr);
  ASSERT_NE(e, nullptr);
  WarningCounter warnings;
  for (int size : {3, 5, 101, 253, 255}) {
    g_object_set(e, "block-size", size, nullptr);
    gint got = 0;
    g_object_get(e, "block-size", &got, nullptr);
    EXPECT_EQ(got, size);
  }
  for (double offset : {-255.0, -7.25, 0.0, 2.5, 255.0}) {
    g_object_set(e, "offset", offset, nullptr);
    gdouble got = 0;
    g_object_get(e, "offset", &got, nullptr);
    EXPECT_DOUBLE_EQ(got, offset);
  }
  // gst-launch-1.0 and gst_parse_launch go through gst_util_set_object_arg.
  gst_util_set_object_arg(G_OBJECT(e), "color-low", "<170,120,70>");
  gst_util_set_object_arg(G_OBJECT(e), "color-high", "<10,255,255>");
  EXPECT_EQ(get_bounds(e, "color-low"), (Hsv{170, 120, 70}));
  EXPECT_EQ(get_bounds(e, "color-high"), (Hsv{10, 255, 255}));
  set_bounds(e, "color-low", {179, 0, 255});
  set_bounds(e, "color-high", {0, 255, 255});
  EXPECT_EQ(get_bounds(e, "color-low"), (Hsv{179, 0, 255}));
  EXPECT_EQ(get_bounds(e, "color-high"), (Hsv{0, 255, 255}));
  gst_util_set_object_arg(G_OBJECT(e), "foreground", "local");
  gint fg = -1;
  g_object_get(e, "foreground", &fg, nullptr);
  EXPECT_EQ(fg, 2);
  gst_util_set_object_arg(G_OBJECT(e), "foreground", "color");
  g_object_get(e, "foreground", &fg, nullptr);
  EXPECT_EQ(fg, 3);
  EXPECT_EQ(warnings.gobject + warnings.element, 0);
  gst_object_unref(e);

  // The whole launch line, as the docs write it.
  GError* error = nullptr;
  GstElement* parsed = gst_parse_launch(
      "cudaccl foreground=color color-low=\"<170,120,70>\" color-high=\"<10,255,255>\" "
      "block-size=15 offset=-2.5",
      &error);
  ASSERT_NE(parsed, nullptr) << (error ? error->message : "");
  g_clear_error(&error);
  EXPECT_EQ(get_bounds(parsed, "color-low"), (Hsv{170, 120, 70}));
  EXPECT_EQ(get_bounds(parsed, "color-high"), (Hsv{10, 255, 255}));
  gint size = 0;
  gdouble offset = 0;
  g_object_get(parsed, "block-size", &size, "offset", &offset, nullptr);
  EXPECT_EQ(size, 15);
  EXPECT_DOUBLE_EQ(offset, -2.5);
  gst_object_unref(parsed);
}

TEST(LocalColorProperties, InvalidValuesAreRefusedWithAWarningAndTheOldValueKept) {
  GstElement* e = gst_element_factory_make("cudaccl", nullptr);
  ASSERT_NE(e, nullptr);
  g_object_set(e, "block-size", 51, "offset", 4.5, nullptr);
  set_bounds(e, "color-low", {20, 80, 80});
  set_bounds(e, "color-high", {40, 255, 255});
  {
    WarningCounter warnings;
    // Out of the spec's range: GObject refuses them.
    g_object_set(e, "block-size", 1, nullptr);
    g_object_set(e, "block-size", 257, nullptr);
    g_object_set(e, "offset", 255.5, nullptr);
    g_object_set(e, "offset", -300.0, nullptr);
    set_bounds(e, "color-low", {20, 256, 80});
    set_bounds(e, "color-high", {40, -1, 255});
    EXPECT_EQ(warnings.gobject, 6);
    EXPECT_EQ(warnings.element, 0);
  }
  {
    WarningCounter warnings;
    // Within the spec but not a window: the element refuses them.
    for (int even : {4, 30, 254}) g_object_set(e, "block-size", even, nullptr);
    // Not three values, or a hue over 179.
    set_bounds(e, "color-low", {20, 80});
    set_bounds(e, "color-high", {40, 255, 255, 0});
    set_bounds(e, "color-high", {});
    set_bounds(e, "color-low", {180, 80, 80});
    gst_util_set_object_arg(G_OBJECT(e), "color-high", "<200,255,255>");
    EXPECT_EQ(warnings.element, 8);
    EXPECT_EQ(warnings.gobject, 0);
  }
  gint size = 0;
  gdouble offset = 0;
  g_object_get(e, "block-size", &size, "offset", &offset, nullptr);
  EXPECT_EQ(size, 51);
  EXPECT_DOUBLE_EQ(offset, 4.5);
  EXPECT_EQ(get_bounds(e, "color-low"), (Hsv{20, 80, 80}));
  EXPECT_EQ(get_bounds(e, "color-high"), (Hsv{40, 255, 255}));
  gst_object_unref(e);
}

// ---- the OpenCV oracle ----

// A component as both sides can state it: box and area. (Labels and moments are the
// reference comparison's job.)
using Box = std::tuple<int, int, int, int, uint64_t>;

std::vector<Box> oracle_boxes(const cv::Mat& mask) {
  cv::Mat labels, stats, centroids;
  const int n = cv::connectedComponentsWithStats(mask, labels, stats, centroids, 8, CV_32S);
  std::vector<Box> out;
  for (int i = 1; i < n; ++i)
    out.emplace_back(stats.at<int>(i, cv::CC_STAT_LEFT), stats.at<int>(i, cv::CC_STAT_TOP),
                     stats.at<int>(i, cv::CC_STAT_WIDTH), stats.at<int>(i, cv::CC_STAT_HEIGHT),
                     uint64_t(stats.at<int>(i, cv::CC_STAT_AREA)));
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<Box> meta_boxes(GstBuffer* out) {
  std::vector<Box> boxes;
  const GstCclMeta* meta = out ? gst_ccl_meta_get(out) : nullptr;
  EXPECT_NE(meta, nullptr);
  if (!meta) return boxes;
  EXPECT_EQ(meta->n_components, meta->total_count) << "every component should be reported";
  for (guint i = 0; i < meta->n_components; ++i) {
    const GstCclComponent& c = meta->components[i];
    boxes.emplace_back(c.x, c.y, int(c.width), int(c.height), uint64_t(c.area));
  }
  std::sort(boxes.begin(), boxes.end());
  return boxes;
}

std::string describe(const std::vector<Box>& boxes) {
  std::string s = std::to_string(boxes.size()) + " components:";
  for (size_t i = 0; i < boxes.size() && i < 8; ++i) {
    const auto& [x, y, w, h, a] = boxes[i];
    s += " (" + std::to_string(x) + "," + std::to_string(y) + " " + std::to_string(w) + "x" +
         std::to_string(h) + " area " + std::to_string(a) + ")";
  }
  return s + (boxes.size() > 8 ? " ..." : "");
}

// cv::adaptiveThreshold of the frame's luma, given as the gray image it was made from
// (make_frame: every format's luma is that image exactly, GRAY16_LE's high byte too).
cv::Mat adaptive_mask(const GrayImage& g, ThresholdMode mode, int block_size, double offset) {
  const cv::Mat luma(g.height, g.width, CV_8U, const_cast<uint8_t*>(g.pixels.data()));
  cv::Mat mask;
  cv::adaptiveThreshold(luma, mask, 255, cv::ADAPTIVE_THRESH_MEAN_C,
                        mode == ThresholdMode::Below ? cv::THRESH_BINARY_INV : cv::THRESH_BINARY,
                        block_size, offset);
  return mask;
}

// OpenCV's HSV of a color frame: its own conversions from the frame's bytes.
cv::Mat opencv_hsv(const Frame& frame) {
  const int w = frame.view.width, h = frame.view.height;
  const std::vector<std::vector<uint8_t>> planes = read_planes(frame);
  cv::Mat rgb, hsv;
  switch (frame.view.format) {
    case PixelFormat::RGBA:
    case PixelFormat::RGBx:
      cv::cvtColor(cv::Mat(h, w, CV_8UC4, const_cast<uint8_t*>(planes[0].data())), rgb,
                   cv::COLOR_RGBA2RGB);
      cv::cvtColor(rgb, hsv, cv::COLOR_RGB2HSV);
      return hsv;
    case PixelFormat::BGRA:
    case PixelFormat::BGRx:
      cv::cvtColor(cv::Mat(h, w, CV_8UC4, const_cast<uint8_t*>(planes[0].data())), rgb,
                   cv::COLOR_BGRA2BGR);
      cv::cvtColor(rgb, hsv, cv::COLOR_BGR2HSV);
      return hsv;
    case PixelFormat::I420:
    case PixelFormat::NV12: {
      // One buffer of h * 3/2 rows of w bytes: the layout OpenCV's YUV conversions take
      // (even sizes only).
      std::vector<uint8_t> yuv;
      for (const auto& p : planes) yuv.insert(yuv.end(), p.begin(), p.end());
      const cv::Mat packed(h * 3 / 2, w, CV_8U, yuv.data());
      cv::cvtColor(packed, rgb,
                   frame.view.format == PixelFormat::I420 ? cv::COLOR_YUV2RGB_I420
                                                          : cv::COLOR_YUV2RGB_NV12);
      cv::cvtColor(rgb, hsv, cv::COLOR_RGB2HSV);
      return hsv;
    }
    default:
      ADD_FAILURE() << "no HSV for " << to_string(frame.view.format);
      return hsv;
  }
}

cv::Mat range_mask(const cv::Mat& hsv, const Hsv& low, const Hsv& high) {
  cv::Mat mask;
  if (low[0] <= high[0]) {
    cv::inRange(hsv, cv::Scalar(low[0], low[1], low[2]), cv::Scalar(high[0], high[1], high[2]),
                mask);
  } else {  // wraps around red: two hue intervals
    cv::Mat upper, lower;
    cv::inRange(hsv, cv::Scalar(low[0], low[1], low[2]), cv::Scalar(179, high[1], high[2]), upper);
    cv::inRange(hsv, cv::Scalar(0, low[1], low[2]), cv::Scalar(high[0], high[1], high[2]), lower);
    cv::bitwise_or(upper, lower, mask);
  }
  return mask;
}

// ---- helpers ----

Result reference_next(ForegroundStage& stage, const Frame& frame, const Options& options) {
  Result r;
  reference_label(frame.view, options, stage, r);
  return r;
}

Result reference_once(const Frame& frame, const Options& options) {
  ForegroundStage stage;
  return reference_next(stage, frame, options);
}

GstBuffer* push(Harness& h, const Frame& frame) {
  GstFlowReturn flow = GST_FLOW_OK;
  GstBuffer* out = h.process(buffer_from_frame(frame), &flow);
  EXPECT_NE(out, nullptr) << "flow " << gst_flow_get_name(flow);
  return out;
}

std::string hsv_arg(const Hsv& v) {
  return "\"<" + std::to_string(v[0]) + "," + std::to_string(v[1]) + "," + std::to_string(v[2]) +
         ">\"";
}

// The frame rows repacked with `extra` bytes of padding after each (alternating 0x00 and
// 0xFF: read as pixels they would change the result).
Frame padded(const Frame& in, size_t extra) {
  Frame f;
  f.view = in.view;
  const std::vector<std::vector<uint8_t>> planes = read_planes(in);
  for (size_t p = 0; p < planes.size(); ++p) {
    const size_t rows = p == 0 ? size_t(in.view.height) : size_t(in.view.height + 1) / 2;
    const size_t row_bytes = planes[p].size() / rows, stride = row_bytes + extra;
    std::vector<uint8_t> plane(stride * rows);
    for (size_t y = 0; y < rows; ++y) {
      std::copy_n(planes[p].begin() + long(y * row_bytes), row_bytes, plane.begin() + long(y * stride));
      for (size_t i = 0; i < extra; ++i) plane[y * stride + row_bytes + i] = (i & 1) ? 0x00 : 0xFF;
    }
    f.storage.push_back(std::move(plane));
    f.view.strides[p] = stride;
  }
  for (size_t p = 0; p < f.storage.size(); ++p) f.view.planes[p] = f.storage[p].data();
  return f;
}

// ---- foreground=local ----

// Uneven light: luma rising from 30 on the left to 230 on the right (and a little
// downwards), with a 4 x 3 grid of 6x6 squares 40 levels darker (dark) or brighter
// (bright) than the light around them. Odd size, so the last columns and rows are
// nobody's multiple.
constexpr int kLw = 101, kLh = 67, kSquares = 12;

int light(int x, int y) { return 30 + 200 * x / (kLw - 1) + 10 * y / (kLh - 1); }

bool in_square(int x, int y) {
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 3; ++j) {
      const int x0 = 6 + 24 * i, y0 = 8 + 20 * j;
      if (x >= x0 && x < x0 + 6 && y >= y0 && y < y0 + 6) return true;
    }
  return false;
}

GrayImage uneven_page(bool bright, const std::vector<std::pair<int, int>>& specks = {}) {
  GrayImage g;
  g.name = bright ? "uneven, bright squares" : "uneven, dark squares";
  g.width = kLw;
  g.height = kLh;
  g.pixels.resize(size_t(kLw) * kLh);
  for (int y = 0; y < kLh; ++y)
    for (int x = 0; x < kLw; ++x) {
      int v = light(x, y);
      if (in_square(x, y)) v += bright ? 40 : -40;
      for (const auto& s : specks)
        if (s.first == x && s.second == y) v += bright ? 40 : -40;
      g.pixels[size_t(y) * kLw + x] = uint8_t(std::clamp(v, 0, 255));
    }
  return g;
}

Options local_options(ThresholdMode mode, int block_size, double offset) {
  Options o = reference_options(128, mode);
  o.foreground = ForegroundModel::Local;
  o.local.block_size = block_size;
  o.local.offset = offset;
  return o;
}

struct LocalCase {
  bool bright;
  ThresholdMode mode;
  int block_size;
  double offset;
  // Whether the 12 squares are what a window of this size finds (3 finds their rims,
  // still 12 components; 255 spans the frame and behaves like one global level; with
  // 51 and an offset near 0 the repeated left edge, below its window's mean, joins in).
  bool finds_squares;
};

std::string name_of(const LocalCase& c) {
  return std::string(c.bright ? "bright" : "dark") + " " + to_string(c.mode) +
         " block-size=" + std::to_string(c.block_size) + " offset=" + std::to_string(c.offset);
}

const LocalCase kLocalCases[] = {
    {false, ThresholdMode::Below, 31, 10, true},   {false, ThresholdMode::Below, 3, 10, true},
    {false, ThresholdMode::Below, 15, 9.5, true},  {false, ThresholdMode::Below, 51, 0.25, false},
    {false, ThresholdMode::Below, 255, 10, false}, {true, ThresholdMode::Above, 31, -10, true},
    {true, ThresholdMode::Above, 17, -9.5, true},  {true, ThresholdMode::Above, 255, -3.75, false},
};

class LocalThreshold : public ::testing::TestWithParam<PixelFormat> {};

TEST_P(LocalThreshold, EqualsAdaptiveThresholdAndTheEngineInUnevenLight) {
  SKIP_UNLESS_BACKEND_RUNS();
  const PixelFormat f = GetParam();
  for (const LocalCase& c : kLocalCases) {
    const std::string what = std::string(to_string(f)) + " " + name_of(c);
    SCOPED_TRACE(what);
    const GrayImage g = uneven_page(c.bright);
    const Frame frame = test::make_frame(g, f, 12);
    Harness h("foreground=local threshold-mode=" + std::string(to_string(c.mode)) +
              " block-size=" + std::to_string(c.block_size) +
              " offset=" + std::to_string(c.offset));
    h.set_caps(f, kLw, kLh);
    GstBuffer* out = push(h, frame);
    const Options o = local_options(c.mode, c.block_size, c.offset);
    expect_meta_matches(out, reference_once(frame, o), kLw, kLh, o, what);
    const std::vector<Box> want = oracle_boxes(adaptive_mask(g, c.mode, c.block_size, c.offset));
    const std::vector<Box> got = meta_boxes(out);
    EXPECT_EQ(got, want) << "element: " << describe(got) << "\nOpenCV: " << describe(want);
    if (c.finds_squares) {
      EXPECT_EQ(got.size(), size_t(kSquares)) << describe(got);
      for (const Box& b : got) {
        EXPECT_EQ(std::get<2>(b), 6);
        EXPECT_EQ(std::get<3>(b), 6);
      }
    }
    if (out) gst_buffer_unref(out);
  }
}

INSTANTIATE_TEST_SUITE_P(Formats, LocalThreshold, ::testing::ValuesIn(test::all_formats()),
                         [](const ::testing::TestParamInfo<PixelFormat>& info) {
                           return std::string(to_string(info.param));
                         });

TEST(LocalThreshold, FindsTheSquaresWhereOneGlobalLevelCannot) {
  SKIP_UNLESS_BACKEND_RUNS();
  const GrayImage g = uneven_page(false);
  const Frame frame = test::make_frame(g, PixelFormat::Gray8);
  Harness local("foreground=local threshold-mode=below");
  Harness otsu("threshold-mode=otsu");
  local.set_caps(PixelFormat::Gray8, kLw, kLh);
  otsu.set_caps(PixelFormat::Gray8, kLw, kLh);
  GstBuffer* a = push(local, frame);
  GstBuffer* b = push(otsu, frame);
  EXPECT_EQ(meta_boxes(a).size(), size_t(kSquares));
  // Otsu's level splits the light, not the squares: its largest component is a good part
  // of the bright side.
  uint64_t largest = 0;
  for (const Box& box : meta_boxes(b)) largest = std::max(largest, std::get<4>(box));
  EXPECT_GT(largest, uint64_t(kLw * kLh / 4));
  if (a) gst_buffer_unref(a);
  if (b) gst_buffer_unref(b);
}

TEST(LocalThreshold, ARealPageUnderALamp) {
  SKIP_UNLESS_BACKEND_RUNS();
  std::string why;
  const std::vector<GrayImage> real = test::real_images(&why);
  if (real.empty()) GTEST_SKIP() << "no real images: " << why;
  // skimage's page.png: a photographed book page, lit from one side; the cache holds it
  // inverted (ink bright), so bright ink over its window mean: above, negative offset.
  const auto page = std::find_if(real.begin(), real.end(),
                                 [](const GrayImage& g) { return g.name == "skimage_page"; });
  ASSERT_NE(page, real.end()) << "the real-image cache has no skimage_page";
  for (PixelFormat f : {PixelFormat::Gray8, PixelFormat::BGRx, PixelFormat::I420}) {
    SCOPED_TRACE(to_string(f));
    const Frame frame = test::make_frame(*page, f);
    Harness h("foreground=local block-size=31 offset=-10");
    h.set_caps(f, page->width, page->height);
    GstBuffer* out = push(h, frame);
    const Options o = local_options(ThresholdMode::Above, 31, -10);
    expect_meta_matches(out, reference_once(frame, o), page->width, page->height, o, "page");
    const std::vector<Box> want = oracle_boxes(adaptive_mask(*page, ThresholdMode::Above, 31, -10));
    EXPECT_EQ(meta_boxes(out), want) << "OpenCV: " << describe(want);
    // Letters, not the dim half of the page as one blob.
    EXPECT_GT(want.size(), 150u);
    for (const Box& b : want) EXPECT_LT(std::get<4>(b), uint64_t(page->width * page->height / 50));
    if (out) gst_buffer_unref(out);
  }
}

TEST(LocalThreshold, OtsuModeIsASettingsErrorNamingIt) {
  SKIP_UNLESS_BACKEND_RUNS();
  Harness h("foreground=local threshold-mode=otsu");
  h.set_caps(PixelFormat::Gray8, kLw, kLh);
  GstFlowReturn flow = GST_FLOW_OK;
  EXPECT_EQ(h.process(buffer_from_frame(test::make_frame(uneven_page(false), PixelFormat::Gray8)),
                      &flow),
            nullptr);
  EXPECT_EQ(flow, GST_FLOW_ERROR);
  const ErrorMessage err = pop_error(h);
  ASSERT_TRUE(err.posted);
  EXPECT_EQ(err.domain, GST_LIBRARY_ERROR);
  EXPECT_EQ(err.code, GST_LIBRARY_ERROR_SETTINGS);
  EXPECT_TRUE(contains(err.debug, "otsu")) << err.debug;
}

TEST(LocalThreshold, CanBeChosenWhilePlaying) {
  SKIP_UNLESS_BACKEND_RUNS();
  const GrayImage g = uneven_page(false);
  const Frame frame = test::make_frame(g, PixelFormat::NV12);
  Harness h("threshold-mode=below threshold=100");
  h.set_caps(PixelFormat::NV12, kLw, kLh);
  GstBuffer* out = push(h, frame);
  const std::vector<Box> global = meta_boxes(out);
  if (out) gst_buffer_unref(out);
  gst_util_set_object_arg(G_OBJECT(h.element()), "foreground", "local");
  g_object_set(h.element(), "block-size", 21, "offset", 12.0, nullptr);
  out = push(h, frame);
  const Options o = local_options(ThresholdMode::Below, 21, 12);
  expect_meta_matches(out, reference_once(frame, o), kLw, kLh, o, "after the switch");
  EXPECT_EQ(meta_boxes(out).size(), size_t(kSquares));
  EXPECT_NE(meta_boxes(out), global);
  if (out) gst_buffer_unref(out);
}

// ---- foreground=color ----

// A muted, slightly warm background with: a red disc (hue 177: only a range that wraps
// takes it with the orange-red one), an orange-red disc (hue 5), a green square (hue
// 64), a blue disc (hue 116), a dark red disc (value 60) and a pale pink disc
// (saturation 46). Even size: OpenCV's YUV conversions take nothing else.
constexpr int kCw = 96, kCh = 64;

struct Rgb3 {
  int r, g, b;
};

bool in_disc(int x, int y, int cx, int cy, int radius) {
  return (x - cx) * (x - cx) + (y - cy) * (y - cy) <= radius * radius;
}

Rgb3 scene_rgb(int x, int y, const std::vector<std::pair<int, int>>& red_specks) {
  for (const auto& s : red_specks)
    if (s.first == x && s.second == y) return {200, 30, 45};
  if (in_disc(x, y, 16, 16, 9)) return {200, 30, 45};
  if (in_disc(x, y, 44, 16, 8)) return {210, 60, 30};
  if (x >= 66 && x < 84 && y >= 6 && y < 24) return {40, 180, 60};
  if (in_disc(x, y, 16, 46, 9)) return {50, 70, 200};
  if (in_disc(x, y, 44, 46, 8)) return {60, 10, 12};
  if (in_disc(x, y, 74, 46, 9)) return {220, 180, 185};
  return {90 + x / 3, 88, 80};
}

// Limited-range BT.601, the inverse of OpenCV's YUV to RGB (close enough: the oracle
// converts back the bytes written, whatever they are).
Channels to_yuv(const Rgb3& c) {
  auto clamp8 = [](double v) { return uint8_t(std::clamp(int(std::lround(v)), 0, 255)); };
  return {clamp8(16 + 0.257 * c.r + 0.504 * c.g + 0.098 * c.b),
          clamp8(128 - 0.148 * c.r - 0.291 * c.g + 0.439 * c.b),
          clamp8(128 + 0.439 * c.r - 0.368 * c.g - 0.071 * c.b)};
}

Frame color_scene(PixelFormat f, const std::vector<std::pair<int, int>>& red_specks = {},
                  int split_column = -1) {
  const bool yuv = f == PixelFormat::NV12 || f == PixelFormat::I420;
  return channel_frame(f, kCw, kCh, [&](int x, int y) {
    Rgb3 c = scene_rgb(x, y, red_specks);
    if (x == split_column) c = {90 + x / 3, 88, 80};
    return yuv ? to_yuv(c) : Channels{uint8_t(c.r), uint8_t(c.g), uint8_t(c.b)};
  });
}

const std::vector<PixelFormat> kColorFormats = {PixelFormat::RGBA, PixelFormat::BGRA,
                                                PixelFormat::RGBx, PixelFormat::BGRx,
                                                PixelFormat::NV12, PixelFormat::I420};

Options color_options(const Hsv& low, const Hsv& high) {
  Options o = reference_options();
  o.foreground = ForegroundModel::Color;
  for (int i = 0; i < 3; ++i) {
    o.color.low[i] = low[i];
    o.color.high[i] = high[i];
  }
  return o;
}

struct ColorCase {
  std::string what;
  Hsv low, high;
  // The scene's objects the range must take (as components).
  size_t objects;
  // Whether that count holds for NV12 and I420 too: bounds close to the discs' own S or
  // V cut fragments off their edges, where 4:2:0 chroma mixes disc and background
  // (their masks are still compared with OpenCV's).
  bool count_in_yuv = true;
};

const ColorCase kColorCases[] = {
    {"red, wrapping", {170, 120, 70}, {10, 255, 255}, 2},
    {"red without the wrap: the orange-red disc only", {0, 120, 70}, {10, 255, 255}, 1},
    {"hue 170-179 only: the red disc", {170, 120, 70}, {179, 255, 255}, 1},
    {"green", {50, 100, 60}, {75, 255, 255}, 1},
    {"blue", {105, 100, 60}, {125, 255, 255}, 1},
    {"any dark-enough saturated color, wrapping everywhere", {1, 120, 100}, {0, 255, 255}, 4},
    // The red disc has S 217 and V 200, the orange-red one S 219 and V 210.
    {"red, value at most 205: the red disc", {170, 120, 70}, {10, 255, 205}, 1, false},
    {"red, saturation from 218: the orange-red disc", {170, 218, 70}, {10, 255, 255}, 1, false},
};

class ColorRange : public ::testing::TestWithParam<PixelFormat> {};

TEST_P(ColorRange, EqualsCvtColorAndInRangeAndTheEngine) {
  SKIP_UNLESS_BACKEND_RUNS();
  const PixelFormat f = GetParam();
  const Frame frame = padded(color_scene(f), 8);
  const cv::Mat hsv = opencv_hsv(frame);
  for (const ColorCase& c : kColorCases) {
    const std::string what = std::string(to_string(f)) + " " + c.what;
    SCOPED_TRACE(what);
    Harness h("foreground=color color-low=" + hsv_arg(c.low) + " color-high=" + hsv_arg(c.high));
    h.set_caps(f, kCw, kCh);
    GstBuffer* out = push(h, frame);
    const Options o = color_options(c.low, c.high);
    expect_meta_matches(out, reference_once(frame, o), kCw, kCh, o, what);
    const std::vector<Box> want = oracle_boxes(range_mask(hsv, c.low, c.high));
    const std::vector<Box> got = meta_boxes(out);
    EXPECT_EQ(got, want) << "element: " << describe(got) << "\nOpenCV: " << describe(want);
    if (c.count_in_yuv || !(f == PixelFormat::NV12 || f == PixelFormat::I420)) {
      EXPECT_EQ(got.size(), c.objects) << describe(got);
    }
    if (out) gst_buffer_unref(out);
  }
}

INSTANTIATE_TEST_SUITE_P(Formats, ColorRange, ::testing::ValuesIn(kColorFormats),
                         [](const ::testing::TestParamInfo<PixelFormat>& info) {
                           return std::string(to_string(info.param));
                         });

class ColorRefusesGray : public ::testing::TestWithParam<PixelFormat> {};

TEST_P(ColorRefusesGray, AtCapsWithAnErrorNamingTheFormatAndTheProperty) {
  SKIP_UNLESS_BACKEND_RUNS();
  const PixelFormat f = GetParam();
  Harness h("foreground=color");
  h.set_caps(f, 32, 24);
  GstFlowReturn flow = GST_FLOW_OK;
  EXPECT_EQ(h.process(buffer_from_frame(test::make_frame(uneven_page(false), f)), &flow), nullptr);
  EXPECT_EQ(flow, GST_FLOW_NOT_NEGOTIATED);
  const ErrorMessage err = pop_error(h);
  ASSERT_TRUE(err.posted) << "no error on the bus";
  EXPECT_EQ(err.domain, GST_STREAM_ERROR);
  EXPECT_EQ(err.code, GST_STREAM_ERROR_FORMAT);
  const std::string format = gst_video_format_to_string(gst_format(f));
  EXPECT_TRUE(contains(err.message, format)) << err.message;
  EXPECT_TRUE(contains(err.message, "foreground=color")) << err.message;

  // Color frames on the same element are labeled.
  while (GstMessage* m = h.pop_message(GST_MESSAGE_ERROR)) gst_message_unref(m);
  GstCaps* caps = gst_caps_from_string(caps_string(PixelFormat::RGBx, kCw, kCh).c_str());
  ASSERT_TRUE(gst_harness_push_event(h.get(), gst_event_new_caps(caps)));
  gst_caps_unref(caps);
  GstBuffer* out = push(h, color_scene(PixelFormat::RGBx));
  EXPECT_FALSE(meta_boxes(out).empty());
  if (out) gst_buffer_unref(out);
  EXPECT_FALSE(pop_error(h).posted);

  // The other models take the same gray caps.
  Harness local("foreground=local");
  local.set_caps(f, kLw, kLh);
  out = push(local, test::make_frame(uneven_page(false), f));
  if (out) gst_buffer_unref(out);
  EXPECT_FALSE(pop_error(local).posted);
}

INSTANTIATE_TEST_SUITE_P(GrayFormats, ColorRefusesGray,
                         ::testing::Values(PixelFormat::Gray8, PixelFormat::Gray16LE),
                         [](const ::testing::TestParamInfo<PixelFormat>& info) {
                           return std::string(to_string(info.param));
                         });

TEST(ColorRange, ChosenWhileGrayFramesFlowIsASettingsError) {
  SKIP_UNLESS_BACKEND_RUNS();
  Harness h;
  h.set_caps(PixelFormat::Gray8, kLw, kLh);
  const Frame frame = test::make_frame(uneven_page(false), PixelFormat::Gray8);
  GstBuffer* out = push(h, frame);
  if (out) gst_buffer_unref(out);
  gst_util_set_object_arg(G_OBJECT(h.element()), "foreground", "color");
  GstFlowReturn flow = GST_FLOW_OK;
  EXPECT_EQ(h.process(buffer_from_frame(frame), &flow), nullptr);
  EXPECT_EQ(flow, GST_FLOW_ERROR);
  const ErrorMessage err = pop_error(h);
  ASSERT_TRUE(err.posted);
  EXPECT_EQ(err.domain, GST_LIBRARY_ERROR);
  EXPECT_EQ(err.code, GST_LIBRARY_ERROR_SETTINGS);
  EXPECT_TRUE(contains(err.debug, "GRAY8")) << err.debug;
}

TEST(ColorRange, AnEmptySaturationOrValueRangeIsASettingsError) {
  SKIP_UNLESS_BACKEND_RUNS();
  for (const auto& [low, high] : {std::pair<Hsv, Hsv>{{0, 200, 0}, {179, 100, 255}},
                                  std::pair<Hsv, Hsv>{{0, 0, 90}, {179, 255, 89}}}) {
    Harness h("foreground=color color-low=" + hsv_arg(low) + " color-high=" + hsv_arg(high));
    h.set_caps(PixelFormat::RGBA, kCw, kCh);
    GstFlowReturn flow = GST_FLOW_OK;
    EXPECT_EQ(h.process(buffer_from_frame(color_scene(PixelFormat::RGBA)), &flow), nullptr);
    EXPECT_EQ(flow, GST_FLOW_ERROR);
    const ErrorMessage err = pop_error(h);
    ASSERT_TRUE(err.posted);
    EXPECT_EQ(err.code, GST_LIBRARY_ERROR_SETTINGS);
    EXPECT_TRUE(contains(err.debug, "empty")) << err.debug;
  }
}

// ---- the cleanup applies to both ----

const Hsv kRedLow = {170, 120, 70}, kRedHigh = {10, 255, 255};

TEST(LocalColorCleanup, OpenRadiusRemovesSpecksOfTheLocalMask) {
  SKIP_UNLESS_BACKEND_RUNS();
  const GrayImage g = uneven_page(false, {{3, 60}, {50, 40}, {90, 3}});
  const Frame frame = test::make_frame(g, PixelFormat::I420);
  Harness plain("foreground=local threshold-mode=below");
  plain.set_caps(PixelFormat::I420, kLw, kLh);
  GstBuffer* out = push(plain, frame);
  EXPECT_EQ(meta_boxes(out).size(), size_t(kSquares + 3));
  if (out) gst_buffer_unref(out);

  Harness h("foreground=local threshold-mode=below open-radius=1");
  h.set_caps(PixelFormat::I420, kLw, kLh);
  out = push(h, frame);
  Options o = local_options(ThresholdMode::Below, 31, 10);
  o.open_radius = 1;
  expect_meta_matches(out, reference_once(frame, o), kLw, kLh, o, "open-radius=1");
  EXPECT_EQ(meta_boxes(out).size(), size_t(kSquares));
  if (out) gst_buffer_unref(out);
}

TEST(LocalColorCleanup, CloseRadiusJoinsASplitColorObjectAndAreasFilter) {
  SKIP_UNLESS_BACKEND_RUNS();
  // The red disc cut in two by a 1-pixel column of background, and a red speck.
  const Frame frame = color_scene(PixelFormat::BGRx, {{90, 60}}, 16);
  const std::string range = "foreground=color color-low=" + hsv_arg(kRedLow) +
                            " color-high=" + hsv_arg(kRedHigh);
  Harness plain(range);
  plain.set_caps(PixelFormat::BGRx, kCw, kCh);
  GstBuffer* out = push(plain, frame);
  EXPECT_EQ(meta_boxes(out).size(), 4u) << describe(meta_boxes(out));
  if (out) gst_buffer_unref(out);

  const struct {
    std::string props;
    int close_radius;
    uint64_t min_area, max_area;
    size_t reported;
  } cases[] = {
      {"close-radius=1", 1, 1, 0, 3},
      {"close-radius=1 min-area=2", 1, 2, 0, 2},
      // The orange-red disc (197 pixels) is smaller than the joined red one (251).
      {"close-radius=1 min-area=2 max-area=230", 1, 2, 230, 1},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.props);
    Harness h(range + " " + c.props);
    h.set_caps(PixelFormat::BGRx, kCw, kCh);
    out = push(h, frame);
    Options o = color_options(kRedLow, kRedHigh);
    o.close_radius = c.close_radius;
    o.min_area = c.min_area;
    o.max_area = c.max_area;
    expect_meta_matches(out, reference_once(frame, o), kCw, kCh, o, c.props);
    const GstCclMeta* meta = out ? gst_ccl_meta_get(out) : nullptr;
    ASSERT_NE(meta, nullptr);
    EXPECT_EQ(meta->total_count, 3u);
    EXPECT_EQ(meta->n_components, c.reported);
    if (out) gst_buffer_unref(out);
  }
}

// A binary PGM of w x h: 255 where x >= from_x, 0 (never foreground) left of it.
std::string write_right_mask(const std::string& dir, int w, int h, int from_x) {
  std::string data = "P5\n" + std::to_string(w) + " " + std::to_string(h) + "\n255\n";
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) data += char(x >= from_x ? 255 : 0);
  const std::string path = dir + "/right-" + std::to_string(w) + "x" + std::to_string(h) + ".pgm";
  std::ofstream(path, std::ios::binary).write(data.data(), std::streamsize(data.size()));
  return path;
}

TEST(LocalColorCleanup, MaskLocationHidesItsBlackPartFromBothModels) {
  SKIP_UNLESS_BACKEND_RUNS();
  gchar* dir_c = g_dir_make_tmp("cudaccl-local-color-XXXXXX", nullptr);
  ASSERT_NE(dir_c, nullptr);
  const std::string dir = dir_c;
  g_free(dir_c);

  {  // local: the squares of the two right columns (x0 = 54 and 78) only
    const std::string path = write_right_mask(dir, kLw, kLh, 50);
    const Frame frame = test::make_frame(uneven_page(false), PixelFormat::RGBA);
    Harness h("foreground=local threshold-mode=below mask-location=" + path);
    h.set_caps(PixelFormat::RGBA, kLw, kLh);
    GstBuffer* out = push(h, frame);
    ForegroundStage stage;
    std::vector<uint8_t> region(size_t(kLw) * kLh);
    for (int y = 0; y < kLh; ++y)
      for (int x = 0; x < kLw; ++x) region[size_t(y) * kLw + x] = x >= 50;
    stage.set_region(region.data(), kLw, kLh);
    const Options o = local_options(ThresholdMode::Below, 31, 10);
    expect_meta_matches(out, reference_next(stage, frame, o), kLw, kLh, o, "local");
    const std::vector<Box> got = meta_boxes(out);
    EXPECT_EQ(got.size(), 6u) << describe(got);
    for (const Box& b : got) EXPECT_GE(std::get<0>(b), 50);
    if (out) gst_buffer_unref(out);
    g_remove(path.c_str());
  }
  {  // color: of the two red discs, the orange-red one right of x = 32
    const std::string path = write_right_mask(dir, kCw, kCh, 32);
    const Frame frame = color_scene(PixelFormat::NV12);
    Harness h("foreground=color color-low=" + hsv_arg(kRedLow) + " color-high=" +
              hsv_arg(kRedHigh) + " mask-location=" + path);
    h.set_caps(PixelFormat::NV12, kCw, kCh);
    GstBuffer* out = push(h, frame);
    const std::vector<Box> got = meta_boxes(out);
    ASSERT_EQ(got.size(), 1u) << describe(got);
    EXPECT_GE(std::get<0>(got[0]), 32);
    if (out) gst_buffer_unref(out);
    g_remove(path.c_str());
  }
  g_rmdir(dir.c_str());
}

}  // namespace
}  // namespace ccl::element_test
