// Components built from pixel sets, for the metadata library's tests: the features
// are summed here the plain way, independent of any backend.
#pragma once

#include <gst/ccl/gstcclmeta.h>

#include <functional>
#include <utility>
#include <vector>

namespace meta_test {

using Pixels = std::vector<std::pair<int, int>>;  // (x, y)

/// The component of exactly these pixels (bounding box, area, sums, centroid).
GstCclComponent component_of(guint32 label, const Pixels& pixels);

/// Whether two components hold the same values in every field. Structs are compared
/// field by field, never with memcmp: a copy need not carry the padding bytes along
/// (GCC 15 and newer copy member by member).
bool same_component(const GstCclComponent& a, const GstCclComponent& b);

/// Pixels (x, y) of a w x h grid, starting at (x0, y0), for which inside(x, y) holds.
Pixels pixels_where(int x0, int y0, int w, int h, const std::function<bool(int, int)>& inside);

/// A filled w x h rectangle at (x, y).
Pixels rectangle(int x, int y, int w, int h);

/// A filled ellipse centred on (cx, cy) with semi-axes a (along angle) and b, the
/// angle in radians from the x axis towards +y (rows grow downwards).
Pixels ellipse(double cx, double cy, double a, double b, double angle);

}  // namespace meta_test
