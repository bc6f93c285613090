#include "element_util.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <sstream>

#include "ccl/cuda_engine.h"

namespace ccl::element_test {

const std::string& backend_under_test() {
  static const std::string backend = [] {
    const char* env = std::getenv("CCL_TEST_BACKEND");
    return std::string(env && *env ? env : "cpu");
  }();
  return backend;
}

bool cuda_usable(std::string* why) { return cuda::device_usable(-1, why); }

GstVideoFormat gst_format(PixelFormat f) {
  switch (f) {
    case PixelFormat::Gray8: return GST_VIDEO_FORMAT_GRAY8;
    case PixelFormat::Gray16LE: return GST_VIDEO_FORMAT_GRAY16_LE;
    case PixelFormat::NV12: return GST_VIDEO_FORMAT_NV12;
    case PixelFormat::I420: return GST_VIDEO_FORMAT_I420;
    case PixelFormat::RGBA: return GST_VIDEO_FORMAT_RGBA;
    case PixelFormat::BGRA: return GST_VIDEO_FORMAT_BGRA;
    case PixelFormat::RGBx: return GST_VIDEO_FORMAT_RGBx;
    case PixelFormat::BGRx: return GST_VIDEO_FORMAT_BGRx;
  }
  return GST_VIDEO_FORMAT_UNKNOWN;
}

std::string caps_string(PixelFormat f, int width, int height) {
  std::ostringstream s;
  s << "video/x-raw,format=" << gst_video_format_to_string(gst_format(f)) << ",width=" << width
    << ",height=" << height << ",framerate=30/1";
  return s.str();
}

GstBuffer* buffer_from_frame(const test::Frame& frame) {
  gsize offsets[GST_VIDEO_MAX_PLANES] = {0};
  gint strides[GST_VIDEO_MAX_PLANES] = {0};
  size_t total = 0;
  for (size_t p = 0; p < frame.storage.size(); ++p) {
    offsets[p] = total;
    strides[p] = gint(frame.view.strides[p]);
    total += frame.storage[p].size();
  }
  GstBuffer* buf = gst_buffer_new_allocate(nullptr, total, nullptr);
  GstMapInfo map;
  gst_buffer_map(buf, &map, GST_MAP_WRITE);
  for (size_t p = 0; p < frame.storage.size(); ++p)
    std::memcpy(map.data + offsets[p], frame.storage[p].data(), frame.storage[p].size());
  gst_buffer_unmap(buf, &map);
  gst_buffer_add_video_meta_full(buf, GST_VIDEO_FRAME_FLAG_NONE, gst_format(frame.view.format),
                                 guint(frame.view.width), guint(frame.view.height),
                                 guint(frame.storage.size()), offsets, strides);
  GST_BUFFER_PTS(buf) = 0;
  GST_BUFFER_DURATION(buf) = GST_SECOND / 30;
  return buf;
}

namespace {

size_t row_bytes(PixelFormat f, int width, int plane) {
  const size_t cw = size_t(width + 1) / 2;
  if (plane == 0) return size_t(width) * luma_bytes_per_pixel(f);
  return f == PixelFormat::NV12 ? 2 * cw : cw;
}

int rows(int height, int plane) { return plane == 0 ? height : (height + 1) / 2; }

}  // namespace

std::vector<std::vector<uint8_t>> read_planes(GstBuffer* buffer, PixelFormat f, int width,
                                              int height) {
  GstVideoInfo info;
  gst_video_info_set_format(&info, gst_format(f), guint(width), guint(height));
  GstVideoFrame vf;
  std::vector<std::vector<uint8_t>> out;
  if (!gst_video_frame_map(&vf, &info, buffer, GST_MAP_READ)) {
    ADD_FAILURE() << "cannot map the output frame";
    return out;
  }
  for (int p = 0; p < plane_count(f); ++p) {
    const size_t rb = row_bytes(f, width, p);
    std::vector<uint8_t> plane(rb * size_t(rows(height, p)));
    const auto* src = static_cast<const uint8_t*>(GST_VIDEO_FRAME_PLANE_DATA(&vf, p));
    const size_t stride = size_t(GST_VIDEO_FRAME_PLANE_STRIDE(&vf, p));
    for (int y = 0; y < rows(height, p); ++y) std::memcpy(&plane[y * rb], src + y * stride, rb);
    out.push_back(std::move(plane));
  }
  gst_video_frame_unmap(&vf);
  return out;
}

std::vector<std::vector<uint8_t>> read_planes(const test::Frame& frame) {
  const PixelFormat f = frame.view.format;
  std::vector<std::vector<uint8_t>> out;
  for (int p = 0; p < plane_count(f); ++p) {
    const size_t rb = row_bytes(f, frame.view.width, p);
    std::vector<uint8_t> plane(rb * size_t(rows(frame.view.height, p)));
    for (int y = 0; y < rows(frame.view.height, p); ++y)
      std::memcpy(&plane[y * rb], frame.storage[p].data() + y * frame.view.strides[p], rb);
    out.push_back(std::move(plane));
  }
  return out;
}

Harness::Harness(const std::string& properties, const std::string& backend) {
  const std::string launch = "cudaccl backend=" +
                             (backend.empty() ? backend_under_test() : backend) + " " +
                             properties;
  // The bus goes on before the harness starts the element, so that what start()
  // posts (the backend warning or error) is kept.
  GError* error = nullptr;
  GstElement* element = gst_parse_launch(launch.c_str(), &error);
  if (!element) {
    ADD_FAILURE() << "cannot create '" << launch << "': " << (error ? error->message : "?");
    g_clear_error(&error);
    element = gst_element_factory_make("identity", nullptr);
  }
  bus_ = gst_bus_new();
  gst_element_set_bus(element, bus_);
  h_ = gst_harness_new_with_element(element, "sink", "src");
  gst_object_unref(element);
}

Harness::Harness(GstElement* element) {
  bus_ = gst_bus_new();
  gst_element_set_bus(element, bus_);
  h_ = gst_harness_new_with_element(element, "sink", "src");
}

Harness::~Harness() {
  gst_harness_teardown(h_);
  gst_bus_set_flushing(bus_, TRUE);
  gst_object_unref(bus_);
}

void Harness::set_caps(PixelFormat f, int width, int height) {
  set_caps(caps_string(f, width, height));
}

void Harness::set_caps(const std::string& caps) {
  gst_harness_set_src_caps_str(h_, caps.c_str());
}

GstBuffer* Harness::process(GstBuffer* in, GstFlowReturn* flow) {
  const GstFlowReturn ret = gst_harness_push(h_, in);
  if (flow) *flow = ret;
  if (ret != GST_FLOW_OK) return nullptr;
  return gst_harness_pull(h_);
}

GstMessage* Harness::pop_message(GstMessageType types) {
  return gst_bus_pop_filtered(bus_, types);
}

Options reference_options(int threshold, ThresholdMode mode, int connectivity) {
  Options o;
  o.threshold = threshold;
  o.mode = mode;
  o.connectivity = connectivity;
  o.max_components = kDefaultMaxComponents;
  return o;
}

Result reference_of(const test::Frame& frame, const Options& options) {
  Result r;
  reference_label(frame.view, options, r);
  return r;
}

void expect_meta_matches_reference(GstBuffer* out, const test::Frame& frame,
                                   const Options& options, const std::string& context) {
  expect_meta_matches(out, reference_of(frame, options), frame.view.width, frame.view.height,
                      options, context);
}

void expect_meta_matches(GstBuffer* out, const Result& ref, int width, int height,
                         const Options& options, const std::string& context) {
  SCOPED_TRACE(context);
  ASSERT_NE(out, nullptr);
  const GstCclMeta* meta = gst_ccl_meta_get(out);
  ASSERT_NE(meta, nullptr) << "no GstCclMeta on the output buffer";
  EXPECT_EQ(meta->width, guint(width));
  EXPECT_EQ(meta->height, guint(height));
  EXPECT_EQ(meta->threshold, guint(ref.threshold_used));
  EXPECT_EQ(meta->connectivity, guint(options.connectivity));
  ASSERT_EQ(meta->total_count, ref.num_components);
  ASSERT_EQ(meta->n_components, ref.components.size());
  for (guint i = 0; i < meta->n_components; ++i) {
    const GstCclComponent& c = meta->components[i];
    const Component& r = ref.components[i];
    const bool same = c.label == r.label && c.x == r.x && c.y == r.y && c.width == r.width &&
                      c.height == r.height && c.area == r.area && c.sum_x == r.sum_x &&
                      c.sum_y == r.sum_y && c.sum_xx == r.sum_xx && c.sum_xy == r.sum_xy &&
                      c.sum_yy == r.sum_yy && c.centroid_x == r.centroid_x() &&
                      c.centroid_y == r.centroid_y();
    if (!same) {
      ADD_FAILURE() << "component " << i << ": element label " << c.label << " box " << c.x
                    << "," << c.y << " " << c.width << "x" << c.height << " area " << c.area
                    << " sums " << c.sum_x << "," << c.sum_y << "," << c.sum_xx << ","
                    << c.sum_xy << "," << c.sum_yy << "; reference label " << r.label << " box "
                    << r.x << "," << r.y << " " << r.width << "x" << r.height << " area "
                    << r.area << " sums " << r.sum_x << "," << r.sum_y << "," << r.sum_xx
                    << "," << r.sum_xy << "," << r.sum_yy;
      return;
    }
  }
}

test::Frame channel_frame(PixelFormat format, int width, int height,
                          const std::function<Channels(int, int)>& at) {
  test::Frame f;
  f.view.width = width;
  f.view.height = height;
  f.view.format = format;
  const size_t w = size_t(width), cw = size_t(width + 1) / 2, ch = size_t(height + 1) / 2;
  const size_t bpp = size_t(luma_bytes_per_pixel(format));
  f.storage.emplace_back(w * bpp * size_t(height));
  f.view.strides[0] = w * bpp;
  if (format == PixelFormat::NV12) {
    f.storage.emplace_back(2 * cw * ch);
    f.view.strides[1] = 2 * cw;
  } else if (format == PixelFormat::I420) {
    f.storage.emplace_back(cw * ch);
    f.storage.emplace_back(cw * ch);
    f.view.strides[1] = f.view.strides[2] = cw;
  }
  const bool bgr = format == PixelFormat::BGRA || format == PixelFormat::BGRx;
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      const Channels c = at(x, y);
      uint8_t* px = f.storage[0].data() + size_t(y) * f.view.strides[0] + size_t(x) * bpp;
      switch (format) {
        case PixelFormat::Gray8:
        case PixelFormat::NV12:
        case PixelFormat::I420: px[0] = c.c0; break;
        case PixelFormat::Gray16LE: px[0] = px[1] = c.c0; break;  // c0 * 257
        default:
          px[0] = bgr ? c.c2 : c.c0;
          px[1] = c.c1;
          px[2] = bgr ? c.c0 : c.c2;
          px[3] = 255;
      }
      if ((x | y) & 1) continue;
      const size_t cx = size_t(x / 2), cy = size_t(y / 2);
      if (format == PixelFormat::NV12) {
        f.storage[1][cy * f.view.strides[1] + 2 * cx] = c.c1;
        f.storage[1][cy * f.view.strides[1] + 2 * cx + 1] = c.c2;
      } else if (format == PixelFormat::I420) {
        f.storage[1][cy * cw + cx] = c.c1;
        f.storage[2][cy * cw + cx] = c.c2;
      }
    }
  for (size_t p = 0; p < f.storage.size(); ++p) f.view.planes[p] = f.storage[p].data();
  return f;
}

ErrorMessage parse_error(GstMessage* msg) {
  ErrorMessage e;
  if (!msg) return e;
  GError* err = nullptr;
  gchar* debug = nullptr;
  gst_message_parse_error(msg, &err, &debug);
  e.posted = true;
  e.domain = err->domain;
  e.code = err->code;
  e.message = err->message ? err->message : "";
  e.debug = debug ? debug : "";
  g_error_free(err);
  g_free(debug);
  return e;
}

ErrorMessage pop_error(Harness& h) {
  GstMessage* msg = h.pop_message(GST_MESSAGE_ERROR);
  ErrorMessage e = parse_error(msg);
  if (msg) gst_message_unref(msg);
  return e;
}

test::GrayImage random_gray(int width, int height, double density, int granularity,
                            uint32_t seed) {
  std::ostringstream name;
  name << "random_" << width << "x" << height << "_d" << density << "_g" << granularity << "_s"
       << seed;
  return test::to_gray(test::yacclab_random(width, height, density, granularity, seed),
                       name.str());
}

// The planes byte for byte; the first difference fails, naming its plane and byte.
void expect_planes_equal(const std::vector<std::vector<uint8_t>>& got,
                         const std::vector<std::vector<uint8_t>>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t p = 0; p < want.size(); ++p) {
    ASSERT_EQ(got[p].size(), want[p].size()) << what << " plane " << p;
    for (size_t i = 0; i < want[p].size(); ++i)
      if (got[p][i] != want[p][i]) {
        ADD_FAILURE() << what << ": plane " << p << " byte " << i << " is " << int(got[p][i])
                      << ", expected " << int(want[p][i]);
        return;
      }
  }
}

}  // namespace ccl::element_test
