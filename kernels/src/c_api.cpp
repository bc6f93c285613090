// The C interface (ccl/ccl.h) over the C++ engine: handles, sized structs, and every
// exception turned into a status plus this thread's message.
#include "ccl/ccl.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include "c_api_columns.h"
#include "c_api_device.h"
#include "c_api_guard.h"
#include "ccl/blob.h"
#include "ccl/cpu_labeler.h"
#include "ccl/cuda_engine.h"
#include "ccl/foreground.h"
#include "ccl/reference.h"
#include "ccl/tracker.h"
#include "ccl/types.h"

// ccl_component is ccl::Component with C names: tables pass between them as they are.
#define CCL_SAME_FIELD(f) \
  static_assert(offsetof(ccl_component, f) == offsetof(ccl::Component, f), "ccl_component." #f)
static_assert(sizeof(ccl_component) == sizeof(ccl::Component), "ccl_component mirrors ccl::Component");
CCL_SAME_FIELD(label);
CCL_SAME_FIELD(x);
CCL_SAME_FIELD(y);
CCL_SAME_FIELD(width);
CCL_SAME_FIELD(height);
CCL_SAME_FIELD(area);
CCL_SAME_FIELD(sum_x);
CCL_SAME_FIELD(sum_y);
CCL_SAME_FIELD(sum_xx);
CCL_SAME_FIELD(sum_xy);
CCL_SAME_FIELD(sum_yy);
#undef CCL_SAME_FIELD

// ccl_blob is ccl::Blob with C names, likewise.
#define CCL_SAME_FIELD(f) \
  static_assert(offsetof(ccl_blob, f) == offsetof(ccl::Blob, f), "ccl_blob." #f)
static_assert(sizeof(ccl_blob) == sizeof(ccl::Blob), "ccl_blob mirrors ccl::Blob");
CCL_SAME_FIELD(intensity_sum);
CCL_SAME_FIELD(intensity_sum_sq);
CCL_SAME_FIELD(channel_sum);
CCL_SAME_FIELD(intensity_min);
CCL_SAME_FIELD(intensity_max);
CCL_SAME_FIELD(perimeter_counts);
CCL_SAME_FIELD(euler);
#undef CCL_SAME_FIELD

// The blob members were appended to the struct of 0.3, which ended at group_gap: an
// older caller's size is exactly where they start, so none of its padding is read as them.
static_assert(offsetof(ccl_options, properties) == 128 &&
                  offsetof(ccl_options, group_gap) + sizeof(int32_t) == 128,
              "ccl_options: the blob members follow the 128 bytes of the older struct");
static_assert(uint32_t(CCL_PROPERTY_INTENSITY) == ccl::kPropertyIntensity &&
                  uint32_t(CCL_PROPERTY_COLOR) == ccl::kPropertyColor &&
                  uint32_t(CCL_PROPERTY_PERIMETER) == ccl::kPropertyPerimeter &&
                  uint32_t(CCL_PROPERTY_EULER) == ccl::kPropertyEuler &&
                  uint32_t(CCL_PROPERTY_ALL) == ccl::kAllProperties,
              "CCL_PROPERTY_* are ccl::Property's bits");

// One copy of this thread's failure for every file of the interface (c_api_guard.h).
std::string& ccl::capi::last_error() {
  thread_local std::string message;
  return message;
}

int& ccl::capi::last_cuda_error() {
  thread_local int code = 0;
  return code;
}

namespace {

using ccl::capi::guarded;
using ccl::capi::Invalid;
using ccl::capi::read_sized;
using ccl::capi::Unsupported;
using ccl::capi::write_sized;

// The CUDA work of one ccl::cuda::Engine: its own, or a foreground model's.
struct CudaRunner {
  std::unique_ptr<ccl::cuda::Engine> engine;
  std::unique_ptr<ccl::capi::DeviceSide> side;
};

CudaRunner make_runner(int device, bool profiling) {
  CudaRunner r;
  r.engine = std::make_unique<ccl::cuda::Engine>(device);
  r.side = ccl::capi::DeviceSide::create(r.engine->device_id());
  if (profiling) r.engine->set_profiling(ccl::cuda::Profiling::Labeling);
  return r;
}

ccl::PixelFormat engine_format(int f) {
  switch (f) {
    case CCL_FORMAT_GRAY8: return ccl::PixelFormat::Gray8;
    case CCL_FORMAT_GRAY16LE: return ccl::PixelFormat::Gray16LE;
    case CCL_FORMAT_RGB:  // widened first
    case CCL_FORMAT_RGBX: return ccl::PixelFormat::RGBx;
    case CCL_FORMAT_RGBA: return ccl::PixelFormat::RGBA;
    case CCL_FORMAT_BGRA: return ccl::PixelFormat::BGRA;
    case CCL_FORMAT_BGRX: return ccl::PixelFormat::BGRx;
    default: throw Invalid("unknown image format " + std::to_string(f));
  }
}

int bytes_per_pixel(int f) {
  return f == CCL_FORMAT_GRAY8 ? 1 : f == CCL_FORMAT_GRAY16LE ? 2 : f == CCL_FORMAT_RGB ? 3 : 4;
}

ccl::Options engine_options(const ccl_options& o) {
  ccl::Options e;
  e.threshold = o.threshold;
  switch (o.mode) {
    case CCL_MODE_ABOVE: e.mode = ccl::ThresholdMode::Above; break;
    case CCL_MODE_BELOW: e.mode = ccl::ThresholdMode::Below; break;
    case CCL_MODE_OTSU: e.mode = ccl::ThresholdMode::Otsu; break;
    default: throw Invalid("unknown threshold mode " + std::to_string(o.mode));
  }
  e.connectivity = o.connectivity;
  const auto& registry = ccl::algorithms();
  if (o.algorithm < 0 || size_t(o.algorithm) >= registry.size())
    throw Invalid("algorithm index " + std::to_string(o.algorithm) + " is outside 0.." +
                  std::to_string(registry.size() - 1));
  e.algorithm = registry[size_t(o.algorithm)].id;
  e.write_labels = o.write_labels != 0;
  e.min_area = o.min_area;
  e.max_area = o.max_area;
  e.max_components = o.max_components;
  switch (o.foreground) {
    case CCL_FOREGROUND_THRESHOLD: e.foreground = ccl::ForegroundModel::Threshold; break;
    case CCL_FOREGROUND_BACKGROUND: e.foreground = ccl::ForegroundModel::Background; break;
    case CCL_FOREGROUND_LOCAL: e.foreground = ccl::ForegroundModel::Local; break;
    case CCL_FOREGROUND_COLOR: e.foreground = ccl::ForegroundModel::Color; break;
    default: throw Invalid("unknown foreground model " + std::to_string(o.foreground));
  }
  e.background.history = o.history;
  e.background.learning_rate = o.learning_rate;
  e.background.variance_threshold = o.variance_threshold;
  e.background.detect_shadows = o.detect_shadows != 0;
  e.local.block_size = o.block_size;
  e.local.offset = o.offset;
  for (int i = 0; i < 3; ++i) {
    e.color.low[i] = o.color_low[i];
    e.color.high[i] = o.color_high[i];
  }
  e.open_radius = o.open_radius;
  e.close_radius = o.close_radius;
  e.background.compensate_light = o.compensate_light != 0;
  e.group_gap = o.group_gap;
  e.properties = o.properties;
  e.min_circularity = o.min_circularity;
  e.max_circularity = o.max_circularity;
  e.min_intensity = o.min_intensity;
  e.max_intensity = o.max_intensity;
  e.min_eccentricity = o.min_eccentricity;
  e.max_eccentricity = o.max_eccentricity;
  return e;
}

}  // namespace

struct ccl_engine {
  int backend = CCL_BACKEND_CPU;
  int device = -1;
  bool profiling = false;
  CudaRunner cuda;                // CUDA backend
  ccl::ForegroundStage stage;     // CPU backend, models without state
  ccl::Result result;             // the last frame (CPU; CUDA: counts, host labels)
  std::vector<uint8_t> widened;   // a host RGB frame as RGBx
  ccl::TableView table;           // the last frame's reported components (and blobs)
  uint32_t properties = 0;        // the Property bits the last frame computed
  int width = 0, height = 0;
  bool has_frame = false;
  // A device frame's runner (its own or a foreground model's) and stream, for
  // ccl_engine_device_columns; null after any other frame.
  CudaRunner* device_runner = nullptr;
  uintptr_t device_stream = 0;
  // A frame ccl_engine_submit queued and nobody has waited for yet (its runner), and
  // the result it returned, whose counts the wait fills in.
  CudaRunner* unsettled = nullptr;
  ccl_result submitted = {};
};

struct ccl_foreground {
  int backend = CCL_BACKEND_CPU;
  int device = -1;
  ccl::ForegroundStage stage;  // CPU
  // CUDA: the model lives in an engine's device memory, so the model has an engine of
  // its own and the frames it sees run there.
  CudaRunner cuda;
};

struct ccl_tracker {
  ccl::Tracker tracker;
  std::vector<ccl::TrackInfo> tracks;
};

namespace {

// The reported components of a Result and, with properties, their blobs.
ccl::TableView result_table(const ccl::Result& r) {
  ccl::TableView t{r.components.data(), uint32_t(r.components.size())};
  if (!r.blobs.empty()) {
    if (r.blobs.size() != r.components.size())
      throw std::runtime_error("internal: " + std::to_string(r.blobs.size()) + " blobs for " +
                               std::to_string(r.components.size()) + " components");
    t.blobs = r.blobs.data();
  }
  return t;
}

void label_cpu(ccl_engine& e, ccl_foreground* fg, const ccl_image& img, ccl::ImageView view,
               const ccl::Options& options) {
  if (img.memory != CCL_MEMORY_HOST)
    throw Invalid("the CPU backend reads host memory only: this image is in device memory");
  ccl::ForegroundStage& stage = fg ? fg->stage : e.stage;
  ccl::label_frame_cpu(view, options, stage, e.result);
  e.table = result_table(e.result);
}

void label_cuda(ccl_engine& e, ccl_foreground* fg, const ccl_image& img, ccl::ImageView view,
                const ccl::Options& options, const ccl_labels* labels, bool wait) {
  CudaRunner& r = fg ? fg->cuda : e.cuda;
  if (img.memory == CCL_MEMORY_HOST) {
    // Uploaded, labeled and waited for on the legacy default stream.
    r.side->begin(0);
    r.engine->label_host(view, options, e.result, nullptr);
    r.side->end(0);
    e.table = result_table(e.result);
    return;
  }
  const uintptr_t stream = img.stream;
  r.side->begin(stream);
  if (img.format == CCL_FORMAT_RGB) {
    view.planes[0] = const_cast<void*>(
        r.side->widen_rgb(img.data, img.stride, img.width, img.height, stream));
    view.strides[0] = size_t(img.width) * 4;
  }
  r.engine->enqueue(view, options, reinterpret_cast<cudaStream_t>(stream));
  // Queued before the wait, so the copy starts as soon as the labels are written.
  if (labels && options.write_labels)
    r.side->copy_labels(r.engine->device_labels(), img.width, img.height, labels->data,
                        labels->stride, labels->memory == CCL_MEMORY_HOST, stream);
  r.side->end(stream);
  e.device_runner = &r;
  e.device_stream = stream;
  if (wait)
    e.table = r.engine->finish_in_place(e.result, false);
  else
    e.unsettled = &r;
}

// Waits for a frame ccl_engine_submit left in flight: its counts and table.
void settle(ccl_engine& e) {
  if (!e.unsettled) return;
  CudaRunner& r = *e.unsettled;
  e.unsettled = nullptr;  // an error below leaves no frame to wait for
  e.has_frame = false;
  e.table = r.engine->finish_in_place(e.result, false);
  if (!e.properties) e.table.blobs = nullptr;
  e.submitted.threshold_used = e.result.threshold_used;
  e.submitted.num_components = e.result.num_components;
  e.submitted.num_reported = e.table.size;
  e.has_frame = true;
}

// Host labels of the last frame (e.result.labels) into the caller's buffer.
void copy_host_labels(ccl_engine& e, const ccl_labels& out, uintptr_t stream) {
  const std::vector<uint32_t>& src = e.result.labels;
  if (src.size() != size_t(e.width) * size_t(e.height))
    throw Invalid("internal: the frame's label image is missing");
  if (out.memory == CCL_MEMORY_DEVICE) {
    if (e.backend != CCL_BACKEND_CUDA)
      throw Invalid("the CPU backend writes labels into host memory only");
    CudaRunner& r = e.cuda;
    r.side->copy_labels(src.data(), e.width, e.height, out.data, out.stride, false, stream);
    return;
  }
  const size_t row = size_t(e.width) * sizeof(uint32_t);
  for (int y = 0; y < e.height; ++y)
    std::memcpy(static_cast<uint8_t*>(out.data) + size_t(y) * size_t(out.stride),
                src.data() + size_t(y) * size_t(e.width), row);
}

// Rows [begin, end) of the columns ccl_engine_columns writes (n rows per column).
void write_columns(const ccl::TableView& t, size_t begin, size_t end, int64_t* ints,
                   double* floats) {
  for (size_t i = begin; i < end; ++i)
    ccl::capi::write_column_row(t.data[i], i, t.size, ints, floats);
}

// Rows [begin, end) of the columns ccl_engine_blob_columns writes: NaN for the
// properties not computed (`properties`: the frame's Property bits).
void write_blob_columns(const ccl::TableView& t, uint32_t properties, size_t begin, size_t end,
                        double* floats) {
  const size_t n = t.size;
  const double nan = std::nan("");
  const ccl::Blob none;
  for (size_t i = begin; i < end; ++i) {
    const ccl::Component& c = t.data[i];
    const ccl::Blob& b = t.blobs ? t.blobs[i] : none;
    double* F = floats + i;
    const bool intensity = properties & ccl::kPropertyIntensity;
    F[CCL_BLOB_COL_INTENSITY_MEAN * n] = intensity ? ccl::intensity_mean(c, b) : nan;
    F[CCL_BLOB_COL_INTENSITY_STD * n] = intensity ? ccl::intensity_std(c, b) : nan;
    F[CCL_BLOB_COL_INTENSITY_MIN * n] = intensity ? double(b.intensity_min) : nan;
    F[CCL_BLOB_COL_INTENSITY_MAX * n] = intensity ? double(b.intensity_max) : nan;
    const bool color = properties & ccl::kPropertyColor;
    for (int k = 0; k < 3; ++k)
      F[(CCL_BLOB_COL_COLOR_MEAN0 + k) * n] = color ? ccl::channel_mean(c, b, k) : nan;
    const bool perimeter = properties & ccl::kPropertyPerimeter;
    F[CCL_BLOB_COL_PERIMETER * n] = perimeter ? ccl::perimeter(b) : nan;
    F[CCL_BLOB_COL_CIRCULARITY * n] = perimeter ? ccl::circularity(c, b) : nan;
    F[CCL_BLOB_COL_EULER_NUMBER * n] = properties & ccl::kPropertyEuler ? double(b.euler) : nan;
    const ccl::Shape s = ccl::shape_of(c);
    F[CCL_BLOB_COL_ORIENTATION * n] = s.orientation;
    F[CCL_BLOB_COL_AXIS_MAJOR_LENGTH * n] = s.axis_major_length;
    F[CCL_BLOB_COL_AXIS_MINOR_LENGTH * n] = s.axis_minor_length;
    F[CCL_BLOB_COL_ECCENTRICITY * n] = s.eccentricity;
    F[CCL_BLOB_COL_INERTIA_RATIO * n] = s.inertia_ratio;
  }
}

// Runs fn(begin, end) over rows [0, n): tables of many components (a noisy 4K frame has
// half a million) are split over threads, each taking at least `per_thread` rows.
template <class F>
void over_rows(size_t n, size_t per_thread, F fn) {
  if (n <= per_thread) {
    fn(size_t(0), n);
    return;
  }
  // Asked once: it reads a file under /sys, microseconds that a small frame notices.
  static const size_t cores = std::max(1u, std::thread::hardware_concurrency());
  const size_t parts = std::min<size_t>({cores, size_t(8), (n + per_thread - 1) / per_thread});
  std::vector<std::thread> helpers;
  const size_t chunk = (n + parts - 1) / parts;
  for (size_t p = 1; p < parts; ++p)
    helpers.emplace_back(fn, p * chunk, std::min(n, (p + 1) * chunk));
  fn(size_t(0), chunk);
  for (std::thread& h : helpers) h.join();
}

void check_engine(const ccl_engine* e) {
  if (!e) throw Invalid("engine is NULL");
}

}  // namespace

extern "C" {

int ccl_abi_version(void) { return CCL_ABI_VERSION; }

const char* ccl_version(void) {
#ifdef CCL_VERSION
  return CCL_VERSION;
#else
  return "unknown";
#endif
}

const char* ccl_last_error(void) { return ccl::capi::last_error().c_str(); }

int ccl_last_cuda_error(void) { return ccl::capi::last_cuda_error(); }

const char* ccl_last_cuda_error_name(void) {
  const int code = ccl::capi::last_cuda_error();
  return code ? ccl::capi::cuda_error_name(code) : "cudaSuccess";
}

int ccl_cuda_compiled(void) { return ccl::cuda::compiled_with_cuda() ? 1 : 0; }

int ccl_cuda_device_usable(int device, char* why, size_t why_size) {
  try {
    std::string reason;
    const bool usable = ccl::cuda::device_usable(device, &reason);
    if (why && why_size) {
      const size_t n = std::min(reason.size(), why_size - 1);
      std::memcpy(why, reason.data(), n);
      why[n] = '\0';
    }
    return usable ? 1 : 0;
  } catch (...) {
    return 0;
  }
}

ccl_status ccl_cuda_pointer_device(uintptr_t pointer, int* device) {
  return guarded([&] {
    if (!device) throw Invalid("device is NULL");
    if (!ccl::capi::cuda_pointer_device(pointer, device))
      throw Invalid("the pointer is not CUDA device memory");
  });
}

int ccl_algorithm_count(void) { return int(ccl::algorithms().size()); }

const char* ccl_algorithm_name(int index) {
  const auto& list = ccl::algorithms();
  return index >= 0 && size_t(index) < list.size() ? list[size_t(index)].nick : nullptr;
}

void ccl_options_init(ccl_options* o) {
  if (!o) return;
  const ccl::Options d;
  ccl_options c = {};
  c.size = sizeof(ccl_options);
  c.threshold = d.threshold;
  c.mode = CCL_MODE_ABOVE;
  c.connectivity = d.connectivity;
  const auto& list = ccl::algorithms();
  for (size_t i = 0; i < list.size(); ++i)
    if (list[i].id == d.algorithm) c.algorithm = int32_t(i);
  c.write_labels = 1;
  c.max_components = d.max_components;
  c.min_area = d.min_area;
  c.max_area = d.max_area;
  c.foreground = CCL_FOREGROUND_THRESHOLD;
  c.history = d.background.history;
  c.learning_rate = d.background.learning_rate;
  c.variance_threshold = d.background.variance_threshold;
  c.detect_shadows = d.background.detect_shadows ? 1 : 0;
  c.block_size = d.local.block_size;
  c.offset = d.local.offset;
  for (int i = 0; i < 3; ++i) {
    c.color_low[i] = d.color.low[i];
    c.color_high[i] = d.color.high[i];
  }
  c.open_radius = d.open_radius;
  c.close_radius = d.close_radius;
  c.compensate_light = d.background.compensate_light ? 1 : 0;
  c.group_gap = d.group_gap;
  c.properties = d.properties;
  c.min_circularity = d.min_circularity;
  c.max_circularity = d.max_circularity;
  c.min_intensity = d.min_intensity;
  c.max_intensity = d.max_intensity;
  c.min_eccentricity = d.min_eccentricity;
  c.max_eccentricity = d.max_eccentricity;
  *o = c;
}

void ccl_tracker_options_init(ccl_tracker_options* o) {
  if (!o) return;
  o->size = sizeof(ccl_tracker_options);
  o->max_lost = ccl::TrackerOptions{}.max_lost;
}

ccl_status ccl_engine_create(int backend, int device, ccl_engine** out) {
  return guarded([&] {
    if (!out) throw Invalid("out is NULL");
    *out = nullptr;
    auto e = std::make_unique<ccl_engine>();
    e->backend = backend;
    if (backend == CCL_BACKEND_CUDA) {
      if (!ccl::cuda::compiled_with_cuda())
        throw Unsupported("this libccl was built without CUDA: use the CPU backend");
      std::string why;
      if (!ccl::cuda::device_usable(device, &why))
        throw Unsupported("no usable CUDA device: " + why);
      e->cuda = make_runner(device, false);
      e->device = e->cuda.engine->device_id();
    } else if (backend != CCL_BACKEND_CPU) {
      throw Invalid("unknown backend " + std::to_string(backend));
    }
    *out = e.release();
  });
}

void ccl_engine_destroy(ccl_engine* engine) { delete engine; }

ccl_status ccl_engine_set_profiling(ccl_engine* engine, int on) {
  return guarded([&] {
    check_engine(engine);
    settle(*engine);  // a frame in flight was queued without the profiling's events
    engine->profiling = on != 0;
    if (engine->cuda.engine)
      engine->cuda.engine->set_profiling(on ? ccl::cuda::Profiling::Labeling
                                            : ccl::cuda::Profiling::Off);
  });
}

namespace {

ccl_status label_frame(ccl_engine* engine, ccl_foreground* foreground, const ccl_image* image,
                       const ccl_options* options, const ccl_labels* labels, ccl_result* result,
                       bool wait) {
  return guarded([&] {
    check_engine(engine);
    ccl_engine& e = *engine;
    // The engine's buffers are about to be reused: a frame still in flight is waited
    // for first (its errors are this call's).
    settle(e);
    e.has_frame = false;
    e.submitted = {};
    e.table = {};
    e.properties = 0;
    e.device_runner = nullptr;
    if (!result) throw Invalid("result is NULL");
    const ccl_image img = read_sized(image, ccl_image{}, "image");
    ccl_options defaults;
    ccl_options_init(&defaults);
    const ccl_options opt = read_sized(options, defaults, "options");
    ccl_labels out = {};
    if (labels) out = read_sized(labels, ccl_labels{}, "labels");
    ccl::Options o = engine_options(opt);
    if (!labels) o.write_labels = false;

    if (img.memory != CCL_MEMORY_HOST && img.memory != CCL_MEMORY_DEVICE)
      throw Invalid("unknown image memory " + std::to_string(img.memory));
    if (img.width < 1 || img.height < 1)
      throw Invalid("image size " + std::to_string(img.width) + "x" +
                    std::to_string(img.height) + " is empty");
    if (!img.data) throw Invalid("image data is NULL");
    const int bpp = bytes_per_pixel(img.format);
    if (img.stride < int64_t(img.width) * bpp)
      throw Invalid("row stride " + std::to_string(img.stride) + " is smaller than a row of " +
                    std::to_string(img.width) + " pixels of " + std::to_string(bpp) + " bytes");
    if (labels) {
      if (!out.data) throw Invalid("labels.data is NULL");
      if (out.stride < int64_t(img.width) * 4)
        throw Invalid("labels.stride " + std::to_string(out.stride) +
                      " is smaller than a row of " + std::to_string(img.width) + " int32 labels");
      if (out.memory == CCL_MEMORY_DEVICE && img.memory == CCL_MEMORY_HOST &&
          e.backend != CCL_BACKEND_CUDA)
        throw Invalid("the CPU backend writes labels into host memory only");
    }
    if (o.foreground == ccl::ForegroundModel::Background && !foreground)
      throw Invalid("the background model keeps state between frames: it needs a ccl_foreground");
    if (foreground && (foreground->backend != e.backend || foreground->device != e.device))
      throw Invalid("the foreground model belongs to another backend or device than the engine");

    ccl::ImageView view;
    view.width = img.width;
    view.height = img.height;
    view.format = engine_format(img.format);
    view.space = img.memory == CCL_MEMORY_DEVICE ? ccl::MemorySpace::Device : ccl::MemorySpace::Host;
    view.planes[0] = const_cast<void*>(img.data);
    view.strides[0] = size_t(img.stride);
    if (img.format == CCL_FORMAT_RGB && img.memory == CCL_MEMORY_HOST) {
      // Widened on the host: the engine reads 4-byte pixels.
      e.widened.resize(size_t(img.width) * img.height * 4);
      for (int y = 0; y < img.height; ++y) {
        const uint8_t* s = static_cast<const uint8_t*>(img.data) + y * img.stride;
        uint8_t* d = e.widened.data() + size_t(y) * img.width * 4;
        for (int x = 0; x < img.width; ++x, s += 3, d += 4) {
          d[0] = s[0];
          d[1] = s[1];
          d[2] = s[2];
          d[3] = 255;
        }
      }
      view.planes[0] = e.widened.data();
      view.strides[0] = size_t(img.width) * 4;
    }
    if (img.format == CCL_FORMAT_RGB && img.memory == CCL_MEMORY_DEVICE)
      view.strides[0] = size_t(img.width) * 4;  // what label_cuda widens it to
    if (img.memory == CCL_MEMORY_DEVICE && e.backend == CCL_BACKEND_CUDA) {
      int holder = -1;
      if (!ccl::capi::cuda_pointer_device(reinterpret_cast<uintptr_t>(img.data), &holder))
        throw Invalid("the image is not in CUDA device memory");
      if (holder != e.device)
        throw Invalid("the image is on CUDA device " + std::to_string(holder) +
                      ", the engine on device " + std::to_string(e.device));
    }
    ccl::validate(view, o);

    e.width = img.width;
    e.height = img.height;
    if (e.backend == CCL_BACKEND_CUDA) {
      if (foreground && foreground->cuda.engine && e.profiling)
        foreground->cuda.engine->set_profiling(ccl::cuda::Profiling::Labeling);
      // Only a plain device frame is left in flight: a host frame's labels come back
      // in this call, a foreground model's engine is not this one, and profiling
      // reports the frame's GPU time.
      const bool deferred = !wait && img.memory == CCL_MEMORY_DEVICE && !foreground &&
                            !e.profiling;
      label_cuda(e, foreground, img, view, o, labels ? &out : nullptr, !deferred);
    } else {
      label_cpu(e, foreground, img, view, o);
    }
    // Host labels (CPU backend, or a host frame on the GPU) go to the caller here;
    // a device frame's labels were queued device to device by label_cuda.
    if (labels && o.write_labels && !(e.backend == CCL_BACKEND_CUDA && img.memory == CCL_MEMORY_DEVICE))
      copy_host_labels(e, out, img.stream);

    ccl_result r = {};
    r.size = sizeof(ccl_result);
    r.width = img.width;
    r.height = img.height;
    r.threshold_used = e.unsettled ? -1 : e.result.threshold_used;
    r.num_components = e.unsettled ? CCL_COUNT_PENDING : e.result.num_components;
    r.num_reported = e.unsettled ? CCL_COUNT_PENDING : e.table.size;
    r.backend = e.backend;
    r.device = e.device;
    r.read_pointer = reinterpret_cast<uintptr_t>(img.data);
    r.read_memory = img.memory;
    r.stream = img.memory == CCL_MEMORY_DEVICE ? img.stream : 0;
    e.properties = ccl::needed_properties(o);
    if (!e.properties) e.table.blobs = nullptr;
    else if (!e.unsettled && e.table.size && !e.table.blobs)
      throw std::runtime_error("internal: the backend returned no blobs for the properties asked");
    if (e.backend == CCL_BACKEND_CUDA && e.profiling) {
      CudaRunner& runner = foreground ? foreground->cuda : e.cuda;
      r.gpu_ms = runner.engine->stage_times().total;
    }
    e.has_frame = true;
    e.submitted = r;
    write_sized(result, r);
  });
}

}  // namespace

ccl_status ccl_engine_label(ccl_engine* engine, ccl_foreground* foreground,
                            const ccl_image* image, const ccl_options* options,
                            const ccl_labels* labels, ccl_result* result) {
  return label_frame(engine, foreground, image, options, labels, result, true);
}

ccl_status ccl_engine_submit(ccl_engine* engine, ccl_foreground* foreground,
                             const ccl_image* image, const ccl_options* options,
                             const ccl_labels* labels, ccl_result* result) {
  return label_frame(engine, foreground, image, options, labels, result, false);
}

ccl_status ccl_engine_wait(ccl_engine* engine, ccl_result* result) {
  return guarded([&] {
    check_engine(engine);
    if (!result) throw Invalid("result is NULL");
    ccl_engine& e = *engine;
    settle(e);
    if (!e.has_frame) throw Invalid("the engine has no labeled frame");
    write_sized(result, e.submitted);
  });
}

ccl_status ccl_engine_components(ccl_engine* engine, const ccl_component** data,
                                 uint32_t* count) {
  return guarded([&] {
    check_engine(engine);
    if (!data || !count) throw Invalid("data or count is NULL");
    settle(*engine);
    if (!engine->has_frame) throw Invalid("the engine has no labeled frame");
    *data = reinterpret_cast<const ccl_component*>(engine->table.data);
    *count = engine->table.size;
  });
}

ccl_status ccl_engine_device_columns(ccl_engine* engine, int64_t* ints, double* floats) {
  return ccl_engine_device_columns_on(engine, ints, floats, engine ? engine->device_stream : 0);
}

ccl_status ccl_engine_device_columns_on(ccl_engine* engine, int64_t* ints, double* floats,
                                        uintptr_t stream) {
  return guarded([&] {
    check_engine(engine);
    settle(*engine);
    if (!engine->has_frame) throw Invalid("the engine has no labeled frame");
    CudaRunner* r = engine->device_runner;
    if (!r) throw Invalid("device columns need the last frame to be a device image on the CUDA backend");
    const uint32_t n = engine->result.num_components;
    if (n && (!ints || !floats)) throw Invalid("ints or floats is NULL");
    // begin() orders the stream after the frame's work, whichever stream that was on.
    r->side->begin(stream);
    r->side->device_columns(r->engine->device_components(), n, ints, floats, stream);
    r->side->end(stream);
  });
}

ccl_status ccl_engine_columns(ccl_engine* engine, int64_t* ints, double* floats) {
  return guarded([&] {
    check_engine(engine);
    settle(*engine);
    if (!engine->has_frame) throw Invalid("the engine has no labeled frame");
    const ccl::TableView t = engine->table;
    if (t.size && (!ints || !floats)) throw Invalid("ints or floats is NULL");
    // One thread writes some 60 million rows a second into the 19 columns.
    over_rows(t.size, 65536, [&](size_t begin, size_t end) {
      write_columns(t, begin, end, ints, floats);
    });
  });
}

ccl_status ccl_engine_blobs(ccl_engine* engine, const ccl_blob** data, uint32_t* count) {
  return guarded([&] {
    check_engine(engine);
    if (!data || !count) throw Invalid("data or count is NULL");
    settle(*engine);
    if (!engine->has_frame) throw Invalid("the engine has no labeled frame");
    const bool any = engine->properties != 0 && engine->table.blobs != nullptr;
    *data = any ? reinterpret_cast<const ccl_blob*>(engine->table.blobs) : nullptr;
    *count = any ? engine->table.size : 0;
  });
}

ccl_status ccl_engine_blob_columns(ccl_engine* engine, double* floats) {
  return guarded([&] {
    check_engine(engine);
    settle(*engine);
    if (!engine->has_frame) throw Invalid("the engine has no labeled frame");
    const ccl::TableView t = engine->table;
    if (t.size && !floats) throw Invalid("floats is NULL");
    const uint32_t properties = engine->properties;
    // A row costs a few square roots and an arc tangent: one thread writes some 20
    // million rows a second into the 15 columns.
    over_rows(t.size, 16384, [&](size_t begin, size_t end) {
      write_blob_columns(t, properties, begin, end, floats);
    });
  });
}

ccl_status ccl_foreground_create(ccl_engine* engine, ccl_foreground** out) {
  return guarded([&] {
    check_engine(engine);
    if (!out) throw Invalid("out is NULL");
    *out = nullptr;
    auto f = std::make_unique<ccl_foreground>();
    f->backend = engine->backend;
    f->device = engine->device;
    if (engine->backend == CCL_BACKEND_CUDA) f->cuda = make_runner(engine->device, engine->profiling);
    *out = f.release();
  });
}

void ccl_foreground_destroy(ccl_foreground* foreground) { delete foreground; }

ccl_status ccl_foreground_reset(ccl_foreground* foreground) {
  return guarded([&] {
    if (!foreground) throw Invalid("foreground is NULL");
    if (foreground->cuda.engine) foreground->cuda.engine->reset_foreground();
    foreground->stage.reset();
  });
}

ccl_status ccl_tracker_create(const ccl_tracker_options* options, ccl_tracker** out) {
  return guarded([&] {
    if (!out) throw Invalid("out is NULL");
    *out = nullptr;
    ccl_tracker_options defaults;
    ccl_tracker_options_init(&defaults);
    const ccl_tracker_options o = options ? read_sized(options, defaults, "options") : defaults;
    ccl::TrackerOptions to;
    to.max_lost = o.max_lost;
    auto t = std::make_unique<ccl_tracker>();
    t->tracker.set_options(to);
    *out = t.release();
  });
}

void ccl_tracker_destroy(ccl_tracker* tracker) { delete tracker; }

ccl_status ccl_tracker_reset(ccl_tracker* tracker, int reset_ids) {
  return guarded([&] {
    if (!tracker) throw Invalid("tracker is NULL");
    if (reset_ids)
      tracker->tracker.reset_ids();
    else
      tracker->tracker.reset();
  });
}

namespace {

void write_tracks(const std::vector<ccl::TrackInfo>& in, ccl_track* out) {
  for (size_t i = 0; i < in.size(); ++i) {
    const ccl::TrackInfo& t = in[i];
    out[i] = ccl_track{t.id, t.parent_id, t.age, t.frames_unseen, t.velocity_x, t.velocity_y,
                       t.predicted_x, t.predicted_y, t.predicted_width, t.predicted_height};
  }
}

}  // namespace

ccl_status ccl_tracker_update(ccl_tracker* tracker, int width, int height,
                              const ccl_component* components, size_t count, ccl_track* out) {
  return guarded([&] {
    if (!tracker) throw Invalid("tracker is NULL");
    if (width < 1 || height < 1)
      throw Invalid("frame size " + std::to_string(width) + "x" + std::to_string(height) +
                    " is empty");
    if (count && (!components || !out)) throw Invalid("components or out is NULL");
    if (count > UINT32_MAX) throw Invalid("more than 2^32-1 components");
    const ccl::TableView table{reinterpret_cast<const ccl::Component*>(components),
                               uint32_t(count)};
    tracker->tracker.update(width, height, table, tracker->tracks);
    write_tracks(tracker->tracks, out);
  });
}

ccl_status ccl_tracker_update_engine(ccl_tracker* tracker, ccl_engine* engine, ccl_track* out) {
  return guarded([&] {
    if (!tracker) throw Invalid("tracker is NULL");
    check_engine(engine);
    settle(*engine);
    if (!engine->has_frame) throw Invalid("the engine has no labeled frame");
    if (engine->table.size && !out) throw Invalid("out is NULL");
    tracker->tracker.update(engine->width, engine->height, engine->table, tracker->tracks);
    write_tracks(tracker->tracks, out);
  });
}

}  // extern "C"
