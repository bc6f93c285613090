/* cudaccl: counting lines and zones for the element (the engine's ccl/events.h):
 * the properties' values parsed and checked, one counter per stream, and what a
 * frame's messages carry. docs/EVENTS.md says what is counted and when.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <gst/gst.h>
#include <gst/ccl/gstcclmeta.h>

#include "backend/cclbackend.h"

G_BEGIN_DECLS

typedef struct _CclEvents CclEvents;

CclEvents *ccl_events_new  (void);
void       ccl_events_free (CclEvents * self);

/* Settings, from any thread (the object has its own lock). A new value takes
 * effect at the next frame, with every count zeroed and every track forgotten.
 *
 * lines: a GstValueArray of lines, each a GstValueArray <x1, y1, x2, y2> of
 * numbers (pixels). zones: a GstValueArray of polygons, each a flat GstValueArray
 * <x1, y1, x2, y2, ...> of at least 3 points. zone_max: a GstValueArray of
 * integers, the most components each zone may hold before a zone-max event (0 or
 * missing: no limit). On a faulty value: FALSE, *why says what is wrong (free it),
 * and the previous value stays. Lines and zones must lie within the frame when its
 * size is known (ccl_events_set_frame_size). */
gboolean ccl_events_set_lines     (CclEvents * self, const GValue * lines, gchar ** why);
gboolean ccl_events_set_zones     (CclEvents * self, const GValue * zones, gchar ** why);
gboolean ccl_events_set_zone_max  (CclEvents * self, const GValue * zone_max, gchar ** why);
void     ccl_events_get_lines     (CclEvents * self, GValue * lines);
void     ccl_events_get_zones     (CclEvents * self, GValue * zones);
void     ccl_events_get_zone_max  (CclEvents * self, GValue * zone_max);

/* The negotiated frame size; FALSE with *why (free it) when the lines or zones
 * already set do not fit in it (they stay, and count what they can). */
gboolean ccl_events_set_frame_size (CclEvents * self, gint width, gint height,
                                    gchar ** why);

/* Zeroes the counts and forgets the tracks before the next frame (a flush, a new
 * stream). */
void     ccl_events_request_reset  (CclEvents * self);

/* Streaming thread, before the frame is labeled: a new value of lines, zones
 * or zone-max, or a reset, takes effect (ccl_events_update() does it too when
 * this was not called). Returns whether any line or zone is set. */
gboolean ccl_events_prepare (CclEvents * self);

/* Streaming thread, after ccl_events_prepare(): whether a zone is set, and
 * whether (x, y) lies in any zone (the counting's own rule). */
gboolean ccl_events_has_zones   (CclEvents * self);
gboolean ccl_events_in_any_zone (CclEvents * self, gdouble x, gdouble y);

/* Streaming thread: one frame's reported components. Their centroids count in
 * the zones; with tracking (their track ids set) they also cross lines and enter
 * and leave zones. Returns FALSE, doing nothing, when no line and no zone is set. */
gboolean ccl_events_update (CclEvents * self, const GstCclComponent * components,
                            guint n, gboolean tracking, GstClockTime running_time);

/* Streaming thread, after ccl_events_update() returned TRUE: adds the counts to
 * the frame's "cudaccl" message structure (line-forward, line-backward,
 * zone-count, zone-entries, zone-exits, and per zone the tracks inside with their
 * dwell), and posts one "cudaccl-event" element message per event of the frame
 * when post_events is set. */
void     ccl_events_add_counts (CclEvents * self, GstStructure * s);
void     ccl_events_post       (CclEvents * self, GstElement * element);

/* Streaming thread, after ccl_events_update() returned TRUE: the same counts
 * and the frame's events into its GstCclMeta (gst_ccl_meta_set_event_counts). */
void     ccl_events_add_meta   (CclEvents * self, GstCclMeta * meta);

/* Streaming thread, after ccl_events_update() returned TRUE: the lines and
 * zones with the frame's counts, as shapes for ccl_backend_draw(), valid until
 * the next call. */
const CclShapes *ccl_events_shapes (CclEvents * self, gint width,
    gint height);

G_END_DECLS
