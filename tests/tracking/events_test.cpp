// The event counter (ccl/events.h): hand-made line crossings and zones whose counts
// are known, then random walks checked event by event against a plain oracle that
// reimplements the header's rules in exact integer arithmetic. EVENTS_BENCH=1 also
// times update() (EventsBench).
#include "ccl/events.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <new>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "ccl/types.h"

// Every allocation of the test binary is counted, to check that update() makes none
// once warmed up. (Not inlined: GCC would take the free() of what new returned for a
// mismatch.)
static std::atomic<size_t> g_allocations{0};
__attribute__((noinline)) void* operator new(size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size ? size : 1)) return p;
  throw std::bad_alloc();
}
__attribute__((noinline)) void operator delete(void* p) noexcept { std::free(p); }
__attribute__((noinline)) void operator delete(void* p, size_t) noexcept { std::free(p); }

namespace ccl::events_test {
namespace {

// --- helpers ---

std::string describe(const Event& e) {
  std::ostringstream s;
  s << to_string(e.kind) << " #" << e.index << " track " << e.track_id << " count " << e.count
    << " at (" << e.x << ", " << e.y << ") frame " << e.frame << " time " << e.running_time
    << " entry " << e.entry_time;
  return s.str();
}

std::string describe(const std::vector<Event>& events) {
  std::string s;
  for (const Event& e : events) s += "  " + describe(e) + "\n";
  return s.empty() ? "  (none)\n" : s;
}

bool same(const Event& a, const Event& b) {
  return a.kind == b.kind && a.index == b.index && a.track_id == b.track_id &&
         a.count == b.count && a.x == b.x && a.y == b.y && a.frame == b.frame &&
         a.running_time == b.running_time && a.entry_time == b.entry_time;
}

// Feeds one frame, numbered by the counter's own frame count, its running time 1000
// ns per frame; returns the frame's events.
std::vector<Event> step(EventCounter& counter, const std::vector<TrackCentroid>& components) {
  const uint64_t frame = counter.frames() + 1;
  std::vector<Event> events;
  counter.update(components, frame, int64_t(frame) * 1000, events);
  return events;
}

// Centroids of one tracked component each.
std::vector<TrackCentroid> one(uint32_t id, double x, double y) { return {{id, x, y}}; }

EventConfig line_config(double x1, double y1, double x2, double y2) {
  EventConfig c;
  c.lines.push_back({x1, y1, x2, y2});
  return c;
}

// The vertical line x = 10 from y = 20 up to y = 0: its positive side is x > 10, so
// moving to the right is forward.
EventConfig vertical_line() { return line_config(10, 20, 10, 0); }

EventZone square(double x0, double y0, double x1, double y1, uint32_t max_count = 0) {
  EventZone z;
  z.points = {{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}};
  z.max_count = max_count;
  return z;
}

// --- lines ---

TEST(EventsLine, LeftToRightCountsForwardOnce) {
  EventCounter counter(vertical_line());
  EXPECT_TRUE(step(counter, one(7, 5, 10)).empty());
  const std::vector<Event> events = step(counter, one(7, 15, 10));
  ASSERT_EQ(events.size(), 1u) << describe(events);
  EXPECT_EQ(events[0].kind, EventKind::LineForward);
  EXPECT_EQ(events[0].index, 0u);
  EXPECT_EQ(events[0].track_id, 7u);
  EXPECT_EQ(events[0].x, 15);
  EXPECT_EQ(events[0].y, 10);
  EXPECT_EQ(events[0].frame, 2u);
  EXPECT_EQ(events[0].running_time, 2000);
  EXPECT_TRUE(step(counter, one(7, 25, 10)).empty());
  EXPECT_EQ(counter.forward(), std::vector<uint64_t>{1});
  EXPECT_EQ(counter.backward(), std::vector<uint64_t>{0});
}

TEST(EventsLine, BackCountsBackward) {
  EventCounter counter(vertical_line());
  step(counter, one(7, 5, 10));
  step(counter, one(7, 15, 10));
  const std::vector<Event> events = step(counter, one(7, 3, 12));
  ASSERT_EQ(events.size(), 1u) << describe(events);
  EXPECT_EQ(events[0].kind, EventKind::LineBackward);
  EXPECT_EQ(counter.forward(), std::vector<uint64_t>{1});
  EXPECT_EQ(counter.backward(), std::vector<uint64_t>{1});
}

TEST(EventsLine, TouchingAnEndpointCounts) {
  EventCounter counter(vertical_line());
  step(counter, one(1, 5, 0));   // along y = 0, through the endpoint (10, 0)
  step(counter, one(1, 15, 0));
  step(counter, one(2, 8, 22));  // diagonally through the endpoint (10, 20)
  step(counter, one(2, 12, 18));
  EXPECT_EQ(counter.forward(), std::vector<uint64_t>{2});
}

TEST(EventsLine, PassingBeyondTheEndDoesNotCount) {
  EventCounter counter(vertical_line());
  step(counter, one(1, 5, -1));
  step(counter, one(1, 15, -1));  // changed sides, but above the segment
  step(counter, one(2, 9, 22));
  step(counter, one(2, 12, 19.5));  // meets x = 10 at y = 21.17, past the end y = 20
  step(counter, one(3, 11, 40));
  step(counter, one(3, 9, 21));
  EXPECT_EQ(counter.forward(), std::vector<uint64_t>{0});
  EXPECT_EQ(counter.backward(), std::vector<uint64_t>{0});
}

TEST(EventsLine, RestingOnTheLineThenLeavingCountsOnce) {
  EventCounter counter(vertical_line());
  step(counter, one(1, 5, 10));
  step(counter, one(1, 10, 10));  // on the line: the negative side, no crossing
  step(counter, one(1, 10, 5));   // along the line
  EXPECT_EQ(counter.forward()[0] + counter.backward()[0], 0u);
  step(counter, one(1, 15, 10));  // leaves to the positive side
  step(counter, one(1, 16, 10));
  EXPECT_EQ(counter.forward(), std::vector<uint64_t>{1});
  // Coming back onto the line from the positive side is the backward crossing; going
  // on to the negative side then is none.
  step(counter, one(1, 10, 12));
  EXPECT_EQ(counter.backward(), std::vector<uint64_t>{1});
  step(counter, one(1, 4, 12));
  EXPECT_EQ(counter.forward(), std::vector<uint64_t>{1});
  EXPECT_EQ(counter.backward(), std::vector<uint64_t>{1});
}

TEST(EventsLine, ATrackForgottenCrossesNothingWhenItComesBack) {
  EventConfig config = vertical_line();
  config.forget_after = 3;
  {
    EventCounter counter(config);
    step(counter, one(1, 5, 10));
    for (int i = 0; i < 3; ++i) step(counter, {});  // 3 frames unreported: forgotten
    EXPECT_EQ(counter.tracks(), 0u);
    step(counter, one(1, 15, 10));
    EXPECT_EQ(counter.forward(), std::vector<uint64_t>{0});
    EXPECT_EQ(counter.tracks(), 1u);
  }
  {
    EventCounter counter(config);
    step(counter, one(1, 5, 10));
    for (int i = 0; i < 2; ++i) step(counter, {});  // 2 frames: still remembered
    EXPECT_EQ(counter.tracks(), 1u);
    step(counter, one(1, 15, 10));
    EXPECT_EQ(counter.forward(), std::vector<uint64_t>{1});
  }
}

TEST(EventsLine, UntrackedAndRepeatedComponentsDoNotCross) {
  EventCounter counter(vertical_line());
  step(counter, {{0, 5, 10}, {4, 5, 10}});
  // Track 4 given twice: only its first centroid is its report.
  const std::vector<Event> events = step(counter, {{0, 15, 10}, {4, 6, 10}, {4, 15, 10}});
  EXPECT_TRUE(events.empty()) << describe(events);
  EXPECT_EQ(counter.forward(), std::vector<uint64_t>{0});
  EXPECT_EQ(counter.tracks(), 1u);
}

TEST(EventsLine, SeveralLinesAndTracksInTheDocumentedOrder) {
  EventConfig config = vertical_line();
  config.lines.push_back({0, 10, 30, 10});  // horizontal: positive side is y > 10
  EventCounter counter(config);
  step(counter, {{1, 5, 5}, {2, 20, 20}});
  // Track 2 comes first in this frame, and crosses both lines; then track 1.
  const std::vector<Event> events = step(counter, {{2, 6, 5}, {1, 15, 15}});
  ASSERT_EQ(events.size(), 4u) << describe(events);
  EXPECT_EQ(events[0].track_id, 2u);
  EXPECT_EQ(events[0].kind, EventKind::LineBackward);
  EXPECT_EQ(events[0].index, 0u);
  EXPECT_EQ(events[1].track_id, 2u);
  EXPECT_EQ(events[1].kind, EventKind::LineBackward);
  EXPECT_EQ(events[1].index, 1u);
  EXPECT_EQ(events[2].track_id, 1u);
  EXPECT_EQ(events[2].kind, EventKind::LineForward);
  EXPECT_EQ(events[2].index, 0u);
  EXPECT_EQ(events[3].track_id, 1u);
  EXPECT_EQ(events[3].index, 1u);
}

// --- zones ---

TEST(EventsZone, EdgesFollowTheTopLeftRule) {
  EventConfig config;
  config.zones.push_back(square(10, 10, 20, 20));
  config.zones.push_back(square(20, 10, 30, 20));  // shares the edge x = 20
  EventCounter counter(config);
  EXPECT_TRUE(counter.inside_zone(0, 15, 15));
  EXPECT_TRUE(counter.inside_zone(0, 10, 15));   // left edge
  EXPECT_FALSE(counter.inside_zone(0, 20, 15));  // right edge...
  EXPECT_TRUE(counter.inside_zone(1, 20, 15));   // ... is the next zone's left one
  EXPECT_TRUE(counter.inside_zone(0, 15, 10));   // top edge
  EXPECT_FALSE(counter.inside_zone(0, 15, 20));  // bottom edge
  EXPECT_TRUE(counter.inside_zone(0, 10, 10));
  EXPECT_FALSE(counter.inside_zone(0, 20, 10));
  EXPECT_FALSE(counter.inside_zone(0, 10, 20));
  EXPECT_FALSE(counter.inside_zone(0, 20, 20));
  EXPECT_FALSE(counter.inside_zone(0, 9.5, 15));
  EXPECT_FALSE(counter.inside_zone(2, 15, 15));  // no such zone
  EXPECT_TRUE(counter.inside_any_zone(25, 15));
  EXPECT_FALSE(counter.inside_any_zone(35, 15));
  EXPECT_FALSE(counter.inside_any_zone(std::nan(""), 15));
  // The same square, its points in the other order, by the same rule.
  config.zones[0].points = {{10, 10}, {10, 20}, {20, 20}, {20, 10}};
  counter.configure(config);
  EXPECT_TRUE(counter.inside_zone(0, 10, 15));
  EXPECT_FALSE(counter.inside_zone(0, 20, 15));
  EXPECT_TRUE(counter.inside_zone(0, 15, 10));
  EXPECT_FALSE(counter.inside_zone(0, 15, 20));
  // A sloped edge: inside to its right only.
  config.zones = {EventZone{{{0, 0}, {10, 0}, {0, 10}}, 0}};
  counter.configure(config);
  EXPECT_FALSE(counter.inside_zone(0, 5, 5));  // on the hypotenuse, the zone to its left
  EXPECT_TRUE(counter.inside_zone(0, 4.5, 5));
  EXPECT_TRUE(counter.inside_zone(0, 0, 5));
}

TEST(EventsZone, EvenOddRuleMakesHoles) {
  EventConfig config;
  // A square with a square hole, joined by the edge from (0, 0) to (10, 10) and back.
  config.zones.push_back(EventZone{{{0, 0}, {30, 0}, {30, 30}, {0, 30}, {0, 0}, {10, 10},
                                    {10, 20}, {20, 20}, {20, 10}, {10, 10}},
                                   0});
  // A bow tie, and a pentagram whose centre is covered twice: outside by even-odd.
  config.zones.push_back(EventZone{{{40, 0}, {60, 20}, {60, 0}, {40, 20}}, 0});
  config.zones.push_back(
      EventZone{{{100, 0}, {112, 36}, {81, 14}, {119, 14}, {88, 36}}, 0});
  EventCounter counter(config);
  EXPECT_TRUE(counter.inside_zone(0, 5, 25));
  EXPECT_FALSE(counter.inside_zone(0, 15, 15));
  EXPECT_TRUE(counter.inside_zone(1, 42, 10));
  EXPECT_TRUE(counter.inside_zone(1, 58, 10));
  EXPECT_FALSE(counter.inside_zone(1, 50, 5));
  EXPECT_FALSE(counter.inside_zone(2, 100, 20));  // the centre
  EXPECT_TRUE(counter.inside_zone(2, 100, 5));    // a point of the star
}

// update() and inside_any_zone() answer most points from a grid of precomputed
// cells; they must agree with the polygon test of inside_zone() everywhere: on and
// next to edges and vertices, at any scale, far away.
TEST(EventsZone, TheFastPathAgreesWithThePolygons) {
  std::mt19937 gen(3);
  std::uniform_real_distribution<double> unit(0, 1);
  for (int round = 0; round < 40; ++round) {
    const double size = round % 4 == 0 ? 3 : round % 4 == 1 ? 1000 : round % 4 == 2 ? 5e5 : 60;
    EventConfig config;
    // Now and then the most zones there may be, whose cells are too varied for the
    // grid to record them all.
    const int zones = round % 10 == 9 ? int(kMaxEventZones) : 1 + int(gen() % 6);
    for (int z = 0; z < zones; ++z) {
      EventZone zone;
      // Some zones small within a large box, so that cells are coarse for them.
      const double scale = unit(gen) < 0.3 ? size / 20 : size;
      const double ox = unit(gen) * (size - scale), oy = unit(gen) * (size - scale);
      const int points = 3 + int(gen() % 8);
      for (int i = 0; i < points; ++i)
        zone.points.push_back({ox + unit(gen) * scale, oy + unit(gen) * scale});
      if (round % 5 == 0) zone.points[1].y = zone.points[0].y;  // a horizontal edge
      config.zones.push_back(zone);
    }
    EventCounter counter(config);
    std::vector<EventPoint> probes;
    for (int i = 0; i < 600; ++i)
      probes.push_back({(unit(gen) * 1.2 - 0.1) * size, (unit(gen) * 1.2 - 0.1) * size});
    for (const EventZone& zone : config.zones)
      for (size_t i = 0; i < zone.points.size(); ++i) {
        const EventPoint a = zone.points[i], b = zone.points[(i + 1) % zone.points.size()];
        probes.push_back(a);
        probes.push_back({std::nextafter(a.x, -INFINITY), a.y});
        probes.push_back({a.x, std::nextafter(a.y, INFINITY)});
        for (int k = 0; k < 6; ++k) {
          const double t = unit(gen);
          probes.push_back({a.x + t * (b.x - a.x), a.y + t * (b.y - a.y)});
        }
        probes.push_back({(a.x + b.x) / 2, (a.y + b.y) / 2});
      }
    for (const double far : {-1e300, -1e9, 1e9, 1e300}) {
      probes.push_back({far, size / 2});
      probes.push_back({size / 2, far});
    }
    for (const EventPoint& q : probes) {
      step(counter, {{0, q.x, q.y}});
      bool any = false;
      for (int z = 0; z < zones; ++z) {
        const bool inside = counter.inside_zone(size_t(z), q.x, q.y);
        any |= inside;
        ASSERT_EQ(counter.zone_count()[size_t(z)], inside ? 1u : 0u)
            << "round " << round << " zone " << z << " at (" << q.x << ", " << q.y << ")";
      }
      ASSERT_EQ(counter.inside_any_zone(q.x, q.y), any) << "round " << round;
    }
  }
}

TEST(EventsZone, CountsIncludeUntrackedComponents) {
  EventConfig config;
  config.zones.push_back(square(0, 0, 10, 10));
  config.zones.push_back(square(5, 5, 20, 20));
  EventCounter counter(config);
  step(counter, {{0, 1, 1}, {0, 6, 6}, {3, 7, 7}, {0, 15, 15}, {0, 50, 50}});
  EXPECT_EQ(counter.zone_count(), (std::vector<uint32_t>{3, 3}));
  EXPECT_EQ(counter.zone_entries(), (std::vector<uint64_t>{1, 1}));  // track 3 only
  step(counter, {});
  EXPECT_EQ(counter.zone_count(), (std::vector<uint32_t>{0, 0}));
}

TEST(EventsZone, EntriesExitsAndDwell) {
  EventConfig config;
  config.zones.push_back(square(10, 10, 20, 20));
  EventCounter counter(config);
  step(counter, one(5, 0, 15));
  std::vector<Event> events = step(counter, one(5, 12, 15));  // frame 2: enters
  ASSERT_EQ(events.size(), 1u) << describe(events);
  EXPECT_EQ(events[0].kind, EventKind::ZoneEnter);
  EXPECT_EQ(events[0].track_id, 5u);
  EXPECT_EQ(events[0].count, 1u);
  EXPECT_EQ(events[0].entry_time, 2000);
  ZoneDwell dwell;
  ASSERT_TRUE(counter.dwell(5, 0, &dwell));
  EXPECT_EQ(dwell.frames, 1u);
  EXPECT_EQ(dwell.entry_frame, 2u);
  EXPECT_EQ(dwell.entry_time, 2000);
  step(counter, one(5, 14, 15));
  step(counter, {});  // unreported: does not add to the dwell
  step(counter, one(5, 16, 15));
  ASSERT_TRUE(counter.dwell(5, 0, &dwell));
  EXPECT_EQ(dwell.frames, 3u);
  EXPECT_EQ(dwell.entry_time, 2000);
  events = step(counter, one(5, 25, 15));  // frame 6: leaves
  ASSERT_EQ(events.size(), 1u) << describe(events);
  EXPECT_EQ(events[0].kind, EventKind::ZoneExit);
  EXPECT_EQ(events[0].count, 3u);
  EXPECT_EQ(events[0].entry_time, 2000);
  EXPECT_EQ(events[0].running_time, 6000);
  EXPECT_EQ(events[0].x, 25);
  EXPECT_FALSE(counter.dwell(5, 0, &dwell));
  EXPECT_FALSE(counter.dwell(6, 0, &dwell));
  EXPECT_FALSE(counter.dwell(5, 1, &dwell));
  // Back in: a new stay.
  step(counter, one(5, 15, 15));
  ASSERT_TRUE(counter.dwell(5, 0, &dwell));
  EXPECT_EQ(dwell.frames, 1u);
  EXPECT_EQ(dwell.entry_frame, 7u);
  EXPECT_EQ(counter.zone_entries(), std::vector<uint64_t>{2});
  EXPECT_EQ(counter.zone_exits(), std::vector<uint64_t>{1});
}

TEST(EventsZone, ATrackFirstSeenInsideEnters) {
  EventConfig config;
  config.zones.push_back(square(10, 10, 20, 20));
  EventCounter counter(config);
  const std::vector<Event> events = step(counter, one(9, 15, 15));
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].kind, EventKind::ZoneEnter);
  EXPECT_EQ(counter.zone_entries(), std::vector<uint64_t>{1});
}

TEST(EventsZone, ForgettingATrackInsideIsAnExit) {
  EventConfig config;
  config.zones.push_back(square(10, 10, 20, 20));
  config.zones.push_back(square(0, 0, 100, 100));
  config.forget_after = 2;
  EventCounter counter(config);
  step(counter, {{8, 15, 15}, {3, 12, 12}});
  step(counter, {{8, 16, 15}, {3, 12, 13}});
  EXPECT_TRUE(step(counter, {}).empty());  // frame 3: one frame unreported
  const std::vector<Event> events = step(counter, {});  // frame 4: forgotten
  ASSERT_EQ(events.size(), 4u) << describe(events);
  // By track id, then zone.
  const uint32_t ids[] = {3, 3, 8, 8};
  const uint32_t zones[] = {0, 1, 0, 1};
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(events[i].kind, EventKind::ZoneExit);
    EXPECT_EQ(events[i].track_id, ids[i]);
    EXPECT_EQ(events[i].index, zones[i]);
    EXPECT_EQ(events[i].frame, 4u);
    EXPECT_EQ(events[i].running_time, 4000);
    EXPECT_EQ(events[i].count, 2u);
    EXPECT_EQ(events[i].entry_time, 1000);
  }
  EXPECT_EQ(events[0].x, 12);  // where it was last reported
  EXPECT_EQ(events[0].y, 13);
  EXPECT_EQ(counter.zone_exits(), (std::vector<uint64_t>{2, 2}));
  EXPECT_EQ(counter.tracks(), 0u);
}

TEST(EventsZone, OvercrowdingOnTheRisingEdgeOnly) {
  EventConfig config;
  config.zones.push_back(square(0, 0, 100, 100, 2));
  config.zones.push_back(square(0, 0, 100, 100));  // no limit
  EventCounter counter(config);
  auto frame_of = [](int n) {
    std::vector<TrackCentroid> c;
    for (int i = 0; i < n; ++i) c.push_back({0, 10.0 + i, 10});
    return c;
  };
  std::vector<int> raised;
  const int counts[] = {1, 3, 4, 2, 3, 0, 5};
  for (int n : counts) {
    for (const Event& e : step(counter, frame_of(n))) {
      ASSERT_EQ(e.kind, EventKind::ZoneMax);
      EXPECT_EQ(e.index, 0u);
      EXPECT_EQ(e.track_id, 0u);
      raised.push_back(int(e.count));
    }
  }
  EXPECT_EQ(raised, (std::vector<int>{3, 3, 5}));
  // Above the limit in the first frame after a reset is a rising edge too.
  step(counter, frame_of(4));
  counter.reset();
  EXPECT_EQ(step(counter, frame_of(4)).size(), 1u);
}

TEST(EventsZone, LinesBeforeZonesThenForgottenThenOvercrowding) {
  EventConfig config = vertical_line();
  config.zones.push_back(square(10, 0, 30, 20, 1));
  config.forget_after = 1;
  EventCounter counter(config);
  step(counter, {{1, 5, 5}, {2, 25, 5}});
  const std::vector<Event> events = step(counter, {{1, 15, 5}, {0, 20, 5}});
  ASSERT_EQ(events.size(), 4u) << describe(events);
  EXPECT_EQ(events[0].kind, EventKind::LineForward);
  EXPECT_EQ(events[1].kind, EventKind::ZoneEnter);
  EXPECT_EQ(events[2].kind, EventKind::ZoneExit);  // track 2, forgotten
  EXPECT_EQ(events[2].track_id, 2u);
  EXPECT_EQ(events[3].kind, EventKind::ZoneMax);
  EXPECT_EQ(events[3].count, 2u);
}

// --- configuration ---

TEST(EventsConfig, ValidationNamesTheFault) {
  auto fault = [](const EventConfig& c, int w = 0, int h = 0) { return validate(c, w, h); };
  EXPECT_EQ(fault(EventConfig{}), "");
  EXPECT_EQ(fault(vertical_line(), 20, 20), "");
  EXPECT_NE(fault(line_config(3, 4, 3, 4)).find("identical endpoints"), std::string::npos);
  EXPECT_NE(fault(line_config(3, 4, std::nan(""), 4)).find("not finite"), std::string::npos);
  EXPECT_NE(fault(line_config(3, 4, INFINITY, 4)).find("not finite"), std::string::npos);
  EXPECT_NE(fault(vertical_line(), 9, 20).find("outside the 9x20 frame"), std::string::npos);
  EXPECT_EQ(fault(vertical_line()), "");  // no frame size: no bounds
  EXPECT_NE(fault(vertical_line(), -1, 5), "");
  EventConfig c;
  c.zones.push_back(EventZone{{{0, 0}, {5, 5}}, 0});
  EXPECT_NE(fault(c).find("zone 0 has 2 points"), std::string::npos) << fault(c);
  c.zones[0] = square(0, 0, 5, 5);
  EXPECT_EQ(fault(c, 5, 5), "");
  EXPECT_NE(fault(c, 4, 5).find("zone 0's point 1"), std::string::npos) << fault(c, 4, 5);
  c.zones[0].points[2].y = -std::numeric_limits<double>::infinity();
  EXPECT_NE(fault(c).find("not finite"), std::string::npos);
  c = EventConfig{};
  c.forget_after = 0;
  EXPECT_NE(fault(c).find("forget_after"), std::string::npos);
}

TEST(EventsConfig, AFaultyConfigurationKeepsThePreviousOne) {
  EventCounter counter(vertical_line());
  step(counter, one(1, 5, 5));
  step(counter, one(1, 15, 5));
  EXPECT_THROW(counter.configure(line_config(1, 1, 1, 1)), Error);
  EXPECT_THROW(counter.configure(vertical_line(), 5, 5), Error);
  EXPECT_THROW(EventCounter{line_config(1, 1, 1, 1)}, Error);
  ASSERT_EQ(counter.config().lines.size(), 1u);
  EXPECT_EQ(counter.config().lines[0].x1, 10);
  EXPECT_EQ(counter.forward(), std::vector<uint64_t>{1});
  EXPECT_EQ(counter.tracks(), 1u);
  step(counter, one(1, 5, 5));  // still compared with its last report
  EXPECT_EQ(counter.backward(), std::vector<uint64_t>{1});
}

TEST(EventsConfig, ReconfiguringAndResettingStartAfresh) {
  EventConfig config = vertical_line();
  config.zones.push_back(square(0, 0, 100, 100));
  EventCounter counter(config);
  step(counter, one(1, 5, 5));
  step(counter, one(1, 15, 5));
  counter.reset();
  EXPECT_EQ(counter.forward(), std::vector<uint64_t>{0});
  EXPECT_EQ(counter.zone_entries(), std::vector<uint64_t>{0});
  EXPECT_EQ(counter.zone_count(), std::vector<uint32_t>{0});
  EXPECT_EQ(counter.tracks(), 0u);
  EXPECT_EQ(counter.frames(), 0u);
  // Track 1 is new again: no crossing, and an entry.
  std::vector<Event> events = step(counter, one(1, 5, 5));
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].kind, EventKind::ZoneEnter);
  step(counter, one(1, 15, 5));
  EXPECT_EQ(counter.forward(), std::vector<uint64_t>{1});
  // A new configuration: counts and tracks start again, and the counts follow its size.
  config.lines.push_back({0, 10, 30, 10});
  counter.configure(config);
  EXPECT_EQ(counter.forward(), (std::vector<uint64_t>{0, 0}));
  EXPECT_EQ(counter.tracks(), 0u);
  step(counter, one(1, 5, 5));
  EXPECT_EQ(counter.forward(), (std::vector<uint64_t>{0, 0}));
  EXPECT_EQ(counter.zone_entries(), std::vector<uint64_t>{1});
}

TEST(EventsConfig, NothingConfiguredNothingCounted) {
  EventCounter counter;
  std::vector<Event> events;
  counter.update(one(1, 5, 5), 1, 0, events);
  counter.update(one(1, 15, 5), 2, 0, events);
  EXPECT_TRUE(events.empty());
  EXPECT_EQ(counter.tracks(), 0u);
  EXPECT_TRUE(counter.forward().empty());
  EXPECT_TRUE(counter.zone_count().empty());
  EXPECT_FALSE(counter.inside_any_zone(5, 5));
}

TEST(EventsConfig, NonFiniteCentroidsCountNowhere) {
  EventConfig config = vertical_line();
  config.zones.push_back(square(0, 0, 100, 100));
  EventCounter counter(config);
  step(counter, one(1, 5, 5));
  step(counter, {{1, INFINITY, 5}, {0, std::nan(""), 5}});
  EXPECT_EQ(counter.zone_count(), std::vector<uint32_t>{0});
  EXPECT_EQ(counter.forward(), std::vector<uint64_t>{0});
  ZoneDwell dwell;
  ASSERT_TRUE(counter.dwell(1, 0, &dwell));
  EXPECT_EQ(dwell.frames, 1u);  // its report of frame 1 stands
  step(counter, one(1, 15, 5));
  EXPECT_EQ(counter.forward(), std::vector<uint64_t>{1});
}

TEST(EventsConfig, KindNames) {
  EXPECT_STREQ(to_string(EventKind::LineForward), "line-forward");
  EXPECT_STREQ(to_string(EventKind::ZoneMax), "zone-max");
}

// --- random walks against an oracle ---
//
// The oracle reads the header's rules as written, on coordinates that are whole
// quarters of a pixel kept as integers, so that every comparison is exact: sides as
// the sign of s(P), crossings by solving P + t (C - P) = A + u (B - A) for t and u in
// [0, 1], insideness by counting the edges whose x at the point's height (a fraction)
// lies right of it, tracks in std::map. It shares no code with the counter.

using Q = int64_t;  // a coordinate in quarter pixels
struct QPoint {
  Q x, y;
};
Q quarters(double v) { return Q(std::llround(v * 4)); }
QPoint quarters(double x, double y) { return {quarters(x), quarters(y)}; }

struct Oracle {
  struct QLine {
    QPoint a, b;
  };
  struct QZone {
    std::vector<QPoint> points;
    uint32_t max_count;
  };
  struct Stay {
    uint32_t frames;
    uint64_t entry_frame;
    int64_t entry_time;
  };
  struct Track {
    QPoint at;
    double x, y;  // the same, as given
    uint64_t seen;  // the frame count it was last reported in
    std::map<size_t, Stay> stays;  // the zones it is inside
  };

  std::vector<QLine> lines;
  std::vector<QZone> zones;
  uint64_t forget_after = 30;
  std::vector<uint64_t> forward, backward, entries, exits;
  std::vector<uint32_t> count;
  std::map<uint32_t, Track> tracks;
  uint64_t frames = 0;

  void configure(const EventConfig& c) {
    lines.clear();
    zones.clear();
    for (const EventLine& l : c.lines)
      lines.push_back({quarters(l.x1, l.y1), quarters(l.x2, l.y2)});
    for (const EventZone& z : c.zones) {
      QZone q{{}, z.max_count};
      for (const EventPoint& p : z.points) q.points.push_back(quarters(p.x, p.y));
      zones.push_back(q);
    }
    forget_after = c.forget_after;
    reset();
  }
  void reset() {
    forward.assign(lines.size(), 0);
    backward.assign(lines.size(), 0);
    entries.assign(zones.size(), 0);
    exits.assign(zones.size(), 0);
    count.assign(zones.size(), 0);
    tracks.clear();
    frames = 0;
  }

  static bool positive(const QLine& l, QPoint p) {
    return (l.b.x - l.a.x) * (p.y - l.a.y) - (l.b.y - l.a.y) * (p.x - l.a.x) > 0;
  }
  // Segments PC and AB meet when P + t (C - P) = A + u (B - A) for t, u in [0, 1]:
  // by Cramer's rule, t = tn / d and u = un / d. (The caller's P and C are on the two
  // sides of AB, so the segments are not parallel: d != 0.)
  static bool meet(QPoint p, QPoint c, QPoint a, QPoint b) {
    const Q rx = c.x - p.x, ry = c.y - p.y, sx = b.x - a.x, sy = b.y - a.y;
    const Q d = rx * sy - ry * sx;
    const Q tn = (a.x - p.x) * sy - (a.y - p.y) * sx;
    const Q un = (a.x - p.x) * ry - (a.y - p.y) * rx;
    if (d == 0) return false;
    auto in_unit = [d](Q n) { return d > 0 ? (n >= 0 && n <= d) : (n <= 0 && n >= d); };
    return in_unit(tn) && in_unit(un);
  }
  static bool inside(const QZone& z, QPoint p) {
    bool odd = false;
    for (size_t i = 0; i < z.points.size(); ++i) {
      const QPoint a = z.points[i], b = z.points[(i + 1) % z.points.size()];
      const Q low = std::min(a.y, b.y), high = std::max(a.y, b.y);
      if (!(low <= p.y && p.y < high)) continue;
      // The edge's x at height p.y is a.x + (p.y - a.y) (b.x - a.x) / (b.y - a.y):
      // num / den with den > 0.
      Q num = a.x * (b.y - a.y) + (p.y - a.y) * (b.x - a.x), den = b.y - a.y;
      if (den < 0) num = -num, den = -den;
      if (num > p.x * den) odd = !odd;
    }
    return odd;
  }

  std::vector<Event> update(const std::vector<TrackCentroid>& in, uint64_t frame, int64_t time) {
    std::vector<Event> events;
    ++frames;
    if (lines.empty() && zones.empty()) return events;
    auto make = [&](EventKind kind, size_t index, uint32_t id, double x, double y) {
      Event e;
      e.kind = kind;
      e.index = uint32_t(index);
      e.track_id = id;
      e.x = x;
      e.y = y;
      e.frame = frame;
      e.running_time = time;
      return e;
    };
    const std::vector<uint32_t> before = count;
    std::fill(count.begin(), count.end(), 0);
    for (const TrackCentroid& c : in) {
      if (std::isnan(c.x) || std::isnan(c.y) || std::isinf(c.x) || std::isinf(c.y)) continue;
      const QPoint p = quarters(c.x, c.y);
      for (size_t z = 0; z < zones.size(); ++z) count[z] += inside(zones[z], p);
      if (c.track_id == 0) continue;
      auto found = tracks.find(c.track_id);
      if (found != tracks.end() && found->second.seen == frames) continue;
      if (found != tracks.end()) {
        const Track& t = found->second;
        for (size_t l = 0; l < lines.size(); ++l) {
          const bool from = positive(lines[l], t.at), to = positive(lines[l], p);
          if (from == to || !meet(t.at, p, lines[l].a, lines[l].b)) continue;
          events.push_back(make(from ? EventKind::LineBackward : EventKind::LineForward, l,
                                c.track_id, c.x, c.y));
          (from ? backward : forward)[l] += 1;
        }
      }
      Track& t = tracks[c.track_id];
      for (size_t z = 0; z < zones.size(); ++z) {
        const bool now = inside(zones[z], p);
        const bool was = t.stays.count(z) != 0;
        if (now && !was) {
          t.stays[z] = Stay{1, frame, time};
          Event e = make(EventKind::ZoneEnter, z, c.track_id, c.x, c.y);
          e.count = 1;
          e.entry_time = time;
          events.push_back(e);
          entries[z] += 1;
        } else if (now) {
          t.stays[z].frames += 1;
        } else if (was) {
          Event e = make(EventKind::ZoneExit, z, c.track_id, c.x, c.y);
          e.count = t.stays[z].frames;
          e.entry_time = t.stays[z].entry_time;
          events.push_back(e);
          exits[z] += 1;
          t.stays.erase(z);
        }
      }
      t.at = p;
      t.x = c.x;
      t.y = c.y;
      t.seen = frames;
    }
    for (auto it = tracks.begin(); it != tracks.end();) {  // by id
      if (frames - it->second.seen < forget_after) {
        ++it;
        continue;
      }
      for (const auto& stay : it->second.stays) {  // by zone
        Event e = make(EventKind::ZoneExit, stay.first, it->first, it->second.x, it->second.y);
        e.count = stay.second.frames;
        e.entry_time = stay.second.entry_time;
        events.push_back(e);
        exits[stay.first] += 1;
      }
      it = tracks.erase(it);
    }
    for (size_t z = 0; z < zones.size(); ++z) {
      const uint32_t m = zones[z].max_count;
      if (m != 0 && before[z] <= m && count[z] > m) {
        Event e = make(EventKind::ZoneMax, z, 0, 0, 0);
        e.count = count[z];
        events.push_back(e);
      }
    }
    return events;
  }
};

// A random configuration on a small frame whose coordinates are whole or half pixels,
// so that walkers often land exactly on lines, edges and vertices.
EventConfig random_config(std::mt19937& gen, double width, double height) {
  auto coordinate = [&](double limit) {
    return std::uniform_int_distribution<int>(0, int(limit * 2))(gen) / 2.0;
  };
  EventConfig c;
  const int lines = std::uniform_int_distribution<int>(0, 3)(gen);
  const int zones = std::uniform_int_distribution<int>(0, 3)(gen);
  for (int i = 0; i < lines; ++i) {
    EventLine l;
    do {
      l = {coordinate(width), coordinate(height), coordinate(width), coordinate(height)};
    } while (l.x1 == l.x2 && l.y1 == l.y2);
    // Often along an axis, whose points a walker on the grid meets exactly.
    const int axis = std::uniform_int_distribution<int>(0, 3)(gen);
    if (axis == 0 && l.y1 != l.y2) l.x2 = l.x1;
    if (axis == 1 && l.x1 != l.x2) l.y2 = l.y1;
    c.lines.push_back(l);
  }
  for (int i = 0; i < zones; ++i) {
    EventZone z;
    const int points = std::uniform_int_distribution<int>(3, 8)(gen);
    if (std::uniform_int_distribution<int>(0, 2)(gen) == 0) {
      const double x0 = coordinate(width / 2), y0 = coordinate(height / 2);
      z = square(x0, y0, x0 + 1 + coordinate(width / 2 - 1), y0 + 1 + coordinate(height / 2 - 1));
    } else {
      for (int p = 0; p < points; ++p) z.points.push_back({coordinate(width), coordinate(height)});
    }
    z.max_count = std::uniform_int_distribution<uint32_t>(0, 4)(gen);
    c.zones.push_back(z);
  }
  c.forget_after = std::uniform_int_distribution<uint32_t>(1, 6)(gen);
  return c;
}

struct Walker {
  uint32_t id;
  double x, y;
  int hidden;  // frames left unreported
  bool dead;
};

void expect_same_state(const EventCounter& counter, const Oracle& oracle,
                       const std::string& where) {
  EXPECT_EQ(counter.forward(), oracle.forward) << where;
  EXPECT_EQ(counter.backward(), oracle.backward) << where;
  EXPECT_EQ(counter.zone_count(), oracle.count) << where;
  EXPECT_EQ(counter.zone_entries(), oracle.entries) << where;
  EXPECT_EQ(counter.zone_exits(), oracle.exits) << where;
  const bool anything = !oracle.lines.empty() || !oracle.zones.empty();
  EXPECT_EQ(counter.tracks(), anything ? oracle.tracks.size() : 0u) << where;
  for (const auto& t : oracle.tracks)
    for (size_t z = 0; z < oracle.zones.size(); ++z) {
      ZoneDwell d;
      const bool inside = counter.dwell(t.first, z, &d);
      const auto stay = t.second.stays.find(z);
      ASSERT_EQ(inside, stay != t.second.stays.end()) << where << " track " << t.first;
      if (!inside) continue;
      EXPECT_EQ(d.frames, stay->second.frames) << where << " track " << t.first;
      EXPECT_EQ(d.entry_frame, stay->second.entry_frame) << where;
      EXPECT_EQ(d.entry_time, stay->second.entry_time) << where;
    }
}

struct WalkSetup {
  double width = 40, height = 30;  // the zones' and lines' frame
  int frames = 400;
  size_t walkers = 40;         // at most, alive or dead
  size_t born_first = 0;       // in the first frame; then one in 0.4 of frames
  uint32_t max_id = 5000;      // ids are drawn from [1, max_id]
  bool start_afresh = true;    // reset and reconfigure now and then
};

struct WalkStats {
  uint64_t events = 0, crossings = 0, on_lines = 0;
};

// Feeds random walks to a counter and to the oracle, and compares every event list
// and every count, frame after frame: walkers that step by quarter pixels, jump onto
// vertices and lines, hide for a while (sometimes long enough to be forgotten), die;
// untracked components, a track given twice, a NaN; all in a shuffled order.
void walk_against_oracle(unsigned seed, const WalkSetup& setup, WalkStats& stats) {
  const double width = setup.width, height = setup.height;
  std::mt19937 gen(seed);
  EventConfig config = random_config(gen, width, height);
  EventCounter counter(config);
  Oracle oracle;
  oracle.configure(config);
  std::vector<Walker> walkers;
  std::uniform_real_distribution<double> chance(0, 1);
  auto fresh_id = [&] {
    // Sparse ids, now and then the largest one or one that was used before.
    if (chance(gen) < 0.05) return std::numeric_limits<uint32_t>::max();
    if (!walkers.empty() && chance(gen) < 0.1)
      return walkers[std::uniform_int_distribution<size_t>(0, walkers.size() - 1)(gen)].id;
    return std::uniform_int_distribution<uint32_t>(1, setup.max_id)(gen);
  };
  auto grid = [&](double limit) {
    return std::uniform_int_distribution<int>(0, int(limit * 4))(gen) / 4.0;
  };
  for (size_t i = 0; i < setup.born_first; ++i)
    walkers.push_back({fresh_id(), grid(width), grid(height), 0, false});
  for (int f = 1; f <= setup.frames; ++f) {
    if (walkers.size() < setup.walkers && chance(gen) < 0.4)
      walkers.push_back({fresh_id(), grid(width), grid(height), 0, false});
    std::vector<TrackCentroid> in;
    for (Walker& w : walkers) {
      if (w.dead) continue;
      if (chance(gen) < 0.01) {
        w.dead = true;
        continue;
      }
      if (w.hidden > 0) {
        --w.hidden;
        continue;
      }
      if (chance(gen) < 0.05) {
        w.hidden = std::uniform_int_distribution<int>(1, int(config.forget_after) + 2)(gen);
        continue;
      }
      // Steps of quarter pixels; now and then onto a vertex or a point of a line.
      const double r = chance(gen);
      if (r < 0.04 && !config.zones.empty()) {
        const EventZone& z = config.zones[gen() % config.zones.size()];
        const EventPoint& p = z.points[gen() % z.points.size()];
        w.x = p.x;
        w.y = p.y;
      } else if (r < 0.1 && !config.lines.empty()) {
        const EventLine& l = config.lines[gen() % config.lines.size()];
        // Halves of the way: points of the quarter grid on the line, or just past it.
        const double t = std::uniform_int_distribution<int>(-1, 3)(gen) / 2.0;
        w.x = l.x1 + t * (l.x2 - l.x1);
        w.y = l.y1 + t * (l.y2 - l.y1);
      } else {
        w.x = std::clamp(w.x + std::uniform_int_distribution<int>(-12, 12)(gen) / 4.0, -2.0,
                         width + 2);
        w.y = std::clamp(w.y + std::uniform_int_distribution<int>(-12, 12)(gen) / 4.0, -2.0,
                         height + 2);
      }
      in.push_back({w.id, w.x, w.y});
    }
    const int untracked = std::uniform_int_distribution<int>(0, 4)(gen);
    for (int i = 0; i < untracked; ++i) in.push_back({0, grid(width), grid(height)});
    if (!in.empty() && chance(gen) < 0.1) {  // a track given twice
      TrackCentroid twice = in[gen() % in.size()];
      twice.x += 1;
      in.push_back(twice);
    }
    if (chance(gen) < 0.03) in.push_back({walkers.empty() ? 1 : walkers[0].id, NAN, 3});
    std::shuffle(in.begin(), in.end(), gen);

    if (setup.start_afresh && f % 150 == 0) {
      counter.reset();
      oracle.reset();
    }
    if (setup.start_afresh && f % 170 == 0) {
      config = random_config(gen, width, height);
      counter.configure(config, int(width), int(height));
      oracle.configure(config);
    }

    // Frame numbers that are not update() counts (skipped and shifted), as an
    // element's may be.
    const uint64_t frame = 1000 + uint64_t(f) * 2;
    const int64_t time = int64_t(f) * 33'000'000 - 7;
    std::vector<Event> got;
    got.push_back(Event{});  // update() appends
    counter.update(in, frame, time, got);
    got.erase(got.begin());
    const std::vector<Event> want = oracle.update(in, frame, time);
    const std::string where = "seed " + std::to_string(seed) + " frame " + std::to_string(f);
    ASSERT_EQ(got.size(), want.size()) << where << "\ngot:\n" << describe(got) << "want:\n"
                                       << describe(want);
    for (size_t i = 0; i < got.size(); ++i)
      ASSERT_TRUE(same(got[i], want[i])) << where << " event " << i << "\ngot:\n"
                                         << describe(got) << "want:\n" << describe(want);
    expect_same_state(counter, oracle, where);
    if (::testing::Test::HasFailure()) return;
    stats.events += got.size();
    for (const Event& e : got)
      stats.crossings += e.kind == EventKind::LineForward || e.kind == EventKind::LineBackward;
    // How often a centroid lies exactly on a line (is the test exercising the
    // boundary rules at all?).
    for (const TrackCentroid& c : in) {
      if (std::isnan(c.x)) continue;
      const QPoint p = quarters(c.x, c.y);
      for (const auto& l : oracle.lines)
        stats.on_lines += (l.b.x - l.a.x) * (p.y - l.a.y) == (l.b.y - l.a.y) * (p.x - l.a.x);
    }
  }
}

TEST(EventsRandom, MatchesThePlainOracle) {
  WalkStats stats;
  for (unsigned seed = 1; seed <= 60; ++seed) {
    walk_against_oracle(seed, WalkSetup{}, stats);
    if (HasFailure()) return;
  }
  // The walks must have produced enough of everything to mean something.
  EXPECT_GT(stats.events, 2000u);
  EXPECT_GT(stats.crossings, 300u);
  EXPECT_GT(stats.on_lines, 300u);
  std::printf("random walks: %llu events, %llu crossings, %llu centroids on a line\n",
              (unsigned long long)stats.events, (unsigned long long)stats.crossings,
              (unsigned long long)stats.on_lines);
}

// Past some thousands of tracks, update() looks them up in a pass of its own first.
TEST(EventsRandom, ManyTracksMatchThePlainOracle) {
  WalkSetup setup;
  setup.width = 400;
  setup.height = 300;
  setup.frames = 40;
  setup.walkers = 21000;
  setup.born_first = 20000;
  setup.max_id = 10'000'000;
  setup.start_afresh = false;
  WalkStats stats;
  for (unsigned seed = 1; seed <= 3; ++seed) {
    walk_against_oracle(seed, setup, stats);
    if (HasFailure()) return;
  }
  EXPECT_GT(stats.events, 10000u);
}

// --- speed (EVENTS_BENCH=1) ---

// A stream of n walkers in a 1920x1080 frame, made before it is timed: each walker
// sways around its place (so the stream repeats after `period` frames and can be fed
// as long as wanted), the components in raster order as a frame reports them, their
// ids in no order. One walker in 50 is away for a stretch of each period, longer
// than forget_after: tracks are forgotten and new ones start every frame.
std::vector<std::vector<TrackCentroid>> bench_stream(size_t n, int period) {
  std::mt19937 gen(42);
  std::uniform_real_distribution<double> ux(0, 1920), uy(0, 1080), amplitude(0, 40),
      phase(0, 6.283185307179586);
  std::vector<uint32_t> ids(n);
  for (size_t i = 0; i < n; ++i) ids[i] = uint32_t(i + 1);
  std::shuffle(ids.begin(), ids.end(), gen);
  struct Walker {
    double x, y, ax, ay, px, py;
    int away_from, away_for;
  };
  std::vector<Walker> walkers(n);
  for (Walker& w : walkers) {
    w = {ux(gen), uy(gen), amplitude(gen), amplitude(gen), phase(gen), phase(gen), 0, 0};
    if (gen() % 50 == 0) {
      w.away_from = int(gen() % unsigned(period));
      w.away_for = period / 2;
    }
  }
  std::vector<std::vector<TrackCentroid>> frames(static_cast<size_t>(period));
  for (int f = 0; f < period; ++f) {
    const double t = 6.283185307179586 * f / period;
    for (size_t i = 0; i < n; ++i) {
      const Walker& w = walkers[i];
      if ((f - w.away_from + period) % period < w.away_for) continue;
      frames[size_t(f)].push_back(
          {ids[i], w.x + w.ax * std::sin(t + w.px), w.y + w.ay * std::sin(t + w.py)});
    }
    std::sort(frames[size_t(f)].begin(), frames[size_t(f)].end(),
              [](const TrackCentroid& a, const TrackCentroid& b) {
                return int(a.y) != int(b.y) ? a.y < b.y : a.x < b.x;
              });
  }
  return frames;
}

// Microseconds per update(): the median, and the fastest twentieth (what the code
// costs when nothing else competes for the core), over `rounds` times the stream
// after one round to warm up.
std::pair<double, double> time_per_frame(const EventConfig& config,
                                         const std::vector<std::vector<TrackCentroid>>& stream,
                                         int rounds) {
  EventCounter counter(config);
  std::vector<Event> events;
  std::vector<double> times;
  uint64_t frame = 0;
  for (int r = 0; r <= rounds; ++r)
    for (const std::vector<TrackCentroid>& in : stream) {
      events.clear();
      const auto start = std::chrono::steady_clock::now();
      counter.update(in, frame, int64_t(frame) * 33'000'000, events);
      const auto end = std::chrono::steady_clock::now();
      ++frame;
      if (r > 0) times.push_back(std::chrono::duration<double, std::micro>(end - start).count());
    }
  std::sort(times.begin(), times.end());
  return {times[times.size() / 2], times[times.size() / 20]};
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

TEST(EventsSpeed, NoAllocationOnceWarmedUp) {
  EventConfig config;
  config.lines.push_back({960, 100, 960, 1000});
  config.zones.push_back(EventZone{{{100, 100}, {700, 150}, {650, 600}, {150, 500}}, 5});
  config.forget_after = 5;
  const auto stream = bench_stream(3000, 40);  // tracks forgotten and new every frame
  EventCounter counter(config);
  std::vector<Event> events;
  events.reserve(100000);
  uint64_t frame = 0;
  for (int round = 0; round < 3; ++round)
    for (const auto& in : stream) counter.update(in, ++frame, 0, events);
  events.clear();
  const size_t before = g_allocations.load();
  for (const auto& in : stream) counter.update(in, ++frame, 0, events);
  EXPECT_EQ(g_allocations.load(), before);
  EXPECT_GT(events.size(), 100u);  // it did have work to do
}

TEST(EventsBench, PerFrame) {
  const char* asked = std::getenv("EVENTS_BENCH");
  if (!asked) GTEST_SKIP() << "set EVENTS_BENCH=1 to time update()";
  EventConfig config;
  config.lines.push_back({960, 100, 960, 1000});
  config.lines.push_back({200, 700, 1700, 500});
  config.zones.push_back(EventZone{{{100, 100}, {700, 150}, {650, 600}, {150, 500}}, 50});
  EventZone octagon;
  for (int i = 0; i < 8; ++i) {
    const double a = i * 3.14159265358979 / 4;
    octagon.points.push_back({1300 + 300 * std::cos(a), 600 + 300 * std::sin(a)});
  }
  config.zones.push_back(octagon);
  EventConfig one = config;
  one.lines.resize(1);
  one.zones.resize(1);
  // EVENTS_BENCH=N times N components only. EVENTS_BENCH_RUNS=R: R runs of each
  // (default 5, and 3 past 10,000 components).
  std::vector<size_t> sizes = {1000, 100000};
  if (std::atol(asked) > 1) sizes = {size_t(std::atol(asked))};
  const char* runs_asked = std::getenv("EVENTS_BENCH_RUNS");
  for (size_t n : sizes) {
    const int period = n <= 10000 ? 200 : 25;
    const int rounds = n <= 10000 ? 25 : 4;
    int runs = n <= 10000 ? 5 : 3;
    if (runs_asked && std::atoi(runs_asked) > 0) runs = std::atoi(runs_asked);
    const auto stream = bench_stream(n, period);
    const std::pair<const char*, const EventConfig*> setups[] = {
        {"2 lines, 2 zones (4 and 8 points)", &config},
        {"1 line, 1 zone (4 points)", &one},
        {"nothing configured", nullptr}};
    constexpr size_t kSetups = sizeof(setups) / sizeof(setups[0]);
    // Each run times every setup in turn, so that a change in the machine's load
    // (other processes, the clock) falls on all of them alike; the medians of the
    // runs' medians are reported, with the spread of those.
    std::vector<double> medians[kSetups], fastest[kSetups];
    for (int run = 0; run < runs; ++run)
      for (size_t k = 0; k < kSetups; ++k) {
        const auto t =
            time_per_frame(setups[k].second ? *setups[k].second : EventConfig{}, stream, rounds);
        medians[k].push_back(t.first);
        fastest[k].push_back(t.second);
      }
    for (size_t k = 0; k < kSetups; ++k)
      std::printf("events: %zu components, %s: %.2f us per frame (median of %d runs of %d "
                  "frames, their medians %.2f to %.2f us; fastest 5%%: %.2f us)\n",
                  n, setups[k].first, median_of(medians[k]), runs, period * rounds,
                  *std::min_element(medians[k].begin(), medians[k].end()),
                  *std::max_element(medians[k].begin(), medians[k].end()),
                  median_of(fastest[k]));
  }
}

}  // namespace
}  // namespace ccl::events_test
