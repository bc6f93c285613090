// The C interface's counting lines and zones (ccl_events_*, ccl/ccl.h) over
// ccl::EventCounter (ccl/events.h).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "c_api_guard.h"
#include "ccl/ccl.h"
#include "ccl/events.h"
#include "ccl/types.h"

static_assert(CCL_MAX_EVENT_LINES == ccl::kMaxEventLines &&
                  CCL_MAX_EVENT_ZONES == ccl::kMaxEventZones,
              "CCL_MAX_EVENT_* are the engine's limits");
static_assert(CCL_EVENT_LINE_FORWARD == int(ccl::EventKind::LineForward) &&
                  CCL_EVENT_LINE_BACKWARD == int(ccl::EventKind::LineBackward) &&
                  CCL_EVENT_ZONE_ENTER == int(ccl::EventKind::ZoneEnter) &&
                  CCL_EVENT_ZONE_EXIT == int(ccl::EventKind::ZoneExit) &&
                  CCL_EVENT_ZONE_MAX == int(ccl::EventKind::ZoneMax),
              "CCL_EVENT_* are ccl::EventKind's values");
// ccl_event is an array's element that never grows (ccl.h): its layout is fixed.
static_assert(sizeof(ccl_event) == 56 && offsetof(ccl_event, x) == 16 &&
                  offsetof(ccl_event, entry_time) == 48,
              "ccl_event's layout");

using ccl::capi::guarded;
using ccl::capi::Invalid;

struct ccl_events {
  ccl::EventCounter counter;
  std::vector<ccl::TrackCentroid> points;  // the frame's components, reused
  std::vector<ccl::Event> scratch;         // the frame's events as the counter gives them
  std::vector<ccl_event> events;           // ... and as ccl_events_events hands them out
};

namespace {

void check(const ccl_events* e) {
  if (!e) throw Invalid("events is NULL");
}

// The caller's arrays as the engine's configuration. Counts are checked before any
// array is read, so a wild count is refused rather than read far past its array.
ccl::EventConfig engine_config(const ccl_events_config& c) {
  if (c.n_lines > CCL_MAX_EVENT_LINES)
    throw Invalid("events: " + std::to_string(c.n_lines) + " lines; at most " +
                  std::to_string(CCL_MAX_EVENT_LINES));
  if (c.n_zones > CCL_MAX_EVENT_ZONES)
    throw Invalid("events: " + std::to_string(c.n_zones) + " zones; at most " +
                  std::to_string(CCL_MAX_EVENT_ZONES));
  if (c.n_lines && !c.lines) throw Invalid("events: config.lines is NULL");
  if (c.n_zones && (!c.zone_points || !c.zone_xy))
    throw Invalid("events: config.zone_points or config.zone_xy is NULL");
  ccl::EventConfig out;
  out.forget_after = c.forget_after;
  for (uint32_t i = 0; i < c.n_lines; ++i) {
    const double* l = c.lines + 4 * size_t(i);
    out.lines.push_back({l[0], l[1], l[2], l[3]});
  }
  const double* xy = c.zone_xy;
  for (uint32_t z = 0; z < c.n_zones; ++z) {
    ccl::EventZone zone;
    zone.points.resize(c.zone_points[z]);
    for (ccl::EventPoint& p : zone.points) {
      p = {xy[0], xy[1]};
      xy += 2;
    }
    zone.max_count = c.zone_max ? c.zone_max[z] : 0;
    out.zones.push_back(std::move(zone));
  }
  return out;
}

// The counter's events of the frame, in the C layout.
void publish(ccl_events& e) {
  e.events.resize(e.scratch.size());
  for (size_t i = 0; i < e.scratch.size(); ++i) {
    const ccl::Event& s = e.scratch[i];
    e.events[i] = ccl_event{uint32_t(s.kind), s.index, s.track_id, s.count, s.x, s.y,
                            s.frame, s.running_time, s.entry_time};
  }
}

void count(ccl_events& e, uint64_t frame, int64_t running_time) {
  e.scratch.clear();
  e.events.clear();  // an update that fails leaves no stale events behind
  e.counter.update(e.points.data(), e.points.size(), frame, running_time, e.scratch);
  publish(e);
}

}  // namespace

extern "C" {

void ccl_events_config_init(ccl_events_config* config) {
  if (!config) return;
  *config = ccl_events_config{};
  config->size = sizeof(ccl_events_config);
  config->forget_after = ccl::EventConfig{}.forget_after;
}

ccl_status ccl_events_create(ccl_events** out) {
  return guarded([&] {
    if (!out) throw Invalid("out is NULL");
    *out = nullptr;
    *out = std::make_unique<ccl_events>().release();
  });
}

void ccl_events_destroy(ccl_events* events) { delete events; }

ccl_status ccl_events_configure(ccl_events* events, const ccl_events_config* config) {
  return guarded([&] {
    check(events);
    ccl_events_config defaults;
    ccl_events_config_init(&defaults);
    const ccl_events_config c = ccl::capi::read_sized(config, defaults, "config");
    // configure() throws ccl::Error, keeping the previous configuration, when
    // validate() finds fault: the status is then CCL_ERROR_INVALID_ARGUMENT.
    events->counter.configure(engine_config(c), c.width, c.height);
    events->events.clear();
  });
}

ccl_status ccl_events_reset(ccl_events* events) {
  return guarded([&] {
    check(events);
    events->counter.reset();
    events->events.clear();
  });
}

ccl_status ccl_events_update(ccl_events* events, const uint32_t* track_ids, const double* x,
                             const double* y, uint32_t n, uint64_t frame,
                             int64_t running_time) {
  return guarded([&] {
    check(events);
    if (n && (!x || !y)) throw Invalid("x or y is NULL");
    events->points.resize(n);
    for (uint32_t i = 0; i < n; ++i)
      events->points[i] = {track_ids ? track_ids[i] : 0u, x[i], y[i]};
    count(*events, frame, running_time);
  });
}

ccl_status ccl_events_update_engine(ccl_events* events, ccl_engine* engine,
                                    const ccl_track* tracks, uint64_t frame,
                                    int64_t running_time) {
  const ccl_component* c = nullptr;
  uint32_t n = 0;
  if (events) {
    // Its own status and message: no engine, no frame, a failed frame.
    const ccl_status s = ccl_engine_components(engine, &c, &n);
    if (s != CCL_OK) return s;
  }
  return guarded([&] {
    check(events);
    events->points.resize(n);
    for (uint32_t i = 0; i < n; ++i) {
      // ccl_component is ccl::Component with C names (c_api.cpp checks the layout).
      const auto& k = reinterpret_cast<const ccl::Component&>(c[i]);
      events->points[i] = {tracks ? uint32_t(tracks[i].id) : 0u, k.centroid_x(),
                           k.centroid_y()};
    }
    count(*events, frame, running_time);
  });
}

ccl_status ccl_events_line_counts(const ccl_events* events, uint64_t* forward,
                                  uint64_t* backward) {
  return guarded([&] {
    check(events);
    const ccl::EventCounter& k = events->counter;
    if (forward) std::copy(k.forward().begin(), k.forward().end(), forward);
    if (backward) std::copy(k.backward().begin(), k.backward().end(), backward);
  });
}

ccl_status ccl_events_zone_counts(const ccl_events* events, uint32_t* count, uint64_t* entries,
                                  uint64_t* exits) {
  return guarded([&] {
    check(events);
    const ccl::EventCounter& k = events->counter;
    if (count) std::copy(k.zone_count().begin(), k.zone_count().end(), count);
    if (entries) std::copy(k.zone_entries().begin(), k.zone_entries().end(), entries);
    if (exits) std::copy(k.zone_exits().begin(), k.zone_exits().end(), exits);
  });
}

ccl_status ccl_events_events(const ccl_events* events, const ccl_event** data,
                             uint32_t* count) {
  return guarded([&] {
    check(events);
    if (!data || !count) throw Invalid("data or count is NULL");
    const std::vector<ccl_event>& v = events->events;
    *data = v.empty() ? nullptr : v.data();
    *count = uint32_t(v.size());
  });
}

ccl_status ccl_events_dwell(const ccl_events* events, uint32_t track_id, uint32_t zone,
                            ccl_zone_dwell* out) {
  return guarded([&] {
    check(events);
    if (!out) throw Invalid("out is NULL");
    const size_t zones = events->counter.config().zones.size();
    if (zone >= zones)
      throw Invalid("events: zone " + std::to_string(zone) + " of " + std::to_string(zones) +
                    " zones");
    ccl::ZoneDwell d;
    ccl_zone_dwell r = {};
    r.size = sizeof r;
    if (events->counter.dwell(track_id, zone, &d)) {
      r.frames = d.frames;
      r.entry_frame = d.entry_frame;
      r.entry_time = d.entry_time;
    }
    ccl::capi::write_sized(out, r);
  });
}

}  // extern "C"
