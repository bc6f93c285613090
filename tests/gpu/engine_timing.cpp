// Rough GPU times of the engine per stage (CUDA events of Engine::set_profiling),
// medians over repetitions on YACCLAB random images. A quick look, not the benchmark.
//   gpu_engine_timing [repetitions]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "ccl/cuda_engine.h"
#include "test_images.h"

namespace {

float median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  using namespace ccl;
  const int reps = argc > 1 ? std::atoi(argv[1]) : 30;
  std::string why;
  if (!cuda::device_usable(-1, &why)) {
    std::printf("no usable CUDA device: %s\n", why.c_str());
    return 0;
  }
  struct Case { int w, h; double d; int g; };
  const Case cases[] = {{2048, 2048, 0.5, 1}, {2048, 2048, 0.5, 4}, {2048, 2048, 0.9, 1},
                        {1920, 1080, 0.5, 1}, {3840, 2160, 0.5, 1}, {3840, 2160, 0.1, 16},
                        {3840, 2160, 0.9, 16}};
  cuda::Engine engine;
  engine.set_profiling(true);
  std::printf("%-10s %4s %3s %-17s %5s | %8s %8s %8s %8s %8s %8s  (us, median of %d)\n", "image",
              "d", "g", "alg", "conn", "thresh", "local", "merge", "analysis", "publish", "total",
              reps);
  for (const Case& c : cases) {
    const test::Frame frame = test::make_frame(
        test::to_gray(test::yacclab_random(c.w, c.h, c.d, c.g, 1), "t"), PixelFormat::Gray8);
    for (const AlgorithmInfo& info : algorithms())
      for (int conn : {8, 4}) {
        Options options;
        options.algorithm = info.id;
        options.connectivity = conn;
        std::vector<float> t[6];
        Result out;
        for (int i = 0; i < reps + 3; ++i) {
          engine.label_host(frame.view, options, out);
          if (i < 3) continue;
          const cuda::StageTimes s = engine.stage_times();
          const float v[6] = {s.threshold, s.local, s.merge, s.analysis, s.copy, s.total};
          for (int k = 0; k < 6; ++k) t[k].push_back(v[k] * 1000.f);
        }
        std::printf("%4dx%-5d %4.1f %3d %-17s %5d | %8.1f %8.1f %8.1f %8.1f %8.1f %8.1f  N=%u\n",
                    c.w, c.h, c.d, c.g, info.nick, conn,
                    median(t[0]), median(t[1]), median(t[2]), median(t[3]), median(t[4]),
                    median(t[5]), out.num_components);
      }
  }
  // Otsu's extra cost (histogram of luma8 + level), for 8-bit and RGBA frames.
  for (PixelFormat format : {PixelFormat::Gray8, PixelFormat::RGBA}) {
    Options otsu;
    otsu.mode = ThresholdMode::Otsu;
    const test::Frame frame = test::make_frame(
        test::to_gray(test::yacclab_random(2048, 2048, 0.5, 1, 1), "t"), format);
    std::vector<float> th, total;
    Result out;
    for (int i = 0; i < reps + 3; ++i) {
      engine.label_host(frame.view, otsu, out);
      if (i < 3) continue;
      th.push_back(engine.stage_times().threshold * 1000.f);
      total.push_back(engine.stage_times().total * 1000.f);
    }
    std::printf("2048x2048 %s otsu HA8: threshold stage %.1f us, total %.1f us\n",
                to_string(format), median(th), median(total));
  }
  return 0;
}
