// The CPU foreground stage (ccl::ForegroundStage) against OpenCV with as many threads,
// per frame, on a real video and on noise:
//   model   stage.apply (background model, close_radius 2) + ccl::label_binary_fast,
//           against MOG2 (defaults) .apply, shadows (127) dropped, a 5x5 closing and
//           connectedComponentsWithStats, 8-connected (bench/mog2_peer.py's peer);
//   local   stage.apply (local threshold, block 31) against cv::adaptiveThreshold
//           (ADAPTIVE_THRESH_MEAN_C) on the frame's luma;
//   color   stage.apply (color range) against cvtColor(BGR2HSV) + inRange.
// Our side reads the frame in the case's format (RGBx, I420, NV12); OpenCV always gets
// the BGR frame, converted before the timing starts, as mog2_peer.py gives it. The
// frames play back and forth so that the models see motion all along; every frame is
// timed after a warm-up, and the median is printed.
//
//   cpu_foreground_bench [--threads 1,2] [--video FILE | --frames-dir DIR] [--frames N]
//                        [--runs N] [--warmup N] [--cases model,local,color]
//                        [--no-noise] [--csv FILE]
//
// --frames-dir reads frame-NNN.ppm files (gst-launch-1.0 ... ! pnmenc ! multifilesink)
// for an OpenCV built without a video backend.
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/video/background_segm.hpp>
#include <opencv2/videoio.hpp>

#include "ccl/cpu_labeler.h"
#include "ccl/foreground.h"
#include "stats.h"

namespace {

struct Settings {
  std::vector<int> threads;
  std::string video = "build/testdata/video/balle-jbart.mp4";
  std::string frames_dir;
  int frames = 60;  // decoded frames (played back and forth)
  int runs = 60;    // timed frames per case
  int warmup = 20;
  std::vector<std::string> cases = {"model", "local", "color"};
  bool noise = true;
  std::string csv;
};

int affinity_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
  return 1;
}

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> v;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) v.push_back(item);
  return v;
}

Settings parse(int argc, char** argv) {
  Settings s;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--threads") {
      for (const std::string& t : split(value())) s.threads.push_back(std::atoi(t.c_str()));
    } else if (a == "--video") s.video = value();
    else if (a == "--frames-dir") s.frames_dir = value();
    else if (a == "--frames") s.frames = std::atoi(value().c_str());
    else if (a == "--runs") s.runs = std::atoi(value().c_str());
    else if (a == "--warmup") s.warmup = std::atoi(value().c_str());
    else if (a == "--cases") s.cases = split(value());
    else if (a == "--no-noise") s.noise = false;
    else if (a == "--csv") s.csv = value();
    else {
      std::fprintf(stderr,
                   "usage: cpu_foreground_bench [--threads 1,2] [--video FILE | --frames-dir DIR]"
                   " [--frames N] [--runs N] [--warmup N] [--cases model,local,color]"
                   " [--no-noise] [--csv FILE]\n");
      std::exit(2);
    }
  }
  if (s.threads.empty()) s.threads = {affinity_cpus()};
  return s;
}

std::string cpu_name() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) {
      const size_t colon = line.find(':');
      return colon == std::string::npos ? line : line.substr(colon + 2);
    }
  return "unknown CPU";
}

std::vector<cv::Mat> read_frames(const Settings& s) {
  std::vector<cv::Mat> frames;
  if (!s.frames_dir.empty()) {
    for (int i = 0; int(frames.size()) < s.frames; ++i) {
      char name[64];
      std::snprintf(name, sizeof name, "/frame-%03d.ppm", i);
      cv::Mat f = cv::imread(s.frames_dir + name, cv::IMREAD_COLOR);
      if (f.empty()) break;
      frames.push_back(f);
    }
  } else {
    cv::VideoCapture cap(s.video);
    cv::Mat f;
    while (int(frames.size()) < s.frames && cap.read(f)) frames.push_back(f.clone());
  }
  return frames;
}

/// A frame in one of the stage's formats, with its BGR twin for OpenCV.
struct Frame {
  cv::Mat bgr;
  std::vector<uint8_t> bytes;
  ccl::ImageView view;
};

// Even sizes only (the real clip and the noise are).
Frame convert(const cv::Mat& bgr, ccl::PixelFormat format) {
  Frame f;
  f.bgr = bgr;
  const int w = bgr.cols, h = bgr.rows;
  f.view.width = w;
  f.view.height = h;
  f.view.format = format;
  if (format == ccl::PixelFormat::RGBx) {
    cv::Mat rgba;
    cv::cvtColor(bgr, rgba, cv::COLOR_BGR2RGBA);
    f.bytes.assign(rgba.data, rgba.data + size_t(w) * h * 4);
    f.view.planes[0] = f.bytes.data();
    f.view.strides[0] = size_t(w) * 4;
    return f;
  }
  cv::Mat i420;
  cv::cvtColor(bgr, i420, cv::COLOR_BGR2YUV_I420);  // Y, then U, then V planes
  const size_t y = size_t(w) * h, c = y / 4;
  f.bytes.assign(i420.data, i420.data + y + 2 * c);
  if (format == ccl::PixelFormat::NV12) {
    std::vector<uint8_t> uv(2 * c);
    for (size_t i = 0; i < c; ++i) {
      uv[2 * i] = f.bytes[y + i];
      uv[2 * i + 1] = f.bytes[y + c + i];
    }
    std::copy(uv.begin(), uv.end(), f.bytes.begin() + std::ptrdiff_t(y));
  }
  f.view.planes[0] = f.bytes.data();
  f.view.strides[0] = size_t(w);
  f.view.planes[1] = f.bytes.data() + y;
  if (format == ccl::PixelFormat::NV12) {
    f.view.strides[1] = size_t(w);
  } else {
    f.view.strides[1] = size_t(w) / 2;
    f.view.planes[2] = f.bytes.data() + y + c;
    f.view.strides[2] = size_t(w) / 2;
  }
  return f;
}

size_t playback(int i, size_t n) {
  if (n < 2) return 0;
  const size_t period = 2 * (n - 1), k = size_t(i) % period;
  return k < n ? k : period - k;
}

/// Median ms per frame of `step(frame index)` over the runs after the warm-up.
double time_frames(const Settings& s, const std::function<void(int)>& step) {
  std::vector<double> t;
  for (int i = 0; i < s.warmup + s.runs; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    step(i);
    const auto t1 = std::chrono::steady_clock::now();
    if (i >= s.warmup) t.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  return bench::spread(t).median;
}

struct Row {
  std::string source, format, test;
  int width, height, threads;
  double ours, opencv;
};

}  // namespace

int main(int argc, char** argv) {
  const Settings s = parse(argc, argv);
  std::printf("CPU: %s; %d CPUs in the affinity mask; OpenCV %s\n", cpu_name().c_str(),
              affinity_cpus(), CV_VERSION);

  struct Source {
    std::string name;
    std::vector<cv::Mat> frames;
  };
  std::vector<Source> sources;
  {
    std::vector<cv::Mat> video = read_frames(s);
    if (video.empty())
      std::fprintf(stderr, "cpu_foreground_bench: no frames from %s (try --frames-dir)\n",
                   s.frames_dir.empty() ? s.video.c_str() : s.frames_dir.c_str());
    else
      sources.push_back({"video", std::move(video)});
  }
  if (s.noise) {
    std::mt19937 rng(7);
    std::vector<cv::Mat> noise;
    for (int i = 0; i < 8; ++i) {
      cv::Mat f(1080, 1920, CV_8UC3);
      cv::randu(f, cv::Scalar::all(0), cv::Scalar::all(256));
      noise.push_back(f);
    }
    sources.push_back({"noise", std::move(noise)});
  }

  const std::vector<std::pair<ccl::PixelFormat, const char*>> formats = {
      {ccl::PixelFormat::RGBx, "RGBx"}, {ccl::PixelFormat::I420, "I420"},
      {ccl::PixelFormat::NV12, "NV12"}};
  std::vector<Row> rows;
  std::printf("%-6s %-5s %-6s %9s %3s %10s %10s %7s\n", "source", "fmt", "test", "size",
              "thr", "ours_ms", "opencv_ms", "ratio");
  for (const Source& src : sources)
    for (const auto& [format, fname] : formats) {
      std::vector<Frame> frames;
      // Reserved: the views point into the frames' bytes, which a copy would not keep.
      frames.reserve(src.frames.size());
      for (const cv::Mat& m : src.frames) frames.push_back(convert(m, format));
      const size_t n = frames.size();
      const int w = frames[0].view.width, h = frames[0].view.height;
      for (int threads : s.threads)
        for (const std::string& test : s.cases) {
          cv::setNumThreads(threads);
          ccl::Options o;
          o.close_radius = 0;
          if (test == "model") {
            o.foreground = ccl::ForegroundModel::Background;
            o.close_radius = 2;
          } else if (test == "local") {
            o.foreground = ccl::ForegroundModel::Local;
          } else if (test == "color") {
            o.foreground = ccl::ForegroundModel::Color;
            o.color.low[0] = 20;  // a band of hues that the clip holds
            o.color.high[0] = 120;
            o.color.low[1] = 40;
            o.color.low[2] = 40;
          } else {
            std::fprintf(stderr, "unknown case %s\n", test.c_str());
            return 2;
          }
          ccl::ForegroundStage stage;
          stage.set_threads(threads);
          ccl::BinaryImage mask;
          ccl::Result result;
          const double ours = time_frames(s, [&](int i) {
            stage.apply(frames[playback(i, n)].view, o, mask);
            if (test == "model") ccl::label_binary_fast(mask, 8, result, threads);
          });

          double peer = 0;
          if (test == "model") {
            cv::Ptr<cv::BackgroundSubtractorMOG2> mog2 = cv::createBackgroundSubtractorMOG2();
            const cv::Mat kernel = cv::getStructuringElement(cv::MORPH_RECT, cv::Size(5, 5));
            cv::Mat fg, binary, closed, labels, stats, centroids;
            peer = time_frames(s, [&](int i) {
              mog2->apply(frames[playback(i, n)].bgr, fg);
              cv::threshold(fg, binary, 200, 255, cv::THRESH_BINARY);
              cv::morphologyEx(binary, closed, cv::MORPH_CLOSE, kernel);
              cv::connectedComponentsWithStats(closed, labels, stats, centroids, 8, CV_32S);
            });
          } else if (test == "local") {
            std::vector<cv::Mat> gray(n);
            for (size_t i = 0; i < n; ++i) cv::cvtColor(frames[i].bgr, gray[i], cv::COLOR_BGR2GRAY);
            cv::Mat out;
            peer = time_frames(s, [&](int i) {
              cv::adaptiveThreshold(gray[playback(i, n)], out, 255, cv::ADAPTIVE_THRESH_MEAN_C,
                                    cv::THRESH_BINARY, o.local.block_size, o.local.offset);
            });
          } else {
            cv::Mat hsv, out;
            const cv::Scalar lo(o.color.low[0], o.color.low[1], o.color.low[2]),
                hi(o.color.high[0], o.color.high[1], o.color.high[2]);
            peer = time_frames(s, [&](int i) {
              cv::cvtColor(frames[playback(i, n)].bgr, hsv, cv::COLOR_BGR2HSV);
              cv::inRange(hsv, lo, hi, out);
            });
          }
          rows.push_back({src.name, fname, test, w, h, threads, ours, peer});
          std::printf("%-6s %-5s %-6s %4dx%-4d %3d %10.3f %10.3f %7.2f\n", src.name.c_str(),
                      fname, test.c_str(), w, h, threads, ours, peer, ours / peer);
          std::fflush(stdout);
        }
    }

  if (!s.csv.empty()) {
    std::ofstream csv(s.csv);
    csv << "cpu,source,format,test,width,height,threads,ours_ms,opencv_ms\n";
    for (const Row& r : rows)
      csv << '"' << cpu_name() << "\"," << r.source << ',' << r.format << ',' << r.test << ','
          << r.width << ',' << r.height << ',' << r.threads << ',' << r.ours << ','
          << r.opencv << '\n';
  }
  return 0;
}
