// Prediction: where each track that searches this frame is expected, and the gate it
// searches (its predicted box grown by a margin that widens with speed, size, newness
// and frames unseen). The velocity it moves by is measured in observe() (tracker.cpp)
// each time the track is seen.
#include "tracker_state.h"

#include <algorithm>
#include <cmath>

namespace ccl {

using namespace tracking;

// Margins of this frame: where components crowd, the fixed margins would hold
// hundreds of them, so they shrink to the mean spacing of this frame's components
// (twice it for new tracks).
void Tracker::Impl::frame_margins() {
  spacing = std::sqrt(double(width) * height / double(std::max<size_t>(dets.size(), 1)));
  min_margin = std::min(kMinMargin, spacing);
  new_margin = std::min(kNewMargin, 2.0 * spacing);
  inv_min_margin = 1.0 / min_margin;
}

// Where track s is predicted this frame and the gate it searches; its predicted box
// goes to predicted[s].
void Tracker::Impl::make_probe(size_t s, Probe& p) {
  const Track& t = tracks[s];
  // Seen in the previous frame (most tracks), the products with the gap below are
  // exact as written with none.
  const bool next = frame - t.last_seen == 1;
  const double gap = next ? 1.0 : double(frame - t.last_seen);
  const double mx = next ? t.vx : t.vx * gap, my = next ? t.vy : t.vy * gap;
  p.px = t.cx + mx;
  p.py = t.cy + my;
  const double dx = round_to_int(mx), dy = round_to_int(my);
  const Box box = {t.x + dx, t.y + dy, t.x + dx + t.w, t.y + dy + t.h};
  predicted[s] = box;
  // The box's geometric mean side (t.size): a long thin object must not get a gate
  // as wide as it is long in every direction.
  const double m = t.seen >= 2 ? std::max({min_margin, 0.5 * t.size, kSpeedMargin * t.speed})
                               : std::max(new_margin, kNewSizeMargin * t.size);
  // Costs measure distance in the unwidened margin, so that a track long unseen
  // searches wider without also finding everything in reach cheap.
  // Where components crowd, widening would sweep in hundreds: it stops at twice
  // their mean spacing (or at no widening, when the margin is wider already).
  const double widened =
      next ? m
           : std::min(m * std::min(1.0 + 0.5 * (gap - 1.0), kMaxLostWidening),
                      std::max(m, 2.0 * spacing));
  const Box g = grown(box, widened);
  // Most tracks have the plain margin: its reciprocal is the frame's.
  p.inv_scale = m == min_margin ? inv_min_margin : 1.0 / m;
  p.area = t.area;
  p.unseen_cost = kUnseenWeight * (gap - 1.0);
  p.gx0 = floor_to_int(g.x0);
  p.gy0 = floor_to_int(g.y0);
  p.gx1 = -floor_to_int(-g.x1);
  p.gy1 = -floor_to_int(-g.y1);
  // Small components are listed by their top-left corner: one whose box meets the
  // gate has its corner at most the largest small box's size left of or above it.
  p.in_grid = cell_span(g.x0 - small_w, g.y0 - small_h, g.x1, g.y1, p.span);
}

}  // namespace ccl
