// What one benchmark case produced, its CSV row, and the end-of-run summary of the
// ratio against the anchors table's references.
#pragma once

#include <cmath>
#include <fstream>
#include <map>
#include <ostream>
#include <string>
#include <tuple>
#include <vector>

#include "anchors.h"
#include "measure.h"

namespace bench {

/// Bytes a labeling must move at least per pixel: 1 read + 4 label bytes written.
constexpr double kBytesPerPixel = 5.0;

struct CaseResult {
  std::string image;  // "random" or the real image's name
  int width = 0, height = 0;
  double density = NAN;  // NaN for real images
  int granularity = 0;   // 0 for real images
  std::string algorithm;
  int connectivity = 8;
  std::string mode;   // "labels" or "features" (write_labels=false)
  std::string check;  // "ok", "unchecked" (too large), or what went wrong
  Measurement m;
  const Anchor* anchor = nullptr;

  bool reportable() const { return check == "ok" || check == "unchecked"; }
  double pixels() const { return double(width) * height; }
};

class CsvReport {
 public:
  CsvReport(const std::string& path, const std::string& device, double copy_gbs, bool graphs,
            bool chained);
  void add(const CaseResult& r);

 private:
  std::ofstream out_;
  double copy_gbs_;
};

/// Geometric mean and worst case of ours/reference per mode, algorithm and connectivity.
class Summary {
 public:
  void add(const CaseResult& r);
  void print(std::ostream& os) const;

 private:
  struct Ratios {
    std::vector<double> ratios;
    std::vector<std::string> cases;
    int goal_met = 0;
  };
  void add_ratio(const std::string& mode, const std::string& algorithm, int connectivity,
                 double ratio, bool met, const std::string& name);

  std::map<std::tuple<std::string, std::string, int>, Ratios> groups_;
  // Per case, the faster algorithm: what the product can deliver at that case.
  std::map<std::tuple<std::string, int, std::string>, std::pair<double, bool>> best_;
  std::vector<std::string> failures_;
};

/// "1920x1080 d=0.5 g=4" or the real image's name with its size.
std::string case_name(const CaseResult& r);

}  // namespace bench
