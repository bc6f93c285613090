// Kernel-level benchmark of the CUDA engine (docs/PERFORMANCE.md, "Method"): the random grid of
// the anchors table plus the real test images, every algorithm x connectivity, labels and
// features-only modes; CSV rows and a summary of the ratio against the anchors table.
//
//   ccl_bench [--csv PATH] [--runs N] [--warmup N] [--host-runs N]
//             [--sizes 1920x1080,...] [--densities 0.1,0.5,...] [--granularities 1,4,16]
//             [--algorithms ha4,komura] [--connectivity 4,8] [--modes labels,features]
//             [--check-limit PIXELS] [--no-real] [--no-graphs] [--no-chain]
//             [--anchors PATH]
//             [--device N] [--min-area N] [--max-components N]
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "anchors.h"
#include "ccl/cuda_engine.h"
#include "ccl/reference.h"
#include "args.h"
#include "cuda_util.h"
#include "measure.h"
#include "report.h"
#include "test_images.h"
#include "verify.h"

namespace {

struct Size {
  int width, height;
};

std::vector<ccl::Algorithm> all_algorithms() {
  std::vector<ccl::Algorithm> list;
  for (const ccl::AlgorithmInfo& a : ccl::algorithms()) list.push_back(a.id);
  return list;
}

struct Config {
  std::string csv = "ccl_bench.csv";
  std::string anchors;
  bench::RunPlan plan;
  std::vector<Size> sizes;
  std::vector<double> densities;  // empty: the anchors table's rows
  std::vector<int> granularities = {1, 4, 16};
  std::vector<ccl::Algorithm> algorithms = all_algorithms();
  std::vector<int> connectivities = {4, 8};
  std::vector<bool> write_labels = {true, false};
  int64_t check_limit = int64_t(2048) * 2048;
  bool real = true;
  bool graphs = true;  // ccl::cuda::Tuning::graphs
  bool chained = true;  // ccl::cuda::Tuning::chained_launches
  int device = 0;
  // The selection of reported components (ccl::Options); the defaults report all.
  uint64_t min_area = 0;
  uint32_t max_components = UINT32_MAX;
  uint32_t properties = 0;  // ccl::Options::properties (blob analysis)
};

/// One frame to benchmark: a random case of the grid or a real image.
struct Frame {
  std::string image;
  double density = NAN;
  int granularity = 0;
  ccl::test::GrayImage gray;
};

[[noreturn]] void usage(const char* why) {
  std::cerr << "ccl_bench: " << why << "\n"
            << "usage: ccl_bench [--csv PATH] [--runs N] [--warmup N] [--host-runs N] "
               "[--sizes WxH,...] [--densities D,...] [--granularities G,...] "
               "[--algorithms NICK,... (default: all of ccl::algorithms())] [--connectivity 4,8] [--modes labels,features] [--properties all|intensity,color,perimeter,euler] "
               "[--check-limit PIXELS] [--no-real] [--no-graphs] [--no-chain] [--anchors PATH] "
               "[--device N] [--min-area N] [--max-components N]\n";
  std::exit(2);
}

Config parse_args(int argc, char** argv) {
  Config c;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage(("missing value for " + a).c_str());
      return argv[++i];
    };
    if (a == "--csv") c.csv = value();
    else if (a == "--anchors") c.anchors = value();
    else if (a == "--runs") c.plan.runs = std::stoi(value());
    else if (a == "--warmup") c.plan.warmup = std::stoi(value());
    else if (a == "--host-runs") c.plan.host_runs = std::stoi(value());
    else if (a == "--check-limit") c.check_limit = std::stoll(value());
    else if (a == "--device") c.device = std::stoi(value());
    else if (a == "--min-area") c.min_area = std::stoull(value());
    else if (a == "--max-components") c.max_components = uint32_t(std::stoul(value()));
    else if (a == "--no-real") c.real = false;
    else if (a == "--no-graphs") c.graphs = false;
    else if (a == "--no-chain") c.chained = false;
    else if (a == "--sizes") {
      for (const std::string& s : bench::split(value())) {
        Size z{};
        if (std::sscanf(s.c_str(), "%dx%d", &z.width, &z.height) != 2) usage("bad size");
        c.sizes.push_back(z);
      }
    } else if (a == "--densities") {
      for (const std::string& s : bench::split(value())) c.densities.push_back(std::stod(s));
    } else if (a == "--granularities") {
      c.granularities.clear();
      for (const std::string& s : bench::split(value())) c.granularities.push_back(std::stoi(s));
    } else if (a == "--algorithms") {
      c.algorithms.clear();
      for (const std::string& s : bench::split(value())) {
        ccl::Algorithm algorithm;
        if (!ccl::parse(s, &algorithm)) usage("unknown algorithm");
        c.algorithms.push_back(algorithm);
      }
    } else if (a == "--connectivity") {
      c.connectivities.clear();
      for (const std::string& s : bench::split(value())) c.connectivities.push_back(std::stoi(s));
    } else if (a == "--properties") {
      // Comma-separated: intensity, color, perimeter, euler, or all.
      for (const std::string& s : bench::split(value())) {
        if (s == "all") c.properties |= ccl::kAllProperties;
        else if (s == "intensity") c.properties |= ccl::kPropertyIntensity;
        else if (s == "color") c.properties |= ccl::kPropertyColor;
        else if (s == "perimeter") c.properties |= ccl::kPropertyPerimeter;
        else if (s == "euler") c.properties |= ccl::kPropertyEuler;
        else usage("unknown property");
      }
    } else if (a == "--modes") {
      c.write_labels.clear();
      for (const std::string& s : bench::split(value())) {
        if (s == "labels") c.write_labels.push_back(true);
        else if (s == "features") c.write_labels.push_back(false);
        else usage("unknown mode");
      }
    } else if (a == "--help" || a == "-h") {
      usage("help");
    } else {
      usage(("unknown argument " + a).c_str());
    }
  }
  if (c.plan.runs < 1 || c.plan.warmup < 0 || c.plan.host_runs < 0) usage("bad run counts");
  return c;
}

std::string default_anchors_path() {
  // meson copies anchors.csv beside the binary; from the source tree it is bench/.
  char exe[4096] = {};
  const ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if (n > 0) {
    std::string dir(exe, size_t(n));
    dir = dir.substr(0, dir.find_last_of('/'));
    if (access((dir + "/anchors.csv").c_str(), R_OK) == 0) return dir + "/anchors.csv";
  }
  return "bench/anchors.csv";
}

/// The random cases: the anchors table's rows, or sizes x --densities x granularities.
struct RandomCase {
  int width, height;
  double density;
  int granularity;
};

std::vector<RandomCase> random_grid(const Config& c, const bench::AnchorTable& anchors) {
  std::vector<RandomCase> grid;
  if (c.densities.empty()) {
    for (const bench::Anchor& a : anchors.rows()) {
      bool wanted = c.sizes.empty();
      for (const Size& z : c.sizes) wanted |= z.width == a.width && z.height == a.height;
      bool g_wanted = false;
      for (int g : c.granularities) g_wanted |= g == a.granularity;
      if (wanted && g_wanted) grid.push_back({a.width, a.height, a.density, a.granularity});
    }
    return grid;
  }
  std::vector<Size> sizes = c.sizes;
  if (sizes.empty()) sizes = {{1920, 1080}, {2048, 2048}, {3840, 2160}, {8192, 8192}};
  for (const Size& z : sizes)
    for (double d : c.densities)
      for (int g : c.granularities) grid.push_back({z.width, z.height, d, g});
  return grid;
}

class Bench {
 public:
  Bench(const Config& config, const bench::AnchorTable& anchors, bench::CsvReport& csv,
        bench::Summary& summary)
      : config_(config), anchors_(anchors), csv_(csv), summary_(summary),
        engine_(config.device) {
    ccl::cuda::Tuning tuning = engine_.tuning();
    tuning.graphs = config.graphs;
    tuning.chained_launches = config.chained;
    engine_.set_tuning(tuning);
  }

  void run(const Frame& frame) {
    const int w = frame.gray.width, h = frame.gray.height;
    const ccl::ImageView view = bench::upload_gray(frame.gray.pixels.data(), w, h, device_image_);

    const bool checked = int64_t(w) * h <= config_.check_limit;
    std::map<int, ccl::Result> reference;
    for (int conn : config_.connectivities) {
      if (!checked) break;
      ccl::ImageView host = view;
      host.space = ccl::MemorySpace::Host;
      host.planes[0] = const_cast<uint8_t*>(frame.gray.pixels.data());
      // Selected as the engine selects (options()): the reference applies the same rule.
      ccl::reference_label(host, options(ccl::Algorithm::HA, conn, true), reference[conn]);
    }

    for (ccl::Algorithm algorithm : config_.algorithms)
      for (int conn : config_.connectivities)
        for (bool labels : config_.write_labels) {
          bench::CaseResult r;
          r.image = frame.image;
          r.width = w;
          r.height = h;
          r.density = frame.density;
          r.granularity = frame.granularity;
          r.algorithm = ccl::to_string(algorithm);
          r.connectivity = conn;
          r.mode = labels ? "labels" : "features";
          if (frame.granularity)
            r.anchor = anchors_.find(w, h, frame.density, frame.granularity);
          const ccl::Options opt = options(algorithm, conn, labels);
          try {
            r.check = checked ? bench::verify(engine_, view, opt, stream_.get(), reference[conn])
                              : "unchecked";
            if (r.check.empty()) r.check = "ok";
            if (r.reportable()) r.m = bench::measure(engine_, view, opt, stream_.get(), config_.plan);
          } catch (const ccl::Error& e) {
            r.check = std::string("error: ") + e.what();
            recover();
          }
          print(r);
          csv_.add(r);
          summary_.add(r);
        }
  }

 private:
  ccl::Options options(ccl::Algorithm algorithm, int connectivity, bool labels) const {
    ccl::Options o;
    o.min_area = config_.min_area;
    o.max_components = config_.max_components;
    o.threshold = 128;
    o.mode = ccl::ThresholdMode::Above;
    o.algorithm = algorithm;
    o.connectivity = connectivity;
    o.write_labels = labels;
    o.properties = config_.properties;
    return o;
  }

  // After a failed case the engine may hold a half-finished frame: wait it out so the
  // next case starts clean (a sticky CUDA error ends the run at the next check).
  void recover() {
    cudaStreamSynchronize(stream_.get());
    cudaGetLastError();
  }

  static void print(const bench::CaseResult& r) {
    std::printf("%-28s %-6s %d-conn %-8s ", bench::case_name(r).c_str(), r.algorithm.c_str(),
                r.connectivity, r.mode.c_str());
    if (!r.reportable()) {
      std::printf("NOT REPORTED: %s\n", r.check.c_str());
      return;
    }
    std::printf("labeling %9.1f us (min %9.1f)  total+copy %9.1f us  host %9.1f us  comps %9u"
                " reported %9u",
                r.m.labeling.median, r.m.labeling.min, r.m.total.median, r.m.host.median,
                r.m.components, r.m.reported);
    if (r.anchor) {
      const double ref = r.anchor->reference(r.connectivity);
      std::printf("  %s %8.1f  ratio %.3f %s", r.anchor->reference_name(r.connectivity), ref,
                  r.m.labeling.median / ref,
                  r.m.labeling.median <= r.anchor->goal(r.connectivity) ? "goal met" : "");
    }
    std::printf("  [%s]\n", r.check.c_str());
    std::fflush(stdout);
  }

  const Config& config_;
  const bench::AnchorTable& anchors_;
  bench::CsvReport& csv_;
  bench::Summary& summary_;
  bench::Stream stream_{cudaStreamNonBlocking};
  ccl::cuda::Engine engine_;
  bench::DeviceBuffer<uint8_t> device_image_;
};

}  // namespace

int main(int argc, char** argv) {
  const Config config = parse_args(argc, argv);
  try {
    std::string why;
    if (!ccl::cuda::device_usable(config.device, &why)) {
      std::cerr << "ccl_bench: no usable CUDA device: " << why << "\n";
      return 1;
    }
    CCL_CUDA_CHECK(cudaSetDevice(config.device));
    const bench::AnchorTable anchors =
        bench::AnchorTable::load(config.anchors.empty() ? default_anchors_path() : config.anchors);
    const std::string device = bench::device_description(config.device);
    const double copy_gbs = bench::copy_bandwidth_gbs(size_t(2) << 30, 20);
    std::printf(
        "device: %s\ncopy bandwidth (D2D, read+write): %.1f GB/s\ngraphs: %s\nchained "
        "launches: %s\n",
        device.c_str(), copy_gbs, config.graphs ? "on" : "off", config.chained ? "on" : "off");

    bench::CsvReport csv(config.csv, device, copy_gbs, config.graphs, config.chained);
    bench::Summary summary;
    Bench bench(config, anchors, csv, summary);

    // Real images first: they are quick, and 8192x8192 closes the run.
    if (config.real) {
      std::string missing;
      std::vector<ccl::test::GrayImage> real = ccl::test::real_images(&missing);
      if (real.empty()) std::printf("real images: none (%s)\n", missing.c_str());
      for (ccl::test::GrayImage& g : real) {
        Frame f;
        f.image = g.name;
        f.gray = std::move(g);
        bench.run(f);
      }
    }

    for (const RandomCase& rc : random_grid(config, anchors)) {
      Frame f;
      f.image = "random";
      f.density = rc.density;
      f.granularity = rc.granularity;
      f.gray = ccl::test::to_gray(
          ccl::test::yacclab_random(rc.width, rc.height, rc.density, rc.granularity, 1), "random");
      bench.run(f);
    }
    // The copy bandwidth again: a drift between start and end shows clocks moving.
    std::printf("copy bandwidth at the end: %.1f GB/s\n",
                bench::copy_bandwidth_gbs(size_t(2) << 30, 20));
    summary.print(std::cout);
    std::printf("\nCSV: %s\n", config.csv.c_str());
  } catch (const std::exception& e) {
    std::cerr << "ccl_bench: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
