// The fast CPU labeler (ccl::label_binary_fast: labels and the whole table, moments
// included) against OpenCV's cv::connectedComponentsWithStats (CV_32S, CCL_DEFAULT:
// Spaghetti, parallel; labels, boxes, areas, centroids) on the same binary images with
// the same number of threads: the YACCLAB random recipe at 1920x1080 and 3840x2160,
// densities 0.1 / 0.5 / 0.9, granularities 1 / 4 / 16, and real images. Median of
// --runs timings after one untimed run, each side's outputs reused from run to run.
// Every case is checked first: our result equals the sequential reference's
// (label_binary) and OpenCV finds as many components. The frame columns time the
// production path on the gray frame (GRAY8, fixed level 128): ccl::label_frame_cpu
// (threshold, labels, table, report) against cv::threshold + the same OpenCV call.
//
//   cpu_label_bench [--runs N] [--threads 1,2] [--connectivity 8] [--real N] [--csv FILE]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <algorithm>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "ccl/cpu_labeler.h"
#include "ccl/reference.h"
#include "stats.h"
#include "test_images.h"

namespace {

struct Settings {
  int runs = 15;
  std::vector<int> threads = {1, 2};
  std::vector<int> connectivities = {8};
  int real = 6;  // real images benchmarked at most (the largest)
  std::string csv;
};

std::vector<int> int_list(const char* text) {
  std::vector<int> v;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) v.push_back(std::atoi(item.c_str()));
  return v;
}

Settings parse(int argc, char** argv) {
  Settings s;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--runs") s.runs = std::atoi(value());
    else if (a == "--threads") s.threads = int_list(value());
    else if (a == "--connectivity") s.connectivities = int_list(value());
    else if (a == "--real") s.real = std::atoi(value());
    else if (a == "--csv") s.csv = value();
    else {
      std::fprintf(stderr,
                   "usage: cpu_label_bench [--runs N] [--threads 1,2] [--connectivity 8] "
                   "[--real N] [--csv FILE]\n");
      std::exit(2);
    }
  }
  return s;
}

double median_ms(int runs, const std::function<void()>& f) {
  f();  // untimed: allocation of the outputs, caches
  std::vector<double> t;
  for (int i = 0; i < runs; ++i) {
    const auto a = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a)
                    .count());
  }
  return bench::spread(t).median;
}

struct Case {
  std::string name;
  ccl::BinaryImage binary;
  ccl::test::GrayImage gray;  // thresholded at 128 ("above"), it gives binary
};

}  // namespace

int main(int argc, char** argv) {
  const Settings settings = parse(argc, argv);
  std::vector<Case> cases;
  uint32_t seed = 1;
  for (auto [w, h] : {std::pair{1920, 1080}, std::pair{3840, 2160}})
    for (double d : {0.1, 0.5, 0.9})
      for (int g : {1, 4, 16}) {
        char name[64];
        std::snprintf(name, sizeof name, "random %dx%d d%.1f g%d", w, h, d, g);
        ccl::BinaryImage b = ccl::test::yacclab_random(w, h, d, g, seed++);
        ccl::test::GrayImage gray = ccl::test::to_gray(b, name);
        cases.push_back({name, std::move(b), std::move(gray)});
      }
  std::string why;
  std::vector<ccl::test::GrayImage> real = ccl::test::real_images(&why);
  if (real.empty()) {
    std::printf("real images unavailable: %s\n", why.c_str());
  } else {
    std::stable_sort(real.begin(), real.end(), [](const auto& a, const auto& b) {
      return a.pixels.size() > b.pixels.size();
    });
    for (size_t i = 0; i < real.size() && int(i) < settings.real; ++i) {
      const auto& g = real[i];
      Case c;
      c.name = g.name + " " + std::to_string(g.width) + "x" + std::to_string(g.height);
      c.binary.width = g.width;
      c.binary.height = g.height;
      c.binary.pixels.resize(g.pixels.size());
      for (size_t k = 0; k < g.pixels.size(); ++k) c.binary.pixels[k] = g.pixels[k] > 128;
      c.gray = g;
      cases.push_back(std::move(c));
    }
  }

  std::ofstream csv;
  if (!settings.csv.empty()) {
    csv.open(settings.csv);
    csv << "case,connectivity,threads,components,opencv_ms,ccl_ms,ratio,opencv_frame_ms,"
           "ccl_frame_ms,frame_ratio\n";
  }
  std::printf("median of %d runs, ms; ratio = OpenCV / ours (> 1: ours faster); "
              "hardware threads %u\n",
              settings.runs, std::thread::hardware_concurrency());
  std::printf("%-40s %2s %2s %7s | %8s %8s %6s | %8s %8s %6s\n", "case", "c", "T", "comps",
              "opencv", "ours", "ratio", "cv frame", "frame", "ratio");
  int failures = 0;
  for (const Case& c : cases) {
    for (int connectivity : settings.connectivities) {
      const ccl::BinaryImage& b = c.binary;
      ccl::Result want, got;
      ccl::label_binary(b, connectivity, want);
      const cv::Mat src(b.height, b.width, CV_8UC1, const_cast<uint8_t*>(b.pixels.data()));
      cv::Mat labels, stats, centroids;
      for (int t : settings.threads) {
        cv::setNumThreads(t);
        const int n = cv::connectedComponentsWithStats(src, labels, stats, centroids,
                                                       connectivity, CV_32S, cv::CCL_DEFAULT);
        ccl::label_binary_fast(b, connectivity, got, t);
        const bool same = got.labels == want.labels && got.components.size() ==
                          want.components.size() && got.num_components == want.num_components &&
                          std::equal(got.components.begin(), got.components.end(),
                                     want.components.begin());
        if (!same || uint32_t(n - 1) != got.num_components) {
          std::printf("MISMATCH %s c%d T%d: ours %u, reference %u, OpenCV %d\n", c.name.c_str(),
                      connectivity, t, got.num_components, want.num_components, n - 1);
          ++failures;
          continue;
        }
        const double cv_ms = median_ms(settings.runs, [&] {
          cv::connectedComponentsWithStats(src, labels, stats, centroids, connectivity, CV_32S,
                                           cv::CCL_DEFAULT);
        });
        const double our_ms =
            median_ms(settings.runs, [&] { ccl::label_binary_fast(b, connectivity, got, t); });
        const ccl::ImageView view =
            ccl::ImageView::gray8(c.gray.pixels.data(), c.gray.width, c.gray.height);
        ccl::Options options;
        options.connectivity = connectivity;
        ccl::Result frame_result;
        ccl::label_frame_cpu(view, options, frame_result, t);
        if (frame_result.num_components != want.num_components) {
          std::printf("MISMATCH %s c%d T%d: the frame path finds %u\n", c.name.c_str(),
                      connectivity, t, frame_result.num_components);
          ++failures;
          continue;
        }
        const cv::Mat gray(c.gray.height, c.gray.width, CV_8UC1,
                           const_cast<uint8_t*>(c.gray.pixels.data()));
        cv::Mat thresholded;
        const double cv_frame_ms = median_ms(settings.runs, [&] {
          cv::threshold(gray, thresholded, 128, 1, cv::THRESH_BINARY);
          cv::connectedComponentsWithStats(thresholded, labels, stats, centroids, connectivity,
                                           CV_32S, cv::CCL_DEFAULT);
        });
        const double frame_ms = median_ms(
            settings.runs, [&] { ccl::label_frame_cpu(view, options, frame_result, t); });
        std::printf("%-40s %2d %2d %7u | %8.3f %8.3f %6.2f | %8.3f %8.3f %6.2f\n",
                    c.name.c_str(), connectivity, t, got.num_components, cv_ms, our_ms,
                    cv_ms / our_ms, cv_frame_ms, frame_ms, cv_frame_ms / frame_ms);
        std::fflush(stdout);
        if (csv.is_open())
          csv << '"' << c.name << "\"," << connectivity << ',' << t << ','
              << got.num_components << ',' << cv_ms << ',' << our_ms << ',' << cv_ms / our_ms
              << ',' << cv_frame_ms << ',' << frame_ms << ',' << cv_frame_ms / frame_ms << '\n';
      }
    }
  }
  return failures ? 1 : 0;
}
