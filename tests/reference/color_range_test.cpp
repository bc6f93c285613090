// The color range (ForegroundModel::Color, issue 28) on the CPU against the installed
// OpenCV, which is the definition (kernels/src/color_range.h):
//  - the conversions themselves for every input: all 2^24 RGB triples through
//    COLOR_RGB2HSV and COLOR_BGR2HSV, all 2^24 (Y, U, V) through COLOR_YUV2RGB_NV12 and
//    COLOR_YUV2RGB_I420;
//  - the whole stage (ccl::reference_label through ccl::ForegroundStage) against
//    cv::cvtColor + cv::inRange (the union of two for a wrapping hue), then
//    cv::morphologyEx (open, close) and cv::connectedComponentsWithStats: mask, label
//    image, count and the reported table (areas within min_area / max_area), on real
//    color images and random cases (tests/gpu/color_cases.h: odd sizes, padded rows,
//    every color format) with wrapping and plain hue ranges;
//  - gray frames and bad bounds refused with ccl::Error.
// OpenCV takes YUV 4:2:0 of even sizes only; an odd frame is compared as the even one
// that repeats its last column and row (the same pixels with the same blocks' chroma),
// cropped: OpenCV's result for a pixel depends on its Y and its block's U, V alone,
// which the exhaustive test shows.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <future>
#include <iostream>
#include <set>
#include <sstream>
#include <thread>

#include <opencv2/imgproc.hpp>

#include "ccl/foreground.h"
#include "ccl/reference.h"
#include "color_cases.h"
#include "color_images.h"
#include "color_range.h"  // kernels/src: the conversion the engine uses
#include "foreground_fuzz.h"
#include "opencv_oracle.h"
#include "splitmix.h"
#include "test_images.h"

namespace ccl::test {
namespace {

// ---- OpenCV's side.

/// The frame as OpenCV's 8-bit HSV, the way the contract says: RGB(A) and BGR(A)
/// straight through cvtColor, NV12 / I420 first to RGB with cvtColor.
cv::Mat opencv_hsv(const ImageView& v) {
  const int w = v.width, h = v.height;
  cv::Mat rgb;
  switch (v.format) {
    case PixelFormat::RGBA:
    case PixelFormat::RGBx:
    case PixelFormat::BGRA:
    case PixelFormat::BGRx: {
      const cv::Mat packed(h, w, CV_8UC4, v.planes[0], v.strides[0]);
      const bool bgr = v.format == PixelFormat::BGRA || v.format == PixelFormat::BGRx;
      cv::Mat three;
      cv::cvtColor(packed, three, bgr ? cv::COLOR_BGRA2BGR : cv::COLOR_RGBA2RGB);
      cv::Mat hsv;
      cv::cvtColor(three, hsv, bgr ? cv::COLOR_BGR2HSV : cv::COLOR_RGB2HSV);
      return hsv;
    }
    case PixelFormat::NV12:
    case PixelFormat::I420: {
      // One contiguous buffer of even size, as OpenCV wants it: Y rows (the last
      // column and row repeated when odd), then the chroma as the frame has it.
      const int ew = w + (w & 1), eh = h + (h & 1), cw = ew / 2, ch = eh / 2;
      std::vector<uint8_t> buf(size_t(ew) * eh * 3 / 2);
      const auto* y_plane = static_cast<const uint8_t*>(v.planes[0]);
      for (int y = 0; y < eh; ++y)
        for (int x = 0; x < ew; ++x)
          buf[size_t(y) * ew + x] = y_plane[size_t(std::min(y, h - 1)) * v.strides[0] + std::min(x, w - 1)];
      uint8_t* chroma = buf.data() + size_t(ew) * eh;
      if (v.format == PixelFormat::NV12) {
        for (int y = 0; y < ch; ++y)
          std::memcpy(chroma + size_t(y) * 2 * cw, static_cast<const uint8_t*>(v.planes[1]) + y * v.strides[1], size_t(2 * cw));
      } else {
        for (int p = 1; p <= 2; ++p)
          for (int y = 0; y < ch; ++y)
            std::memcpy(chroma + size_t(p - 1) * cw * ch + size_t(y) * cw,
                        static_cast<const uint8_t*>(v.planes[p]) + y * v.strides[p], size_t(cw));
      }
      const cv::Mat yuv(eh * 3 / 2, ew, CV_8UC1, buf.data());
      cv::Mat full;
      cv::cvtColor(yuv, full, v.format == PixelFormat::NV12 ? cv::COLOR_YUV2RGB_NV12 : cv::COLOR_YUV2RGB_I420);
      rgb = full(cv::Rect(0, 0, w, h)).clone();
      break;
    }
    default:
      ADD_FAILURE() << "no color in " << to_string(v.format);
      return {};
  }
  cv::Mat hsv;
  cv::cvtColor(rgb, hsv, cv::COLOR_RGB2HSV);
  return hsv;
}

/// cv::inRange of the bounds; a wrapping hue as the union of [low, 179] and [0, high].
cv::Mat opencv_in_range(const cv::Mat& hsv, const ColorOptions& c) {
  const cv::Scalar sv_low(0, c.low[1], c.low[2]), sv_high(0, c.high[1], c.high[2]);
  auto with_hue = [](cv::Scalar s, int hue) { s[0] = hue; return s; };
  cv::Mat mask;
  if (c.low[0] <= c.high[0]) {
    cv::inRange(hsv, with_hue(sv_low, c.low[0]), with_hue(sv_high, c.high[0]), mask);
  } else {
    cv::Mat upper, lower;
    cv::inRange(hsv, with_hue(sv_low, c.low[0]), with_hue(sv_high, 179), upper);
    cv::inRange(hsv, with_hue(sv_low, 0), with_hue(sv_high, c.high[0]), lower);
    cv::bitwise_or(upper, lower, mask);
  }
  return mask;
}

cv::Mat square(int radius) {
  return cv::getStructuringElement(cv::MORPH_RECT, cv::Size(2 * radius + 1, 2 * radius + 1));
}

/// OpenCV's whole pipeline: the mask (0/1) after opening and closing.
cv::Mat opencv_mask(const ImageView& v, const Options& o) {
  cv::Mat mask = opencv_in_range(opencv_hsv(v), o.color);
  if (o.open_radius > 0) cv::morphologyEx(mask, mask, cv::MORPH_OPEN, square(o.open_radius));
  if (o.close_radius > 0) cv::morphologyEx(mask, mask, cv::MORPH_CLOSE, square(o.close_radius));
  cv::Mat binary;
  mask.convertTo(binary, CV_8U, 1.0 / 255.0);  // 255 -> 1
  return binary;
}

/// Empty when `got` (and `mask`) are what OpenCV gives for `v` under `o`: the mask byte
/// for byte, the label image, the count, and the reported table in label order (those
/// of an area within the limits) with boxes, areas and moments from OpenCV's labels.
std::string compare_with_opencv(const ImageView& v, const Options& o, const Result& got,
                                const BinaryImage& mask) {
  const int w = v.width, h = v.height;
  const cv::Mat want_mask = opencv_mask(v, o);
  if (want_mask.rows != h || want_mask.cols != w) return "OpenCV's mask has another size";
  size_t differ = 0, first = 0;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      if (mask.pixels[size_t(y) * w + x] != want_mask.at<uint8_t>(y, x) && differ++ == 0)
        first = size_t(y) * w + x;
  if (differ) {
    std::ostringstream s;
    s << "mask differs at " << differ << " pixels, first (" << first % w << ", " << first / w
      << "): " << int(mask.pixels[first]) << " instead of OpenCV's "
      << int(want_mask.at<uint8_t>(int(first / w), int(first % w)));
    return s.str();
  }
  cv::Mat labels, stats, centroids;
  const int n = cv::connectedComponentsWithStats(want_mask, labels, stats, centroids,
                                                 o.connectivity, CV_32S, cv::CCL_WU) - 1;
  if (got.num_components != uint32_t(n))
    return "count " + std::to_string(got.num_components) + ", OpenCV " + std::to_string(n);
  if (o.write_labels) {
    if (got.labels.size() != size_t(w) * h) return "label image of " + std::to_string(got.labels.size()) + " pixels";
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x)
        if (got.labels[size_t(y) * w + x] != uint32_t(labels.at<int32_t>(y, x)))
          return "label at (" + std::to_string(x) + ", " + std::to_string(y) + ") differs from OpenCV's";
  }
  std::vector<Component> table(static_cast<size_t>(n));
  for (int i = 1; i <= n; ++i) {
    Component& c = table[size_t(i) - 1];
    c.label = uint32_t(i);
    c.x = stats.at<int>(i, cv::CC_STAT_LEFT);
    c.y = stats.at<int>(i, cv::CC_STAT_TOP);
    c.width = stats.at<int>(i, cv::CC_STAT_WIDTH);
    c.height = stats.at<int>(i, cv::CC_STAT_HEIGHT);
  }
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      if (const int l = labels.at<int32_t>(y, x)) {
        Component& c = table[size_t(l) - 1];
        const uint64_t ux = uint64_t(x), uy = uint64_t(y);
        c.area += 1;
        c.sum_x += ux, c.sum_y += uy;
        c.sum_xx += ux * ux, c.sum_xy += ux * uy, c.sum_yy += uy * uy;
      }
  std::vector<Component> reported;
  for (const Component& c : table)
    if (c.area >= o.min_area && (o.max_area == 0 || c.area <= o.max_area)) reported.push_back(c);
  if (got.components.size() != reported.size())
    return std::to_string(got.components.size()) + " components reported, OpenCV's areas give " +
           std::to_string(reported.size());
  for (size_t i = 0; i < reported.size(); ++i)
    if (!(got.components[i] == reported[i]))
      return "reported component " + std::to_string(i) + " (label " +
             std::to_string(got.components[i].label) + ") differs from OpenCV's label " +
             std::to_string(reported[i].label);
  return "";
}

/// The stage's result and mask for one frame, compared with OpenCV's.
std::string check_frame(const ImageView& v, const Options& o) {
  ForegroundStage stage;
  Result got;
  BinaryImage mask;
  reference_label(v, o, stage, got, &mask);
  return compare_with_opencv(v, o, got, mask);
}

std::string describe(const Options& o) {
  std::ostringstream s;
  s << "H " << o.color.low[0] << ".." << o.color.high[0] << " S " << o.color.low[1] << ".."
    << o.color.high[1] << " V " << o.color.low[2] << ".." << o.color.high[2] << ", "
    << to_string(o.algorithm) << " " << o.connectivity << "-way, open " << o.open_radius
    << " close " << o.close_radius << ", areas " << o.min_area << ".." << o.max_area;
  return s.str();
}

/// Runs the tasks on all cores; the failures, in task order.
std::vector<std::string> in_parallel(const std::vector<std::function<std::string()>>& tasks) {
  std::vector<std::string> out(tasks.size());
  const size_t workers = std::max(1u, std::thread::hardware_concurrency());
  for (size_t first = 0; first < tasks.size(); first += workers) {
    std::vector<std::future<std::string>> batch;
    for (size_t i = first; i < std::min(tasks.size(), first + workers); ++i)
      batch.push_back(std::async(std::launch::async, tasks[i]));
    for (size_t i = 0; i < batch.size(); ++i) out[first + i] = batch[i].get();
  }
  return out;
}

// ---- The conversions, for every input.

TEST(ColorConversion, EveryRgbTripleGivesOpenCvsHsv) {
  const color::Factors f = color::make_factors();
  cv::Mat rgb(4096, 4096, CV_8UC3);
  for (uint32_t i = 0; i < (1u << 24); ++i) {
    uint8_t* p = rgb.data + 3 * size_t(i);
    p[0] = uint8_t(i >> 16), p[1] = uint8_t(i >> 8), p[2] = uint8_t(i);
  }
  for (const bool bgr : {false, true}) {
    cv::Mat hsv;
    cv::cvtColor(rgb, hsv, bgr ? cv::COLOR_BGR2HSV : cv::COLOR_RGB2HSV);
    size_t differ = 0;
    for (uint32_t i = 0; i < (1u << 24); ++i) {
      const uint8_t* p = rgb.data + 3 * size_t(i);
      const uint8_t* q = hsv.data + 3 * size_t(i);
      const int r = bgr ? p[2] : p[0], g = p[1], b = bgr ? p[0] : p[2];
      const color::Hsv o = color::rgb_to_hsv(r, g, b, f.saturation, f.hue);
      if (o.h != q[0] || o.s != q[1] || o.v != q[2]) {
        if (differ++ < 5)
          ADD_FAILURE() << (bgr ? "BGR" : "RGB") << " (" << r << "," << g << "," << b << "): " << o.h
                        << "," << o.s << "," << o.v << ", OpenCV " << int(q[0]) << "," << int(q[1])
                        << "," << int(q[2]);
      }
    }
    EXPECT_EQ(differ, 0u) << (bgr ? "BGR2HSV" : "RGB2HSV");
  }
}

TEST(ColorConversion, EveryYuvTripleGivesOpenCvsRgb) {
  // 4096 x 4096 pixels: each (U, V) pair has 64 blocks of 2x2, whose 256 lumas are
  // every Y once.
  const int w = 4096, h = 4096, bw = w / 2;
  cv::Mat nv12(h * 3 / 2, w, CV_8UC1), i420(h * 3 / 2, w, CV_8UC1);
  uint8_t* y_plane = nv12.data;
  uint8_t* uv = nv12.data + size_t(w) * h;
  uint8_t* u_plane = i420.data + size_t(w) * h;
  uint8_t* v_plane = u_plane + size_t(bw) * (h / 2);
  auto chroma_of = [&](int bx, int by) { return (by * bw + bx) / 64; };  // U << 8 | V
  for (int by = 0; by < h / 2; ++by)
    for (int bx = 0; bx < bw; ++bx) {
      const int b = by * bw + bx, c = chroma_of(bx, by);
      uv[size_t(by) * w + 2 * bx] = uint8_t(c >> 8);
      uv[size_t(by) * w + 2 * bx + 1] = uint8_t(c);
      u_plane[size_t(by) * bw + bx] = uint8_t(c >> 8);
      v_plane[size_t(by) * bw + bx] = uint8_t(c);
      for (int j = 0; j < 4; ++j)
        y_plane[size_t(2 * by + j / 2) * w + 2 * bx + j % 2] = uint8_t(4 * (b % 64) + j);
    }
  std::memcpy(i420.data, y_plane, size_t(w) * h);
  for (const bool is_nv12 : {true, false}) {
    cv::Mat rgb;
    cv::cvtColor(is_nv12 ? nv12 : i420, rgb, is_nv12 ? cv::COLOR_YUV2RGB_NV12 : cv::COLOR_YUV2RGB_I420);
    size_t differ = 0;
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        const int c = chroma_of(x / 2, y / 2), luma = y_plane[size_t(y) * w + x];
        int32_t o[3];
        color::yuv_to_rgb(luma, color::chroma_terms(c >> 8, c & 255), o);
        const uint8_t* q = rgb.ptr<uint8_t>(y) + 3 * x;
        if ((o[0] != q[0] || o[1] != q[1] || o[2] != q[2]) && differ++ < 5)
          ADD_FAILURE() << "YUV (" << luma << "," << (c >> 8) << "," << (c & 255) << "): " << o[0]
                        << "," << o[1] << "," << o[2] << ", OpenCV " << int(q[0]) << "," << int(q[1])
                        << "," << int(q[2]);
      }
    EXPECT_EQ(differ, 0u) << (is_nv12 ? "NV12" : "I420");
  }
}

TEST(ColorConversion, FactorTablesAreOpenCvsRounding) {
  // OpenCV rounds (255 << 12) / v and (180 << 12) / (6 d) in double precision; no entry
  // is a tie, so integer rounding to the nearest gives the same tables.
  for (int i = 1; i < 256; ++i) {
    EXPECT_EQ(color::saturation_factor(i), cvRound((255 << 12) / double(i))) << i;
    EXPECT_EQ(color::hue_factor(i), cvRound((180 << 12) / (6.0 * i))) << i;
  }
  EXPECT_EQ(color::saturation_factor(0), 0);
  EXPECT_EQ(color::hue_factor(0), 0);
}

// ---- Every triple through the whole stage, per format.

TEST(ColorStage, EveryRgbTripleMasksAsOpenCvInEveryLayout) {
  // The 2^24 colors as one 4096 x 4096 frame of each RGB layout, a few ranges.
  ColorImage all;
  all.width = all.height = 4096;
  all.rgb.resize(size_t(3) << 24);
  for (uint32_t i = 0; i < (1u << 24); ++i) {
    all.rgb[3 * size_t(i)] = uint8_t(i >> 16);
    all.rgb[3 * size_t(i) + 1] = uint8_t(i >> 8);
    all.rgb[3 * size_t(i) + 2] = uint8_t(i);
  }
  std::vector<std::function<std::string()>> tasks;
  const std::vector<ColorOptions> ranges = {hsv_range(170, 100, 60, 10, 255, 255),
                                            hsv_range(35, 0, 0, 85, 255, 255),
                                            hsv_range(0, 30, 200, 179, 31, 255)};
  for (PixelFormat format : {PixelFormat::RGBA, PixelFormat::BGRx})
    for (size_t r = 0; r < ranges.size(); ++r)
      tasks.push_back([&, format, r] {
        const Frame f = to_frame(all, format);
        Options o;
        o.foreground = ForegroundModel::Color;
        o.color = ranges[r];
        o.write_labels = false;
        BinaryImage mask;
        ForegroundStage stage;
        stage.apply(f.view, o, mask);
        const cv::Mat want = opencv_mask(f.view, o);
        const bool same = std::equal(mask.pixels.begin(), mask.pixels.end(), want.data);
        return same ? std::string() : std::string(to_string(format)) + " " + describe(o) + ": masks differ";
      });
  for (const std::string& failure : in_parallel(tasks)) EXPECT_EQ(failure, "");
}

// ---- Real color images, every color format, every named range.

TEST(ColorStage, RealImagesEqualOpenCv) {
  std::string why;
  const std::vector<RgbImage> images = real_color_images(&why);
  if (images.empty()) GTEST_SKIP() << "real color images unavailable: " << why;
  std::vector<std::function<std::string()>> tasks;
  size_t k = 0;
  for (const RgbImage& image : images)
    for (PixelFormat format : color_formats())
      for (const NamedRange& range : color_ranges()) {
        const size_t run = k++;
        tasks.push_back([&image, format, &range, run] {
          const Options o = real_image_options(run, range.color);
          const Frame f = to_frame(to_color_image(image), format, color_padding(run, format));
          const std::string diff = check_frame(f.view, o);
          return diff.empty() ? diff
                              : image.name + " " + to_string(format) + " " + range.name + " (" +
                                    describe(o) + ", stride " + std::to_string(f.view.strides[0]) +
                                    "): " + diff;
        });
      }
  size_t failures = 0;
  for (const std::string& failure : in_parallel(tasks))
    if (!failure.empty() && failures++ < 20) ADD_FAILURE() << failure;
  EXPECT_EQ(failures, 0u) << "of " << tasks.size() << " runs";
  std::cout << "[          ] " << images.size() << " images x " << color_formats().size()
            << " formats x " << color_ranges().size() << " ranges = " << tasks.size() << " runs\n";
}

TEST(ColorStage, RealImagesFindSomething) {
  // The named ranges are not all empty on real photographs: the comparison above
  // compares masks with content, not only empty ones.
  std::string why;
  const std::vector<RgbImage> images = real_color_images(&why);
  if (images.empty()) GTEST_SKIP() << "real color images unavailable: " << why;
  for (const NamedRange& range : color_ranges()) {
    size_t on = 0, all = 0;
    for (const RgbImage& image : images) {
      const Frame f = to_frame(to_color_image(image), PixelFormat::RGBA);
      Options o;
      o.foreground = ForegroundModel::Color;
      o.color = range.color;
      BinaryImage mask;
      ForegroundStage stage;
      stage.apply(f.view, o, mask);
      for (uint8_t v : mask.pixels) on += v;
      all += mask.pixels.size();
    }
    if (range.name != "ends") {
      EXPECT_GT(on, 0u) << range.name;
    }
    std::cout << "[          ] " << range.name << ": " << 100.0 * double(on) / double(all)
              << " % of the pixels\n";
  }
}

// ---- Random cases.

TEST(ColorStage, RandomCasesEqualOpenCv) {
  const int cases = 600;
  std::vector<std::function<std::string()>> tasks;
  for (int i = 0; i < cases; ++i)
    tasks.push_back([i] {
      const ColorFuzzCase c = random_color_case(uint64_t(0xC010A000 + i));
      const Frame f = color_case_frame(c);
      const std::string diff = check_frame(f.view, c.options);
      return diff.empty() ? diff : describe(c) + ": " + diff;
    });
  size_t failures = 0;
  for (const std::string& failure : in_parallel(tasks))
    if (!failure.empty() && failures++ < 20) ADD_FAILURE() << failure;
  EXPECT_EQ(failures, 0u) << "of " << cases << " cases";
}

TEST(ColorStage, RandomCasesCoverWhatTheyShould) {
  // The generator's spread: every format and content, odd sizes, padding, wrapping
  // hues, cleanup, limits, and masks neither always empty nor always full.
  int formats[8] = {}, wraps = 0, odd = 0, padded = 0, cleanup = 0, limits = 0, mixed = 0;
  std::set<int> contents;
  for (int i = 0; i < 600; ++i) {
    const ColorFuzzCase c = random_color_case(uint64_t(0xC010A000 + i));
    ++formats[int(c.format)];
    contents.insert(int(c.content));
    wraps += c.options.color.low[0] > c.options.color.high[0];
    odd += (c.width % 2) || (c.height % 2);
    padded += c.padding > 0;
    cleanup += c.options.open_radius > 0 || c.options.close_radius > 0;
    limits += c.options.min_area > 0 || c.options.max_area > 0;
    if (i % 4 == 0) {
      const Frame f = color_case_frame(c);
      BinaryImage mask;
      ForegroundStage stage;
      stage.apply(f.view, c.options, mask);
      size_t on = 0;
      for (uint8_t v : mask.pixels) on += v;
      mixed += on > 0 && on < mask.pixels.size();
    }
  }
  for (PixelFormat f : color_formats()) EXPECT_GT(formats[int(f)], 40) << to_string(f);
  EXPECT_EQ(formats[int(PixelFormat::Gray8)] + formats[int(PixelFormat::Gray16LE)], 0);
  EXPECT_EQ(contents.size(), 4u);
  EXPECT_GT(wraps, 100);
  EXPECT_GT(odd, 200);
  EXPECT_GT(padded, 200);
  EXPECT_GT(cleanup, 200);
  EXPECT_GT(limits, 100);
  EXPECT_GT(mixed, 50);  // of 150 masks
}

// ---- The semantics, case by case.

/// A red disc on green, a little blue square: the red-ball example.
ColorImage red_ball(int w, int h) {
  ColorImage img;
  img.width = w;
  img.height = h;
  img.rgb.resize(size_t(w) * h * 3);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      uint8_t* p = &img.rgb[(size_t(y) * w + x) * 3];
      const int dx = x - w / 3, dy = y - h / 2;
      if (dx * dx + dy * dy <= (h / 4) * (h / 4)) {
        p[0] = 220, p[1] = 20, p[2] = 35;  // red leaning to blue: hue just under 180
      } else if (x >= 3 * w / 4 && x < 3 * w / 4 + 8 && y >= 4 && y < 12) {
        p[0] = 30, p[1] = 40, p[2] = 200;
      } else {
        p[0] = 40, p[1] = 150, p[2] = 60;
      }
    }
  return img;
}

TEST(ColorSemantics, RedBallIsOneComponentInEveryFormat) {
  const ColorImage img = red_ball(161, 97);
  for (PixelFormat format : color_formats()) {
    const Frame f = to_frame(img, format, 3);
    Options o;
    o.foreground = ForegroundModel::Color;
    o.color = hsv_range(170, 120, 70, 10, 255, 255);  // wraps around red
    Result r;
    ForegroundStage stage;
    BinaryImage mask;
    reference_label(f.view, o, stage, r, &mask);
    EXPECT_EQ(r.num_components, 1u) << to_string(format);
    EXPECT_EQ(check_frame(f.view, o), "") << to_string(format);
    // Not wrapping, 170..179 alone: the same ball (its hue is about 176).
    o.color.high[0] = 179;
    ForegroundStage plain;
    Result r2;
    reference_label(f.view, o, plain, r2);
    EXPECT_EQ(r2.num_components, 1u) << to_string(format);
    // The blue square only.
    o.color = hsv_range(100, 100, 50, 130, 255, 255);
    ForegroundStage blue;
    Result r3;
    reference_label(f.view, o, blue, r3);
    ASSERT_EQ(r3.num_components, 1u) << to_string(format);
    if (format != PixelFormat::NV12 && format != PixelFormat::I420) {
      EXPECT_EQ(r3.components[0].area, 64u) << to_string(format);
    }
  }
}

TEST(ColorSemantics, WrappingHueIsTheUnionOfBothEnds) {
  // Pure hues 0..179 (V = S = 255), one pixel each; a range low > high keeps exactly
  // the hues >= low or <= high.
  ColorImage img;
  img.width = 180;
  img.height = 1;
  img.rgb.resize(180 * 3);
  const color::Factors fac = color::make_factors();
  std::vector<int> hue_of(180);
  for (int i = 0; i < 180; ++i) {
    // The hexcone's pure colors at every 1/180 of the circle, then OpenCV's own hue.
    const double t = i / 30.0;
    const int seg = int(t), f = int(255 * (t - seg) + 0.5);
    uint8_t* p = &img.rgb[size_t(i) * 3];
    const int rgb[6][3] = {{255, f, 0}, {255 - f, 255, 0}, {0, 255, f}, {0, 255 - f, 255}, {f, 0, 255}, {255, 0, 255 - f}};
    for (int c = 0; c < 3; ++c) p[c] = uint8_t(rgb[seg][c]);
    hue_of[size_t(i)] = color::rgb_to_hsv(p[0], p[1], p[2], fac.saturation, fac.hue).h;
  }
  const Frame f = to_frame(img, PixelFormat::RGBA);
  for (auto [low, high] : {std::pair{170, 10}, std::pair{179, 0}, std::pair{1, 0}, std::pair{100, 99},
                           std::pair{10, 170}, std::pair{0, 179}, std::pair{90, 90}}) {
    Options o;
    o.foreground = ForegroundModel::Color;
    o.color = hsv_range(low, 0, 0, high, 255, 255);
    BinaryImage mask;
    ForegroundStage stage;
    stage.apply(f.view, o, mask);
    for (int i = 0; i < 180; ++i) {
      const int h = hue_of[size_t(i)];
      const bool want = low <= high ? h >= low && h <= high : h >= low || h <= high;
      EXPECT_EQ(mask.pixels[size_t(i)], want ? 1 : 0) << "hue " << h << " in " << low << ".." << high;
    }
    EXPECT_EQ(check_frame(f.view, o), "") << low << ".." << high;
  }
}

TEST(ColorSemantics, ThresholdFieldsAndAlphaDoNotMatter) {
  const ColorImage img = red_ball(64, 48);
  const Frame f = to_frame(img, PixelFormat::RGBA);
  Frame other_alpha = f;
  for (int y = 0; y < 48; ++y)
    for (int x = 0; x < 64; ++x) other_alpha.storage[0][size_t(y) * other_alpha.view.strides[0] + 4 * x + 3] ^= 0xFF;
  Options o;
  o.foreground = ForegroundModel::Color;
  o.color = hsv_range(170, 120, 70, 10, 255, 255);
  BinaryImage base;
  ForegroundStage s0;
  s0.apply(f.view, o, base);
  for (ThresholdMode mode : {ThresholdMode::Above, ThresholdMode::Below, ThresholdMode::Otsu})
    for (int level : {0, 128, 255}) {
      Options p = o;
      p.mode = mode;
      p.threshold = level;
      BinaryImage m;
      ForegroundStage s;
      EXPECT_EQ(s.apply(f.view, p, m), 0);
      EXPECT_EQ(m.pixels, base.pixels);
      s.apply(other_alpha.view, p, m);
      EXPECT_EQ(m.pixels, base.pixels);
    }
}

TEST(ColorSemantics, GrayFramesAreRefusedNamingTheFormat) {
  const GrayImage g = to_gray(yacclab_random(33, 17, 0.5, 1, 7), "noise");
  for (PixelFormat format : {PixelFormat::Gray8, PixelFormat::Gray16LE}) {
    const Frame f = make_frame(g, format);
    Options o;
    o.foreground = ForegroundModel::Color;
    ForegroundStage stage;
    Result r;
    try {
      reference_label(f.view, o, stage, r);
      ADD_FAILURE() << to_string(format) << " was taken";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(to_string(format)), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("color"), std::string::npos) << e.what();
    }
    BinaryImage mask;
    EXPECT_THROW(stage.apply(f.view, o, mask), Error);
  }
}

TEST(ColorSemantics, BadBoundsAndMissingPlanesAreRefused) {
  const Frame f = to_frame(red_ball(20, 10), PixelFormat::NV12);
  for (const ColorOptions& c : {hsv_range(180, 0, 0, 179, 255, 255), hsv_range(0, 0, 0, 180, 255, 255),
                                hsv_range(-1, 0, 0, 179, 255, 255), hsv_range(0, 0, 0, 179, 256, 255),
                                hsv_range(0, 10, 0, 179, 9, 255), hsv_range(0, 0, 200, 179, 255, 100)}) {
    Options o;
    o.foreground = ForegroundModel::Color;
    o.color = c;
    BinaryImage mask;
    ForegroundStage stage;
    EXPECT_THROW(stage.apply(f.view, o, mask), Error) << describe(o);
  }
  Frame no_chroma = f;
  no_chroma.view.planes[1] = nullptr;
  Options o;
  o.foreground = ForegroundModel::Color;
  BinaryImage mask;
  ForegroundStage stage;
  EXPECT_THROW(stage.apply(no_chroma.view, o, mask), Error);
}

TEST(ColorSemantics, ColorFramesRestartTheBackgroundModel) {
  // As a threshold frame does: the model that skipped frames starts over.
  const Frame f = to_frame(red_ball(40, 30), PixelFormat::RGBA);
  Options bg;
  bg.foreground = ForegroundModel::Background;
  Options col;
  col.foreground = ForegroundModel::Color;
  ForegroundStage stage;
  BinaryImage mask;
  stage.apply(f.view, bg, mask);
  stage.apply(f.view, bg, mask);
  EXPECT_EQ(stage.frames(), 2u);
  stage.apply(f.view, col, mask);
  EXPECT_EQ(stage.frames(), 0u);
  stage.apply(f.view, bg, mask);
  EXPECT_EQ(stage.frames(), 1u);
}

TEST(ColorSemantics, RegionClearsTheColorMask) {
  const Frame f = to_frame(red_ball(64, 48), PixelFormat::I420, 5);
  Options o;
  o.foreground = ForegroundModel::Color;
  o.color = hsv_range(35, 0, 0, 85, 255, 255);  // the green background
  o.close_radius = 1;
  std::vector<uint8_t> region(64 * 48, 0);
  for (int y = 10; y < 30; ++y)
    for (int x = 5; x < 50; ++x) region[size_t(y) * 64 + x] = 7;
  ForegroundStage with, without;
  with.set_region(region.data(), 64, 48);
  BinaryImage a, b;
  with.apply(f.view, o, a);
  without.apply(f.view, o, b);
  for (size_t i = 0; i < a.pixels.size(); ++i)
    EXPECT_EQ(a.pixels[i], region[i] ? b.pixels[i] : 0) << i;
}

// ---- gpu_fuzz's foreground sequences include color ranges: their lines read back,
// their frames are color ones the CPU stage takes.

TEST(ColorFuzzHook, ForegroundCasesWithColorReadBackAndRun) {
  int color = 0, wraps = 0;
  for (uint64_t seed = 1; seed <= 3000; ++seed) {
    const ForegroundFuzzCase c = random_foreground_case(splitmix64(seed), 640);
    ForegroundFuzzCase back;
    std::string why;
    ASSERT_TRUE(parse_foreground_case(to_line(c), &back, &why)) << to_line(c) << ": " << why;
    ASSERT_EQ(to_line(back), to_line(c));
    if (c.model != ForegroundModel::Color) continue;
    ++color;
    wraps += c.color.low[0] > c.color.high[0];
    ASSERT_NE(c.format, PixelFormat::Gray8);
    ASSERT_NE(c.format, PixelFormat::Gray16LE);
    if (color <= 40) {
      const Options o = foreground_options(c);
      const Frame f = foreground_frame(Scene(foreground_scene(c)), c, 0);
      ForegroundStage stage;
      Result r;
      EXPECT_NO_THROW(reference_label(f.view, o, stage, r)) << to_line(c);
      Options by_label = o;  // compare_with_opencv reports in label order
      by_label.max_components = UINT32_MAX;
      by_label.group_gap = -1;  // OpenCV has no grouping: its pieces are compared
      EXPECT_EQ(check_frame(f.view, by_label), "") << to_line(c);
    }
  }
  EXPECT_GT(color, 200);
  EXPECT_GT(wraps, 30);
}

}  // namespace
}  // namespace ccl::test
