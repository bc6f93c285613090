// Host time of ccl::Tracker::update per frame, and of ccl::group_components (group gap
// --gap, 8) on the same tables, on moving components whose tables the
// reference labeler computed beforehand (tests/common/scenes.h): 1920x1080 and
// 3840x2160 with 10, 1,000 and 100,000 components. Median and minimum over the timed
// frames of every repetition; each repetition feeds the whole sequence to a fresh
// tracker, its first --warmup frames untimed (a tracker's first frames only start
// tracks, which is not the steady state).
//
//   track_bench [--frames N] [--reps N] [--warmup N] [--csv FILE] [--device]
//
// --device also runs every sequence through the tracker with its pairing on the GPU
// (ccl::cuda::TrackSearch; each table uploaded before its frame, untimed) and reports
// per frame the host's CPU time of that update (its wall time less its waits for the
// device), the device's time (CUDA events, copies included), the wall time, beside
// the host-only update; every frame's tracks must equal the host-only tracker's, field
// for field (mismatches printed, exit status 1). Without a usable device it says why
// and skips.
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

#include "ccl/cuda_engine.h"
#include "ccl/track_search.h"
#include "ccl/tracker.h"
#include "compare.h"
#include "scenes.h"
#include "stats.h"

namespace {

struct Settings {
  int frames = 200;
  int reps = 1;
  int warmup = 5;
  int gap = 8;
  bool device = false;
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
  std::fprintf(stderr, "track_bench: %s\nusage: track_bench [--frames N] [--reps N] [--warmup N] [--csv FILE] [--device]\n",
               why);
  std::exit(2);
}

Settings parse_args(int argc, char** argv) {
  Settings s;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") usage("timing of ccl::Tracker::update");
    if (arg == "--device") {
      s.device = true;
      continue;
    }
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

using Tables = std::vector<std::vector<ccl::Component>>;

Tables make_tables(int width, int height, int count, int total) {
  const ccl::test::Scene scene = ccl::test::many_components_scene(width, height, count, total, 1);
  Tables tables{size_t(total)};
  for (int t = 0; t < total; ++t) tables[size_t(t)] = ccl::test::label_frame(scene, size_t(t)).components;
  return tables;
}

int timed_frames(int count, const Settings& s) {
  return count >= 100000 ? std::max(10, s.frames / 10) : s.frames;
}

struct DeviceRow {
  bench::Spread host_ms;  // host-only update
  bench::Spread cpu_ms, gpu_ms, wall_ms;  // update with the device's search
  double candidates = 0;  // mean per frame
  size_t mismatches = 0;
};

// Both trackers over the same tables, frame by frame; the device one's tracks must
// be the host one's.
DeviceRow measure_device(int width, int height, const Tables& tables, const Settings& s) {
  std::vector<double> host_ms, cpu_ms, gpu_ms, wall_ms;
  std::vector<ccl::TrackInfo> want, got;
  DeviceRow row;
  double candidates = 0;
  ccl::cuda::TrackSearch search;
  for (int rep = 0; rep < s.reps; ++rep) {
    ccl::Tracker host, device;
    for (size_t t = 0; t < tables.size(); ++t) {
      const ccl::TableView table{tables[t].data(), uint32_t(tables[t].size())};
      const auto h0 = std::chrono::steady_clock::now();
      host.update(width, height, table, want);
      const auto h1 = std::chrono::steady_clock::now();
      search.upload(table);
      const auto d0 = std::chrono::steady_clock::now();
      device.update(width, height, table, search, got);
      const auto d1 = std::chrono::steady_clock::now();
      const double wall = std::chrono::duration<double, std::milli>(d1 - d0).count();
      if (int(t) >= s.warmup) {
        host_ms.push_back(std::chrono::duration<double, std::milli>(h1 - h0).count());
        wall_ms.push_back(wall);
        cpu_ms.push_back(wall - search.last_wait_ms());
        gpu_ms.push_back(search.last_device_ms());
        candidates += double(search.last_candidates());
      }
      for (size_t i = 0; i < want.size() && i < got.size(); ++i) {
        const std::string what = ccl::test::track_difference(got[i], want[i]);
        if (what.empty()) continue;
        if (row.mismatches++ < 10)
          std::printf("MISMATCH %dx%d frame %zu component %zu: %s (device id %llu, host id %llu)\n",
                      width, height, t, i, what.c_str(), (unsigned long long)got[i].id,
                      (unsigned long long)want[i].id);
      }
      if (want.size() != got.size()) ++row.mismatches;
    }
  }
  row.host_ms = bench::spread(host_ms);
  row.cpu_ms = bench::spread(cpu_ms);
  row.gpu_ms = bench::spread(gpu_ms);
  row.wall_ms = bench::spread(wall_ms);
  row.candidates = candidates / double(std::max<size_t>(wall_ms.size(), 1));
  return row;
}

// Returns the total of mismatching tracks.
size_t run_device(const Settings& s) {
  std::string why;
  if (!ccl::cuda::device_usable(-1, &why)) {
    std::printf("--device skipped: no usable CUDA device (%s)\n", why.c_str());
    return 0;
  }
  std::printf("\nwith the pairing on the GPU (ccl::cuda::TrackSearch), medians per frame:\n");
  std::printf("%-10s %11s %7s %12s %10s %10s %10s %12s %10s\n", "size", "components", "frames",
              "host-only ms", "cpu ms", "gpu ms", "wall ms", "candidates", "mismatch");
  size_t mismatches = 0;
  for (auto [w, h] : {std::pair{1920, 1080}, std::pair{3840, 2160}})
    for (int count : {10, 1000, 100000}) {
      const int timed = timed_frames(count, s);
      const Tables tables = make_tables(w, h, count, s.warmup + timed);
      const DeviceRow r = measure_device(w, h, tables, s);
      std::printf("%4dx%-5d %11d %7d %12.4f %10.4f %10.4f %10.4f %12.0f %10zu\n", w, h, count,
                  timed * s.reps, r.host_ms.median, r.cpu_ms.median, r.gpu_ms.median,
                  r.wall_ms.median, r.candidates, r.mismatches);
      std::fflush(stdout);
      mismatches += r.mismatches;
    }
  return mismatches;
}

Row measure(int width, int height, int count, const Settings& s) {
  const int timed = timed_frames(count, s);
  const int total = s.warmup + timed;
  const Tables tables = make_tables(width, height, count, total);

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
  if (s.device && run_device(s) != 0) {
    std::printf("device tracks differ from the host's\n");
    return 1;
  }
  return 0;
}
