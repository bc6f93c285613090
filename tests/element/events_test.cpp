// Lines and zones (lines, zones, zone-max, post-events): the counts and events the
// element reports equal the crossings, occupancy, entries and exits computed here,
// independently, from the same frames' messages (centroids and track ids), on random
// scenes of squares moving across lines and zones; bad values are refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "ccl/events.h"
#include "element_util.h"
#include "overlay/events_overlay.h"
#include "overlay/overlay_host.h"

namespace ccl::element_test {
namespace {

using test::Frame;
using test::GrayImage;

struct Segment {
  double x1, y1, x2, y2;
};
using Polygon = std::vector<std::pair<double, double>>;

const std::vector<Segment> kLines = {{80, 0, 80, 119}, {0, 60, 159, 60}, {20, 100, 140, 20}};
const std::vector<Polygon> kZones = {{{10, 10}, {70, 10}, {70, 50}, {10, 50}},
                                     {{90, 70}, {150, 70}, {120, 110}}};
const std::vector<unsigned> kZoneMax = {1, 2};
const std::string kSettings =
    "lines=\"<<80,0,80,119>,<0,60,159,60>,<20,100,140,20>>\" "
    "zones=\"<<10,10,70,10,70,50,10,50>,<90,70,150,70,120,110>>\" zone-max=\"<1,2>\" "
    "post-messages=true post-events=true";

// Squares of 5x5 moving at constant speed, bouncing off the frame's edges: their
// centroids sit on half pixels, never on a line or a zone's edge.
std::vector<GrayImage> moving_squares(unsigned seed, int frames, int width, int height) {
  std::mt19937 rng(seed);
  struct Square {
    int x, y, vx, vy;
  };
  std::vector<Square> squares(6);
  std::uniform_int_distribution<int> px(0, width - 5), py(0, height - 5), v(-4, 4);
  for (auto& s : squares) {
    s = {px(rng), py(rng), v(rng), v(rng)};
    if (s.vx == 0 && s.vy == 0) s.vx = 3;
  }
  std::vector<GrayImage> out;
  for (int t = 0; t < frames; ++t) {
    GrayImage g;
    g.width = width;
    g.height = height;
    g.pixels.assign(size_t(width) * height, 0);
    for (auto& s : squares) {
      for (int y = s.y; y < s.y + 5; ++y)
        for (int x = s.x; x < s.x + 5; ++x) g.pixels[size_t(y) * width + x] = 255;
      if (s.x + s.vx < 0 || s.x + s.vx > width - 5) s.vx = -s.vx;
      if (s.y + s.vy < 0 || s.y + s.vy > height - 5) s.vy = -s.vy;
      s.x += s.vx;
      s.y += s.vy;
    }
    out.push_back(std::move(g));
  }
  return out;
}

struct Reported {
  std::vector<double> x, y;
  std::vector<guint64> track;
  std::vector<guint64> forward, backward, zone_entries, zone_exits;
  std::vector<unsigned> zone_count;
};

template <typename T>
std::vector<T> array_of(const GstStructure* s, const char* name) {
  std::vector<T> out;
  const GValue* a = gst_structure_get_value(s, name);
  if (!a) return out;
  for (guint i = 0; i < gst_value_array_get_size(a); ++i) {
    const GValue* v = gst_value_array_get_value(a, i);
    if (G_VALUE_HOLDS_DOUBLE(v)) out.push_back(T(g_value_get_double(v)));
    else if (G_VALUE_HOLDS_UINT64(v)) out.push_back(T(g_value_get_uint64(v)));
    else if (G_VALUE_HOLDS_UINT(v)) out.push_back(T(g_value_get_uint(v)));
  }
  return out;
}

// (kind, index, track id) of an event.
using EventKey = std::tuple<std::string, unsigned, guint64>;

// A buffer's GstCclMeta counts and events.
struct MetaCounts {
  std::vector<guint64> forward, backward, zone_entries, zone_exits;
  std::vector<unsigned> zone_count;
  std::vector<EventKey> events;
};

MetaCounts meta_counts(GstBuffer* buffer) {
  MetaCounts m;
  const GstCclMeta* meta = gst_ccl_meta_get(buffer);
  if (!meta) return m;
  for (guint i = 0; i < gst_ccl_meta_get_n_lines(meta); ++i) {
    guint64 f = 0, b = 0;
    EXPECT_TRUE(gst_ccl_meta_get_line_counts(meta, i, &f, &b));
    m.forward.push_back(f);
    m.backward.push_back(b);
  }
  for (guint i = 0; i < gst_ccl_meta_get_n_zones(meta); ++i) {
    guint count = 0;
    guint64 entries = 0, exits = 0;
    EXPECT_TRUE(gst_ccl_meta_get_zone_counts(meta, i, &count, &entries, &exits));
    m.zone_count.push_back(count);
    m.zone_entries.push_back(entries);
    m.zone_exits.push_back(exits);
  }
  guint n = 0;
  const GstCclEvent* events = gst_ccl_meta_get_events(meta, &n);
  GEnumClass* kinds = static_cast<GEnumClass*>(g_type_class_ref(GST_TYPE_CCL_EVENT_KIND));
  for (guint i = 0; i < n; ++i) {
    const GEnumValue* v = g_enum_get_value(kinds, events[i].kind);
    m.events.emplace_back(v ? v->value_nick : "?", events[i].index, events[i].track_id);
  }
  g_type_class_unref(kinds);
  return m;
}

// The oracle: the rules of docs/EVENTS.md, written plainly. Sides with long double
// cross products; segments meet when each one's end points are not strictly on the
// same side of the other; inside a polygon by the usual crossing count.
class Oracle {
 public:
  std::vector<EventKey> frame(const Reported& r) {
    std::vector<EventKey> events;
    std::vector<unsigned> count(kZones.size(), 0);
    std::set<guint64> seen;
    for (size_t i = 0; i < r.x.size(); ++i) {
      for (size_t z = 0; z < kZones.size(); ++z) count[z] += inside(kZones[z], r.x[i], r.y[i]);
      const guint64 id = r.track[i];
      if (id == 0 || !seen.insert(id).second) continue;
      Track& t = tracks_[id];
      for (size_t l = 0; l < kLines.size(); ++l) {
        if (!t.known) break;
        const Segment& s = kLines[l];
        const bool before = side(s, t.x, t.y) > 0, after = side(s, r.x[i], r.y[i]) > 0;
        if (before != after && meets(s, t.x, t.y, r.x[i], r.y[i])) {
          (after ? forward_ : backward_)[l]++;
          events.emplace_back(after ? "line-forward" : "line-backward", unsigned(l), id);
        }
      }
      for (size_t z = 0; z < kZones.size(); ++z) {
        const bool in = inside(kZones[z], r.x[i], r.y[i]);
        if (in && !t.in[z]) {
          entries_[z]++;
          events.emplace_back("zone-enter", unsigned(z), id);
        } else if (!in && t.in[z]) {
          exits_[z]++;
          events.emplace_back("zone-exit", unsigned(z), id);
        }
        t.in[z] = in;
      }
      t = Track{true, r.x[i], r.y[i], frame_, t.in};
    }
    for (auto it = tracks_.begin(); it != tracks_.end();) {
      if (frame_ - it->second.last >= 30) {  // the element's forget_after
        for (size_t z = 0; z < kZones.size(); ++z)
          if (it->second.in[z]) {
            exits_[z]++;
            events.emplace_back("zone-exit", unsigned(z), it->first);
          }
        it = tracks_.erase(it);
      } else {
        ++it;
      }
    }
    for (size_t z = 0; z < kZones.size(); ++z) {
      if (count[z] > kZoneMax[z] && count_[z] <= kZoneMax[z])
        events.emplace_back("zone-max", unsigned(z), 0);
      count_[z] = count[z];
    }
    ++frame_;
    std::sort(events.begin(), events.end());
    return events;
  }

  std::array<guint64, 3> forward_{}, backward_{};
  std::array<guint64, 2> entries_{}, exits_{};
  std::array<unsigned, 2> count_{};

 private:
  struct Track {
    bool known = false;
    double x = 0, y = 0;
    long last = 0;
    std::array<bool, 2> in{};
  };
  static long double side(const Segment& s, double x, double y) {
    return (long double)(s.x2 - s.x1) * (y - s.y1) - (long double)(s.y2 - s.y1) * (x - s.x1);
  }
  static bool meets(const Segment& s, double ax, double ay, double bx, double by) {
    auto cross = [](double ox, double oy, double px, double py, double qx, double qy) {
      const long double v = (long double)(px - ox) * (qy - oy) - (long double)(py - oy) * (qx - ox);
      return v > 0 ? 1 : v < 0 ? -1 : 0;
    };
    const int d1 = cross(ax, ay, bx, by, s.x1, s.y1), d2 = cross(ax, ay, bx, by, s.x2, s.y2);
    const int d3 = cross(s.x1, s.y1, s.x2, s.y2, ax, ay), d4 = cross(s.x1, s.y1, s.x2, s.y2, bx, by);
    return d1 * d2 <= 0 && d3 * d4 <= 0;
  }

 public:
  static bool inside(const Polygon& p, double x, double y) {
    bool in = false;
    for (size_t i = 0, j = p.size() - 1; i < p.size(); j = i++) {
      const auto [xi, yi] = p[i];
      const auto [xj, yj] = p[j];
      if ((yi > y) != (yj > y) && x < (xj - xi) * (y - yi) / (yj - yi) + xi) in = !in;
    }
    return in;
  }

 private:
  std::map<guint64, Track> tracks_;
  long frame_ = 0;
};

TEST(Events, CountsAndEventsEqualTheTracksOwnCrossings) {
  SKIP_UNLESS_BACKEND_RUNS();
  const int width = 160, height = 120, frames = 80;
  guint64 crossings = 0, entries = 0, maxima = 0;
  for (unsigned seed : {1u, 2u, 3u, 4u}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    Harness h(kSettings);
    h.set_caps(PixelFormat::Gray8, width, height);
    Oracle oracle;
    const auto images = moving_squares(seed, frames, width, height);
    for (int t = 0; t < frames; ++t) {
      GstBuffer* in = buffer_from_frame(test::make_frame(images[t], PixelFormat::Gray8));
      GST_BUFFER_PTS(in) = t * 40 * GST_MSECOND;
      GstBuffer* out = h.process(in);
      ASSERT_NE(out, nullptr);
      // The buffer's GstCclMeta carries the same counts and events as the messages.
      const MetaCounts in_meta = meta_counts(out);
      gst_buffer_unref(out);

      Reported r;
      std::vector<EventKey> got;
      bool have_frame = false;
      while (GstMessage* m = h.pop_message(GST_MESSAGE_ELEMENT)) {
        const GstStructure* s = gst_message_get_structure(m);
        if (gst_structure_has_name(s, "cudaccl")) {
          have_frame = true;
          r.x = array_of<double>(s, "centroid-x");
          r.y = array_of<double>(s, "centroid-y");
          r.track = array_of<guint64>(s, "track-id");
          r.forward = array_of<guint64>(s, "line-forward");
          r.backward = array_of<guint64>(s, "line-backward");
          r.zone_count = array_of<unsigned>(s, "zone-count");
          r.zone_entries = array_of<guint64>(s, "zone-entries");
          r.zone_exits = array_of<guint64>(s, "zone-exits");
        } else if (gst_structure_has_name(s, "cudaccl-event")) {
          guint index = 0;
          guint64 track = 0, frame = 0;
          gst_structure_get_uint(s, "index", &index);
          gst_structure_get_uint64(s, "track-id", &track);
          gst_structure_get_uint64(s, "frame", &frame);
          EXPECT_EQ(frame, guint64(t));
          got.emplace_back(gst_structure_get_string(s, "event"), index, track);
        }
        gst_message_unref(m);
      }
      ASSERT_TRUE(have_frame) << "frame " << t << ": no cudaccl message";
      EXPECT_EQ(in_meta.forward, r.forward) << "frame " << t;
      EXPECT_EQ(in_meta.backward, r.backward) << "frame " << t;
      EXPECT_EQ(in_meta.zone_count, r.zone_count) << "frame " << t;
      EXPECT_EQ(in_meta.zone_entries, r.zone_entries) << "frame " << t;
      EXPECT_EQ(in_meta.zone_exits, r.zone_exits) << "frame " << t;
      EXPECT_EQ(in_meta.events, got) << "frame " << t << ": the meta's events, in order";
      std::sort(got.begin(), got.end());
      const auto want = oracle.frame(r);
      EXPECT_EQ(got, want) << "frame " << t;
      ASSERT_EQ(r.forward.size(), kLines.size());
      ASSERT_EQ(r.zone_count.size(), kZones.size());
      for (size_t l = 0; l < kLines.size(); ++l) {
        EXPECT_EQ(r.forward[l], oracle.forward_[l]) << "frame " << t << " line " << l;
        EXPECT_EQ(r.backward[l], oracle.backward_[l]) << "frame " << t << " line " << l;
      }
      for (size_t z = 0; z < kZones.size(); ++z) {
        EXPECT_EQ(r.zone_count[z], oracle.count_[z]) << "frame " << t << " zone " << z;
        EXPECT_EQ(r.zone_entries[z], oracle.entries_[z]) << "frame " << t << " zone " << z;
        EXPECT_EQ(r.zone_exits[z], oracle.exits_[z]) << "frame " << t << " zone " << z;
      }
      for (const auto& e : want) {
        crossings += std::get<0>(e).rfind("line", 0) == 0;
        entries += std::get<0>(e) == "zone-enter";
        maxima += std::get<0>(e) == "zone-max";
      }
    }
  }
  // The scenes must exercise what they check.
  EXPECT_GE(crossings, 10u);
  EXPECT_GE(entries, 5u);
  EXPECT_GE(maxima, 1u);
}

// A lines or zones property's numbers.
std::vector<std::vector<int>> property_numbers(GstElement* e, const char* name) {
  GValue v = G_VALUE_INIT;
  g_value_init(&v, GST_TYPE_ARRAY);
  g_object_get_property(G_OBJECT(e), name, &v);
  std::vector<std::vector<int>> out;
  for (guint i = 0; i < gst_value_array_get_size(&v); ++i) {
    const GValue* inner = gst_value_array_get_value(&v, i);
    out.emplace_back();
    for (guint k = 0; k < gst_value_array_get_size(inner); ++k)
      out.back().push_back(g_value_get_int(gst_value_array_get_value(inner, k)));
  }
  g_value_unset(&v);
  return out;
}

TEST(Events, BadLinesAndZonesKeepThePreviousValue) {
  Harness h("lines=\"<<80,0,80,119>>\" zones=\"<<10,10,70,10,70,50>>\"");
  GstElement* e = h.element();
  const auto lines = property_numbers(e, "lines"), zones = property_numbers(e, "zones");
  EXPECT_EQ(lines, (std::vector<std::vector<int>>{{80, 0, 80, 119}}));
  EXPECT_EQ(zones, (std::vector<std::vector<int>>{{10, 10, 70, 10, 70, 50}}));
  for (const char* bad : {"<<1,2,3>>", "<<5,5,5,5>>", "<<1,2,3,4,5>>"}) {
    gst_util_set_object_arg(G_OBJECT(e), "lines", bad);
    EXPECT_EQ(property_numbers(e, "lines"), lines) << bad;
  }
  for (const char* bad : {"<<1,2,3,4,5>>", "<<1,2,3,4>>", "<<1,2,3,4,5,6,7>>"}) {
    gst_util_set_object_arg(G_OBJECT(e), "zones", bad);
    EXPECT_EQ(property_numbers(e, "zones"), zones) << bad;
  }
  // Outside the frame, once its size is known.
  h.set_caps(PixelFormat::Gray8, 160, 120);
  GstBuffer* out = h.process(buffer_from_frame(
      test::make_frame(moving_squares(1, 1, 160, 120)[0], PixelFormat::Gray8)));
  ASSERT_NE(out, nullptr);
  gst_buffer_unref(out);
  gst_util_set_object_arg(G_OBJECT(e), "lines", "<<0,0,500,10>>");
  EXPECT_EQ(property_numbers(e, "lines"), lines);
  gst_util_set_object_arg(G_OBJECT(e), "zones", "<<0,0,10,0,10,-3>>");
  EXPECT_EQ(property_numbers(e, "zones"), zones);
  gst_util_set_object_arg(G_OBJECT(e), "lines", "<<0,0,159,119>>");
  EXPECT_EQ(property_numbers(e, "lines"), (std::vector<std::vector<int>>{{0, 0, 159, 119}}));
}

TEST(Events, NothingAddedWithoutLinesOrZones) {
  Harness h("post-messages=true post-events=true");
  h.set_caps(PixelFormat::Gray8, 160, 120);
  GstBuffer* out = h.process(buffer_from_frame(
      test::make_frame(moving_squares(1, 1, 160, 120)[0], PixelFormat::Gray8)));
  ASSERT_NE(out, nullptr);
  gst_buffer_unref(out);
  int frames = 0;
  while (GstMessage* m = h.pop_message(GST_MESSAGE_ELEMENT)) {
    const GstStructure* s = gst_message_get_structure(m);
    EXPECT_FALSE(gst_structure_has_name(s, "cudaccl-event"));
    if (gst_structure_has_name(s, "cudaccl")) {
      ++frames;
      EXPECT_FALSE(gst_structure_has_field(s, "line-forward"));
      EXPECT_FALSE(gst_structure_has_field(s, "zone-count"));
    }
    gst_message_unref(m);
  }
  EXPECT_EQ(frames, 1);
}

// One frame's reported centroids, track ids and counts, from its "cudaccl" message.
Reported frame_report(Harness& h) {
  Reported r;
  while (GstMessage* m = h.pop_message(GST_MESSAGE_ELEMENT)) {
    const GstStructure* s = gst_message_get_structure(m);
    if (gst_structure_has_name(s, "cudaccl")) {
      r.x = array_of<double>(s, "centroid-x");
      r.y = array_of<double>(s, "centroid-y");
      r.track = array_of<guint64>(s, "track-id");
      r.forward = array_of<guint64>(s, "line-forward");
      r.backward = array_of<guint64>(s, "line-backward");
      r.zone_count = array_of<unsigned>(s, "zone-count");
      r.zone_entries = array_of<guint64>(s, "zone-entries");
      r.zone_exits = array_of<guint64>(s, "zone-exits");
    }
    gst_message_unref(m);
  }
  return r;
}

bool in_some_zone(double x, double y) {
  for (const Polygon& p : kZones)
    if (Oracle::inside(p, x, y)) return true;
  return false;
}

// zone-filter: the components reported with it are exactly those reported without it
// whose centroid the zones keep, and the zones count only those.
TEST(Events, ZoneFilterReportsWhatTheZonesKeep) {
  SKIP_UNLESS_BACKEND_RUNS();
  const int width = 160, height = 120, frames = 40;
  size_t kept_inside = 0, kept_outside = 0;
  const auto images = moving_squares(7, frames, width, height);
  Harness none(kSettings + " tracking=false");
  Harness inside(kSettings + " tracking=false zone-filter=inside");
  Harness outside(kSettings + " tracking=false zone-filter=outside");
  for (Harness* h : {&none, &inside, &outside}) h->set_caps(PixelFormat::Gray8, width, height);
  for (int t = 0; t < frames; ++t) {
    Reported r[3];
    Harness* hs[3] = {&none, &inside, &outside};
    for (int k = 0; k < 3; ++k) {
      GstBuffer* out =
          hs[k]->process(buffer_from_frame(test::make_frame(images[t], PixelFormat::Gray8)));
      ASSERT_NE(out, nullptr);
      gst_buffer_unref(out);
      r[k] = frame_report(*hs[k]);
    }
    std::vector<std::pair<double, double>> want[2], got[2];
    for (size_t i = 0; i < r[0].x.size(); ++i)
      want[in_some_zone(r[0].x[i], r[0].y[i]) ? 0 : 1].emplace_back(r[0].x[i], r[0].y[i]);
    for (int k = 0; k < 2; ++k)
      for (size_t i = 0; i < r[k + 1].x.size(); ++i) got[k].emplace_back(r[k + 1].x[i], r[k + 1].y[i]);
    EXPECT_EQ(got[0], want[0]) << "frame " << t << ": inside";
    EXPECT_EQ(got[1], want[1]) << "frame " << t << ": outside";
    // What the zones count does not change with the filter inside; outside, nothing is
    // left in them.
    EXPECT_EQ(r[1].zone_count, r[0].zone_count) << "frame " << t;
    EXPECT_EQ(r[2].zone_count, std::vector<unsigned>(kZones.size(), 0)) << "frame " << t;
    kept_inside += want[0].size();
    kept_outside += want[1].size();
  }
  // The scene has components on both sides.
  EXPECT_GE(kept_inside, 10u);
  EXPECT_GE(kept_outside, 10u);
}

TEST(Events, ZoneFilterWithoutZonesReportsEverything) {
  SKIP_UNLESS_BACKEND_RUNS();
  const auto images = moving_squares(3, 1, 160, 120);
  Harness a("post-messages=true tracking=false"), b("post-messages=true tracking=false zone-filter=inside");
  for (Harness* h : {&a, &b}) {
    h->set_caps(PixelFormat::Gray8, 160, 120);
    GstBuffer* out = h->process(buffer_from_frame(test::make_frame(images[0], PixelFormat::Gray8)));
    ASSERT_NE(out, nullptr);
    gst_buffer_unref(out);
  }
  const Reported ra = frame_report(a), rb = frame_report(b);
  EXPECT_EQ(ra.x.size(), 6u);
  EXPECT_EQ(rb.x, ra.x);
}

// overlay=events draws each frame's own counts: every pixel the shapes of that frame's
// counts (from its message) paint holds their color, frame after frame, while the
// counts change (no digit of an earlier frame stays).
TEST(EventsOverlay, DrawsEachFramesOwnCounts) {
  SKIP_UNLESS_BACKEND_RUNS();
  const int width = 160, height = 120, frames = 60;
  ccl::EventConfig config;
  for (const Segment& l : kLines) config.lines.push_back({l.x1, l.y1, l.x2, l.y2});
  for (size_t z = 0; z < kZones.size(); ++z) {
    ccl::EventZone zone;
    for (const auto& [x, y] : kZones[z]) zone.points.push_back({x, y});
    zone.max_count = kZoneMax[z];
    config.zones.push_back(zone);
  }
  Harness h(kSettings + " overlay=boxes+events");
  h.set_caps(PixelFormat::RGBA, width, height);
  const auto images = moving_squares(2, frames, width, height);
  std::set<std::vector<guint64>> seen_counts;
  for (int t = 0; t < frames; ++t) {
    GstBuffer* out = h.process(buffer_from_frame(test::make_frame(images[t], PixelFormat::RGBA)));
    ASSERT_NE(out, nullptr);
    const auto planes = read_planes(out, PixelFormat::RGBA, width, height);
    gst_buffer_unref(out);
    const Reported r = frame_report(h);
    ASSERT_EQ(r.forward.size(), kLines.size()) << "frame " << t;
    seen_counts.insert(r.forward);
    std::vector<ccl::overlay::Segment> shapes;
    const std::vector<uint64_t> f(r.forward.begin(), r.forward.end()),
        b(r.backward.begin(), r.backward.end()), e(r.zone_entries.begin(), r.zone_entries.end());
    const std::vector<uint32_t> c(r.zone_count.begin(), r.zone_count.end());
    ccl::overlay::event_shapes(config, f, b, c, e, width, height, shapes);
    std::vector<uint32_t> owner;
    ccl::overlay::rasterize_marks_host(nullptr, 0, shapes.data(), shapes.size(),
                                       ccl::overlay::kEvents, width, height, owner);
    size_t painted = 0;
    for (int y = 0; y < height; ++y)
      for (int x = 0; x < width; ++x) {
        const uint32_t o = owner[size_t(y) * width + x];
        if (!ccl::overlay::is_direct_color(o)) continue;
        const ccl::overlay::Rgb want = ccl::overlay::direct_rgb(o);
        const uint8_t* px = planes[0].data() + (size_t(y) * width + x) * 4;
        ASSERT_EQ(std::vector<int>({px[0], px[1], px[2]}),
                  std::vector<int>({int(want.r), int(want.g), int(want.b)}))
            << "frame " << t << " pixel (" << x << ", " << y << ")";
        ++painted;
      }
    EXPECT_GT(painted, 500u) << "frame " << t;
  }
  // The counts drawn changed along the way.
  EXPECT_GE(seen_counts.size(), 3u);
}

// overlay=events on both backends: the same bytes, frame after frame, in every format,
// with the counts changing as the squares cross the lines.
TEST(EventsOverlay, CudaDrawsTheSameBytesAsTheHost) {
  std::string why;
  if (!cuda_usable(&why)) GTEST_SKIP() << "needs a CUDA device: " << why;
  const int width = 160, height = 120, frames = 24;
  const auto images = moving_squares(5, frames, width, height);
  for (PixelFormat f : test::all_formats()) {
    const std::string props = kSettings + " overlay=boxes+trails+events";
    Harness cpu(props, "cpu"), cuda(props, "cuda");
    cpu.set_caps(f, width, height);
    cuda.set_caps(f, width, height);
    for (int t = 0; t < frames; ++t) {
      const Frame frame = test::make_frame(images[t], f, 9);
      std::vector<std::vector<uint8_t>> results[2];
      Harness* hs[2] = {&cpu, &cuda};
      for (int k = 0; k < 2; ++k) {
        GstBuffer* out = hs[k]->process(buffer_from_frame(frame));
        ASSERT_NE(out, nullptr);
        results[k] = read_planes(out, f, width, height);
        gst_buffer_unref(out);
      }
      expect_planes_equal(results[1], results[0],
                          "frame " + std::to_string(t) + ": cuda vs cpu " + to_string(f));
    }
  }
}

}  // namespace
}  // namespace ccl::element_test
