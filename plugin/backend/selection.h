// Which components a frame reports (min-area, max-components) and what the overlay
// needs of them: one rule for every backend.
#pragma once

#include <cstdint>
#include <vector>

#include <gst/ccl/gstcclmeta.h>

#include "ccl/types.h"
#include "overlay/overlay_math.h"

namespace ccl::plugin {

struct Selection {
  /// Reported components: label order, or largest first (ties by label) when more
  /// than max_components pass min_area.
  std::vector<GstCclComponent> reported;
  /// color_key[l]: the color key of label l (its track's when tracking, else the
  /// label), 0 when l is not reported; size num_components + 1.
  std::vector<uint32_t> color_key;
  /// The marks (boxes, centroid crosses) of the reported components.
  std::vector<overlay::Mark> marks;
  /// The trail segments of the reported components' tracks (overlay=trails).
  std::vector<overlay::Segment> trails;
  /// The reported components' table entries, in the order of `reported` (the tracker
  /// reads them); kept between frames to reuse its memory.
  std::vector<const Component*> kept;
};

GstCclComponent to_gst(const Component& c);

/// With for_overlay false only `reported` is filled: nothing will be drawn.
void select_components(const Result& result, uint32_t min_area, uint32_t max_components,
                       bool for_overlay, Selection& out);

}  // namespace ccl::plugin
