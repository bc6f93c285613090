// The foreground stage's cost on the GPU (issue 26): per size and format, a moving
// color scene (tests/gpu/foreground_scenes.h) played through the engine as a stream,
// timed with CUDA events around Engine::enqueue, medians over --runs frames after
// --warmup frames:
//   threshold    labeling alone, the global threshold (--level, 128: about 83 % of the
//                scene's pixels, a few hundred components) fused into the labelers
//   model        the background model + cleanup (close radius 0 and 2) + labeling +
//                features: the stage this benchmark is about
//   mask         labeling alone of the masks the model wrote (the same foreground as
//                "model", thresholded as a GRAY8 frame), for a like-for-like base
//   color        the color range (issue 28, ForegroundModel::Color; NV12, I420 and the
//                RGB formats) + labeling + features, per --color-ranges preset:
//                "objects" (S >= 60: the scene's colored objects, about 11 % of the
//                pixels) and "background" (S < 60, its complement, about 89 %); the
//                target (issue 28): color / threshold <= 1.3. Beside it the same masks
//                labeled alone, and the color stage alone (stage events: the kernel
//                that does what cv::cvtColor + cv::inRange do, for the peer's ratio)
//   local        the local threshold (issue 28, ForegroundModel::Local, offset
//                --local-offset, 10) + labeling + features, per --local-blocks block
//                size (31 and 255); the target (issue 28): local / threshold <= 1.3.
//                Beside it the same masks labeled alone, and the local stage alone
//                (stage events: what cv::adaptiveThreshold does, for
//                bench/opencv_threshold_peer.py's ratio)
// and the copy bandwidth of the device (cudaMemcpy device to device, read + written
// bytes over time), at which the model's state (ccl::background_state_bytes_per_pixel,
// read and written once a frame) would take `state_us`. The target (issue 26):
// model / (threshold + state_us) <= 1.5; the ratio over mask + state_us is printed
// beside it.
//
// Frames come from --distinct generated frames played back and forth (the objects
// turn round at the ends), copied device to device into one of three buffers in turn
// (as a buffer pool hands them out, so the engine replays its graphs once the
// model's rate settles), and the L2 cache is flushed before each frame, outside the
// timing, so that no frame starts with its input or the model's state cached.
//
//   foreground_bench [--sizes 1920x1080,3840x2160] [--formats NV12,RGBA,GRAY8]
//                    [--warmup N] [--runs N] [--distinct N] [--close-radii 0,2]
//                    [--algorithm NICK] [--connectivity 4|8] [--level N] [--check N] [--no-flush]
//                    [--csv PATH] [--dump DIR] [--dump-only] [--device N]
//                    [--models background,color,local] [--color-ranges objects,background]
//                    [--color-range H,S,V,H,S,V] [--local-blocks 31,255] [--local-offset X]
//
// --dump DIR writes the frames (PGM for GRAY8, PPM for RGBA without its alpha, raw
// NV12) with a MANIFEST per size and format, for bench/mog2_peer.py to time OpenCV's
// MOG2 on the same frames; --dump-only writes them and stops (no GPU needed). The
// MANIFEST also names the color ranges (color_range_NAME H,S,V H,S,V), for a peer
// timing cv::cvtColor + cv::inRange on the same frames.
// --check N compares the first N frames of each model run with ccl::ForegroundStage
// (masks, labels and tables); a mismatch is reported and the run exits 1.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "args.h"
#include "ccl/cuda_engine.h"
#include "ccl/cuda_engine_testing.h"
#include "ccl/foreground.h"
#include "compare.h"
#include "cuda_util.h"
#include "foreground_scenes.h"
#include "measure.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Size {
  int width, height;
};

struct Config {
  std::vector<Size> sizes = {{1920, 1080}, {3840, 2160}};
  std::vector<ccl::PixelFormat> formats = {ccl::PixelFormat::NV12, ccl::PixelFormat::RGBA,
                                           ccl::PixelFormat::Gray8};
  // The model's rate settles after history / 2 = 250 frames (MOG2's default history).
  int warmup = 300;
  int runs = 300;
  int distinct = 24;
  std::vector<int> close_radii = {0, 2};
  ccl::Algorithm algorithm = ccl::Algorithm::HA;
  int connectivity = 8;
  int level = 128;
  int check = 3;
  bool flush = true;
  std::string csv = "foreground_bench.csv";
  std::string dump;
  bool dump_only = false;
  int device = 0;
  // The stages timed beside the threshold: "background" (the model) and "color".
  std::vector<std::string> models = {"background", "color", "local"};
  // The local threshold's block sizes and offset.
  std::vector<int> local_blocks = {31, 255};
  double local_offset = 10;
  struct ColorRange {
    std::string name;
    ccl::ColorOptions bounds;
  };
  std::vector<ColorRange> color_ranges = color_presets();

  static std::vector<ColorRange> color_presets() {
    ColorRange objects{"objects", {}}, background{"background", {}};
    objects.bounds.low[1] = 60;
    background.bounds.high[1] = 59;
    return {objects, background};
  }
  bool has_model(const std::string& model) const {
    return std::find(models.begin(), models.end(), model) != models.end();
  }
};

[[noreturn]] void usage(const std::string& why) {
  std::cerr << "foreground_bench: " << why << "\n"
            << "usage: foreground_bench [--sizes WxH,...] [--formats NV12,RGBA,GRAY8] [--warmup N] "
               "[--runs N] [--distinct N] [--close-radii R,...] [--algorithm NICK] "
               "[--connectivity 4|8] [--level N] [--check N] [--no-flush] [--csv PATH] [--dump DIR] "
               "[--dump-only] [--device N] [--models background,color,local] "
               "[--color-ranges objects,background] [--color-range H,S,V,H,S,V] "
               "[--local-blocks B,...] [--local-offset X]\n";
  std::exit(2);
}

bool parse_format(const std::string& s, ccl::PixelFormat* out) {
  for (ccl::PixelFormat f : {ccl::PixelFormat::Gray8, ccl::PixelFormat::Gray16LE, ccl::PixelFormat::NV12,
                             ccl::PixelFormat::I420, ccl::PixelFormat::RGBA, ccl::PixelFormat::BGRA,
                             ccl::PixelFormat::RGBx, ccl::PixelFormat::BGRx})
    if (s == ccl::to_string(f)) {
      *out = f;
      return true;
    }
  return false;
}

Config parse_args(int argc, char** argv) {
  Config c;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage("missing value for " + a);
      return argv[++i];
    };
    try {
      if (a == "--sizes") {
        c.sizes.clear();
        for (const std::string& s : bench::split(value())) {
          Size z{};
          if (std::sscanf(s.c_str(), "%dx%d", &z.width, &z.height) != 2 || z.width < 2 || z.height < 2)
            usage("bad size " + s);
          c.sizes.push_back(z);
        }
      } else if (a == "--formats") {
        c.formats.clear();
        for (const std::string& s : bench::split(value())) {
          ccl::PixelFormat f;
          if (!parse_format(s, &f)) usage("unknown format " + s);
          c.formats.push_back(f);
        }
      } else if (a == "--warmup") c.warmup = std::stoi(value());
      else if (a == "--runs") c.runs = std::stoi(value());
      else if (a == "--distinct") c.distinct = std::stoi(value());
      else if (a == "--close-radii") {
        c.close_radii.clear();
        for (const std::string& s : bench::split(value())) c.close_radii.push_back(std::stoi(s));
      } else if (a == "--algorithm") {
        if (!ccl::parse(value(), &c.algorithm)) usage("unknown algorithm");
      } else if (a == "--connectivity") c.connectivity = std::stoi(value());
      else if (a == "--level") c.level = std::stoi(value());
      else if (a == "--check") c.check = std::stoi(value());
      else if (a == "--no-flush") c.flush = false;
      else if (a == "--csv") c.csv = value();
      else if (a == "--dump") c.dump = value();
      else if (a == "--dump-only") c.dump_only = true;
      else if (a == "--device") c.device = std::stoi(value());
      else if (a == "--models") {
        c.models = bench::split(value());
        for (const std::string& m : c.models)
          if (m != "background" && m != "color" && m != "local") usage("unknown model " + m);
      } else if (a == "--color-ranges") {
        c.color_ranges.clear();
        for (const std::string& n : bench::split(value())) {
          bool found = false;
          for (const Config::ColorRange& r : Config::color_presets())
            if (r.name == n) c.color_ranges.push_back(r), found = true;
          if (!found) usage("unknown color range " + n + " (objects, background)");
        }
      } else if (a == "--color-range") {
        Config::ColorRange r{"custom", {}};
        ccl::ColorOptions& b = r.bounds;
        if (std::sscanf(value().c_str(), "%d,%d,%d,%d,%d,%d", &b.low[0], &b.low[1], &b.low[2],
                        &b.high[0], &b.high[1], &b.high[2]) != 6)
          usage("--color-range wants H,S,V,H,S,V (low, then high)");
        c.color_ranges = {r};
      }
      else if (a == "--local-blocks") {
        c.local_blocks.clear();
        for (const std::string& b : bench::split(value())) {
          c.local_blocks.push_back(std::stoi(b));
          if (c.local_blocks.back() < 3 || c.local_blocks.back() > 255 || c.local_blocks.back() % 2 == 0)
            usage("--local-blocks wants odd sizes within 3..255");
        }
      } else if (a == "--local-offset") c.local_offset = std::stod(value());
      else if (a == "--help" || a == "-h") usage("help");
      else usage("unknown argument " + a);
    } catch (const std::invalid_argument&) {
      usage("bad value for " + a);
    }
  }
  if (c.runs < 1 || c.warmup < 0 || c.distinct < 2 || c.check < 0) usage("bad counts");
  if (c.dump_only && c.dump.empty()) usage("--dump-only needs --dump DIR");
  return c;
}

/// Frame i of the stream: the distinct frames forward, then back, and again.
int playback(int i, int distinct) {
  const int period = 2 * (distinct - 1);
  const int p = i % period;
  return p < distinct ? p : period - p;
}

/// The scene every size uses: a dozen objects, shadows, a little noise.
ccl::test::SceneSpec bench_scene(const Size& z) {
  ccl::test::SceneSpec s;
  s.width = z.width;
  s.height = z.height;
  s.seed = 2026;
  s.objects = 12;
  s.noise = 3;
  s.shadows = true;
  return s;
}

/// Renders the distinct frames on all cores (a 4K frame is 8 million pixels).
std::vector<ccl::test::ColorImage> render(const ccl::test::SceneSpec& spec, int distinct) {
  const ccl::test::Scene scene(spec);
  std::vector<ccl::test::ColorImage> frames(static_cast<size_t>(distinct));
  const int threads = std::max(1u, std::thread::hardware_concurrency());
  for (int t = 0; t < distinct; ++t) {
    ccl::test::ColorImage& img = frames[size_t(t)];
    img.width = spec.width;
    img.height = spec.height;
    img.rgb.resize(size_t(spec.width) * spec.height * 3);
    std::vector<std::future<void>> parts;
    const int rows = (spec.height + threads - 1) / threads;
    for (int y = 0; y < spec.height; y += rows)
      parts.push_back(std::async(std::launch::async, [&, t, y] {
        scene.render_rows(t, y, y + rows, img.rgb.data());
      }));
    for (auto& p : parts) p.get();
  }
  return frames;
}

std::vector<ccl::test::Frame> convert(const std::vector<ccl::test::ColorImage>& images,
                                      ccl::PixelFormat format) {
  std::vector<std::future<ccl::test::Frame>> jobs;
  for (const auto& img : images)
    jobs.push_back(std::async(std::launch::async, [&img, format] { return ccl::test::to_frame(img, format); }));
  std::vector<ccl::test::Frame> frames;
  for (auto& j : jobs) frames.push_back(j.get());
  return frames;
}

/// Writes the frames for mog2_peer.py: DIR/WxH-FORMAT/frame-NNN.{pgm,ppm,nv12}, MANIFEST.
void dump(const Config& c, const std::vector<ccl::test::Frame>& frames, const Size& z,
          ccl::PixelFormat format) {
  namespace fs = std::filesystem;
  const std::string name = std::to_string(z.width) + "x" + std::to_string(z.height) + "-" + ccl::to_string(format);
  const fs::path dir = fs::path(c.dump) / name;
  fs::create_directories(dir);
  const char* ext = format == ccl::PixelFormat::Gray8 ? "pgm" : format == ccl::PixelFormat::NV12 ? "nv12" : "ppm";
  for (size_t i = 0; i < frames.size(); ++i) {
    const ccl::ImageView& v = frames[i].view;
    char file[64];
    std::snprintf(file, sizeof file, "frame-%03zu.%s", i, ext);
    std::ofstream out(dir / file, std::ios::binary);
    auto row = [&](int p, int y, size_t bytes) {
      out.write(static_cast<const char*>(v.planes[p]) + size_t(y) * v.strides[p], std::streamsize(bytes));
    };
    if (format == ccl::PixelFormat::Gray8) {
      out << "P5\n" << v.width << " " << v.height << "\n255\n";
      for (int y = 0; y < v.height; ++y) row(0, y, size_t(v.width));
    } else if (format == ccl::PixelFormat::NV12) {
      for (int y = 0; y < v.height; ++y) row(0, y, size_t(v.width));
      for (int y = 0; y < (v.height + 1) / 2; ++y) row(1, y, size_t((v.width + 1) / 2) * 2);
    } else {
      // PPM is RGB: the 4-byte pixels in R, G, B order whatever the format's order.
      out << "P6\n" << v.width << " " << v.height << "\n255\n";
      const bool bgr = format == ccl::PixelFormat::BGRA || format == ccl::PixelFormat::BGRx;
      std::vector<char> rgb(size_t(v.width) * 3);
      for (int y = 0; y < v.height; ++y) {
        const uint8_t* src = static_cast<const uint8_t*>(v.planes[0]) + size_t(y) * v.strides[0];
        for (int x = 0; x < v.width; ++x) {
          rgb[size_t(x) * 3] = char(src[4 * x + (bgr ? 2 : 0)]);
          rgb[size_t(x) * 3 + 1] = char(src[4 * x + 1]);
          rgb[size_t(x) * 3 + 2] = char(src[4 * x + (bgr ? 0 : 2)]);
        }
        out.write(rgb.data(), std::streamsize(rgb.size()));
      }
    }
  }
  std::ofstream manifest(dir / "MANIFEST");
  manifest << "width " << z.width << "\nheight " << z.height << "\nformat " << ccl::to_string(format)
           << "\nframes " << frames.size() << "\nextension " << ext
           << "\norder back-and-forth\nwarmup " << c.warmup << "\nruns " << c.runs << "\n";
  for (const Config::ColorRange& r : c.color_ranges)
    manifest << "color_range_" << r.name << " " << r.bounds.low[0] << "," << r.bounds.low[1] << ","
             << r.bounds.low[2] << " " << r.bounds.high[0] << "," << r.bounds.high[1] << ","
             << r.bounds.high[2] << "\n";
}

/// A frame's planes in device memory, rows without padding.
struct DeviceFrame {
  bench::DeviceBuffer<uint8_t> planes[3];
  ccl::ImageView view;

  void allocate(const ccl::ImageView& like) {
    view = like;
    view.space = ccl::MemorySpace::Device;
    for (int p = 0; p < 3; ++p) view.planes[p] = nullptr, view.strides[p] = 0;
    for (int p = 0; p < ccl::plane_count(like.format); ++p) {
      const size_t row = row_bytes(like, p);
      planes[p].reserve(row * size_t(rows(like, p)));
      view.planes[p] = planes[p].get();
      view.strides[p] = row;
    }
  }
  void upload(const ccl::ImageView& host) {
    allocate(host);
    for (int p = 0; p < ccl::plane_count(host.format); ++p)
      CCL_CUDA_CHECK(cudaMemcpy2D(view.planes[p], view.strides[p], host.planes[p], host.strides[p],
                                  view.strides[p], size_t(rows(host, p)), cudaMemcpyHostToDevice));
  }
  void copy_from(const DeviceFrame& src, cudaStream_t s) {
    for (int p = 0; p < ccl::plane_count(view.format); ++p)
      CCL_CUDA_CHECK(cudaMemcpyAsync(view.planes[p], src.view.planes[p],
                                     view.strides[p] * size_t(rows(view, p)), cudaMemcpyDeviceToDevice, s));
  }
  static int rows(const ccl::ImageView& v, int p) { return p == 0 ? v.height : (v.height + 1) / 2; }
  static size_t row_bytes(const ccl::ImageView& v, int p) {
    if (p == 0) return size_t(v.width) * size_t(ccl::luma_bytes_per_pixel(v.format));
    const size_t cw = size_t(v.width + 1) / 2;
    return v.format == ccl::PixelFormat::NV12 ? 2 * cw : cw;
  }
};

struct Timing {
  double median = NAN, min = NAN, p90 = NAN;
  uint64_t replays = 0;
  double components = NAN;   // median count
  double foreground = NAN;   // % of pixels, sampled
  std::string check = "unchecked";
  double stage = NAN;        // median foreground stage alone (Profiling::Stages runs only)
};

Timing summarize(std::vector<double> us) {
  Timing t;
  if (us.empty()) return t;
  std::sort(us.begin(), us.end());
  t.min = us.front();
  t.median = bench::spread(us).median;
  t.p90 = us[std::min(us.size() - 1, size_t(std::ceil(0.9 * double(us.size()))) - 1)];
  return t;
}

class Runner {
 public:
  Runner(const Config& c, bench::Stream& stream) : c_(c), stream_(stream) {
    int l2 = 0;
    CCL_CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, c.device));
    flush_bytes_ = size_t(std::max(l2, 1 << 20)) * 2;
    if (c.flush) flush_.reserve(flush_bytes_);
  }

  /// Plays `library` (frames in device memory) through a fresh engine: warm-up, then
  /// the timed runs. `host` (same frames on the host) serves the check; `keep_masks`
  /// receives device copies of the last masks the stage wrote.
  /// `stages`: profile the stages (no graphs) and report the foreground stage's median.
  Timing play(const std::vector<std::unique_ptr<DeviceFrame>>& library, const ccl::Options& options,
              const std::vector<ccl::test::Frame>* host, std::vector<std::unique_ptr<DeviceFrame>>* keep_masks,
              bool stages = false) {
    ccl::cuda::Engine engine(c_.device);
    if (stages) engine.set_profiling(ccl::cuda::Profiling::Stages);
    std::vector<double> stage_us;
    ccl::ForegroundStage stage;
    DeviceFrame slots[3];
    for (DeviceFrame& s : slots) s.allocate(library.front()->view);
    const int total = c_.warmup + c_.runs;
    const int distinct = int(library.size());
    bench::Event start(true), stop(true);
    std::vector<double> us;
    std::vector<double> counts;
    double foreground_sum = 0;
    int foreground_samples = 0;
    Timing t;
    if (host && c_.check > 0) t.check = "ok";
    uint64_t replays_before = 0;
    ccl::Result got;
    std::vector<uint8_t> mask;
    for (int i = 0; i < total; ++i) {
      const int k = playback(i, distinct);
      DeviceFrame& slot = slots[i % 3];
      slot.copy_from(*library[size_t(k)], stream_.get());
      if (c_.flush) CCL_CUDA_CHECK(cudaMemsetAsync(flush_.get(), i & 0xFF, flush_bytes_, stream_.get()));
      if (i == c_.warmup) replays_before = ccl::cuda::testing::graph_replays(engine);
      start.record(stream_.get());
      engine.enqueue(slot.view, options, stream_.get());
      stop.record(stream_.get());
      const bool checking = host && i < c_.check;
      engine.finish(got, checking && options.write_labels);
      if (i >= c_.warmup) {
        // finish() waits for the engine's own last event, not for `stop` after it.
        stop.synchronize();
        us.push_back(bench::elapsed_us(start, stop));
        counts.push_back(got.num_components);
        if (stages) stage_us.push_back(engine.stage_times().threshold * 1000.0);
        if (keep_masks && engine.device_mask() && i >= total - int(keep_masks->size())) {
          // The engine's mask rows are pitched; the kept frames are plain GRAY8.
          DeviceFrame& m = *(*keep_masks)[size_t(total - 1 - i)];
          CCL_CUDA_CHECK(cudaMemcpy2DAsync(m.planes[0].get(), m.view.strides[0], engine.device_mask(),
                                           engine.device_mask_pitch(), size_t(m.view.width),
                                           size_t(m.view.height), cudaMemcpyDeviceToDevice, stream_.get()));
          CCL_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
        }
        if ((i - c_.warmup) % 50 == 0) {
          engine.copy_mask(mask);
          size_t on = 0;
          for (uint8_t v : mask) on += v;
          foreground_sum += 100.0 * double(on) / double(mask.size());
          ++foreground_samples;
        }
      }
      if (checking) {
        // The CPU stage sees the same frames from the start of the model.
        ccl::Result want;
        ccl::BinaryImage cpu_mask;
        ccl::reference_label((*host)[size_t(k)].view, options, stage, want, &cpu_mask);
        engine.copy_mask(mask);
        std::string diff = mask == cpu_mask.pixels ? "" : "masks differ";
        if (diff.empty()) diff = ccl::test::difference(got, want);
        if (!diff.empty() && t.check == "ok") t.check = "frame " + std::to_string(i) + ": " + diff;
      }
    }
    Timing s = summarize(us);
    s.check = t.check;
    s.replays = ccl::cuda::testing::graph_replays(engine) - replays_before;
    s.components = bench::spread(counts).median;
    s.foreground = foreground_samples ? foreground_sum / foreground_samples : NAN;
    if (stages) s.stage = summarize(stage_us).median;
    return s;
  }

 private:
  const Config& c_;
  bench::Stream& stream_;
  bench::DeviceBuffer<uint8_t> flush_;
  size_t flush_bytes_ = 0;
};

std::string fmt(double v, int decimals = 1) {
  if (std::isnan(v)) return "";
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", decimals, v);
  return b;
}

}  // namespace

int main(int argc, char** argv) {
  const Config config = parse_args(argc, argv);
  try {
    if (config.dump_only) {
      for (const Size& z : config.sizes) {
        const auto images = render(bench_scene(z), config.distinct);
        for (ccl::PixelFormat f : config.formats) dump(config, convert(images, f), z, f);
        std::printf("dumped %dx%d\n", z.width, z.height);
      }
      return 0;
    }
    std::string why;
    if (!ccl::cuda::device_usable(config.device, &why)) {
      std::cerr << "foreground_bench: no usable CUDA device: " << why << "\n";
      return 1;
    }
    CCL_CUDA_CHECK(cudaSetDevice(config.device));
    const std::string device = bench::device_description(config.device);
    const double copy_gbs = bench::copy_bandwidth_gbs(size_t(2) << 30, 20);
    std::printf("device: %s\ncopy bandwidth (D2D, read+write): %.1f GB/s\n", device.c_str(), copy_gbs);
    std::printf("frames: %d warm-up + %d timed, %d distinct played back and forth; L2 flushed "
                "before each frame: %s; %s %d-way\n",
                config.warmup, config.runs, config.distinct, config.flush ? "yes" : "no",
                ccl::to_string(config.algorithm), config.connectivity);
    std::fflush(stdout);

    std::ofstream csv(config.csv);
    csv << "# device: " << device << "\n# copy_bandwidth_GBps: " << fmt(copy_gbs) << "\n"
        << "# times in microseconds: CUDA events around Engine::enqueue (the frame's whole GPU "
           "work, report included), medians over the timed frames; L2 flushed before each frame: "
        << (config.flush ? "yes" : "no") << "\n# frames: " << config.warmup << " warm-up, "
        << config.runs << " timed, " << config.distinct << " distinct played back and forth; "
        << ccl::to_string(config.algorithm) << " " << config.connectivity << "-way, labels written; "
        << "threshold level " << config.level << "\n"
        << "# state_us: the model's state (background_state_bytes_per_pixel x pixels) read and "
           "written once at the copy bandwidth; ratio = model / (threshold + state_us), "
           "ratio_same_mask = model / (mask + state_us); color-NAME rows (no state): ratio = color / "
           "threshold, ratio_same_mask = color / mask-color-NAME; stage-color-NAME: the color stage "
           "alone (stage events, no graphs); local-bN rows (block size N) likewise over their own "
           "masks and stage\n"
        << "size,format,case,close_radius,frames,median_us,min_us,p90_us,graph_replays,"
           "components_median,foreground_percent,state_bytes,state_us,threshold_us,mask_us,ratio,"
           "ratio_same_mask,check\n";

    bench::Stream stream(cudaStreamNonBlocking);
    Runner runner(config, stream);
    bool all_checked = true, all_met = true, all_color_met = true, all_local_met = true;
    for (const Size& z : config.sizes) {
      const auto t0 = Clock::now();
      const auto images = render(bench_scene(z), config.distinct);
      for (ccl::PixelFormat format : config.formats) {
        const std::vector<ccl::test::Frame> host = convert(images, format);
        if (!config.dump.empty()) dump(config, host, z, format);
        std::vector<std::unique_ptr<DeviceFrame>> library;
        for (const auto& f : host) {
          library.push_back(std::make_unique<DeviceFrame>());
          library.back()->upload(f.view);
        }
        const std::string size = std::to_string(z.width) + "x" + std::to_string(z.height);
        std::printf("\n%s %s (frames ready in %.1f s)\n", size.c_str(), ccl::to_string(format),
                    std::chrono::duration<double>(Clock::now() - t0).count());
        auto row = [&](const char* name, int close, const Timing& t, const std::string& extra) {
          std::printf("  %-9s close %d: median %8.1f us (min %8.1f, p90 %8.1f)  replays %4llu  "
                      "components %7.0f  foreground %5.2f %%  [%s]%s\n",
                      name, close, t.median, t.min, t.p90, (unsigned long long)t.replays, t.components,
                      t.foreground, t.check.c_str(), extra.c_str());
          std::fflush(stdout);
          if (t.check != "ok" && t.check != "unchecked") all_checked = false;
        };

        ccl::Options base;
        base.algorithm = config.algorithm;
        base.connectivity = config.connectivity;
        ccl::Options threshold = base;
        threshold.foreground = ccl::ForegroundModel::Threshold;
        threshold.threshold = config.level;
        const Timing labeling = runner.play(library, threshold, nullptr, nullptr);
        row("threshold", 0, labeling, "");
        csv << size << "," << ccl::to_string(format) << ",threshold,0," << config.runs << ","
            << fmt(labeling.median) << "," << fmt(labeling.min) << "," << fmt(labeling.p90) << ","
            << labeling.replays << "," << fmt(labeling.components, 0) << "," << fmt(labeling.foreground, 2)
            << ",,,,,,," << labeling.check << "\n";

        const double state_bytes =
            double(ccl::background_state_bytes_per_pixel(format)) * double(z.width) * z.height;
        const double state_us = 2.0 * state_bytes / (copy_gbs * 1e3);
        for (int close : config.has_model("background") ? config.close_radii : std::vector<int>{}) {
          ccl::Options model = base;
          model.foreground = ccl::ForegroundModel::Background;
          model.close_radius = close;
          // The last masks the model wrote, labeled alone afterwards.
          std::vector<std::unique_ptr<DeviceFrame>> masks;
          ccl::ImageView mask_like = ccl::ImageView::gray8(nullptr, z.width, z.height);
          for (int m = 0; m < std::min(config.distinct, 8); ++m) {
            masks.push_back(std::make_unique<DeviceFrame>());
            masks.back()->allocate(mask_like);
          }
          const Timing t = runner.play(library, model, &host, &masks);
          ccl::Options on_mask = base;
          on_mask.threshold = 0;  // mask bytes are 0 or 1
          const Timing same = runner.play(masks, on_mask, nullptr, nullptr);
          const double ratio = t.median / (labeling.median + state_us);
          const double ratio_same = t.median / (same.median + state_us);
          all_met &= ratio <= 1.5;
          char extra[160];
          std::snprintf(extra, sizeof extra,
                        "\n            state %.1f MB, %.1f us at copy bandwidth; ratio %.2f over "
                        "threshold, %.2f over the same masks (target <= 1.5: %s)",
                        state_bytes / 1e6, state_us, ratio, ratio_same, ratio <= 1.5 ? "met" : "NOT met");
          row("model", close, t, extra);
          row("mask", close, same, "");
          csv << size << "," << ccl::to_string(format) << ",model," << close << "," << config.runs << ","
              << fmt(t.median) << "," << fmt(t.min) << "," << fmt(t.p90) << "," << t.replays << ","
              << fmt(t.components, 0) << "," << fmt(t.foreground, 2) << "," << fmt(state_bytes, 0) << ","
              << fmt(state_us) << "," << fmt(labeling.median) << "," << fmt(same.median) << ","
              << fmt(ratio, 3) << "," << fmt(ratio_same, 3) << "," << t.check << "\n";
          csv << size << "," << ccl::to_string(format) << ",mask," << close << "," << config.runs << ","
              << fmt(same.median) << "," << fmt(same.min) << "," << fmt(same.p90) << "," << same.replays
              << "," << fmt(same.components, 0) << "," << fmt(same.foreground, 2) << ",,,,,,,"
              << same.check << "\n";
          csv.flush();
        }
        // A model that writes a mask of its own (color, local): the whole frame, the same
        // masks labeled alone and the stage alone, against labeling with the threshold.
        // Returns the ratio over the threshold's labeling.
        auto mask_model = [&](const ccl::Options& model, const std::string& name,
                              const std::string& settings, const char* stage_name) {
          std::vector<std::unique_ptr<DeviceFrame>> masks;
          ccl::ImageView mask_like = ccl::ImageView::gray8(nullptr, z.width, z.height);
          for (int m = 0; m < std::min(config.distinct, 8); ++m) {
            masks.push_back(std::make_unique<DeviceFrame>());
            masks.back()->allocate(mask_like);
          }
          const Timing t = runner.play(library, model, &host, &masks);
          ccl::Options on_mask = base;
          on_mask.threshold = 0;  // mask bytes are 0 or 1
          const Timing same = runner.play(masks, on_mask, nullptr, nullptr);
          // The stage alone (stage events, no graphs): what OpenCV's threshold step does.
          const Timing alone = runner.play(library, model, nullptr, nullptr, true);
          const double ratio = t.median / labeling.median, ratio_same = t.median / same.median;
          char extra[256];
          std::snprintf(extra, sizeof extra,
                        "\n            %s; ratio %.2f over threshold, %.2f over the same masks "
                        "(target <= 1.3: %s); %s stage alone %.1f us",
                        settings.c_str(), ratio, ratio_same, ratio <= 1.3 ? "met" : "NOT met",
                        stage_name, alone.stage);
          row(name.c_str(), 0, t, extra);
          row("mask", 0, same, "");
          csv << size << "," << ccl::to_string(format) << "," << name << ",0," << config.runs << ","
              << fmt(t.median) << "," << fmt(t.min) << "," << fmt(t.p90) << "," << t.replays << ","
              << fmt(t.components, 0) << "," << fmt(t.foreground, 2) << ",,," << fmt(labeling.median) << ","
              << fmt(same.median) << "," << fmt(ratio, 3) << "," << fmt(ratio_same, 3) << "," << t.check << "\n";
          csv << size << "," << ccl::to_string(format) << ",mask-" << name << ",0," << config.runs << ","
              << fmt(same.median) << "," << fmt(same.min) << "," << fmt(same.p90) << "," << same.replays
              << "," << fmt(same.components, 0) << "," << fmt(same.foreground, 2) << ",,,,,,,"
              << same.check << "\n";
          // median_us: the stage alone (Profiling::Stages events, no graphs).
          csv << size << "," << ccl::to_string(format) << ",stage-" << name << ",0," << config.runs << ","
              << fmt(alone.stage) << std::string(11, ',') << ",stage events\n";
          csv.flush();
          return ratio;
        };
        const bool color_format = format != ccl::PixelFormat::Gray8 && format != ccl::PixelFormat::Gray16LE;
        for (const Config::ColorRange& range : color_format && config.has_model("color")
                                                   ? config.color_ranges
                                                   : std::vector<Config::ColorRange>{}) {
          ccl::Options color = base;
          color.foreground = ccl::ForegroundModel::Color;
          color.color = range.bounds;
          char settings[96];
          std::snprintf(settings, sizeof settings, "H %d..%d S %d..%d V %d..%d", range.bounds.low[0],
                        range.bounds.high[0], range.bounds.low[1], range.bounds.high[1],
                        range.bounds.low[2], range.bounds.high[2]);
          all_color_met &= mask_model(color, "color-" + range.name, settings, "color") <= 1.3;
        }
        for (int block : config.has_model("local") ? config.local_blocks : std::vector<int>{}) {
          ccl::Options local = base;
          local.foreground = ccl::ForegroundModel::Local;
          local.local.block_size = block;
          local.local.offset = config.local_offset;
          char settings[96];
          std::snprintf(settings, sizeof settings, "block %d offset %g", block, config.local_offset);
          all_local_met &= mask_model(local, "local-b" + std::to_string(block), settings, "local") <= 1.3;
        }
      }
    }
    // Again at the end: a drift between the two shows clocks or power moving.
    const double copy_end = bench::copy_bandwidth_gbs(size_t(2) << 30, 20);
    std::printf("\ncopy bandwidth at the end: %.1f GB/s\n", copy_end);
    csv << "# copy_bandwidth_GBps_at_end: " << fmt(copy_end) << "\n";
    if (config.has_model("background"))
      std::printf("ratio target (<= 1.5 over threshold labeling + state traffic): %s\n",
                  all_met ? "met everywhere" : "NOT met everywhere");
    std::printf("CSV: %s\n", config.csv.c_str());
    if (config.has_model("color"))
      std::printf("color target (<= 1.3 over threshold labeling): %s\n",
                  all_color_met ? "met everywhere" : "NOT met everywhere");
    if (config.has_model("local"))
      std::printf("local target (<= 1.3 over threshold labeling): %s\n",
                  all_local_met ? "met everywhere" : "NOT met everywhere");
    if (!all_checked) {
      std::printf("foreground_bench: a checked frame differed from the CPU stage\n");
      return 1;
    }
  } catch (const std::exception& e) {
    std::cerr << "foreground_bench: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
