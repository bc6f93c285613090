// What the element makes of a frame's reported components (the backends select them:
// Options::min_area, max_components): their metadata entries, read once from where
// the backend left them, and what the overlay needs of them.
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
  /// color_key[l]: the color key of label l (its track's when tracking, else the
  /// label), 0 when l is not reported; size num_components + 1.
  std::vector<uint32_t> color_key;
  /// The marks (boxes, centroid crosses) of the reported components.
  std::vector<overlay::Mark> marks;
  /// The trail segments of the reported components' tracks (overlay=trails).
  std::vector<overlay::Segment> trails;
  /// The reported components' table entries, in the order of `reported`, where the
  /// backend left them (the tracker and the ROI pick read them).
  TableView table;
};

GstCclComponent to_gst(const Component& c);

/// Fills `out` from the reported components of a frame with num_components in all.
/// With for_overlay false only `reported` and `table` are filled: nothing will be drawn.
void select_components(TableView reported, uint32_t num_components, bool for_overlay,
                       Selection& out);

}  // namespace ccl::plugin
