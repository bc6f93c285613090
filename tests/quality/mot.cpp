// Multi-object-tracking scores (mot.h).
#include "mot.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

namespace ccl::quality {
namespace {

using Matrix = std::vector<std::vector<double>>;

// Rows <= columns. The shortest-augmenting-path form of the Hungarian method with row
// and column potentials: row i is added by growing a tree of tight edges from it until
// it reaches a free column, so each row costs O(n m). Column 0 is a sentinel that holds
// the row being added; the strict '<' keeps the lowest column among equal candidates,
// which is what makes ties deterministic.
std::vector<int> assign_rows(const Matrix& cost, size_t rows, size_t cols) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  std::vector<double> u(rows + 1, 0.0), v(cols + 1, 0.0);
  std::vector<size_t> row_of(cols + 1, 0), way(cols + 1, 0);
  for (size_t i = 1; i <= rows; ++i) {
    row_of[0] = i;
    size_t j0 = 0;
    std::vector<double> slack(cols + 1, kInf);
    std::vector<bool> used(cols + 1, false);
    do {
      used[j0] = true;
      const size_t i0 = row_of[j0];
      double delta = kInf;
      size_t j1 = 0;
      for (size_t j = 1; j <= cols; ++j) {
        if (used[j]) continue;
        const double reduced = cost[i0 - 1][j - 1] - u[i0] - v[j];
        if (reduced < slack[j]) {
          slack[j] = reduced;
          way[j] = j0;
        }
        if (slack[j] < delta) {
          delta = slack[j];
          j1 = j;
        }
      }
      for (size_t j = 0; j <= cols; ++j) {
        if (used[j]) {
          u[row_of[j]] += delta;
          v[j] -= delta;
        } else {
          slack[j] -= delta;
        }
      }
      j0 = j1;
    } while (row_of[j0] != 0);
    do {
      const size_t j1 = way[j0];
      row_of[j0] = row_of[j1];
      j0 = j1;
    } while (j0 != 0);
  }
  std::vector<int> col_of(rows, -1);
  for (size_t j = 1; j <= cols; ++j)
    if (row_of[j] != 0) col_of[row_of[j] - 1] = int(j - 1);
  return col_of;
}

Matrix transposed(const Matrix& m, size_t rows, size_t cols) {
  Matrix t(cols, std::vector<double>(rows));
  for (size_t r = 0; r < rows; ++r)
    for (size_t c = 0; c < cols; ++c) t[c][r] = m[r][c];
  return t;
}

// A repeated id would make "the object's previous track" ambiguous, so it is refused
// rather than resolved by position.
void check_unique_ids(const std::vector<MotBox>& sorted, const char* what) {
  for (size_t i = 1; i < sorted.size(); ++i)
    if (sorted[i].id == sorted[i - 1].id)
      throw std::invalid_argument(std::string("MotAccumulator: repeated ") + what + " id " +
                                  std::to_string(sorted[i].id));
}

// Sorting by id first makes the assignment's tie-breaking follow ids, not the caller's
// listing order.
std::vector<MotBox> sorted_by_id(std::vector<MotBox> boxes, const char* what) {
  std::stable_sort(boxes.begin(), boxes.end(),
                   [](const MotBox& a, const MotBox& b) { return a.id < b.id; });
  check_unique_ids(boxes, what);
  return boxes;
}

Matrix iou_matrix(const std::vector<MotBox>& truth, const std::vector<MotBox>& hyps) {
  Matrix m(truth.size(), std::vector<double>(hyps.size()));
  for (size_t t = 0; t < truth.size(); ++t)
    for (size_t h = 0; h < hyps.size(); ++h) m[t][h] = box_iou(truth[t], hyps[h]);
  return m;
}

int index_of(const std::vector<MotBox>& sorted, uint64_t id) {
  const auto it = std::lower_bound(sorted.begin(), sorted.end(), id,
                                   [](const MotBox& b, uint64_t v) { return b.id < v; });
  return it != sorted.end() && it->id == id ? int(it - sorted.begin()) : -1;
}

// The CLEAR MOT rule: a pair from the previous frame that still holds is not re-decided.
void keep_previous(const std::vector<MotBox>& truth, const std::vector<MotBox>& hyps,
                   const Matrix& iou, double threshold,
                   const std::map<uint64_t, uint64_t>& previous, std::vector<int>& hyp_of) {
  for (size_t t = 0; t < truth.size(); ++t) {
    const auto p = previous.find(truth[t].id);
    if (p == previous.end()) continue;
    const int h = index_of(hyps, p->second);
    if (h >= 0 && iou[t][size_t(h)] >= threshold) hyp_of[t] = h;
  }
}

// A forbidden pair costs more than any full set of allowed ones (each costs at most 1),
// so the minimum first avoids forbidden pairs, i.e. makes the most allowed ones, and
// only then minimizes sum(1 - IoU). Forbidden pairs it still had to take are dropped.
void assign_rest(const Matrix& iou, double threshold, std::vector<int>& hyp_of, size_t n_hyps) {
  std::vector<bool> hyp_taken(n_hyps, false);
  for (int h : hyp_of)
    if (h >= 0) hyp_taken[size_t(h)] = true;
  std::vector<size_t> free_truth, free_hyps;
  for (size_t t = 0; t < hyp_of.size(); ++t)
    if (hyp_of[t] < 0) free_truth.push_back(t);
  for (size_t h = 0; h < n_hyps; ++h)
    if (!hyp_taken[h]) free_hyps.push_back(h);
  if (free_truth.empty() || free_hyps.empty()) return;

  const double forbidden = double(std::min(free_truth.size(), free_hyps.size())) + 1.0;
  Matrix cost(free_truth.size(), std::vector<double>(free_hyps.size()));
  for (size_t r = 0; r < free_truth.size(); ++r)
    for (size_t c = 0; c < free_hyps.size(); ++c) {
      const double v = iou[free_truth[r]][free_hyps[c]];
      cost[r][c] = v >= threshold ? 1.0 - v : forbidden;
    }
  const std::vector<int> col_of = min_cost_assignment(cost);
  for (size_t r = 0; r < free_truth.size(); ++r) {
    if (col_of[r] < 0) continue;
    const size_t t = free_truth[r], h = free_hyps[size_t(col_of[r])];
    if (iou[t][h] >= threshold) hyp_of[t] = int(h);
  }
}

std::vector<int> invert(const std::vector<int>& hyp_of, size_t n_hyps) {
  std::vector<int> truth_of(n_hyps, -1);
  for (size_t t = 0; t < hyp_of.size(); ++t)
    if (hyp_of[t] >= 0) truth_of[size_t(hyp_of[t])] = int(t);
  return truth_of;
}

bool dropped(const std::vector<MotBox>& truth, const std::vector<int>& truth_of, size_t h) {
  return truth_of[h] >= 0 && truth[size_t(truth_of[h])].ignore;
}

// Shares whose denominator is 0 are vacuously perfect: nothing was there to get wrong.
double share(uint64_t part, uint64_t whole) {
  return whole ? double(part) / double(whole) : 1.0;
}

double mota(const MotSummary& s) {
  const uint64_t errors = s.misses + s.false_positives + s.id_switches;
  if (s.truth == 0) return errors ? -std::numeric_limits<double>::infinity() : 1.0;
  return 1.0 - double(errors) / double(s.truth);
}

}  // namespace

double box_iou(const MotBox& a, const MotBox& b) {
  if (a.width <= 0 || a.height <= 0 || b.width <= 0 || b.height <= 0) return 0.0;
  // 64-bit edges: x + width may pass INT_MAX for boxes near the limits.
  const int64_t x0 = std::max<int64_t>(a.x, b.x), y0 = std::max<int64_t>(a.y, b.y);
  const int64_t x1 = std::min(int64_t(a.x) + a.width, int64_t(b.x) + b.width);
  const int64_t y1 = std::min(int64_t(a.y) + a.height, int64_t(b.y) + b.height);
  if (x1 <= x0 || y1 <= y0) return 0.0;
  const double inter = double(x1 - x0) * double(y1 - y0);
  return inter / (double(a.width) * a.height + double(b.width) * b.height - inter);
}

std::vector<int> min_cost_assignment(const Matrix& cost) {
  const size_t rows = cost.size();
  if (rows == 0) return {};
  const size_t cols = cost[0].size();
  for (const auto& row : cost)
    if (row.size() != cols) throw std::invalid_argument("min_cost_assignment: ragged matrix");
  if (cols == 0) return std::vector<int>(rows, -1);
  if (rows <= cols) return assign_rows(cost, rows, cols);
  // The method needs rows <= columns; solve the transpose and turn the answer round.
  const std::vector<int> row_of = assign_rows(transposed(cost, rows, cols), cols, rows);
  std::vector<int> col_of(rows, -1);
  for (size_t c = 0; c < cols; ++c)
    if (row_of[c] >= 0) col_of[size_t(row_of[c])] = int(c);
  return col_of;
}

MotAccumulator::MotAccumulator(double iou_threshold) : threshold_(iou_threshold) {
  // 0 would let disjoint boxes match; above 1 nothing could.
  if (!(iou_threshold > 0.0 && iou_threshold <= 1.0))
    throw std::invalid_argument("MotAccumulator: IoU threshold must lie in (0, 1]");
}

void MotAccumulator::add_frame(const std::vector<MotBox>& truth_in,
                               const std::vector<MotBox>& hyps_in) {
  const std::vector<MotBox> truth = sorted_by_id(truth_in, "truth");
  const std::vector<MotBox> hyps = sorted_by_id(hyps_in, "hypothesis");
  const Matrix iou = iou_matrix(truth, hyps);

  std::vector<int> hyp_of(truth.size(), -1);
  keep_previous(truth, hyps, iou, threshold_, previous_, hyp_of);
  assign_rest(iou, threshold_, hyp_of, hyps.size());
  const std::vector<int> truth_of = invert(hyp_of, hyps.size());

  ++counts_.frames;
  count_truth(truth, hyps, hyp_of, iou);
  count_hypotheses(truth, truth_of);
  count_cooccurrence(truth, hyps, truth_of, iou);

  previous_.clear();
  for (size_t t = 0; t < truth.size(); ++t)
    if (hyp_of[t] >= 0) previous_[truth[t].id] = hyps[size_t(hyp_of[t])].id;
}

void MotAccumulator::count_truth(const std::vector<MotBox>& truth, const std::vector<MotBox>& hyps,
                                 const std::vector<int>& hyp_of, const Matrix& iou) {
  for (size_t t = 0; t < truth.size(); ++t) {
    if (truth[t].ignore) continue;
    ++counts_.truth;
    History& past = history_[truth[t].id];
    if (hyp_of[t] < 0) {
      ++counts_.misses;
      // Only a trajectory already under way can be interrupted; a miss before the first
      // match is a late start.
      if (past.matched) past.interrupted = true;
      continue;
    }
    const size_t h = size_t(hyp_of[t]);
    ++counts_.matches;
    iou_sum_ += iou[t][h];
    if (past.matched && past.last_hyp != hyps[h].id) ++counts_.id_switches;
    if (past.interrupted) ++counts_.fragmentations;
    past.matched = true;
    past.last_hyp = hyps[h].id;
    past.interrupted = false;
  }
}

void MotAccumulator::count_hypotheses(const std::vector<MotBox>& truth,
                                      const std::vector<int>& truth_of) {
  for (size_t h = 0; h < truth_of.size(); ++h) {
    if (dropped(truth, truth_of, h)) continue;
    ++counts_.hypotheses;
    if (truth_of[h] < 0) ++counts_.false_positives;
  }
}

// Every overlapping pair counts, not just the frame's matched ones: the identity
// matching is global and may pair trajectories the per-frame matching kept apart.
void MotAccumulator::count_cooccurrence(const std::vector<MotBox>& truth,
                                        const std::vector<MotBox>& hyps,
                                        const std::vector<int>& truth_of, const Matrix& iou) {
  for (size_t t = 0; t < truth.size(); ++t) {
    if (truth[t].ignore) continue;
    for (size_t h = 0; h < hyps.size(); ++h)
      if (!dropped(truth, truth_of, h) && iou[t][h] >= threshold_)
        ++cooccurrence_[{truth[t].id, hyps[h].id}];
  }
}

// Truth and hypothesis counts are fixed, so Ristani's minimum of IDFP + IDFN is the
// maximum of IDTP: a plain assignment on the co-occurrence counts. Trajectories that
// never overlap anything can only be unmatched and are left out of the matrix.
void MotAccumulator::fill_identity(MotSummary& s) const {
  std::map<uint64_t, size_t> row, col;
  for (const auto& entry : cooccurrence_) {
    row.emplace(entry.first.first, 0);
    col.emplace(entry.first.second, 0);
  }
  size_t n = 0;
  for (auto& r : row) r.second = n++;
  n = 0;
  for (auto& c : col) c.second = n++;

  Matrix cost(row.size(), std::vector<double>(col.size(), 0.0));
  for (const auto& [pair, frames] : cooccurrence_)
    cost[row[pair.first]][col[pair.second]] = -double(frames);
  const std::vector<int> col_of = min_cost_assignment(cost);
  s.idtp = 0;
  for (size_t r = 0; r < col_of.size(); ++r)
    if (col_of[r] >= 0) s.idtp += uint64_t(-cost[r][size_t(col_of[r])]);

  s.idfn = s.truth - s.idtp;
  s.idfp = s.hypotheses - s.idtp;
  s.idp = share(s.idtp, s.hypotheses);
  s.idr = share(s.idtp, s.truth);
  s.idf1 = share(2 * s.idtp, 2 * s.idtp + s.idfp + s.idfn);
}

MotSummary MotAccumulator::summary() const {
  MotSummary s = counts_;
  s.mota = mota(s);
  s.motp = s.matches ? iou_sum_ / double(s.matches) : 0.0;
  fill_identity(s);
  return s;
}

}  // namespace ccl::quality
