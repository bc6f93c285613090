#include "report.h"

#include <algorithm>
#include <cstdio>
#include <iomanip>
#include <sstream>

#include "ccl/types.h"

namespace bench {

namespace {

std::string fmt(double v, int decimals = 2) {
  if (std::isnan(v)) return "";
  std::ostringstream os;
  os << std::fixed << std::setprecision(decimals) << v;
  return os.str();
}

double ours(const CaseResult& r) { return r.m.labeling.median; }

}  // namespace

std::string case_name(const CaseResult& r) {
  std::ostringstream os;
  if (r.granularity == 0)
    os << r.image << " " << r.width << "x" << r.height;
  else
    os << r.width << "x" << r.height << " d=" << r.density << " g=" << r.granularity;
  return os.str();
}

CsvReport::CsvReport(const std::string& path, const std::string& device, double copy_gbs,
                     bool graphs, bool chained)
    : out_(path), copy_gbs_(copy_gbs) {
  if (!out_) throw ccl::Error("cannot write " + path);
  out_ << "# device: " << device << "\n"
       << "# copy_bandwidth_GBps: " << fmt(copy_gbs, 1) << "\n"
       << "# times in microseconds; labeling = labels + features + consecutive labels "
          "(events before and after it only, table copy excluded); threshold..analysis and "
          "labeling_staged = the same with events between the stages (no graph); total = "
          "events around enqueue with the report (the reported components' copy); host = wall "
          "clock of enqueue + finish; reported = components reported of all found\n"
       << "# graphs: " << (graphs ? "on" : "off") << "\n"
       << "# chained launches: " << (chained ? "on" : "off") << "\n"
       << "image,width,height,density,granularity,algorithm,connectivity,mode,check,"
          "components,labeling_min_us,labeling_med_us,total_min_us,total_med_us,"
          "threshold_med_us,local_med_us,merge_med_us,analysis_med_us,copy_med_us,"
          "host_min_us,host_med_us,gpx_per_s,effective_GBps,fraction_of_copy_bw,floor_us,"
          "reference,reference_us,goal_us,ratio,goal_met,labeling_staged_med_us,reported\n";
}

void CsvReport::add(const CaseResult& r) {
  const bool ok = r.reportable();
  auto t = [&](double v) { return ok ? fmt(v) : std::string(); };
  const double px = r.pixels();
  const double us = ours(r);
  const double eff_gbs = kBytesPerPixel * px / us / 1e3;
  out_ << r.image << "," << r.width << "," << r.height << ","
       << (r.granularity ? fmt(r.density, 2) : "") << ","
       << (r.granularity ? std::to_string(r.granularity) : "") << "," << r.algorithm << ","
       << r.connectivity << "," << r.mode << ",\"" << r.check << "\","
       << (ok ? std::to_string(r.m.components) : "") << "," << t(r.m.labeling.min) << ","
       << t(r.m.labeling.median) << "," << t(r.m.total.min) << "," << t(r.m.total.median)
       << "," << t(r.m.threshold.median) << "," << t(r.m.local.median) << ","
       << t(r.m.merge.median) << "," << t(r.m.analysis.median) << "," << t(r.m.copy.median)
       << "," << t(r.m.host.min) << "," << t(r.m.host.median) << ","
       << (ok ? fmt(px / us / 1e3, 3) : "") << "," << (ok ? fmt(eff_gbs, 1) : "") << ","
       << (ok ? fmt(eff_gbs / copy_gbs_, 3) : "") << ","
       << fmt(kBytesPerPixel * px / copy_gbs_ / 1e3) << ",";
  if (r.anchor) {
    const double ref = r.anchor->reference(r.connectivity);
    out_ << r.anchor->reference_name(r.connectivity) << "," << fmt(ref) << ","
         << fmt(r.anchor->goal(r.connectivity), 1) << "," << (ok ? fmt(us / ref, 3) : "") << ","
         << (ok ? (us <= r.anchor->goal(r.connectivity) ? "yes" : "no") : "");
  } else {
    out_ << ",,,,";
  }
  out_ << "," << t(r.m.staged.median) << "," << (ok ? std::to_string(r.m.reported) : "")
       << "\n";
  out_.flush();
}

void Summary::add_ratio(const std::string& mode, const std::string& algorithm, int connectivity,
                        double ratio, bool met, const std::string& name) {
  Ratios& g = groups_[{mode, algorithm, connectivity}];
  g.ratios.push_back(ratio);
  g.cases.push_back(name);
  g.goal_met += met ? 1 : 0;
}

void Summary::add(const CaseResult& r) {
  if (!r.reportable()) {
    failures_.push_back(case_name(r) + " " + r.algorithm + " " + std::to_string(r.connectivity) +
                        "-conn " + r.mode + ": " + r.check);
    return;
  }
  if (!r.anchor) return;
  const double us = ours(r);
  const double ratio = us / r.anchor->reference(r.connectivity);
  const bool met = us <= r.anchor->goal(r.connectivity);
  const std::string name = case_name(r);
  add_ratio(r.mode, r.algorithm, r.connectivity, ratio, met, name);
  auto key = std::make_tuple(r.mode, r.connectivity, name);
  auto it = best_.find(key);
  if (it == best_.end() || ratio < it->second.first) best_[key] = {ratio, met};
}

void Summary::print(std::ostream& os) const {
  std::map<std::tuple<std::string, std::string, int>, Ratios> all = groups_;
  for (const auto& [key, value] : best_) {
    Ratios& g = all[{std::get<0>(key), "best", std::get<1>(key)}];
    g.ratios.push_back(value.first);
    g.cases.push_back(std::get<2>(key));
    g.goal_met += value.second ? 1 : 0;
  }
  os << "\nratio = our labeling median / ANCHORS reference (BKE for 8-conn, min(KE4,HA4) "
        "for 4-conn); goal: ratio <= 1/3 or within 2x the floor\n";
  os << std::left << std::setw(10) << "mode" << std::setw(8) << "algo" << std::setw(6) << "conn"
     << std::setw(7) << "cases" << std::setw(10) << "geomean" << std::setw(10) << "worst"
     << std::setw(10) << "goal met" << "worst case\n";
  for (const auto& [key, g] : all) {
    double log_sum = 0;
    size_t worst = 0;
    for (size_t i = 0; i < g.ratios.size(); ++i) {
      log_sum += std::log(g.ratios[i]);
      if (g.ratios[i] > g.ratios[worst]) worst = i;
    }
    const double geomean = std::exp(log_sum / double(g.ratios.size()));
    os << std::left << std::setw(10) << std::get<0>(key) << std::setw(8) << std::get<1>(key)
       << std::setw(6) << std::get<2>(key) << std::setw(7) << g.ratios.size() << std::setw(10)
       << fmt(geomean, 3) << std::setw(10) << fmt(g.ratios[worst], 3) << std::setw(10)
       << (std::to_string(g.goal_met) + "/" + std::to_string(g.ratios.size()))
       << g.cases[worst] << "\n";
  }
  if (!failures_.empty()) {
    os << "\n" << failures_.size() << " case(s) not reported (wrong result or error):\n";
    for (const std::string& f : failures_) os << "  " << f << "\n";
  }
}

}  // namespace bench
