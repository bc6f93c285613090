#include "anchors.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include "ccl/types.h"

namespace bench {

namespace {

double parse_number(const std::string& field) {
  return field.empty() ? NAN : std::stod(field);
}

}  // namespace

double Anchor::reference(int connectivity) const {
  return connectivity == 8 ? bke : std::min(ke4, ha4);
}

const char* Anchor::reference_name(int connectivity) const {
  if (connectivity == 8) return "BKE";
  return ke4 <= ha4 ? "KE4" : "HA4";
}

AnchorTable AnchorTable::load(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ccl::Error("cannot open the anchors table " + path);
  AnchorTable table;
  std::string line;
  std::getline(in, line);  // column names
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string cell; std::getline(ss, cell, ',');) f.push_back(cell);
    if (line.back() == ',') f.emplace_back();
    if (f.size() != 14) throw ccl::Error("anchors table " + path + ": bad row: " + line);
    Anchor a;
    a.width = std::stoi(f[0]);
    a.height = std::stoi(f[1]);
    a.density = std::stod(f[2]);
    a.granularity = std::stoi(f[3]);
    double* values[] = {&a.bke, &a.buf, &a.ke, &a.ha8, &a.ke4, &a.ha4,
                        &a.npp_uf, &a.floor, &a.goal8, &a.goal4};
    for (size_t i = 0; i < 10; ++i) *values[i] = parse_number(f[4 + i]);
    table.rows_.push_back(a);
  }
  if (table.rows_.empty()) throw ccl::Error("anchors table " + path + " is empty");
  return table;
}

const Anchor* AnchorTable::find(int width, int height, double density, int granularity) const {
  for (const Anchor& a : rows_)
    if (a.width == width && a.height == height && a.granularity == granularity &&
        std::abs(a.density - density) < 1e-9)
      return &a;
  return nullptr;
}

}  // namespace bench
