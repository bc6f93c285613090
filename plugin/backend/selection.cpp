#include "selection.h"

#include "ccl/blob.h"

#include <cstring>

namespace ccl::plugin {

// The metadata's structs start zeroed, padding included: they reach applications and
// are compared and hashed as bytes, and `{}` leaves padding unset (GCC 15 and newer).
template <typename T>
T zeroed() {
  T t;
  std::memset(&t, 0, sizeof t);
  return t;
}

GstCclComponent to_gst(const Component& c) {
  GstCclComponent g = zeroed<GstCclComponent>();
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

GstCclBlob to_gst_blob(const Component& c, const Blob* b, uint32_t properties) {
  static_assert(uint32_t(GST_CCL_BLOB_PROPERTIES_INTENSITY) == kPropertyIntensity &&
                    uint32_t(GST_CCL_BLOB_PROPERTIES_COLOR) == kPropertyColor &&
                    uint32_t(GST_CCL_BLOB_PROPERTIES_PERIMETER) == kPropertyPerimeter &&
                    uint32_t(GST_CCL_BLOB_PROPERTIES_EULER) == kPropertyEuler,
                "the meta's blob groups are the engine's Property bits");
  GstCclBlob g = zeroed<GstCclBlob>();
  g.properties = GstCclBlobProperties(properties);
  const Shape shape = shape_of(c);
  g.orientation = shape.orientation;
  g.axis_major_length = shape.axis_major_length;
  g.axis_minor_length = shape.axis_minor_length;
  g.eccentricity = shape.eccentricity;
  if (properties & kPropertyIntensity) {
    g.intensity_mean = intensity_mean(c, *b);
    g.intensity_std = intensity_std(c, *b);
    g.intensity_min = b->intensity_min;
    g.intensity_max = b->intensity_max;
  }
  if (properties & kPropertyColor)
    for (int k = 0; k < 3; ++k) g.color_mean[k] = channel_mean(c, *b, k);
  if (properties & kPropertyPerimeter) {
    g.perimeter = perimeter(*b);
    g.circularity = circularity(c, *b);
  }
  if (properties & kPropertyEuler) g.euler_number = b->euler;
  return g;
}

namespace {

// The frame's blob entries, parallel to its reported components.
void select_blobs(TableView reported, BlobRequest request, Selection& out) {
  out.blobs.reset();
  if (!request.with_blobs || !reported.size) return;
  if (request.properties && !reported.blobs)
    throw Error("the backend returned no blobs for the blob properties asked for");
  out.blobs.reset(g_new(GstCclBlob, reported.size));
  for (uint32_t i = 0; i < reported.size; ++i)
    out.blobs[i] = to_gst_blob(reported.data[i], reported.blobs ? &reported.blobs[i] : nullptr,
                               request.properties);
}

}  // namespace

namespace {

// The entries `keep` lets through, copied (with their blobs) into out's own tables.
TableView kept(TableView reported, KeepTest keep, Selection& out) {
  out.kept_table.clear();
  out.kept_blobs.clear();
  for (uint32_t i = 0; i < reported.size; ++i) {
    const Component& c = reported.data[i];
    if (!keep.keep(c.centroid_x(), c.centroid_y(), keep.data)) continue;
    out.kept_table.push_back(c);
    if (reported.blobs) out.kept_blobs.push_back(reported.blobs[i]);
  }
  TableView view;
  view.data = out.kept_table.data();
  view.size = uint32_t(out.kept_table.size());
  view.blobs = reported.blobs ? out.kept_blobs.data() : nullptr;
  return view;
}

}  // namespace

void select_components(TableView reported, uint32_t labels, bool for_overlay,
                       BlobRequest blobs, KeepTest keep, Selection& out) {
  if (keep.keep) reported = kept(reported, keep, out);
  out.table = reported;
  // One block for every entry, written in place (no per-component allocation): the
  // metadata takes it as it is.
  out.reported.reset(reported.size ? g_new(GstCclComponent, reported.size) : nullptr);
  out.n_reported = reported.size;
  for (uint32_t i = 0; i < reported.size; ++i) out.reported[i] = to_gst(reported.data[i]);
  select_blobs(reported, blobs, out);

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
