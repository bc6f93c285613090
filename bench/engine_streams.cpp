// Many engines on one GPU without GStreamer: N threads, each with its own engine and
// stream in the process's one CUDA context, label the same device-resident frame
// (a disc, as videotestsrc's ball) as fast as they can. Aggregate frames per second
// for each N tells what CUDA itself allows many streams, against which the element's
// many-stream figures (bench/multistream.sh) are read.
//
//   engine_streams [--sizes 1280x720,1920x1080] [--threads 1,2,4,8,16] [--frames N]
//                  [--no-graphs] [--features-only] [--csv PATH]
// --features-only: no label image, as the element without overlay=fill.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "ccl/cuda_engine.h"
#include "args.h"
#include "cuda_util.h"

namespace {

struct Config {
  std::vector<std::pair<int, int>> sizes = {{1280, 720}, {1920, 1080}};
  std::vector<int> threads = {1, 2, 4, 8, 16};
  int frames = 5000;
  bool graphs = true;
  bool write_labels = true;
  std::string csv = "engine_streams.csv";
};

Config parse(int argc, char** argv) {
  Config c;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw ccl::Error(a + " needs a value");
      return argv[++i];
    };
    if (a == "--frames") c.frames = std::stoi(value());
    else if (a == "--csv") c.csv = value();
    else if (a == "--no-graphs") c.graphs = false;
    else if (a == "--features-only") c.write_labels = false;
    else if (a == "--threads") {
      c.threads.clear();
      for (const auto& t : bench::split(value())) c.threads.push_back(std::stoi(t));
    } else if (a == "--sizes") {
      c.sizes.clear();
      for (const auto& s : bench::split(value()))
        c.sizes.push_back({std::stoi(s.substr(0, s.find('x'))), std::stoi(s.substr(s.find('x') + 1))});
    } else {
      std::fprintf(stderr, "usage: engine_streams [--sizes WxH,...] [--threads N,...] "
                           "[--frames N] [--no-graphs] [--features-only] [--csv PATH]\n");
      std::exit(a == "--help" ? 0 : 2);
    }
  }
  return c;
}

/// A GRAY8 frame in device memory: one filled disc on black.
ccl::ImageView upload_disc(int w, int h, bench::DeviceBuffer<uint8_t>& plane) {
  std::vector<uint8_t> pixels(size_t(w) * h, 0);
  const int r = h / 8, cx = w / 3, cy = h / 2;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      if ((x - cx) * (x - cx) + (y - cy) * (y - cy) <= r * r) pixels[size_t(y) * w + x] = 255;
  return bench::upload_gray(pixels.data(), w, h, plane);
}

}  // namespace

int main(int argc, char** argv) try {
  const Config config = parse(argc, argv);
  cudaDeviceProp prop{};
  CCL_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  std::ofstream csv(config.csv);
  csv << "# device: " << prop.name << "\n# graphs: " << (config.graphs ? "on" : "off")
      << "\n# label image: " << (config.write_labels ? "written" : "not written")
      << "\nsize,threads,frames_per_thread,fps_aggregate,us_per_frame_per_thread\n";
  std::printf("device: %s, graphs %s, label image %s\n", prop.name, config.graphs ? "on" : "off",
              config.write_labels ? "written" : "not written");
  for (auto [w, h] : config.sizes) {
    bench::DeviceBuffer<uint8_t> plane;
    const ccl::ImageView frame = upload_disc(w, h, plane);
    for (int n : config.threads) {
      std::vector<std::unique_ptr<ccl::cuda::Engine>> engines;
      std::vector<std::unique_ptr<bench::Stream>> streams;
      ccl::cuda::Tuning tuning;
      tuning.graphs = config.graphs;
      for (int i = 0; i < n; ++i) {
        engines.push_back(std::make_unique<ccl::cuda::Engine>(0));
        engines.back()->set_tuning(tuning);
        streams.push_back(std::make_unique<bench::Stream>(cudaStreamNonBlocking));
      }
      ccl::Options options;
      options.connectivity = 8;
      options.max_components = 1024;
      options.write_labels = config.write_labels;
      std::atomic<int> ready{0};
      std::atomic<bool> go{false}, failed{false};
      auto work = [&](int i, int frames) {
        ccl::Result result;
        try {
          for (int f = 0; f < frames; ++f) {
            engines[i]->enqueue(frame, options, streams[i]->get());
            engines[i]->finish_in_place(result, false);
            if (result.num_components != 1) throw ccl::Error("the disc is not one component");
          }
        } catch (const std::exception& e) {
          std::fprintf(stderr, "thread %d: %s\n", i, e.what());
          failed = true;
        }
      };
      for (int i = 0; i < n; ++i) work(i, 20);  // warm-up: scratch, graphs
      std::vector<std::thread> pool;
      for (int i = 0; i < n; ++i)
        pool.emplace_back([&, i] {
          ++ready;
          while (!go) std::this_thread::yield();
          work(i, config.frames);
        });
      while (ready < n) std::this_thread::yield();
      const auto t0 = std::chrono::steady_clock::now();
      go = true;
      for (auto& t : pool) t.join();
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (failed) return 1;
      const double fps = double(n) * config.frames / s;
      std::printf("%dx%d %2d threads: %9.0f frames/s aggregate, %7.1f us per frame per thread\n",
                  w, h, n, fps, 1e6 * s / config.frames);
      csv << w << "x" << h << "," << n << "," << config.frames << "," << fps << ","
          << 1e6 * s / config.frames << "\n";
    }
  }
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "engine_streams: %s\n", e.what());
  return 1;
}
