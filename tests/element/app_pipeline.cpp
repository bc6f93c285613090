// Pipelines around the cudaccl element for the concurrency and fault tests.
#include "app_pipeline.h"

#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <sstream>

namespace ccl::element_test {

// ---------------------------------------------------------------------------------
// Deterministic frames

test::GrayImage scene(int width, int height, int i, uint32_t seed) {
  test::GrayImage g;
  g.name = "scene";
  g.width = width;
  g.height = height;
  g.pixels.resize(size_t(width) * size_t(height));
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      const uint64_t bx = uint64_t(x + 2 * i) / 4, by = uint64_t(y) / 4;
      const bool fg = splitmix64(seed ^ splitmix64(bx ^ splitmix64(by))) % 100 < 35;
      g.pixels[size_t(y) * width + x] =
          uint8_t(fg ? 160 + (x + y) % 96 : (5 * x + 3 * y) % 120);
    }
  return g;
}

std::vector<test::Frame> frames_of(const Stream& s) {
  std::vector<test::Frame> out;
  for (int i = 0; i < s.frames; ++i)
    out.push_back(test::make_frame(scene(s.width, s.height, i, s.seed), s.format, s.extra_stride));
  return out;
}

// ---------------------------------------------------------------------------------
// Metadata as text: every field (doubles exactly, as hex floats) but gpu_time, which
// is a measurement. Two frames' metadata are equal when their texts are.

std::string describe(GstBuffer* buf) {
  std::ostringstream s;
  gpointer it = nullptr;
  int metas = 0;
  while (GstMeta* m = gst_buffer_iterate_meta_filtered(buf, &it, GST_CCL_META_API_TYPE)) {
    const auto* meta = reinterpret_cast<const GstCclMeta*>(m);
    ++metas;
    char line[512];
    std::snprintf(line, sizeof line,
                  "meta %ux%u total %u reported %u threshold %u algorithm %d connectivity %u "
                  "tracking %d\n",
                  meta->width, meta->height, meta->total_count, meta->n_components,
                  meta->threshold, int(meta->algorithm), meta->connectivity,
                  int(meta->tracking));
    s << line;
    for (guint c = 0; c < meta->n_components; ++c) {
      const GstCclComponent& k = meta->components[c];
      std::snprintf(line, sizeof line,
                    "  %u box %d,%d %dx%d area %" G_GUINT64_FORMAT " sums %" G_GUINT64_FORMAT
                    " %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT
                    " %" G_GUINT64_FORMAT " centroid %a %a track %" G_GUINT64_FORMAT
                    " parent %" G_GUINT64_FORMAT " age %u unseen %u velocity %a %a "
                    "predicted %d,%d %dx%d\n",
                    k.label, k.x, k.y, k.width, k.height, k.area, k.sum_x, k.sum_y, k.sum_xx,
                    k.sum_xy, k.sum_yy, k.centroid_x, k.centroid_y, k.track_id, k.parent_id,
                    k.track_age, k.frames_unseen, k.velocity_x, k.velocity_y, k.predicted_x,
                    k.predicted_y, k.predicted_width, k.predicted_height);
      s << line;
    }
  }
  if (metas != 1) s << metas << " GstCclMeta on the buffer\n";
  return s.str();
}

// Empty when the buffer carries exactly one plausible GstCclMeta of a width x height
// frame (whatever the settings were), else what is wrong.
std::string invalid_meta(GstBuffer* buf, int width, int height) {
  gpointer it = nullptr;
  const GstCclMeta* meta = nullptr;
  int metas = 0;
  while (GstMeta* m = gst_buffer_iterate_meta_filtered(buf, &it, GST_CCL_META_API_TYPE)) {
    meta = reinterpret_cast<const GstCclMeta*>(m);
    ++metas;
  }
  std::ostringstream why;
  if (metas != 1) {
    why << metas << " GstCclMeta on the buffer, want 1";
    return why.str();
  }
  if (int(meta->width) != width || int(meta->height) != height)
    why << "meta of " << meta->width << "x" << meta->height;
  else if (meta->connectivity != 4 && meta->connectivity != 8)
    why << "connectivity " << meta->connectivity;
  else if (meta->threshold > 255)
    why << "threshold " << meta->threshold;
  else if (meta->n_components > meta->total_count)
    why << meta->n_components << " reported of " << meta->total_count;
  else if (meta->n_components > 0 && !meta->components)
    why << "no component array";
  if (!why.str().empty()) return why.str();
  for (guint c = 0; c < meta->n_components; ++c) {
    const GstCclComponent& k = meta->components[c];
    const bool ok = plausible_component(k, width, height) && k.label >= 1 &&
                    k.label <= meta->total_count;
    const bool track_ok = meta->tracking ? k.track_id >= 1 && k.track_age >= 1
                                         : k.track_id == 0 && k.parent_id == 0 &&
                                               k.track_age == 0;
    if (!ok || !track_ok) {
      why << "component " << c << " implausible: label " << k.label << " box " << k.x << ","
          << k.y << " " << k.width << "x" << k.height << " area " << k.area << " track "
          << k.track_id << " age " << k.track_age << " (tracking " << meta->tracking << ")";
      return why.str();
    }
  }
  return "";
}

// gtest: two runs' per-frame metadata are equal; reports the first difference.
void expect_same(const std::vector<std::string>& want, const std::vector<std::string>& got,
                 const std::string& what) {
  if (want.size() != got.size()) {
    ADD_FAILURE() << what << ": " << got.size() << " frames, want " << want.size();
    return;
  }
  for (size_t i = 0; i < want.size(); ++i) {
    if (want[i] == got[i]) continue;
    std::istringstream a(want[i]), b(got[i]);
    std::string la, lb;
    int line = 0;
    while (true) {
      const bool ha = bool(std::getline(a, la)), hb = bool(std::getline(b, lb));
      if (!ha && !hb) break;
      if (!ha) la = "(none)";
      if (!hb) lb = "(none)";
      if (la != lb) break;
      ++line;
    }
    ADD_FAILURE() << what << ": frame " << i << " differs from the serial run at line " << line
                  << ":\n  serial: " << la << "\n  here:   " << lb;
    return;
  }
}

// ---------------------------------------------------------------------------------
// Pipelines

uint64_t checksum(GstBuffer* buf) {
  GstMapInfo map;
  uint64_t h = 0;
  if (gst_buffer_map(buf, &map, GST_MAP_READ)) {
    for (gsize k = 0; k < map.size; ++k) h = splitmix64(h ^ map.data[k]);
    gst_buffer_unmap(buf, &map);
  }
  return h;
}

GstBusSyncReply Pipeline::on_bus(GstBus*, GstMessage* msg, gpointer data) {
  auto* log = static_cast<BusLog*>(data);
  if (GST_MESSAGE_TYPE(msg) == GST_MESSAGE_ERROR) {
    GError* err = nullptr;
    gchar* debug = nullptr;
    gst_message_parse_error(msg, &err, &debug);
    BusError e;
    e.source = GST_OBJECT_NAME(msg->src);
    e.domain = err ? err->domain : 0;
    e.code = err ? err->code : 0;
    e.message = err ? err->message : "?";
    e.debug = debug ? debug : "";
    std::lock_guard<std::mutex> g(log->mutex);
    log->errors.push_back(e);
    g_clear_error(&err);
    g_free(debug);
  }
  // Nobody pops the bus: per-frame element messages would pile up otherwise. A sync
  // handler that drops a message owns it.
  gst_message_unref(msg);
  return GST_BUS_DROP;
}

Pipeline::Pipeline(const Stream& s, int branches, const std::string& backend) {
  std::ostringstream launch;
  launch << "appsrc name=src format=time block=true max-bytes=4000000 ";
  const bool cuda_memory = s.memory == "cuda";
  const std::string ccl = std::string(cuda_memory ? "cudaupload ! " : "") + "cudaccl backend=" +
                          (backend.empty() ? backend_under_test() : backend) + " " +
                          s.properties;
  const std::string after = cuda_memory ? " ! cudadownload" : "";
  if (branches == 1) {
    launch << "! " << ccl << " name=ccl0" << after
           << " ! appsink name=sink0 sync=false max-buffers=64";
  } else {
    launch << "! tee name=t";
    for (int b = 0; b < branches; ++b)
      launch << " t. ! queue ! " << ccl << " name=ccl" << b << after << " ! appsink name=sink"
             << b << " sync=false max-buffers=64";
  }
  GError* error = nullptr;
  pipeline_ = gst_parse_launch(launch.str().c_str(), &error);
  if (!pipeline_ || error) {
    ADD_FAILURE() << "cannot create '" << launch.str() << "': " << (error ? error->message : "?");
    g_clear_error(&error);
    gst_clear_object(&pipeline_);
    return;
  }
  src_ = gst_bin_get_by_name(GST_BIN(pipeline_), "src");
  GstCaps* caps = gst_caps_from_string(caps_string(s.format, s.width, s.height).c_str());
  g_object_set(src_, "caps", caps, nullptr);
  gst_caps_unref(caps);
  for (int b = 0; b < branches; ++b) {
    const std::string n = std::to_string(b);
    sinks_.push_back(gst_bin_get_by_name(GST_BIN(pipeline_), ("sink" + n).c_str()));
    ccls_.push_back(gst_bin_get_by_name(GST_BIN(pipeline_), ("ccl" + n).c_str()));
  }
  GstBus* bus = gst_element_get_bus(pipeline_);
  gst_bus_set_sync_handler(bus, on_bus, &log_, nullptr);
  gst_object_unref(bus);
}

Pipeline::~Pipeline() {
  if (!pipeline_) return;
  gst_element_set_state(pipeline_, GST_STATE_NULL);
  for (GstElement* e : sinks_) gst_object_unref(e);
  for (GstElement* e : ccls_) gst_object_unref(e);
  gst_object_unref(src_);
  GstBus* bus = gst_element_get_bus(pipeline_);
  gst_bus_set_sync_handler(bus, nullptr, nullptr, nullptr);
  gst_object_unref(bus);
  gst_object_unref(pipeline_);
}

bool Pipeline::play() {
  return gst_element_set_state(pipeline_, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE;
}

bool Pipeline::stop() {
  return gst_element_set_state(pipeline_, GST_STATE_NULL) != GST_STATE_CHANGE_FAILURE;
}

void Pipeline::set_context(GstContext* context) {
  gst_element_set_context(pipeline_, context);
}

void Pipeline::set_caps(const std::string& caps) {
  GstCaps* c = gst_caps_from_string(caps.c_str());
  g_object_set(src_, "caps", c, nullptr);
  gst_caps_unref(c);
}

bool Pipeline::push(const test::Frame& f, long index) {
  GstBuffer* buf = buffer_from_frame(f);
  GST_BUFFER_PTS(buf) = gst_util_uint64_scale(guint64(index), GST_SECOND, 30);
  GST_BUFFER_DURATION(buf) = gst_util_uint64_scale(1, GST_SECOND, 30);
  return gst_app_src_push_buffer(GST_APP_SRC(src_), buf) == GST_FLOW_OK;
}

bool Pipeline::send(GstEvent* e) { return gst_element_send_event(src_, e); }

void Pipeline::eos() { gst_app_src_end_of_stream(GST_APP_SRC(src_)); }

// Pulled in short slices: after an error no EOS comes, and waiting out the whole
// timeout would make every failing run slow.
GstBuffer* Pipeline::pull(int b, GstClockTime timeout) {
  GstAppSink* sink = GST_APP_SINK(sinks_[size_t(b)]);
  auto take = [sink](GstClockTime wait) -> GstBuffer* {
    GstSample* sample = gst_app_sink_try_pull_sample(sink, wait);
    if (!sample) return nullptr;
    GstBuffer* buf = gst_buffer_ref(gst_sample_get_buffer(sample));
    gst_sample_unref(sample);
    return buf;
  };
  const GstClockTime slice = 20 * GST_MSECOND;
  for (GstClockTime waited = 0; waited < timeout; waited += slice) {
    if (GstBuffer* buf = take(slice)) return buf;
    if (gst_app_sink_is_eos(sink)) return nullptr;
    // One more look once an error is posted: a frame may have reached the sink just
    // before it.
    if (!error_details().empty()) return take(0);
  }
  return nullptr;
}

bool Pipeline::at_eos(int b) { return gst_app_sink_is_eos(GST_APP_SINK(sinks_[size_t(b)])); }

std::vector<BusError> Pipeline::error_details() {
  std::lock_guard<std::mutex> g(log_.mutex);
  return log_.errors;
}

void Pipeline::clear_errors() {
  std::lock_guard<std::mutex> g(log_.mutex);
  log_.errors.clear();
}

std::vector<std::string> Pipeline::errors() {
  std::vector<std::string> out;
  for (const BusError& e : error_details()) out.push_back(e.text());
  return out;
}

}  // namespace ccl::element_test
