// The reference timings of the anchors table (bench/anchors.csv): the labels-only times of
// YACCLAB's CUDA kernels on an H200, per random-image case, and the goals derived
// from them.
#pragma once

#include <string>
#include <vector>

namespace bench {

struct Anchor {
  int width = 0, height = 0;
  double density = 0;
  int granularity = 0;
  // Microseconds, labels only (NaN where the anchors table has "-").
  double bke = 0, buf = 0, ke = 0, ha8 = 0, ke4 = 0, ha4 = 0, npp_uf = 0;
  double floor = 0;         // 1 byte read + 4 written per pixel at ~4.3 TB/s
  double goal8 = 0, goal4 = 0;

  /// The time to beat: BKE for 8-connectivity, the faster of KE4 and HA4 for 4.
  double reference(int connectivity) const;
  const char* reference_name(int connectivity) const;
  /// A third of the reference, never below twice the floor (the anchors table's goal columns).
  double goal(int connectivity) const { return connectivity == 8 ? goal8 : goal4; }
};

class AnchorTable {
 public:
  /// Reads the CSV; throws ccl::Error when it cannot be read or parsed.
  static AnchorTable load(const std::string& path);

  const std::vector<Anchor>& rows() const { return rows_; }
  /// The row of one random case, or nullptr when the anchors table does not have it.
  const Anchor* find(int width, int height, double density, int granularity) const;

 private:
  std::vector<Anchor> rows_;
};

}  // namespace bench
