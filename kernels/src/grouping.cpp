// Grouping of a frame's pieces into objects (Options::group_gap, ccl/types.h): what a
// background model gives of one object that contrasts unevenly with the scene is often
// several components (a person's head, torso and legs; a car's roof and wheels). Pieces
// whose boxes come within group_gap pixels of each other, directly or through other
// pieces, are reported as one component carrying the sums of all of them.
#include <algorithm>
#include <numeric>

#include "ccl/types.h"

namespace ccl {

namespace {

uint32_t find(std::vector<uint32_t>& parent, uint32_t i) {
  while (parent[i] != i) i = parent[i] = parent[parent[i]];
  return i;
}

/// Background columns (or rows) between [a0, a1) and [b0, b1); 0 when they overlap.
int64_t gap_between(int64_t a0, int64_t a1, int64_t b0, int64_t b1) {
  return std::max<int64_t>(0, std::max(a0, b0) - std::min(a1, b1));
}

}  // namespace

uint32_t group_components(std::vector<Component>& table, int gap) {
  const size_t n = table.size();
  if (gap < 0 || n < 2) return uint32_t(n);
  // Label order is the raster order of each piece's first pixel, hence of its box's
  // top row: a piece can only join those after it that start at most `gap` rows below
  // its bottom, and the scan stops at the first that starts further down. Tables handed
  // over in another order (the largest first) are put back in label order.
  if (!std::is_sorted(table.begin(), table.end(),
                      [](const Component& a, const Component& b) { return a.label < b.label; }))
    std::sort(table.begin(), table.end(),
              [](const Component& a, const Component& b) { return a.label < b.label; });
  std::vector<uint32_t> parent(n);
  std::iota(parent.begin(), parent.end(), 0u);
  for (size_t i = 0; i < n; ++i) {
    const Component& a = table[i];
    const int64_t bottom = int64_t(a.y) + a.height;
    for (size_t j = i + 1; j < n; ++j) {
      const Component& b = table[j];
      if (int64_t(b.y) - bottom > gap) break;
      if (gap_between(a.x, int64_t(a.x) + a.width, b.x, int64_t(b.x) + b.width) > gap) continue;
      const uint32_t ra = find(parent, uint32_t(i)), rb = find(parent, uint32_t(j));
      // The group keeps its first piece's place and label: the root is the lower index.
      if (ra != rb) parent[std::max(ra, rb)] = std::min(ra, rb);
    }
  }
  // Boxes are kept as their right and bottom edges while pieces are added.
  size_t groups = 0;
  std::vector<uint32_t> slot(n);
  std::vector<int32_t> right(n), bottom(n);
  for (size_t i = 0; i < n; ++i) {
    const uint32_t r = find(parent, uint32_t(i));
    const Component c = table[i];
    if (r == i) {
      slot[i] = uint32_t(groups);
      right[groups] = c.x + c.width;
      bottom[groups] = c.y + c.height;
      table[groups++] = c;
      continue;
    }
    const uint32_t s = slot[r];
    Component& g = table[s];
    g.x = std::min(g.x, c.x);
    g.y = std::min(g.y, c.y);
    right[s] = std::max(right[s], c.x + c.width);
    bottom[s] = std::max(bottom[s], c.y + c.height);
    g.area += c.area;
    g.sum_x += c.sum_x;
    g.sum_y += c.sum_y;
    g.sum_xx += c.sum_xx;
    g.sum_xy += c.sum_xy;
    g.sum_yy += c.sum_yy;
  }
  table.resize(groups);
  for (size_t s = 0; s < groups; ++s) {
    table[s].width = right[s] - table[s].x;
    table[s].height = bottom[s] - table[s].y;
  }
  return uint32_t(groups);
}

}  // namespace ccl
