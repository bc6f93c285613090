// Host time of ccl::Tracker::update per frame, and of ccl::group_components (group gap
// --gap, 8) on the same tables, on moving components whose tables the
// reference labeler computed beforehand (tests/common/scenes.h): 1920x1080 and
// 3840x2160 with 10, 1,000 and 100,000 components. Median and minimum over the timed
// frames of every repetition; each repetition feeds the whole sequence to a fresh
// tracker, its first --warmup frames untimed (a tracker's first frames only start
// tracks, which is not the steady state).
//
//   track_bench [--frames N] [--reps N] [--warmup N] [--csv FILE]
//
// --frames is the number of timed frames per repetition (default 200); 100,000
// components get a tenth of it (at least 10), their tables being large to label and hold.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "ccl/tracker.h"
#include "scenes.h"
#include "stats.h"

namespace {

struct Settings {
  int frames = 200;
  int reps = 1;
  int warmup = 5;
  int gap = 8;
  std::string csv;
};

struct Row {
  int width, height, components, frames;
  bench::Spread ms;
  bench::Spread group_ms;  // group_components on the frame's table
  double groups = 0;       // mean groups per frame
};

std::string cpu_name() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("model name", 0) == 0) {
      const size_t colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(" \t", colon + 1));
    }
  return "unknown CPU";
}

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr, "track_bench: %s\nusage: track_bench [--frames N] [--reps N] [--warmup N] [--csv FILE]\n",
               why);
  std::exit(2);
}

Settings parse_args(int argc, char** argv) {
  Settings s;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") usage("timing of ccl::Tracker::update");
    if (i + 1 >= argc) usage(("missing value after " + arg).c_str());
    const char* value = argv[++i];
    if (arg == "--csv") {
      s.csv = value;
      continue;
    }
    char* end = nullptr;
    const long n = std::strtol(value, &end, 10);
    if (*end || n < 0 || n > 1000000) usage(("bad number for " + arg).c_str());
    if (arg == "--frames") s.frames = int(n);
    else if (arg == "--reps") s.reps = int(n);
    else if (arg == "--warmup") s.warmup = int(n);
    else if (arg == "--gap") s.gap = int(n);
    else usage(("unknown option " + arg).c_str());
  }
  if (s.frames < 1 || s.reps < 1) usage("--frames and --reps must be at least 1");
  return s;
}

Row measure(int width, int height, int count, const Settings& s) {
  const int timed = count >= 100000 ? std::max(10, s.frames / 10) : s.frames;
  const int total = s.warmup + timed;
  const ccl::test::Scene scene = ccl::test::many_components_scene(width, height, count, total, 1);
  std::vector<std::vector<ccl::Component>> tables{size_t(total)};
  for (int t = 0; t < total; ++t) tables[size_t(t)] = ccl::test::label_frame(scene, size_t(t)).components;

  std::vector<double> ms, group_ms;
  std::vector<ccl::TrackInfo> out;
  std::vector<ccl::Component> pieces;
  double groups = 0;
  for (int rep = 0; rep < s.reps; ++rep) {
    ccl::Tracker tracker;
    for (int t = 0; t < total; ++t) {
      const auto start = std::chrono::steady_clock::now();
      tracker.update(width, height, tables[size_t(t)], out);
      const auto stop = std::chrono::steady_clock::now();
      if (t >= s.warmup) ms.push_back(std::chrono::duration<double, std::milli>(stop - start).count());
      pieces.assign(tables[size_t(t)].begin(), tables[size_t(t)].end());  // no allocation timed
      const auto g0 = std::chrono::steady_clock::now();
      const uint32_t n = ccl::group_components(pieces, s.gap);
      const auto g1 = std::chrono::steady_clock::now();
      if (t >= s.warmup) {
        group_ms.push_back(std::chrono::duration<double, std::milli>(g1 - g0).count());
        groups += n;
      }
    }
  }
  return {width, height, count, timed, bench::spread(ms), bench::spread(group_ms),
          groups / double(timed * s.reps)};
}

}  // namespace

int main(int argc, char** argv) {
  const Settings s = parse_args(argc, argv);
  const std::string cpu = cpu_name();
  std::printf("ccl::Tracker::update, host time per frame on %s\n", cpu.c_str());
  std::printf("%-10s %11s %7s %11s %11s %13s %15s %8s\n", "size", "components", "frames",
              "median ms", "min ms", "ns/component", "group median ms", "groups");
  std::vector<Row> rows;
  for (auto [w, h] : {std::pair{1920, 1080}, std::pair{3840, 2160}})
    for (int count : {10, 1000, 100000}) {
      const Row r = measure(w, h, count, s);
      std::printf("%4dx%-5d %11d %7d %11.4f %11.4f %13.1f %15.4f %8.0f\n", r.width, r.height,
                  r.components, r.frames * s.reps, r.ms.median, r.ms.min,
                  r.ms.median * 1e6 / r.components, r.group_ms.median, r.groups);
      std::fflush(stdout);
      rows.push_back(r);
    }
  if (!s.csv.empty()) {
    std::ofstream csv(s.csv);
    if (!csv) usage(("cannot write " + s.csv).c_str());
    csv << "cpu,width,height,components,frames,reps,warmup,median_ms,min_ms,group_gap,"
           "group_median_ms,groups\n";
    for (const Row& r : rows)
      csv << '"' << cpu << "\"," << r.width << ',' << r.height << ',' << r.components << ','
          << r.frames << ',' << s.reps << ',' << s.warmup << ',' << r.ms.median << ','
          << r.ms.min << ',' << s.gap << ',' << r.group_ms.median << ',' << r.groups << '\n';
    std::printf("wrote %s\n", s.csv.c_str());
  }
  return 0;
}
