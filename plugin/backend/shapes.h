// CclShapes (cclbackend.h) for the C++ side: what the element draws over the marks,
// the lines and zones of overlay=events, as segments of direct colors
// (overlay_math.h), filled by cclevents.cpp and drawn by cclbackend.cpp.
#pragma once

#include <vector>

#include "overlay/overlay_math.h"

struct _CclShapes {
  std::vector<ccl::overlay::Segment> segments;
};
