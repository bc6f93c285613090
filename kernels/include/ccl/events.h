// cudaccl engine: events of a fixed camera's scene, counted from the tracks.
//
// An EventCounter is fed, frame after frame, the centroids of the components a frame
// reports with their track ids (ccl/tracker.h), and counts:
//  - line crossings: how many tracks crossed each counting line, in each direction;
//  - zone occupancy: how many components are inside each zone in this frame;
//  - zone entries and exits, how long each track has been inside (dwell), and when a
//    zone holds more components than it may (overcrowding);
// and reports each of those happenings as an Event.
//
// It runs on the host, in time linear in the components and the tracks it remembers:
// the tracks in a hash table by id, the zones behind a grid that answers most points
// without a polygon test. It allocates nothing once its tables have grown to the
// stream's number of tracks. With no line and no zone configured, update() does no
// work at all. One counter serves one stream; it is not thread-safe.
//
// Geometry is in pixels, in the frame's coordinates (x to the right, y down).
// Every test below is a sign of a product difference computed in doubles, without
// tolerance: it is exact (and so agrees with any exact formulation) when coordinates
// are multiples of a power of two small enough for their products to be exact, such
// as whole, half or quarter pixels of any real frame; otherwise it is rounded, but
// always the same way for the same numbers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ccl {

struct EventPoint {
  double x = 0, y = 0;
};

/// A counting line: the segment from (x1, y1) to (x2, y2).
///
/// Its side of a point P is given by s(P) = (x2-x1)(Py-y1) - (y2-y1)(Px-x1): positive
/// when s(P) > 0, negative when s(P) <= 0. A point on the line itself is thus on the
/// negative side, so that a track always crosses alternately forward and backward
/// when it crosses the segment: a track that comes to rest on the line has crossed
/// when it reaches the line from the positive side, not when it leaves it to the
/// negative one. In the frame's coordinates (y down), positive is the right of one
/// walking from (x1, y1) to (x2, y2).
struct EventLine {
  double x1 = 0, y1 = 0, x2 = 0, y2 = 0;
};

/// A zone: a polygon of at least 3 points, closed (the last point joins the first),
/// simple or not.
///
/// A point is inside by the even-odd rule: a ray from it towards +x crosses the
/// polygon's edges an odd number of times. A point exactly on an edge is decided by
/// the top-left rule that rasterizers use: an edge counts as crossed when the point's
/// y is in [lower y, upper y) of the edge and the edge is strictly to the right of the
/// point at that y. Hence a point on an edge that is not horizontal is inside when the
/// zone lies to the edge's right (greater x), and a point on a horizontal edge when
/// the zone lies below it (greater y); a vertex follows from its edges. Zones that
/// share an edge without overlapping never both hold a point of it, and a polygon of
/// no area holds no point.
struct EventZone {
  std::vector<EventPoint> points;
  /// More components than this inside at once is overcrowding: EventKind::ZoneMax in
  /// each frame whose count exceeds it when the previous frame's did not (before the
  /// first frame, or after a reset, the count is 0). 0: no limit.
  uint32_t max_count = 0;
};

/// Most lines and zones a configuration may have: a track's sides and zones are a bit
/// each of a 64-bit word, so that one comparison finds what changed.
constexpr size_t kMaxEventLines = 64;
constexpr size_t kMaxEventZones = 64;

struct EventConfig {
  std::vector<EventLine> lines;  ///< at most kMaxEventLines
  std::vector<EventZone> zones;  ///< at most kMaxEventZones
  /// A track that has not been reported in this many frames (update() calls, whatever
  /// their frame numbers) in a row is forgotten: dropped at the update() of the last
  /// of those frames. A track reported again after fewer missed frames is compared
  /// with where it was last reported; one forgotten starts afresh, as a new track.
  /// 1: a track must be reported in consecutive frames. At least 1.
  uint32_t forget_after = 30;
};

/// One reported component of a frame: its centroid, and its track (0: no track; such
/// a component counts only in zone_count()). Any ids will do, in any order; those of
/// ccl::Tracker (TrackInfo::id) are 64-bit but fit 32 bits until a stream has had 4
/// billion tracks.
struct TrackCentroid {
  uint32_t track_id = 0;
  double x = 0, y = 0;
};

enum class EventKind : uint8_t {
  LineForward,   ///< a track crossed a line from its negative side to its positive one
  LineBackward,  ///< ... from the positive side to the negative one
  ZoneEnter,     ///< a track is inside a zone and was not in its previous report
  ZoneExit,      ///< a track that was inside a zone is outside, or was forgotten inside
  ZoneMax,       ///< a zone's count rose above its max_count
};

/// "line-forward", "line-backward", "zone-enter", "zone-exit", "zone-max".
const char* to_string(EventKind kind);

struct Event {
  EventKind kind = EventKind::LineForward;
  uint32_t index = 0;     ///< the line's or the zone's index in the configuration
  uint32_t track_id = 0;  ///< 0 for ZoneMax
  /// ZoneMax: the zone's count in this frame. ZoneEnter: 1. ZoneExit: the frames the
  /// track was reported inside (its dwell, as ZoneDwell::frames). Otherwise 0.
  uint32_t count = 0;
  /// The track's centroid in this frame; for a forgotten track's ZoneExit, where it
  /// was last reported; for ZoneMax, 0.
  double x = 0, y = 0;
  /// The frame number and running time (ns) given to update(); for a forgotten
  /// track's ZoneExit, those of the update() that forgot it.
  uint64_t frame = 0;
  int64_t running_time = 0;
  /// ZoneEnter and ZoneExit: the running time of the frame the track entered in.
  int64_t entry_time = 0;
};

/// How long a track has been inside a zone.
struct ZoneDwell {
  uint32_t frames = 0;       ///< frames reported inside since it entered (1 on entry)
  uint64_t entry_frame = 0;  ///< the frame number it entered in
  int64_t entry_time = 0;    ///< the running time it entered at: dwell = now - this
};

/// What is wrong with `config`, or "" when nothing is: a line of identical endpoints,
/// a zone of fewer than 3 points, a coordinate that is not finite, forget_after 0,
/// more than 64 lines or zones, and, when width and height are given (> 0), a
/// coordinate outside [0, width] x [0, height]. A negative size is an error too.
std::string validate(const EventConfig& config, int width = 0, int height = 0);

class EventCounter {
 public:
  /// Counts nothing until configured.
  EventCounter();
  /// Throws ccl::Error when validate(config) finds fault.
  explicit EventCounter(const EventConfig& config);
  ~EventCounter();
  EventCounter(EventCounter&&) noexcept;
  EventCounter& operator=(EventCounter&&) noexcept;
  EventCounter(const EventCounter&) = delete;
  EventCounter& operator=(const EventCounter&) = delete;

  /// Replaces the lines and zones, and resets (reset()). Throws ccl::Error with
  /// validate()'s message when `config` is faulty, keeping the previous configuration,
  /// counts and tracks.
  void configure(const EventConfig& config, int width = 0, int height = 0);
  const EventConfig& config() const;

  /// Zeroes every count and forgets every track, the configuration staying. No event
  /// is reported for it (no exits of the tracks that were inside a zone).
  void reset();

  /// Takes one frame's reported components, in any order, and appends the frame's
  /// events to `events` (not cleared first), in this order:
  ///  1. for each component in the order given: its line crossings, by line index,
  ///     then its zone entries and exits, by zone index;
  ///  2. the exits of the tracks forgotten in this frame, by track id, then zone index;
  ///  3. ZoneMax, by zone index.
  /// A track id given more than once in a frame counts, after its first, in
  /// zone_count() only. A centroid that is not finite counts nowhere. `frame` and
  /// `running_time` are only passed on to the events and dwells: they need not
  /// increase.
  void update(const TrackCentroid* components, size_t n, uint64_t frame,
              int64_t running_time, std::vector<Event>& events);
  void update(const std::vector<TrackCentroid>& components, uint64_t frame,
              int64_t running_time, std::vector<Event>& events) {
    update(components.data(), components.size(), frame, running_time, events);
  }

  /// Per line, the tracks that crossed it since the last reset, by direction.
  const std::vector<uint64_t>& forward() const;
  const std::vector<uint64_t>& backward() const;
  /// Per zone, the components (tracked or not) inside it in the last frame.
  const std::vector<uint32_t>& zone_count() const;
  /// Per zone, the entries and exits since the last reset.
  const std::vector<uint64_t>& zone_entries() const;
  const std::vector<uint64_t>& zone_exits() const;

  /// How long track `track_id` has been inside zone `zone`; false when it is not
  /// inside it (or not remembered, or no such zone).
  bool dwell(uint32_t track_id, size_t zone, ZoneDwell* out) const;

  /// Whether (x, y) is inside zone `zone` (false for no such zone), by the rule
  /// update() uses. inside_any_zone() is false when no zone is configured: to keep
  /// only the components of a region of interest.
  bool inside_zone(size_t zone, double x, double y) const;
  bool inside_any_zone(double x, double y) const;

  /// Tracks remembered, and frames fed since the last reset.
  size_t tracks() const;
  uint64_t frames() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ccl
