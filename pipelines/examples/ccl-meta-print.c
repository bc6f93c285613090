/* ccl-meta-print: runs cudaccl over a video and prints what its GstCclMeta holds,
 * one summary line per frame (and optionally every component), each component
 * with its track id (and the parent it split off from, and its velocity) while
 * the element tracks, and with blob analysis (--blob-properties, or a blob
 * filter such as --min-circularity) its blob on the line below.
 *
 *   ccl-meta-print [--backend auto|cuda|cpu] [--threshold N] [--min-area N]
 *                  [--frames N] [--components] [--no-tracking] [--analytics]
 *                  [--blob-properties FLAGS] [--min-circularity X]
 *                  [--lines VALUE] [--zones VALUE] [FILE]
 *
 * Without FILE the source is videotestsrc's bouncing ball. Builds against the
 * installed library:
 *
 *   cc ccl-meta-print.c -o ccl-meta-print \
 *       $(pkg-config --cflags --libs gstreamer-ccl-1.0) -lm
 *
 * With GStreamer 1.24 or newer, --analytics also prints the same components as
 * GStreamer's analytics metadata holds them (GstAnalyticsRelationMeta, which any
 * GstAnalytics reader sees); build it with:
 *
 *   cc -DWITH_GST_ANALYTICS ccl-meta-print.c -o ccl-meta-print \
 *       $(pkg-config --cflags --libs gstreamer-ccl-1.0 gstreamer-analytics-1.0) -lm
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/gst.h>
#include <gst/ccl/gstcclmeta.h>

#include <math.h>

#ifdef WITH_GST_ANALYTICS
#include <gst/analytics/analytics.h>
#endif

typedef struct
{
  gboolean components;
  gboolean analytics;
  guint frames;
} PrintState;

#ifdef WITH_GST_ANALYTICS
/* One line per object-detection entry (with the track related to it) and per
 * tracking entry related to no box: a track unseen in this frame. */
static void
print_analytics (GstBuffer * buf)
{
  GstAnalyticsRelationMeta *rmeta = gst_buffer_get_analytics_relation_meta (buf);
  GstAnalyticsMtd od, trk, any;
  gpointer state = NULL, rstate;
  guint64 id;
  GstClockTime first, last;
  gboolean lost;
  gint x, y, w, h;
  gfloat conf;

  if (!rmeta)
    return;
  while (gst_analytics_relation_meta_iterate (rmeta, &state,
          gst_analytics_od_mtd_get_mtd_type (), &od)) {
    gst_analytics_od_mtd_get_location (&od, &x, &y, &w, &h, &conf);
    g_print ("    od %s box %d,%d %dx%d confidence %.2f",
        g_quark_to_string (gst_analytics_od_mtd_get_obj_type (&od)), x, y, w, h,
        conf);
    rstate = NULL;
    if (gst_analytics_relation_meta_get_direct_related (rmeta, od.id,
            GST_ANALYTICS_REL_TYPE_RELATE_TO,
            gst_analytics_tracking_mtd_get_mtd_type (), &rstate, &trk) &&
        gst_analytics_tracking_mtd_get_info (&trk, &id, &first, &last, &lost))
      g_print (" track %" G_GUINT64_FORMAT " first seen %" GST_TIME_FORMAT,
          id, GST_TIME_ARGS (first));
    g_print ("\n");
  }
  state = NULL;
  while (gst_analytics_relation_meta_iterate (rmeta, &state,
          gst_analytics_tracking_mtd_get_mtd_type (), &trk)) {
    rstate = NULL;
    if (gst_analytics_relation_meta_get_direct_related (rmeta, trk.id,
            GST_ANALYTICS_REL_TYPE_RELATE_TO, gst_analytics_od_mtd_get_mtd_type (),
            &rstate, &any))
      continue;
    gst_analytics_tracking_mtd_get_info (&trk, &id, &first, &last, &lost);
    g_print ("    unseen track %" G_GUINT64_FORMAT " last seen %" GST_TIME_FORMAT
        "%s\n", id, GST_TIME_ARGS (last), lost ? ", lost" : "");
  }
}
#endif

/* The index of the largest reported component (-1: none): the meta is in
 * label order unless max-components capped it, so look rather than assume. */
static gint
largest_component (const GstCclMeta * meta)
{
  gint best = -1;
  guint i;

  for (i = 0; i < meta->n_components; i++)
    if (best < 0 || meta->components[i].area > meta->components[best].area)
      best = (gint) i;
  return best;
}

/* The blob of component `index`, when the meta holds blobs: its shape always,
 * and the groups in its properties field (those blob-properties asked for and
 * those a filter read). */
static void
print_blob (const GstCclMeta * meta, guint index)
{
  const GstCclBlob *b = gst_ccl_meta_get_blob (meta, index);

  if (!b)
    return;
  g_print ("      blob");
  if (b->properties & GST_CCL_BLOB_PROPERTIES_INTENSITY)
    g_print (" luma %.1f +- %.1f (%.0f..%.0f)", b->intensity_mean,
        b->intensity_std, b->intensity_min, b->intensity_max);
  if (b->properties & GST_CCL_BLOB_PROPERTIES_COLOR)
    g_print (" color (%.1f, %.1f, %.1f)", b->color_mean[0], b->color_mean[1],
        b->color_mean[2]);
  if (b->properties & GST_CCL_BLOB_PROPERTIES_PERIMETER)
    g_print (" perimeter %.1f circularity %.3f", b->perimeter, b->circularity);
  if (b->properties & GST_CCL_BLOB_PROPERTIES_EULER)
    g_print (" euler %d", b->euler_number);
  g_print (" orientation %.1f deg axes %.1f x %.1f eccentricity %.3f\n",
      b->orientation * 180.0 / G_PI, b->axis_major_length,
      b->axis_minor_length, b->eccentricity);
}

static void
print_component (const gchar * prefix, const GstCclMeta * meta, guint index)
{
  const GstCclComponent *c = gst_ccl_meta_get_component (meta, index);
  gdouble major, minor;

  gst_ccl_component_get_axis_lengths (c, &major, &minor);
  g_print ("%s#%u box %d,%d %dx%d area %" G_GUINT64_FORMAT
      " centroid (%.1f, %.1f) orientation %.1f deg axes %.1f x %.1f",
      prefix, c->label, c->x, c->y, c->width, c->height, c->area,
      c->centroid_x, c->centroid_y,
      gst_ccl_component_get_orientation (c) * 180.0 / G_PI, major, minor);
  /* Without tracking the track fields are all 0: 0 is no track's id, so
   * printing them would only mislead. */
  if (meta->tracking) {
    g_print (" track %" G_GUINT64_FORMAT, c->track_id);
    if (c->parent_id)
      g_print (" parent %" G_GUINT64_FORMAT, c->parent_id);
    g_print (" velocity (%.1f, %.1f)", c->velocity_x, c->velocity_y);
  }
  g_print ("\n");
  print_blob (meta, index);
}

/* The counts of the element's lines and zones, and the frame's events, when
 * it counts (its lines or zones set). */
static void
print_event_counts (const GstCclMeta * meta)
{
  guint i, n_events = 0;
  const GstCclEvent *events = gst_ccl_meta_get_events (meta, &n_events);
  GEnumClass *kinds;

  for (i = 0; i < gst_ccl_meta_get_n_lines (meta); i++) {
    guint64 forward, backward;

    gst_ccl_meta_get_line_counts (meta, i, &forward, &backward);
    g_print ("    line %u: %" G_GUINT64_FORMAT " forward, %" G_GUINT64_FORMAT
        " backward\n", i, forward, backward);
  }
  for (i = 0; i < gst_ccl_meta_get_n_zones (meta); i++) {
    guint count;
    guint64 entries, exits;

    gst_ccl_meta_get_zone_counts (meta, i, &count, &entries, &exits);
    g_print ("    zone %u: %u inside, %" G_GUINT64_FORMAT " entries, %"
        G_GUINT64_FORMAT " exits\n", i, count, entries, exits);
  }
  if (!n_events)
    return;
  kinds = g_type_class_ref (GST_TYPE_CCL_EVENT_KIND);
  for (i = 0; i < n_events; i++) {
    GEnumValue *kind = g_enum_get_value (kinds, events[i].kind);

    g_print ("    event %s %u", kind ? kind->value_nick : "?", events[i].index);
    if (events[i].kind != GST_CCL_EVENT_KIND_ZONE_MAX)
      g_print (" track %u at (%.1f, %.1f)", events[i].track_id, events[i].x,
          events[i].y);
    else
      g_print (" count %u", events[i].count);
    g_print ("\n");
  }
  g_type_class_unref (kinds);
}

static GstPadProbeReturn
on_buffer (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  PrintState *ps = user_data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  const GstCclMeta *meta = gst_ccl_meta_get (buf);
  const GstCclComponent *c;
  guint64 area_sum = 0;
  gpointer state = NULL;
  gint largest;
  guint i;

  if (!meta)
    return GST_PAD_PROBE_OK;

  while ((c = gst_ccl_meta_iterate (meta, &state)))
    area_sum += c->area;

  g_print ("frame %4u %" GST_TIME_FORMAT " %ux%u: %u components, %u reported, "
      "threshold %u, mean area %.1f", ps->frames,
      GST_TIME_ARGS (GST_BUFFER_PTS (buf)), meta->width, meta->height,
      meta->total_count, meta->n_components, meta->threshold,
      meta->n_components ? (gdouble) area_sum / meta->n_components : 0.0);
  if (GST_CLOCK_TIME_IS_VALID (meta->gpu_time))
    g_print (", GPU %.3f ms", meta->gpu_time / 1e6);
  g_print (meta->tracking ? ", tracking\n" : "\n");

  if (ps->components) {
    for (i = 0; i < meta->n_components; i++)
      print_component ("    ", meta, i);
  } else if ((largest = largest_component (meta)) >= 0) {
    print_component ("    largest ", meta, (guint) largest);
  }
  print_event_counts (meta);
#ifdef WITH_GST_ANALYTICS
  if (ps->analytics)
    print_analytics (buf);
#endif
  ps->frames++;
  return GST_PAD_PROBE_OK;
}

static GstElement *
build_pipeline (const gchar * file, guint frames, GError ** error)
{
  GstElement *pipeline, *src;

  if (file) {
    pipeline = gst_parse_launch ("filesrc name=src ! decodebin ! videoconvert "
        "! video/x-raw,format=I420 ! cudaccl name=ccl ! fakesink sync=false",
        error);
  } else {
    pipeline = gst_parse_launch ("videotestsrc name=src pattern=ball "
        "! video/x-raw,format=I420,width=320,height=240,framerate=30/1 "
        "! cudaccl name=ccl ! fakesink sync=false", error);
  }
  if (!pipeline)
    return NULL;

  src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  if (file)
    g_object_set (src, "location", file, NULL);
  else
    g_object_set (src, "num-buffers", (gint) frames, NULL);
  gst_object_unref (src);
  return pipeline;
}

/* Plays the pipeline to its end; FALSE (with the error printed) on failure. */
static gboolean
run (GstElement * pipeline)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg;
  gboolean ok = TRUE;

  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, GST_CLOCK_TIME_NONE,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError *err = NULL;
    gchar *debug = NULL;

    gst_message_parse_error (msg, &err, &debug);
    g_printerr ("ccl-meta-print: %s\n%s\n", err->message, debug ? debug : "");
    g_clear_error (&err);
    g_free (debug);
    ok = FALSE;
  }
  gst_message_unref (msg);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  return ok;
}

int
main (int argc, char **argv)
{
  gchar *backend = NULL, *blob_properties = NULL, *lines = NULL, *zones = NULL;
  gint threshold = 40, min_area = 10, frames = 30;
  gdouble min_circularity = 0;
  gboolean components = FALSE, no_tracking = FALSE, analytics = FALSE;
  GOptionEntry entries[] = {
    {"backend", 0, 0, G_OPTION_ARG_STRING, &backend,
        "auto, cuda or cpu (default auto)", "NAME"},
    {"threshold", 0, 0, G_OPTION_ARG_INT, &threshold,
        "foreground is luma above this level (default 40)", "N"},
    {"min-area", 0, 0, G_OPTION_ARG_INT, &min_area,
        "smallest component reported (default 10)", "N"},
    {"frames", 0, 0, G_OPTION_ARG_INT, &frames,
        "frames of videotestsrc (default 30)", "N"},
    {"components", 0, 0, G_OPTION_ARG_NONE, &components,
        "print every reported component, not only the largest", NULL},
    {"no-tracking", 0, 0, G_OPTION_ARG_NONE, &no_tracking,
        "turn the element's tracking off (no track ids)", NULL},
    {"analytics", 0, 0, G_OPTION_ARG_NONE, &analytics,
        "also print the GstAnalytics entries (GStreamer 1.24 and newer)", NULL},
    {"blob-properties", 0, 0, G_OPTION_ARG_STRING, &blob_properties,
          "blob analysis, printed under each component: intensity, color, "
          "perimeter, euler or a combination (e.g. intensity+perimeter)",
        "FLAGS"},
    {"min-circularity", 0, 0, G_OPTION_ARG_DOUBLE, &min_circularity,
          "report only components at least this round (4 pi area / "
          "perimeter^2; default 0: no limit)", "X"},
    {"lines", 0, 0, G_OPTION_ARG_STRING, &lines,
          "counting lines, as the element's property (e.g. "
          "\"<<160,0,160,239>>\"): their counts and the frame's events are "
          "printed", "VALUE"},
    {"zones", 0, 0, G_OPTION_ARG_STRING, &zones,
          "zones, as the element's property (e.g. "
          "\"<<0,0,100,0,100,100,0,100>>\")", "VALUE"},
    {NULL}
  };
  GOptionContext *ctx = g_option_context_new ("[FILE] - print cudaccl's "
      "per-frame metadata");
  GError *error = NULL;
  GstElementFactory *factory;
  GstElement *pipeline, *ccl;
  GstPad *pad;
  PrintState ps = { 0, };
  gboolean ok;

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &error) || argc > 2) {
    g_printerr ("ccl-meta-print: %s\n", error ? error->message :
        "give at most one FILE");
    return 2;
  }
  g_option_context_free (ctx);

  if (backend && g_strcmp0 (backend, "auto") && g_strcmp0 (backend, "cuda")
      && g_strcmp0 (backend, "cpu")) {
    g_printerr ("ccl-meta-print: --backend is auto, cuda or cpu, not '%s'\n",
        backend);
    return 2;
  }
#ifndef WITH_GST_ANALYTICS
  if (analytics) {
    g_printerr ("ccl-meta-print: --analytics needs a build with "
        "-DWITH_GST_ANALYTICS against GStreamer 1.24 or newer\n");
    return 2;
  }
#endif
  factory = gst_element_factory_find ("cudaccl");
  if (!factory) {
    g_printerr ("ccl-meta-print: GStreamer has no cudaccl element (install "
        "cudaccl, or point GST_PLUGIN_PATH at BUILD/plugin)\n");
    return 1;
  }
  gst_object_unref (factory);
  pipeline = build_pipeline (argc > 1 ? argv[1] : NULL, (guint) MAX (frames, 1),
      &error);
  if (!pipeline) {
    g_printerr ("ccl-meta-print: %s\n", error->message);
    return 1;
  }

  ccl = gst_bin_get_by_name (GST_BIN (pipeline), "ccl");
  gst_util_set_object_arg (G_OBJECT (ccl), "backend", backend ? backend : "auto");
  g_object_set (ccl, "threshold", (guint) CLAMP (threshold, 0, 255),
      "min-area", (guint) MAX (min_area, 1), NULL);
  /* Only when asked: the default is the element's own (tracking on). */
  if (no_tracking)
    g_object_set (ccl, "tracking", FALSE, NULL);
  /* A flags value from its text, as gst-launch-1.0 reads it. */
  if (blob_properties) {
    GParamSpec *spec = g_object_class_find_property (G_OBJECT_GET_CLASS (ccl),
        "blob-properties");
    GValue value = G_VALUE_INIT;

    g_value_init (&value, spec->value_type);
    if (!gst_value_deserialize (&value, blob_properties)) {
      g_printerr ("ccl-meta-print: --blob-properties is intensity, color, "
          "perimeter, euler or a combination such as intensity+perimeter, "
          "not '%s'\n", blob_properties);
      gst_object_unref (ccl);
      gst_object_unref (pipeline);
      return 2;
    }
    g_object_set_property (G_OBJECT (ccl), "blob-properties", &value);
    g_value_unset (&value);
  }
  if (min_circularity > 0)
    g_object_set (ccl, "min-circularity", min_circularity, NULL);
  /* The element warns about a faulty value and keeps counting nothing. */
  if (lines)
    gst_util_set_object_arg (G_OBJECT (ccl), "lines", lines);
  if (zones)
    gst_util_set_object_arg (G_OBJECT (ccl), "zones", zones);
  ps.components = components;
  ps.analytics = analytics;
  pad = gst_element_get_static_pad (ccl, "src");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, on_buffer, &ps, NULL);
  gst_object_unref (pad);
  gst_object_unref (ccl);

  ok = run (pipeline);
  gst_object_unref (pipeline);
  g_free (backend);
  g_free (blob_properties);
  g_free (lines);
  g_free (zones);
  if (ok)
    g_print ("%u frames\n", ps.frames);
  return ok && ps.frames > 0 ? 0 : 1;
}
