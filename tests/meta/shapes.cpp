#include "shapes.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>

namespace meta_test {

GstCclComponent component_of(guint32 label, const Pixels& pixels) {
  GstCclComponent c{};
  c.label = label;
  int x0 = INT_MAX, y0 = INT_MAX, x1 = INT_MIN, y1 = INT_MIN;
  for (const auto& [x, y] : pixels) {
    x0 = std::min(x0, x);
    x1 = std::max(x1, x);
    y0 = std::min(y0, y);
    y1 = std::max(y1, y);
    const guint64 ux = guint64(x), uy = guint64(y);
    c.area += 1;
    c.sum_x += ux;
    c.sum_y += uy;
    c.sum_xx += ux * ux;
    c.sum_xy += ux * uy;
    c.sum_yy += uy * uy;
  }
  if (c.area) {
    c.x = x0;
    c.y = y0;
    c.width = x1 - x0 + 1;
    c.height = y1 - y0 + 1;
    c.centroid_x = double(c.sum_x) / double(c.area);
    c.centroid_y = double(c.sum_y) / double(c.area);
  }
  return c;
}

bool same_component(const GstCclComponent& a, const GstCclComponent& b) {
  // Doubles as bits: a copy must reproduce them exactly, NaN included.
  auto same = [](double x, double y) { return std::memcmp(&x, &y, sizeof x) == 0; };
  return a.label == b.label && a.x == b.x && a.y == b.y && a.width == b.width &&
         a.height == b.height && a.area == b.area && a.sum_x == b.sum_x &&
         a.sum_y == b.sum_y && a.sum_xx == b.sum_xx && a.sum_xy == b.sum_xy &&
         a.sum_yy == b.sum_yy && same(a.centroid_x, b.centroid_x) &&
         same(a.centroid_y, b.centroid_y) && a.track_id == b.track_id &&
         a.parent_id == b.parent_id && a.track_age == b.track_age &&
         a.frames_unseen == b.frames_unseen && same(a.velocity_x, b.velocity_x) &&
         same(a.velocity_y, b.velocity_y) && a.predicted_x == b.predicted_x &&
         a.predicted_y == b.predicted_y && a.predicted_width == b.predicted_width &&
         a.predicted_height == b.predicted_height;
}

Pixels pixels_where(int x0, int y0, int w, int h, const std::function<bool(int, int)>& inside) {
  Pixels out;
  for (int y = y0; y < y0 + h; ++y)
    for (int x = x0; x < x0 + w; ++x)
      if (inside(x, y)) out.emplace_back(x, y);
  return out;
}

Pixels rectangle(int x, int y, int w, int h) {
  return pixels_where(x, y, w, h, [](int, int) { return true; });
}

Pixels ellipse(double cx, double cy, double a, double b, double angle) {
  const double c = std::cos(angle), s = std::sin(angle);
  const int r = int(std::ceil(std::max(a, b))) + 1;
  return pixels_where(int(cx) - r, int(cy) - r, 2 * r + 1, 2 * r + 1, [&](int x, int y) {
    const double dx = x - cx, dy = y - cy;
    const double u = (dx * c + dy * s) / a, v = (-dx * s + dy * c) / b;
    return u * u + v * v <= 1.0;
  });
}

}  // namespace meta_test
