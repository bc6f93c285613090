// What the element makes of a frame's reported components (the backends select them:
// Options::min_area, max_components, the blob filters): their metadata entries and
// blobs, read once from where the backend left them, and what the overlay needs of
// them.
#pragma once

#include <glib.h>

#include <cstdint>
#include <memory>
#include <vector>

#include <gst/ccl/gstcclmeta.h>

#include "ccl/types.h"
#include "overlay/overlay_math.h"

namespace ccl::plugin {

struct GFree {
  void operator()(void* p) const { g_free(p); }
};

struct Selection {
  /// The reported components' metadata entries, in the order they are reported, in
  /// one g_malloc'ed block that the frame's GstCclMeta takes over (CclReport).
  std::unique_ptr<GstCclComponent[], GFree> reported;
  size_t n_reported = 0;
  /// With blob analysis: blobs[i] is the blob of reported[i], one block the GstCclMeta
  /// takes over too; null without (and when nothing is reported).
  std::unique_ptr<GstCclBlob[], GFree> blobs;
  /// color_key[l]: the color key of label l (its track's when tracking, else the
  /// label), 0 when l is not reported; size labels + 1. With grouping a piece's label
  /// takes its group's key (spread_to_pieces).
  std::vector<uint32_t> color_key;
  /// The marks (boxes, centroid crosses) of the reported components.
  std::vector<overlay::Mark> marks;
  /// The trail segments of the reported components' tracks (overlay=trails).
  std::vector<overlay::Segment> trails;
  /// The reported components' table entries, in the order of `reported`, where the
  /// backend left them (the tracker and the ROI pick read them), or in kept_table
  /// when a keep test dropped some.
  TableView table;
  /// The entries (and blobs) a keep test let through, when it was given.
  std::vector<Component> kept_table;
  std::vector<Blob> kept_blobs;
};

/// Whether a component is reported: the element's zone filter (cclbackend.h's
/// CclKeepFunc, on the centroid).
struct KeepTest {
  gboolean (*keep)(gdouble x, gdouble y, gpointer data) = nullptr;
  gpointer data = nullptr;
};

GstCclComponent to_gst(const Component& c);

/// The blob entry of a component: its shape from the moments, and of its Blob `b` the
/// Property groups `properties` (b may be null when properties is 0).
GstCclBlob to_gst_blob(const Component& c, const Blob* b, uint32_t properties);

/// What a frame's blob entries hold: none (with_blobs false: no blob analysis), or
/// the shape and the Property groups `properties`, whose sums reported.blobs holds.
struct BlobRequest {
  bool with_blobs = false;
  uint32_t properties = 0;
};

/// Fills `out` from the reported components of a frame whose label image holds labels
/// 1..labels, those that `keep` (when set) lets through. With for_overlay false only
/// `reported`, `blobs` and `table` are filled: nothing will be drawn. Throws
/// ccl::Error when `blobs` asks for groups that reported.blobs does not hold.
void select_components(TableView reported, uint32_t labels, bool for_overlay,
                       BlobRequest blobs, KeepTest keep, Selection& out);

/// With grouping (group_of not empty, Result::group_of): each piece's label takes the
/// color key of its group's label, once the groups' keys are final (after tracking).
void spread_to_pieces(const std::vector<uint32_t>& group_of, Selection& out);

}  // namespace ccl::plugin
