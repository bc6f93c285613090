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
  /// reported_flag[l] != 0 when label l is reported; size num_components + 1.
  std::vector<uint8_t> reported_flag;
  /// The marks (boxes, centroid crosses) of the reported components.
  std::vector<overlay::Mark> marks;
  /// Scratch of select_components, kept so that frames reuse its memory.
  std::vector<const Component*> kept;
};

GstCclComponent to_gst(const Component& c);

/// With for_overlay false only `reported` is filled: nothing will be drawn.
void select_components(const Result& result, uint32_t min_area, uint32_t max_components,
                       bool for_overlay, Selection& out);

}  // namespace ccl::plugin
