#include "selection.h"

namespace ccl::plugin {

GstCclComponent to_gst(const Component& c) {
  GstCclComponent g{};
  g.label = c.label;
  g.x = c.x;
  g.y = c.y;
  g.width = c.width;
  g.height = c.height;
  g.area = c.area;
  g.sum_x = c.sum_x;
  g.sum_y = c.sum_y;
  g.sum_xx = c.sum_xx;
  g.sum_xy = c.sum_xy;
  g.sum_yy = c.sum_yy;
  g.centroid_x = c.centroid_x();
  g.centroid_y = c.centroid_y();
  return g;
}

void select_components(TableView reported, uint32_t labels, bool for_overlay,
                       Selection& out) {
  out.table = reported;
  // One block for every entry, written in place (no per-component allocation): the
  // metadata takes it as it is.
  out.reported.reset(reported.size ? g_new(GstCclComponent, reported.size) : nullptr);
  out.n_reported = reported.size;
  for (uint32_t i = 0; i < reported.size; ++i) out.reported[i] = to_gst(reported.data[i]);

  out.marks.clear();
  out.color_key.clear();
  out.trails.clear();
  if (!for_overlay) return;

  out.color_key.assign(size_t(labels) + 1, 0);
  out.marks.reserve(reported.size);
  for (const Component& c : reported) {
    out.color_key[c.label] = c.label;
    out.marks.push_back({c.label, c.x, c.y, c.width, c.height,
                         overlay::centroid_pixel(c.sum_x, c.area),
                         overlay::centroid_pixel(c.sum_y, c.area)});
  }
}

void spread_to_pieces(const std::vector<uint32_t>& group_of, Selection& out) {
  const size_t n = std::min(group_of.size(), out.color_key.size());
  // A group's label is its first piece's, the smallest: final before its later pieces.
  for (size_t l = 1; l < n; ++l) out.color_key[l] = out.color_key[group_of[l]];
}

}  // namespace ccl::plugin
