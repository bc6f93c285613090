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

void unite(std::vector<uint32_t>& parent, uint32_t a, uint32_t b) {
  a = find(parent, a);
  b = find(parent, b);
  // The group keeps its first piece's place and label: the root is the lower index.
  if (a != b) parent[std::max(a, b)] = std::min(a, b);
}

/// Columns of the frame per bucket of the sweep.
constexpr int kBucketShift = 6;

/// A piece waiting in the sweep's buckets: what the comparisons read, in one line.
struct Waiting {
  uint32_t index;
  int32_t x, right;  // columns [x, right)
  int64_t reach;     // last row a later piece may start on and still be within the gap
};

/// What one thread's calls keep between frames, so that a frame allocates nothing.
struct Scratch {
  std::vector<uint32_t> parent, slot;
  std::vector<int32_t> right, bottom;
  std::vector<std::vector<Waiting>> buckets;
};

/// A piece's blob into its group's: sums added, extremes kept, and the group's
/// perimeter and Euler number the sums of its pieces' (the union's own, measured as one
/// region, differs only where pieces of a 4-connected labeling touch corner to corner).
void add_blob(Blob& to, const Blob& b) {
  to.intensity_sum += b.intensity_sum;
  to.intensity_sum_sq += b.intensity_sum_sq;
  for (int k = 0; k < 3; ++k) {
    to.channel_sum[k] += b.channel_sum[k];
    to.perimeter_counts[k] += b.perimeter_counts[k];
  }
  to.intensity_min = std::min(to.intensity_min, b.intensity_min);
  to.intensity_max = std::max(to.intensity_max, b.intensity_max);
  to.euler += b.euler;
}

}  // namespace

uint32_t group_components(std::vector<Component>& table, int gap,
                          std::vector<uint32_t>* group_of, std::vector<Blob>* blobs) {
  const size_t n = table.size();
  if (group_of) group_of->clear();
  if (gap < 0) return uint32_t(n);
  if (blobs && blobs->empty()) blobs = nullptr;
  // Label order is the raster order of each piece's first pixel, hence of its box's
  // top row. Tables handed over in another order (the largest first) are put back.
  auto by_label = [](const Component& a, const Component& b) { return a.label < b.label; };
  if (!std::is_sorted(table.begin(), table.end(), by_label)) {
    if (blobs) {
      std::vector<uint32_t> order(n);
      std::iota(order.begin(), order.end(), 0u);
      std::sort(order.begin(), order.end(),
                [&](uint32_t a, uint32_t b) { return table[a].label < table[b].label; });
      std::vector<Component> sorted(n);
      std::vector<Blob> sorted_blobs(n);
      for (size_t i = 0; i < n; ++i) {
        sorted[i] = table[order[i]];
        sorted_blobs[i] = (*blobs)[order[i]];
      }
      table.swap(sorted);
      blobs->swap(sorted_blobs);
    } else {
      std::sort(table.begin(), table.end(), by_label);
    }
  }
  thread_local Scratch scratch;
  Scratch& s = scratch;
  s.parent.resize(n);
  std::iota(s.parent.begin(), s.parent.end(), 0u);

  // A sweep down the frame: the pieces met so far wait in buckets of 64 columns, each
  // in the buckets its box covers. A piece compares itself with the pieces waiting in
  // the buckets its box, grown by the gap, covers: those whose rows reach within `gap`
  // of its top row (the rest have expired, and leave the bucket: later pieces start
  // lower still), and whose columns come within `gap`. Each piece thus meets only its
  // neighbours, whatever the frame's size.
  int32_t max_x = 0;
  for (const Component& c : table) max_x = std::max(max_x, c.x + c.width);
  const size_t buckets = size_t(((int64_t(max_x) + gap + 1) >> kBucketShift) + 1);
  if (s.buckets.size() < buckets) s.buckets.resize(buckets);
  for (size_t b = 0; b < buckets; ++b) s.buckets[b].clear();
  for (size_t j = 0; j < n; ++j) {
    const Component& c = table[j];
    // A piece within the gap has a column in [x0, x1].
    const int64_t x0 = int64_t(c.x) - gap - 1, x1 = int64_t(c.x) + c.width + gap;
    const size_t first = size_t(std::max<int64_t>(0, x0) >> kBucketShift);
    const size_t last = size_t(x1 >> kBucketShift);
    for (size_t b = first; b <= last; ++b) {
      std::vector<Waiting>& waiting = s.buckets[b];
      size_t kept = 0;
      for (const Waiting& w : waiting) {
        if (w.reach < c.y) continue;  // expired
        waiting[kept++] = w;
        if (w.x <= x1 && w.right > x0) unite(s.parent, w.index, uint32_t(j));
      }
      waiting.resize(kept);
    }
    const Waiting self{uint32_t(j), c.x, c.x + c.width, int64_t(c.y) + c.height + gap};
    for (size_t b = size_t(c.x) >> kBucketShift, e = size_t(c.x + c.width - 1) >> kBucketShift;
         b <= e; ++b)
      s.buckets[b].push_back(self);
  }

  // The table is in label order: its last label is the largest.
  if (group_of && n) group_of->assign(size_t(table.back().label) + 1, 0);
  // Each group's sums, in the order of its first piece; boxes kept as their right and
  // bottom edges while pieces are added.
  s.slot.resize(n);
  s.right.resize(n);
  s.bottom.resize(n);
  size_t groups = 0;
  for (size_t i = 0; i < n; ++i) {
    const uint32_t r = find(s.parent, uint32_t(i));
    if (r == i) {
      const Component& c = table[i];
      if (group_of) (*group_of)[c.label] = c.label;
      s.slot[i] = uint32_t(groups);
      s.right[groups] = c.x + c.width;
      s.bottom[groups] = c.y + c.height;
      if (groups != i) {  // groups <= i: a slot already read
        table[groups] = c;
        if (blobs) (*blobs)[groups] = (*blobs)[i];
      }
      ++groups;
      continue;
    }
    const Component c = table[i];
    const uint32_t g = s.slot[r];
    Component& t = table[g];  // its label is its first piece's
    if (group_of) (*group_of)[c.label] = t.label;
    t.x = std::min(t.x, c.x);
    t.y = std::min(t.y, c.y);
    s.right[g] = std::max(s.right[g], c.x + c.width);
    s.bottom[g] = std::max(s.bottom[g], c.y + c.height);
    t.area += c.area;
    t.sum_x += c.sum_x;
    t.sum_y += c.sum_y;
    t.sum_xx += c.sum_xx;
    t.sum_xy += c.sum_xy;
    t.sum_yy += c.sum_yy;
    if (blobs) add_blob((*blobs)[g], (*blobs)[i]);
  }
  table.resize(groups);
  if (blobs) blobs->resize(groups);
  for (size_t g = 0; g < groups; ++g) {
    table[g].width = s.right[g] - table[g].x;
    table[g].height = s.bottom[g] - table[g].y;
  }
  return uint32_t(groups);
}

}  // namespace ccl
