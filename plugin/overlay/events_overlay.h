// The event shapes of the overlay (overlay=events): the counting lines and zones of an
// EventConfig (ccl/events.h) with their counts, as Segments in direct colors
// (overlay_math.h, kDirectColor) that the same rasterizer as the trails draws, on the
// host (overlay_host.h) or the device (overlay_cuda.h).
//
// What is drawn, 2 pixels thick unless said otherwise:
//  - each line in yellow, with an arrow from its midpoint towards its positive side:
//    the way a forward crossing goes (from the negative side to the positive one, the
//    right of one walking from (x1, y1) to (x2, y2), y down);
//  - each zone's closed outline in cyan, red while it holds more than its max_count
//    (max_count > 0);
//  - a label per line, on its negative side next to its midpoint (the arrow stays
//    clear): "L<i> <forward>/<backward>", e.g. "L0 12/3";
//  - a label per zone, below and right of its first point: "Z<i> <inside now> in
//    <entries>", or with a max_count "Z<i> <inside now>/<max> in <entries>", e.g.
//    "Z0 4 in 17", "Z1 6/5 in 40";
// a label is white text on a filled black box, in a 5x7 bitmap font of its own scaled
// by text_scale(height), and moved as little as needed to lie wholly inside the frame.
//
// Which paint wins where shapes overlap (highest layer first): the white text, the
// black label boxes, the lines and their arrows, the red outlines of crowded zones,
// the cyan outlines of the others; any of them wins over every component's mark. All
// five colors have their channels at 0 or 255, which no component's color has (their
// channels are 64..254), so they are never mistaken for a component.
//
// Every coordinate is clipped to the frame here (no Segment leaves it), so the
// rasterizers never walk pixels they would drop; the output is deterministic.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "ccl/events.h"
#include "overlay/overlay_math.h"

namespace ccl::overlay {

/// The palette, 0xRRGGBB.
constexpr uint32_t kEventLineRgb = 0xFFFF00;     ///< yellow
constexpr uint32_t kEventZoneRgb = 0x00FFFF;     ///< cyan
constexpr uint32_t kEventCrowdedRgb = 0xFF0000;  ///< red: zone_count > max_count > 0
constexpr uint32_t kEventTextRgb = 0xFFFFFF;     ///< white
constexpr uint32_t kEventBoxRgb = 0x000000;      ///< black

/// The owner values (Segment labels) of the event shapes: direct colors whose layers
/// order them text > box > line > crowded zone > zone.
constexpr uint32_t kEventZoneColor = direct_color(kEventZoneRgb, 1);
constexpr uint32_t kEventCrowdedColor = direct_color(kEventCrowdedRgb, 2);
constexpr uint32_t kEventLineColor = direct_color(kEventLineRgb, 3);
constexpr uint32_t kEventBoxColor = direct_color(kEventBoxRgb, 4);
constexpr uint32_t kEventTextColor = direct_color(kEventTextRgb, 5);

/// The font: glyphs of kGlyphWidth x kGlyphHeight cells, kGlyphAdvance cells apart; a
/// label's box has one cell of margin around its text.
constexpr int kGlyphWidth = 5, kGlyphHeight = 7, kGlyphAdvance = 6;

/// The glyph of `c` (the digits, 'L', 'Z', 'i', 'n', '/' and ' '): rows[r] is row r
/// from the top, bit kGlyphWidth-1 its leftmost cell. False (and blank rows) for a
/// character the font lacks, which is drawn as a space.
bool glyph_rows(char c, uint8_t rows[kGlyphHeight]);

/// The cell size in pixels of the labels of a frame `height` pixels tall:
/// max(1, height / 240).
int text_scale(int height);

/// The label texts: "L<line> <forward>/<backward>"; "Z<zone> <count> in <entries>",
/// or "Z<zone> <count>/<max_count> in <entries>" when max_count > 0.
std::string line_label(size_t line, uint64_t forward, uint64_t backward);
std::string zone_label(size_t zone, uint32_t count, uint32_t max_count, uint64_t entries);

/// Where a label was drawn: its text, and its box's top-left corner and size in
/// pixels. The text's first glyph cell is at (x + scale, y + scale).
struct EventLabel {
  std::string text;
  int x, y, width, height;
  int scale;
};

/// The box size of `text` at `scale`: ((kGlyphAdvance * n - 1 + 2) * scale) by
/// ((kGlyphHeight + 2) * scale) for n characters.
void text_box_size(const std::string& text, int scale, int* width, int* height);

/// Appends a label: the black box with its top-left corner at (x, y), moved inside
/// the frame (to x = 0 / y = 0 when it is larger than it), as one horizontal Segment
/// per row, then the text's lit runs, one horizontal Segment per run and pixel row;
/// every Segment clipped to the frame. Returns where it went.
EventLabel text_shapes(const std::string& text, int x, int y, int scale, int width, int height,
                       std::vector<Segment>& out);

/// Appends (out is not cleared) the shapes of every line and zone of `config` with
/// their counts, for a frame of width x height: forward[i] / backward[i] are line i's
/// crossings, zone_count[z] the components inside zone z now and zone_entries[z] its
/// entries (EventCounter's vectors; a missing entry counts as 0). Lines first, then
/// zones, then their labels. A shape with a coordinate that is not finite is skipped.
/// labels, when given, receives (appended) every label drawn: the lines', then the
/// zones'. The segments number (9 + runs) * scale per label, where runs is the lit
/// runs of its glyph rows (about 8 per character): about 120 for "L0 12/3" at scale 2
/// (frames 480 to 719 rows tall); plus up to 8 per line (line and arrow) and 2 per
/// zone edge.
void event_shapes(const ccl::EventConfig& config, const std::vector<uint64_t>& forward,
                  const std::vector<uint64_t>& backward, const std::vector<uint32_t>& zone_count,
                  const std::vector<uint64_t>& zone_entries, int width, int height,
                  std::vector<Segment>& out, std::vector<EventLabel>* labels = nullptr);

}  // namespace ccl::overlay
