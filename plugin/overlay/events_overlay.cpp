#include "overlay/events_overlay.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace ccl::overlay {

namespace {

// 5x7 glyphs, bit 4 = leftmost cell.
struct Glyph {
  char c;
  uint8_t rows[kGlyphHeight];
};
constexpr Glyph kFont[] = {
    {'0', {0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E}},
    {'1', {0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E}},
    {'2', {0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F}},
    {'3', {0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E}},
    {'4', {0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02}},
    {'5', {0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E}},
    {'6', {0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E}},
    {'7', {0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08}},
    {'8', {0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E}},
    {'9', {0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C}},
    {'L', {0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x1F}},
    {'Z', {0x1F, 0x01, 0x02, 0x04, 0x08, 0x10, 0x1F}},
    {'i', {0x04, 0x00, 0x0C, 0x04, 0x04, 0x04, 0x0E}},
    {'n', {0x00, 0x00, 0x16, 0x19, 0x11, 0x11, 0x11}},
    {'/', {0x00, 0x01, 0x02, 0x04, 0x08, 0x10, 0x00}},
    {' ', {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00}},
};

// The frame's pixels as a clipping rectangle, in doubles.
struct Frame {
  int width, height;
  double max_x() const { return double(width - 1); }
  double max_y() const { return double(height - 1); }
};

// Liang-Barsky: clips the segment to [x_lo, x_hi] x [y_lo, y_hi]; false when nothing
// of it is left (or a coordinate is not finite).
bool clip(double& x0, double& y0, double& x1, double& y1, double x_lo, double y_lo,
          double x_hi, double y_hi) {
  if (!std::isfinite(x0) || !std::isfinite(y0) || !std::isfinite(x1) || !std::isfinite(y1))
    return false;
  if (x_hi < x_lo || y_hi < y_lo) return false;
  const double dx = x1 - x0, dy = y1 - y0;
  double t0 = 0, t1 = 1;
  const double p[4] = {-dx, dx, -dy, dy};
  const double q[4] = {x0 - x_lo, x_hi - x0, y0 - y_lo, y_hi - y0};
  for (int k = 0; k < 4; ++k) {
    if (p[k] == 0) {
      if (q[k] < 0) return false;
      continue;
    }
    const double t = q[k] / p[k];
    if (p[k] < 0) {
      if (t > t1) return false;
      t0 = std::max(t0, t);
    } else {
      if (t < t0) return false;
      t1 = std::min(t1, t);
    }
  }
  const double ax = x0 + t0 * dx, ay = y0 + t0 * dy, bx = x0 + t1 * dx, by = y0 + t1 * dy;
  // Exactly inside despite rounding: the callers round these to pixels of the frame.
  x0 = std::clamp(ax, x_lo, x_hi);
  y0 = std::clamp(ay, y_lo, y_hi);
  x1 = std::clamp(bx, x_lo, x_hi);
  y1 = std::clamp(by, y_lo, y_hi);
  return true;
}

int32_t to_pixel(double v) { return int32_t(std::lround(v)); }

class Painter {
 public:
  Painter(int width, int height, std::vector<Segment>& out)
      : f_{width, height}, out_(out) {}

  bool empty_frame() const { return f_.width <= 0 || f_.height <= 0; }

  // A segment 2 pixels thick: the segment from (x0, y0) to (x1, y1) rounded to pixels,
  // and beside it the same shifted by one pixel across its longer axis (down or right,
  // up or left where that would leave the frame), both clipped to the frame.
  void thick(double x0, double y0, double x1, double y1, uint32_t color) {
    if (!clip(x0, y0, x1, y1, 0, 0, f_.max_x(), f_.max_y())) return;
    const Segment a{color, to_pixel(x0), to_pixel(y0), to_pixel(x1), to_pixel(y1)};
    out_.push_back(a);
    const int32_t adx = std::abs(a.x1 - a.x0), ady = std::abs(a.y1 - a.y0);
    const bool shift_y = adx >= ady;
    const int32_t hi = shift_y ? std::max(a.y0, a.y1) : std::max(a.x0, a.x1);
    const int32_t lo = shift_y ? std::min(a.y0, a.y1) : std::min(a.x0, a.x1);
    const int32_t limit = shift_y ? f_.height - 1 : f_.width - 1;
    int32_t d = 1;
    if (hi + 1 > limit) d = lo - 1 >= 0 ? -1 : 1;  // a frame one pixel across keeps one
    Segment b = a;
    (shift_y ? b.y0 : b.x0) += d;
    (shift_y ? b.y1 : b.x1) += d;
    double bx0 = b.x0, by0 = b.y0, bx1 = b.x1, by1 = b.y1;
    if (!clip(bx0, by0, bx1, by1, 0, 0, f_.max_x(), f_.max_y())) return;
    out_.push_back({color, to_pixel(bx0), to_pixel(by0), to_pixel(bx1), to_pixel(by1)});
  }

  // A segment of the configuration (whose coordinates lie in [0, width] x [0, height]
  // when valid): clipped to that, then onto the last pixel column and row, and drawn
  // thick. False when nothing is left.
  bool config_segment(double& x0, double& y0, double& x1, double& y1) const {
    if (!clip(x0, y0, x1, y1, 0, 0, double(f_.width), double(f_.height))) return false;
    x0 = std::min(x0, f_.max_x());
    x1 = std::min(x1, f_.max_x());
    y0 = std::min(y0, f_.max_y());
    y1 = std::min(y1, f_.max_y());
    return true;
  }

  // One horizontal segment, clipped to the frame.
  void row(int32_t x0, int32_t x1, int32_t y, uint32_t color) {
    if (y < 0 || y >= f_.height) return;
    x0 = std::max(x0, 0);
    x1 = std::min(x1, f_.width - 1);
    if (x0 > x1) return;
    out_.push_back({color, x0, y, x1, y});
  }

 private:
  Frame f_;
  std::vector<Segment>& out_;
};

template <typename T>
T value_at(const std::vector<T>& v, size_t i) {
  return i < v.size() ? v[i] : T(0);
}

}  // namespace

bool glyph_rows(char c, uint8_t rows[kGlyphHeight]) {
  for (const Glyph& g : kFont)
    if (g.c == c) {
      std::memcpy(rows, g.rows, kGlyphHeight);
      return true;
    }
  std::memset(rows, 0, kGlyphHeight);
  return false;
}

int text_scale(int height) { return std::max(1, height / 240); }

std::string line_label(size_t line, uint64_t forward, uint64_t backward) {
  return "L" + std::to_string(line) + " " + std::to_string(forward) + "/" +
         std::to_string(backward);
}

std::string zone_label(size_t zone, uint32_t count, uint32_t max_count, uint64_t entries) {
  std::string s = "Z" + std::to_string(zone) + " " + std::to_string(count);
  if (max_count > 0) s += "/" + std::to_string(max_count);
  return s + " in " + std::to_string(entries);
}

void text_box_size(const std::string& text, int scale, int* width, int* height) {
  const int n = int(text.size());
  *width = (kGlyphAdvance * n - 1 + 2) * scale;
  *height = (kGlyphHeight + 2) * scale;
}

EventLabel text_shapes(const std::string& text, int x, int y, int scale, int width, int height,
                       std::vector<Segment>& out) {
  Painter painter(width, height, out);
  scale = std::max(1, scale);
  EventLabel label{text, 0, 0, 0, 0, scale};
  text_box_size(text, scale, &label.width, &label.height);
  label.x = std::max(0, std::min(x, width - label.width));
  label.y = std::max(0, std::min(y, height - label.height));
  if (painter.empty_frame()) return label;
  for (int r = 0; r < label.height; ++r)
    painter.row(label.x, label.x + label.width - 1, label.y + r, kEventBoxColor);
  const int ox = label.x + scale, oy = label.y + scale;
  for (size_t k = 0; k < text.size(); ++k) {
    uint8_t rows[kGlyphHeight];
    glyph_rows(text[k], rows);
    const int gx = ox + int(k) * kGlyphAdvance * scale;
    for (int r = 0; r < kGlyphHeight; ++r)
      for (int c = 0; c < kGlyphWidth;) {
        if (!(rows[r] >> (kGlyphWidth - 1 - c) & 1u)) {
          ++c;
          continue;
        }
        int e = c;
        while (e + 1 < kGlyphWidth && (rows[r] >> (kGlyphWidth - 2 - e) & 1u)) ++e;
        for (int s = 0; s < scale; ++s)
          painter.row(gx + c * scale, gx + (e + 1) * scale - 1, oy + r * scale + s,
                      kEventTextColor);
        c = e + 1;
      }
  }
  return label;
}

void event_shapes(const ccl::EventConfig& config, const std::vector<uint64_t>& forward,
                  const std::vector<uint64_t>& backward, const std::vector<uint32_t>& zone_count,
                  const std::vector<uint64_t>& zone_entries, int width, int height,
                  std::vector<Segment>& out, std::vector<EventLabel>* labels) {
  Painter painter(width, height, out);
  if (painter.empty_frame()) return;
  const int scale = text_scale(height);

  // Labels are placed once every shape is known, and drawn after them.
  struct Pending {
    std::string text;
    int x, y;
  };
  std::vector<Pending> pending;

  for (size_t i = 0; i < config.lines.size(); ++i) {
    const ccl::EventLine& l = config.lines[i];
    double x0 = l.x1, y0 = l.y1, x1 = l.x2, y1 = l.y2;
    if (!painter.config_segment(x0, y0, x1, y1)) continue;
    painter.thick(x0, y0, x1, y1, kEventLineColor);

    // The arrow: from the midpoint along the normal towards the positive side, (-dy, dx)
    // for the direction (dx, dy) in y-down coordinates.
    const double mx = 0.5 * (x0 + x1), my = 0.5 * (y0 + y1);
    const double dx = l.x2 - l.x1, dy = l.y2 - l.y1, len = std::hypot(dx, dy);
    const std::string text = line_label(i, value_at(forward, i), value_at(backward, i));
    int bw, bh;
    text_box_size(text, scale, &bw, &bh);
    if (!(len > 0) || !std::isfinite(len)) {
      pending.push_back({text, int(std::lround(mx)) - bw / 2, int(std::lround(my)) - bh / 2});
      continue;
    }
    const double ux = dx / len, uy = dy / len;  // along the line
    const double nx = -uy, ny = ux;             // towards the positive side
    const double shaft = 6.0 * scale + 6.0, head = std::round(0.4 * shaft);
    const double tx = mx + nx * shaft, ty = my + ny * shaft;
    painter.thick(mx, my, tx, ty, kEventLineColor);
    painter.thick(tx, ty, tx - nx * head + ux * head, ty - ny * head + uy * head,
                  kEventLineColor);
    painter.thick(tx, ty, tx - nx * head - ux * head, ty - ny * head - uy * head,
                  kEventLineColor);

    // The label on the negative side, its box's centre as far from the midpoint as its
    // half extent along the normal, plus a gap.
    const double reach = 0.5 * (std::abs(nx) * bw + std::abs(ny) * bh) + 2.0 * scale + 1.0;
    const double cx = mx - nx * reach, cy = my - ny * reach;
    pending.push_back({text, int(std::lround(cx - 0.5 * bw)), int(std::lround(cy - 0.5 * bh))});
  }

  for (size_t z = 0; z < config.zones.size(); ++z) {
    const ccl::EventZone& zone = config.zones[z];
    const size_t n = zone.points.size();
    const uint32_t count = value_at(zone_count, z);
    const bool crowded = zone.max_count > 0 && count > zone.max_count;
    const uint32_t color = crowded ? kEventCrowdedColor : kEventZoneColor;
    bool finite = n > 0;
    for (const ccl::EventPoint& p : zone.points)
      finite = finite && std::isfinite(p.x) && std::isfinite(p.y);
    if (!finite) continue;
    for (size_t k = 0; n >= 2 && k < n; ++k) {
      const ccl::EventPoint &a = zone.points[k], &b = zone.points[(k + 1) % n];
      double x0 = a.x, y0 = a.y, x1 = b.x, y1 = b.y;
      if (painter.config_segment(x0, y0, x1, y1)) painter.thick(x0, y0, x1, y1, color);
    }
    const ccl::EventPoint& p0 = zone.points[0];
    const double px = std::clamp(p0.x, 0.0, double(width)), py = std::clamp(p0.y, 0.0, double(height));
    pending.push_back({zone_label(z, count, zone.max_count, value_at(zone_entries, z)),
                       int(std::lround(px)) + 2 * scale + 1, int(std::lround(py)) + 2 * scale + 1});
  }

  // A label that would cover one placed before it (two lines through one midpoint, a
  // zone's corner on a line) moves below that one, or above it where the frame ends.
  struct Box {
    int x, y, w, h;
    bool meets(const Box& o) const {
      return x < o.x + o.w && o.x < x + w && y < o.y + o.h && o.y < y + h;
    }
  };
  std::vector<Box> placed;
  for (const Pending& p : pending) {
    Box b{p.x, p.y, 0, 0};
    text_box_size(p.text, scale, &b.w, &b.h);
    auto inside = [&](Box& box) {
      box.x = std::max(0, std::min(box.x, width - box.w));
      box.y = std::max(0, std::min(box.y, height - box.h));
    };
    inside(b);
    for (size_t tries = 0; tries <= placed.size(); ++tries) {
      const auto hit = std::find_if(placed.begin(), placed.end(),
                                    [&](const Box& o) { return b.meets(o); });
      if (hit == placed.end()) break;
      const Box o = *hit;
      b.y = o.y + o.h + b.h <= height ? o.y + o.h : o.y - b.h;
      inside(b);
    }
    placed.push_back(b);
    const EventLabel drawn = text_shapes(p.text, b.x, b.y, scale, width, height, out);
    if (labels) labels->push_back(drawn);
  }
}

}  // namespace ccl::overlay
