#include "selection.h"

#include <algorithm>

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

void select_components(const Result& result, uint32_t min_area, uint32_t max_components,
                       bool for_overlay, Selection& out) {
  std::vector<const Component*>& kept = out.kept;
  kept.clear();
  for (const Component& c : result.components)
    if (c.area >= min_area) kept.push_back(&c);

  if (kept.size() > max_components) {
    // Largest first; equal areas keep label order so every backend agrees.
    std::partial_sort(kept.begin(), kept.begin() + max_components, kept.end(),
                      [](const Component* a, const Component* b) {
                        return a->area != b->area ? a->area > b->area : a->label < b->label;
                      });
    kept.resize(max_components);
  }

  out.reported.clear();
  out.marks.clear();
  out.color_key.clear();
  out.trails.clear();
  out.reported.reserve(kept.size());
  for (const Component* c : kept) out.reported.push_back(to_gst(*c));
  if (!for_overlay) return;

  out.color_key.assign(size_t(result.num_components) + 1, 0);
  out.marks.reserve(kept.size());
  for (const Component* c : kept) {
    out.color_key[c->label] = c->label;
    out.marks.push_back({c->label, c->x, c->y, c->width, c->height,
                         overlay::centroid_pixel(c->sum_x, c->area),
                         overlay::centroid_pixel(c->sum_y, c->area)});
  }
}

}  // namespace ccl::plugin
