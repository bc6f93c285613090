// The C interface of the backends: GstVideoFrame in, CclReport out, ccl::Error and
// every other C++ exception turned into a GError of CCL_BACKEND_ERROR, whose code
// says what kind of failure it was.
#include "backend/cclbackend.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <memory>
#include <new>
#include <string>

#include "backend/backend.h"
#include "backend/shapes.h"
#include "ccl/blob.h"
#include "ccl/cuda_engine.h"
#include "ccl/tracker.h"

using ccl::PixelFormat;

static_assert(int(CCL_OVERLAY_FILL) == int(ccl::overlay::kFill) &&
                  int(CCL_OVERLAY_BOXES) == int(ccl::overlay::kBoxes) &&
                  int(CCL_OVERLAY_CENTROIDS) == int(ccl::overlay::kCentroids) &&
                  int(CCL_OVERLAY_TRAILS) == int(ccl::overlay::kTrails) &&
                  int(CCL_OVERLAY_FOREGROUND) == int(ccl::overlay::kForeground) &&
                  int(CCL_OVERLAY_EVENTS) == int(ccl::overlay::kEvents),
              "the element's overlay flags are the drawing code's");
static_assert(CCL_MAX_PIXELS == ccl::kMaxPixels, "the element's pixel limit is the engine's");

struct _CclBackend {
  CclBackendKind kind;
  std::unique_ptr<ccl::plugin::Backend> impl;
  ccl::Result result;
  ccl::plugin::Selection selection;
  ccl::Tracker tracker;
  std::vector<ccl::TrackInfo> tracks;
  std::vector<ccl::TrailPoint> trail;
  bool tracked = false;  // the tracker holds tracks of earlier frames
  std::vector<guint> roi;  // report->roi_indices
  // The last frame's: its reported labels and whether draw() is to come.
  bool to_draw = false;
  bool mask_ready = false;  // labeled with analytics_mask: write_mask may follow
  uint32_t labels = 0;
  std::vector<uint32_t> reported_labels;
  std::vector<uint32_t> id_of;  // ccl_backend_write_mask's label -> id
};

namespace {

bool to_pixel_format(GstVideoFormat format, PixelFormat* out) {
  switch (format) {
    case GST_VIDEO_FORMAT_GRAY8: *out = PixelFormat::Gray8; return true;
    case GST_VIDEO_FORMAT_GRAY16_LE: *out = PixelFormat::Gray16LE; return true;
    case GST_VIDEO_FORMAT_NV12: *out = PixelFormat::NV12; return true;
    case GST_VIDEO_FORMAT_I420: *out = PixelFormat::I420; return true;
    case GST_VIDEO_FORMAT_RGBA: *out = PixelFormat::RGBA; return true;
    case GST_VIDEO_FORMAT_BGRA: *out = PixelFormat::BGRA; return true;
    case GST_VIDEO_FORMAT_RGBx: *out = PixelFormat::RGBx; return true;
    case GST_VIDEO_FORMAT_BGRx: *out = PixelFormat::BGRx; return true;
    default: return false;
  }
}

// A failure whose kind is known where it is thrown (this file's own checks).
class Failure : public ccl::Error {
 public:
  Failure(CclBackendError code, const std::string& what) : ccl::Error(what), code_(code) {}
  CclBackendError code() const { return code_; }

 private:
  CclBackendError code_;
};

// Runs f; an exception becomes *error (the catch sites of the C boundary: nothing
// is thrown through it). `step`: what a plain ccl::Error from f means.
template <typename F>
gboolean guarded(GError** error, CclBackendError step, F&& f) {
  try {
    f();
    return TRUE;
  } catch (const Failure& e) {
    g_set_error_literal(error, CCL_BACKEND_ERROR, e.code(), e.what());
  } catch (const ccl::CudaError& e) {
    g_set_error_literal(error, CCL_BACKEND_ERROR,
                        e.out_of_memory() ? CCL_BACKEND_ERROR_NO_MEMORY : CCL_BACKEND_ERROR_CUDA,
                        e.what());
  } catch (const ccl::Error& e) {
    // Any other engine or backend error means what the step that threw it was about.
    g_set_error_literal(error, CCL_BACKEND_ERROR, step, e.what());
  } catch (const std::bad_alloc& e) {
    g_set_error(error, CCL_BACKEND_ERROR, CCL_BACKEND_ERROR_NO_MEMORY,
                "out of host memory (%s)", e.what());
  } catch (const std::exception& e) {
    g_set_error_literal(error, CCL_BACKEND_ERROR, CCL_BACKEND_ERROR_FAILED, e.what());
  } catch (...) {
    g_set_error_literal(error, CCL_BACKEND_ERROR, CCL_BACKEND_ERROR_FAILED,
                        "unknown exception");
  }
  return FALSE;
}

// The enum mappings name every value and have no default branch, so that a value
// added on one side is a compiler warning here (-Wswitch) rather than a silent
// fallback; a value outside the enum is an error.
ccl::ThresholdMode to_mode(CclThresholdMode m) {
  switch (m) {
    case CCL_THRESHOLD_ABOVE: return ccl::ThresholdMode::Above;
    case CCL_THRESHOLD_BELOW: return ccl::ThresholdMode::Below;
    case CCL_THRESHOLD_OTSU: return ccl::ThresholdMode::Otsu;
  }
  throw Failure(CCL_BACKEND_ERROR_SETTINGS, "unknown threshold mode " + std::to_string(int(m)));
}

ccl::ForegroundModel to_foreground(CclForegroundModel m) {
  switch (m) {
    case CCL_FOREGROUND_THRESHOLD: return ccl::ForegroundModel::Threshold;
    case CCL_FOREGROUND_BACKGROUND: return ccl::ForegroundModel::Background;
    case CCL_FOREGROUND_LOCAL: return ccl::ForegroundModel::Local;
    case CCL_FOREGROUND_COLOR: return ccl::ForegroundModel::Color;
  }
  throw Failure(CCL_BACKEND_ERROR_SETTINGS, "unknown foreground model " + std::to_string(int(m)));
}

// GstCclAlgorithm is generated from the engine's registry (ccl/algorithms.def), so a
// new algorithm needs no line here: the value's nick is the registry's.
// tests/meta/meta_algorithm_test.cpp checks that both list the same nicks in the
// same order.
ccl::Algorithm to_algorithm(GstCclAlgorithm a) {
  // Referenced once and kept: the enum's values are looked up on every frame.
  static GEnumClass* const algorithms =
      static_cast<GEnumClass*>(g_type_class_ref(GST_TYPE_CCL_ALGORITHM));
  const GEnumValue* value = g_enum_get_value(algorithms, int(a));
  ccl::Algorithm out;
  if (!value || !ccl::parse(value->value_nick, &out))
    throw Failure(CCL_BACKEND_ERROR_SETTINGS, "unknown algorithm " + std::to_string(int(a)));
  return out;
}

// Gives the reported components their tracks, their labels the tracks' color keys
// and, for overlay=trails, the segments of each track's recent path.
void track(CclBackend* backend, int width, int height, const CclSettings* settings,
           uint32_t flags) {
  ccl::plugin::Selection& sel = backend->selection;
  ccl::TrackerOptions options;
  options.max_lost = int(settings->track_max_lost);
  options.trail_length = (flags & CCL_OVERLAY_TRAILS) ? CCL_TRAIL_LENGTH : 0;
  const ccl::TrackerOptions& current = backend->tracker.options();
  if (current.max_lost != options.max_lost || current.trail_length != options.trail_length)
    backend->tracker.set_options(options);
  backend->tracker.update(width, height, sel.table, backend->tracks);
  backend->tracked = true;

  for (size_t i = 0; i < sel.n_reported; ++i) {
    const ccl::TrackInfo& t = backend->tracks[i];
    GstCclComponent& c = sel.reported[i];
    c.track_id = t.id;
    c.parent_id = t.parent_id;
    c.track_age = t.age;
    c.frames_unseen = t.frames_unseen;
    c.velocity_x = t.velocity_x;
    c.velocity_y = t.velocity_y;
    c.predicted_x = t.predicted_x;
    c.predicted_y = t.predicted_y;
    c.predicted_width = t.predicted_width;
    c.predicted_height = t.predicted_height;
    if (!sel.color_key.empty()) sel.color_key[c.label] = ccl::overlay::track_color_key(t.id);
  }
  if (!(flags & CCL_OVERLAY_TRAILS)) return;
  for (size_t i = 0; i < sel.n_reported; ++i) {
    backend->tracker.trail(i, backend->trail);
    for (size_t k = 1; k < backend->trail.size(); ++k) {
      const ccl::TrailPoint &a = backend->trail[k - 1], &b = backend->trail[k];
      sel.trails.push_back({sel.reported[i].label, a.x, a.y, b.x, b.y});
    }
  }
}

// The `limit` largest reported components (area, then label, as max-components ranks
// them), listed in the order they are reported in.
void pick_roi(CclBackend* backend, guint limit, CclReport* report) {
  const ccl::TableView reported = backend->selection.table;
  std::vector<guint>& roi = backend->roi;
  roi.resize(reported.size);
  for (guint i = 0; i < roi.size(); ++i) roi[i] = i;
  std::nth_element(roi.begin(), roi.begin() + limit, roi.end(), [&](guint a, guint b) {
    return ccl::reported_before(reported.data[a], reported.data[b]);
  });
  roi.resize(limit);
  std::sort(roi.begin(), roi.end());
  report->roi_indices = roi.data();
  report->n_roi = limit;
}

}  // namespace

namespace {

void set_blob_options(const CclSettings* settings, ccl::Options& options) {
  options.properties = settings->blob_properties;
  options.min_circularity = settings->min_circularity;
  options.max_circularity = settings->max_circularity;
  options.min_intensity = settings->min_intensity;
  options.max_intensity = settings->max_intensity;
  options.min_eccentricity = settings->min_eccentricity;
  options.max_eccentricity = settings->max_eccentricity;
}

// A frame's blob entries: with blob properties asked for, or a blob filter set (its
// values are then known, and the application may want to see what passed), the
// groups the engine computed, the shape always.
ccl::plugin::BlobRequest blob_request(const ccl::Options& options) {
  ccl::plugin::BlobRequest r;
  r.properties = ccl::needed_properties(options);
  r.with_blobs = r.properties != 0 || options.filters_blobs();
  return r;
}

uint32_t overlay_alpha256(const CclSettings* settings) {
  return uint32_t(std::lround(CLAMP(settings->overlay_alpha, 0.0, 1.0) * 256));
}

ccl::ImageView frame_view(const CclBackend* backend, GstVideoFrame* frame,
                          gboolean device_memory) {
  ccl::ImageView view;
  if (!to_pixel_format(GST_VIDEO_FRAME_FORMAT(frame), &view.format))
    throw Failure(CCL_BACKEND_ERROR_INPUT, "unsupported frame format");
  view.width = GST_VIDEO_FRAME_WIDTH(frame);
  view.height = GST_VIDEO_FRAME_HEIGHT(frame);
  view.space = device_memory ? ccl::MemorySpace::Device : ccl::MemorySpace::Host;
  if (device_memory && backend->kind != CCL_BACKEND_CUDA)
    throw Failure(CCL_BACKEND_ERROR_INPUT, "a frame in CUDA memory reached the cpu backend");
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES(frame) && p < 3; ++p) {
    view.planes[p] = GST_VIDEO_FRAME_PLANE_DATA(frame, p);
    view.strides[p] = size_t(GST_VIDEO_FRAME_PLANE_STRIDE(frame, p));
  }
  return view;
}

// The engine's options of the frame's settings, selection and label image aside.
ccl::Options engine_options(const CclSettings* settings) {
  ccl::Options options;
  options.threshold = int(settings->threshold);
  options.mode = to_mode(settings->threshold_mode);
  options.connectivity = int(settings->connectivity);
  options.algorithm = to_algorithm(settings->algorithm);
  options.foreground = to_foreground(settings->foreground);
  options.background.history = int(MIN(settings->history, guint(G_MAXINT)));
  options.background.learning_rate = settings->learning_rate;
  options.background.variance_threshold = settings->variance_threshold;
  options.background.detect_shadows = settings->detect_shadows != FALSE;
  options.background.compensate_light = settings->light_compensation != FALSE;
  options.local.block_size = settings->block_size;
  options.local.offset = settings->offset;
  for (int i = 0; i < 3; ++i) {
    options.color.low[i] = settings->color_low[i];
    options.color.high[i] = settings->color_high[i];
  }
  options.open_radius = int(MIN(settings->open_radius, guint(G_MAXINT)));
  options.close_radius = int(MIN(settings->close_radius, guint(G_MAXINT)));
  options.group_gap = settings->group_gap;
  // The blob filters are settings like the others: validate refuses an empty range.
  set_blob_options(settings, options);
  return options;
}

}  // namespace

guint ccl_settings_overlay_flags(const CclSettings* settings) {
  guint flags = settings->overlay;
  if (!overlay_alpha256(settings)) flags &= ~guint(CCL_OVERLAY_FILL | CCL_OVERLAY_FOREGROUND);
  return flags;
}

gboolean ccl_backend_supports_format(GstVideoFormat format) {
  PixelFormat f;
  return to_pixel_format(format, &f);
}

G_DEFINE_QUARK(ccl-backend-error-quark, ccl_backend_error)

gboolean ccl_backend_cuda_usable(gint device_id, GError** error) {
  std::string reason;
  bool ok = false;
  try {
    ok = ccl::cuda::device_usable(device_id, &reason);
  } catch (const std::exception& e) {
    reason = e.what();
  }
  if (!ok)
    g_set_error_literal(error, CCL_BACKEND_ERROR, CCL_BACKEND_ERROR_NO_DEVICE, reason.c_str());
  return ok;
}

CclBackend* ccl_backend_new(CclBackendKind kind, gint device_id, GError** error) {
  auto backend = std::make_unique<CclBackend>();
  backend->kind = kind;
  // The CUDA backend's engine refuses a device it cannot use (ccl::Error).
  const CclBackendError step =
      kind == CCL_BACKEND_CUDA ? CCL_BACKEND_ERROR_NO_DEVICE : CCL_BACKEND_ERROR_FAILED;
  if (!guarded(error, step, [&] {
        backend->impl = kind == CCL_BACKEND_CUDA ? ccl::plugin::make_cuda_backend(device_id)
                                                 : ccl::plugin::make_cpu_backend();
      }))
    return nullptr;
  return backend.release();
}

void ccl_backend_free(CclBackend* backend) { delete backend; }

void ccl_backend_reset_tracks(CclBackend* backend, CclTrackReset how) {
  switch (how) {
    case CCL_TRACKS_END: backend->tracker.reset(); break;
    case CCL_TRACKS_NEW_STREAM: backend->tracker.reset_ids(); break;
  }
  backend->tracked = false;
}

gboolean ccl_backend_reset_foreground(CclBackend* backend, GError** error) {
  return guarded(error, CCL_BACKEND_ERROR_FAILED, [&] { backend->impl->reset_foreground(); });
}

gboolean ccl_backend_set_region(CclBackend* backend, const CclRegion* region, GError** error) {
  // A region the engine refuses (its size) is the input's fault; device memory
  // running out while uploading it stays NO_MEMORY (guarded maps ccl::CudaError).
  return guarded(error, CCL_BACKEND_ERROR_INPUT, [&] {
    if (region)
      backend->impl->set_region(region->pixels, region->width, region->height);
    else
      backend->impl->set_region(nullptr, 0, 0);
  });
}

const gchar* ccl_backend_get_name(const CclBackend* backend) { return backend->impl->name(); }

CclBackendKind ccl_backend_get_kind(const CclBackend* backend) { return backend->kind; }

gboolean ccl_backend_configure(CclBackend* backend, const GstVideoInfo* info, GError** error) {
  return guarded(error, CCL_BACKEND_ERROR_FAILED, [&] {
    PixelFormat format;
    if (!to_pixel_format(GST_VIDEO_INFO_FORMAT(info), &format))
      throw Failure(CCL_BACKEND_ERROR_INPUT,
                    std::string("unsupported format ") +
                        gst_video_format_to_string(GST_VIDEO_INFO_FORMAT(info)));
    // A new size or format also restarts the foreground model: the engine's and the
    // CPU stage's own rule, at the first frame that has it.
    backend->impl->configure(format, GST_VIDEO_INFO_WIDTH(info), GST_VIDEO_INFO_HEIGHT(info));
  });
}

gboolean ccl_backend_process(CclBackend* backend, GstVideoFrame* frame, gboolean device_memory,
                             const CclSettings* settings, CclKeepFunc keep, gpointer keep_data,
                             CclReport* report, GError** error) {
  backend->to_draw = false;
  backend->mask_ready = false;
  return guarded(error, CCL_BACKEND_ERROR_FAILED, [&] {
    const ccl::ImageView view = frame_view(backend, frame, device_memory);
    ccl::Options options = engine_options(settings);
    // The engine refuses bad frames and bad settings alike (ccl::validate): checked
    // here with the default settings first, what the frame itself lacks is told
    // apart from what the settings ask.
    try {
      ccl::validate(view, ccl::Options{});
    } catch (const ccl::Error& e) {
      throw Failure(CCL_BACKEND_ERROR_INPUT, e.what());
    }
    try {
      ccl::validate(view, options);
    } catch (const ccl::Error& e) {
      throw Failure(CCL_BACKEND_ERROR_SETTINGS, e.what());
    }

    const uint32_t flags = ccl_settings_overlay_flags(settings);
    // The foreground tint reads the label image too: every labeled pixel, reported
    // or not, is foreground. The analytics mask is drawn from it.
    options.write_labels = (flags & (CCL_OVERLAY_FILL | CCL_OVERLAY_FOREGROUND)) != 0 ||
                           settings->analytics_mask;
    options.min_area = settings->min_area;
    options.max_area = settings->max_area;
    options.max_components = settings->max_components;

    guint64 t = g_get_monotonic_time();
    auto lap = [&](int step) {
      const guint64 now = g_get_monotonic_time();
      report->step_ns[step] = (now - t) * 1000;
      t = now;
    };
    const ccl::TableView reported = backend->impl->label(view, options, options.write_labels,
                                                         flags != 0, backend->result);
    lap(0);
    const std::vector<uint32_t>& group_of = backend->result.group_of;
    backend->labels =
        group_of.empty() ? backend->result.num_components : uint32_t(group_of.size() - 1);
    const ccl::plugin::BlobRequest blobs = blob_request(options);
    ccl::plugin::select_components(reported, backend->labels, flags != 0, blobs,
                                   {keep, keep_data}, backend->selection);
    lap(1);
    if (settings->tracking) {
      track(backend, view.width, view.height, settings, flags);
    } else if (backend->tracked) {
      // Tracking was switched off: what it knew is stale by the time it is back on.
      backend->tracker.reset();
      backend->tracked = false;
    }

    if (!group_of.empty()) ccl::plugin::spread_to_pieces(group_of, backend->selection);
    lap(2);
    report->step_ns[3] = 0;

    const int64_t gpu_ns = backend->impl->gpu_time_ns();
    report->tracking = settings->tracking;
    report->total_count = backend->result.num_components;
    report->n_components = guint(backend->selection.n_reported);
    report->threshold = guint(backend->result.threshold_used);
    report->gpu_time = gpu_ns < 0 ? GST_CLOCK_TIME_NONE : GstClockTime(gpu_ns);
    report->roi_indices = nullptr;
    report->n_roi = report->n_components;
    if (settings->max_roi_metas < report->n_components)
      pick_roi(backend, settings->max_roi_metas, report);
    lap(4);
    backend->reported_labels.clear();
    if (settings->analytics_mask)
      for (const ccl::Component& c : backend->selection.table)
        backend->reported_labels.push_back(c.label);
    report->with_blobs = blobs.with_blobs;
    report->blob_properties = blobs.properties;
    report->components = backend->selection.reported.release();
    report->blobs = backend->selection.blobs.release();
    report->draws = backend->to_draw = flags != 0;
    backend->mask_ready = settings->analytics_mask != FALSE;
  });
}

gboolean ccl_backend_draw(CclBackend* backend, GstVideoFrame* frame, gboolean device_memory,
                          const CclSettings* settings, const CclShapes* shapes,
                          CclReport* report, GError** error) {
  if (!backend->to_draw) return TRUE;
  backend->to_draw = false;
  return guarded(error, CCL_BACKEND_ERROR_FAILED, [&] {
    const guint64 t = g_get_monotonic_time();
    const ccl::ImageView view = frame_view(backend, frame, device_memory);
    uint32_t flags = ccl_settings_overlay_flags(settings);
    ccl::plugin::Selection& sel = backend->selection;
    if (shapes && !shapes->segments.empty())
      sel.trails.insert(sel.trails.end(), shapes->segments.begin(), shapes->segments.end());
    else
      flags &= ~guint(CCL_OVERLAY_EVENTS);
    // Without reported components only the foreground tint and the shapes have
    // something to draw.
    const bool draws =
        flags != 0 && (sel.n_reported != 0 || (flags & CCL_OVERLAY_EVENTS) ||
                       ((flags & CCL_OVERLAY_FOREGROUND) && backend->result.num_components != 0));
    if (draws) backend->impl->draw(view, sel, flags, overlay_alpha256(settings));
    const int64_t gpu_ns = backend->impl->gpu_time_ns();
    report->gpu_time = gpu_ns < 0 ? GST_CLOCK_TIME_NONE : GstClockTime(gpu_ns);
    report->step_ns[3] = (g_get_monotonic_time() - t) * 1000;
  });
}

gboolean ccl_backend_write_mask(CclBackend* backend, const guint* ids, gint x, gint y,
                                guint width, guint height, guint bytes_per_pixel, guint8* mask,
                                gsize stride, GError** error) {
  return guarded(error, CCL_BACKEND_ERROR_FAILED, [&] {
    if (bytes_per_pixel != 1 && bytes_per_pixel != 2)
      throw Failure(CCL_BACKEND_ERROR_FAILED, "a mask has 1 or 2 bytes per pixel");
    if (!backend->mask_ready)
      throw Failure(CCL_BACKEND_ERROR_FAILED,
                    "the last frame was not labeled with analytics_mask, or its labeling failed");
    // The rectangle must lie in the frame the label image is of.
    const int64_t frame_w = backend->result.width, frame_h = backend->result.height;
    if (x < 0 || y < 0 || int64_t(x) + int64_t(width) > frame_w ||
        int64_t(y) + int64_t(height) > frame_h)
      throw Failure(CCL_BACKEND_ERROR_FAILED,
                    "mask rectangle " + std::to_string(width) + "x" + std::to_string(height) +
                        "+" + std::to_string(x) + "+" + std::to_string(y) +
                        " outside the " + std::to_string(frame_w) + "x" +
                        std::to_string(frame_h) + " frame");
    if (width == 0 || height == 0) return;
    if (!mask || stride < gsize(width) * bytes_per_pixel)
      throw Failure(CCL_BACKEND_ERROR_FAILED, "mask rows shorter than the rectangle's");
    // The id of each label: the reported ones', their groups' for pieces, else 0.
    std::vector<uint32_t>& id_of = backend->id_of;
    id_of.assign(size_t(backend->labels) + 1, 0);
    for (size_t i = 0; i < backend->reported_labels.size(); ++i)
      if (backend->reported_labels[i] < id_of.size()) id_of[backend->reported_labels[i]] = ids[i];
    const std::vector<uint32_t>& group_of = backend->result.group_of;
    for (size_t l = 1; l < id_of.size() && l < group_of.size(); ++l) id_of[l] = id_of[group_of[l]];
    backend->impl->write_mask(id_of, int(frame_w), x, y, int(width), int(height),
                              int(bytes_per_pixel), mask, size_t(stride));
  });
}
