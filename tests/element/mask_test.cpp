// ccl_backend_write_mask (the analytics mask of analytics-mask, docs/SEGMENTATION.md)
// straight through the backends, without the element: frames of random blobs labeled
// with analytics_mask, then rectangles of them written as masks of given ids.
//
// The CPU backend's masks are checked against OpenCV's own labeling of the frame
// (connectedComponents, the same connectivity): every piece of foreground holds one
// value; the pieces holding ids[i] make up reported component i exactly (area, box
// and coordinate sums; one piece per component without grouping); every other pixel,
// background or unreported, is 0; every rectangle is the full frame's mask cut there;
// and the row padding beyond the rectangle keeps its poison. The CUDA backend's masks
// (on a device; skipped with the reason without one) must be byte for byte the CPU
// backend's, and pass the same checks.
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "backend/cclbackend.h"
#include "element_util.h"

namespace ccl::element_test {
namespace {

using test::GrayImage;

constexpr uint8_t kPoison = 0xA5;

struct Rect {
  int x = 0, y = 0, w = 0, h = 0;
};

std::string str(const Rect& r) {
  return std::to_string(r.w) + "x" + std::to_string(r.h) + "+" + std::to_string(r.x) + "+" +
         std::to_string(r.y);
}

// The element's defaults (gstcudaccl.c), every component reported, the label image
// kept for the mask.
CclSettings mask_settings() {
  CclSettings s{};
  s.threshold = 128;
  s.threshold_mode = CCL_THRESHOLD_ABOVE;
  s.connectivity = 8;
  s.algorithm = GST_CCL_ALGORITHM_UNION_FIND;
  s.min_area = 1;
  s.max_area = 0;
  s.max_components = G_MAXUINT;
  s.foreground = CCL_FOREGROUND_THRESHOLD;
  s.history = 500;
  s.learning_rate = -1.0;
  s.variance_threshold = 16.0;
  s.detect_shadows = TRUE;
  s.light_compensation = TRUE;
  s.block_size = 31;
  s.offset = 10.0;
  s.color_high[0] = 179;
  s.color_high[1] = s.color_high[2] = 255;
  s.group_gap = -1;
  s.overlay = 0;
  s.overlay_alpha = 0.5;
  s.tracking = FALSE;
  s.track_max_lost = 15;
  s.max_roi_metas = G_MAXUINT;
  s.analytics_mask = TRUE;
  return s;
}

// One backend through the C interface, in the current thread (the CUDA backend in the
// runtime's primary context of the default device, which its first CUDA call makes
// current: the tests push no context of their own).
class MaskBackend {
 public:
  explicit MaskBackend(CclBackendKind kind) {
    GError* error = nullptr;
    backend_ = ccl_backend_new(kind, -1, &error);
    if (!backend_) why_ = error ? error->message : "no reason given";
    g_clear_error(&error);
  }
  ~MaskBackend() {
    if (backend_) ccl_backend_free(backend_);
  }
  MaskBackend(const MaskBackend&) = delete;
  MaskBackend& operator=(const MaskBackend&) = delete;

  bool usable() const { return backend_ != nullptr; }
  const std::string& why() const { return why_; }
  const char* name() const { return ccl_backend_get_name(backend_); }

  // Labels a GRAY8 frame (rows padded to GStreamer's stride, the padding poisoned with
  // 255 so that reading it would add foreground) and returns its reported components.
  std::vector<GstCclComponent> label(const GrayImage& g, const CclSettings& settings) {
    std::vector<GstCclComponent> out;
    GstVideoInfo info;
    gst_video_info_set_format(&info, GST_VIDEO_FORMAT_GRAY8, guint(g.width), guint(g.height));
    GError* error = nullptr;
    if (g.width != width_ || g.height != height_) {
      EXPECT_TRUE(ccl_backend_configure(backend_, &info, &error))
          << (error ? error->message : "");
      g_clear_error(&error);
      width_ = g.width;
      height_ = g.height;
    }
    GstBuffer* buf = gst_buffer_new_allocate(nullptr, info.size, nullptr);
    GstMapInfo map;
    EXPECT_TRUE(gst_buffer_map(buf, &map, GST_MAP_WRITE));
    std::memset(map.data, 255, map.size);
    for (int y = 0; y < g.height; ++y)
      std::memcpy(map.data + size_t(y) * size_t(info.stride[0]), &g.pixels[size_t(y) * g.width],
                  size_t(g.width));
    gst_buffer_unmap(buf, &map);

    GstVideoFrame frame;
    EXPECT_TRUE(gst_video_frame_map(&frame, &info, buf, GST_MAP_READ));
    CclReport report{};
    const gboolean ok = ccl_backend_process(backend_, &frame, FALSE, &settings, nullptr,
                                            nullptr, &report, &error);
    gst_video_frame_unmap(&frame);
    gst_buffer_unref(buf);
    EXPECT_TRUE(ok) << name() << ": " << (error ? error->message : "");
    g_clear_error(&error);
    if (ok) out.assign(report.components, report.components + report.n_components);
    g_free(report.components);
    g_free(report.blobs);
    return out;
  }

  // The mask of rect, rows `stride` bytes apart, written into a buffer poisoned first;
  // `ok` is what ccl_backend_write_mask returned (its message in *message).
  std::vector<uint8_t> write(const std::vector<guint>& ids, const Rect& r, int bpp,
                             size_t stride, bool* ok, std::string* message = nullptr) {
    std::vector<uint8_t> out(stride * size_t(r.h), kPoison);
    GError* error = nullptr;
    *ok = ccl_backend_write_mask(backend_, ids.data(), r.x, r.y, guint(r.w), guint(r.h),
                                 guint(bpp), out.data(), stride, &error);
    if (message) *message = error ? error->message : "";
    g_clear_error(&error);
    return out;
  }

 private:
  CclBackend* backend_ = nullptr;
  std::string why_;
  int width_ = -1, height_ = -1;
};

// The values of a mask buffer (rows `stride` bytes apart) as numbers, packed.
std::vector<uint32_t> decode(const std::vector<uint8_t>& buf, const Rect& r, int bpp,
                             size_t stride) {
  std::vector<uint32_t> v(size_t(r.w) * size_t(r.h));
  for (int y = 0; y < r.h; ++y)
    for (int x = 0; x < r.w; ++x) {
      const uint8_t* p = &buf[size_t(y) * stride + size_t(x) * size_t(bpp)];
      if (bpp == 1) {
        v[size_t(y) * r.w + x] = *p;
      } else {
        uint16_t u;
        std::memcpy(&u, p, 2);
        v[size_t(y) * r.w + x] = u;
      }
    }
  return v;
}

// Counts padding bytes (beyond each row's width * bpp) that lost their poison.
int padding_written(const std::vector<uint8_t>& buf, const Rect& r, int bpp, size_t stride) {
  int n = 0;
  for (int y = 0; y < r.h; ++y)
    for (size_t i = size_t(r.w) * size_t(bpp); i < stride; ++i)
      n += buf[size_t(y) * stride + i] != kPoison;
  return n;
}

// OpenCV's labeling of the frame's foreground (pixels above 128).
struct Pieces {
  int count = 0;  // labels 1 .. count - 1 are pieces
  std::vector<int32_t> labels;  // width * height
};

Pieces opencv_pieces(const GrayImage& g, int connectivity) {
  cv::Mat binary(g.height, g.width, CV_8U);
  for (int y = 0; y < g.height; ++y)
    for (int x = 0; x < g.width; ++x)
      binary.at<uint8_t>(y, x) = g.pixels[size_t(y) * g.width + x] > 128 ? 1 : 0;
  cv::Mat labels;
  Pieces p;
  p.count = cv::connectedComponents(binary, labels, connectivity, CV_32S);
  p.labels.assign(labels.begin<int32_t>(), labels.end<int32_t>());
  return p;
}

// Checks a whole-frame mask against the components (see the top of the file) and
// returns the number of pieces that carry an id.
int check_whole_mask(const std::vector<uint32_t>& mask, const GrayImage& g, const Pieces& pieces,
                     const std::vector<GstCclComponent>& comps, const std::vector<guint>& ids,
                     bool grouped, const std::string& ctx) {
  std::unordered_map<uint32_t, size_t> index;
  for (size_t i = 0; i < ids.size(); ++i) {
    EXPECT_NE(ids[i], 0u) << ctx;
    EXPECT_TRUE(index.emplace(ids[i], i).second) << ctx << ": ids not unique";
  }
  const uint32_t unset = UINT32_MAX;
  std::vector<uint32_t> value(size_t(pieces.count), unset);
  struct Sum {
    uint64_t area = 0, sum_x = 0, sum_y = 0;
    int x0 = INT32_MAX, y0 = INT32_MAX, x1 = -1, y1 = -1;
    int pieces = 0;
  };
  std::vector<Sum> sums(comps.size());
  int failures = 0;
  for (int y = 0; y < g.height; ++y)
    for (int x = 0; x < g.width; ++x) {
      const size_t at = size_t(y) * g.width + x;
      const int32_t p = pieces.labels[at];
      const uint32_t v = mask[at];
      if (p == 0) {
        if (v != 0 && failures++ < 5)
          ADD_FAILURE() << ctx << ": background pixel " << x << "," << y << " holds " << v;
        continue;
      }
      if (value[size_t(p)] == unset) {
        value[size_t(p)] = v;
      } else if (value[size_t(p)] != v) {
        if (failures++ < 5)
          ADD_FAILURE() << ctx << ": pixel " << x << "," << y << " holds " << v
                        << ", the rest of its piece " << value[size_t(p)];
        continue;
      }
      if (v == 0) continue;
      const auto it = index.find(v);
      if (it == index.end()) {
        if (failures++ < 5)
          ADD_FAILURE() << ctx << ": pixel " << x << "," << y << " holds " << v
                        << ", no component's id";
        continue;
      }
      Sum& s = sums[it->second];
      s.area++;
      s.sum_x += uint64_t(x);
      s.sum_y += uint64_t(y);
      s.x0 = std::min(s.x0, x);
      s.y0 = std::min(s.y0, y);
      s.x1 = std::max(s.x1, x + 1);
      s.y1 = std::max(s.y1, y + 1);
    }
  int with_id = 0;
  for (int p = 1; p < pieces.count; ++p) {
    const uint32_t v = value[size_t(p)];
    if (v == 0 || v == unset) continue;
    ++with_id;
    const auto it = index.find(v);
    if (it != index.end()) sums[it->second].pieces++;
  }
  for (size_t i = 0; i < comps.size(); ++i) {
    const GstCclComponent& c = comps[i];
    const Sum& s = sums[i];
    SCOPED_TRACE(ctx + ": component " + std::to_string(i) + " (label " +
                 std::to_string(c.label) + ", id " + std::to_string(ids[i]) + ")");
    EXPECT_EQ(s.area, c.area);
    EXPECT_EQ(s.sum_x, c.sum_x);
    EXPECT_EQ(s.sum_y, c.sum_y);
    EXPECT_EQ(s.x0, c.x);
    EXPECT_EQ(s.y0, c.y);
    EXPECT_EQ(s.x1 - s.x0, c.width);
    EXPECT_EQ(s.y1 - s.y0, c.height);
    if (grouped) {
      EXPECT_GE(s.pieces, 1);
    } else {
      EXPECT_EQ(s.pieces, 1) << "one piece per component without grouping";
    }
  }
  return with_id;
}

std::vector<uint32_t> crop(const std::vector<uint32_t>& whole, int width, const Rect& r) {
  std::vector<uint32_t> out(size_t(r.w) * size_t(r.h));
  for (int y = 0; y < r.h; ++y)
    for (int x = 0; x < r.w; ++x)
      out[size_t(y) * r.w + x] = whole[size_t(r.y + y) * width + size_t(r.x + x)];
  return out;
}

Rect union_of_boxes(const std::vector<GstCclComponent>& comps) {
  int x0 = INT32_MAX, y0 = INT32_MAX, x1 = INT32_MIN, y1 = INT32_MIN;
  for (const GstCclComponent& c : comps) {
    x0 = std::min(x0, c.x);
    y0 = std::min(y0, c.y);
    x1 = std::max(x1, c.x + c.width);
    y1 = std::max(y1, c.y + c.height);
  }
  return comps.empty() ? Rect{} : Rect{x0, y0, x1 - x0, y1 - y0};
}

// n distinct ids in 1..max, in random order.
std::vector<guint> random_ids(size_t n, guint max, std::mt19937& rng) {
  std::vector<guint> all(max);
  std::iota(all.begin(), all.end(), 1u);
  std::shuffle(all.begin(), all.end(), rng);
  all.resize(std::min(n, all.size()));
  return all;
}

struct Scene {
  std::string name;
  int width, height;
  double density;
  int granularity;
  uint32_t seed;
  int connectivity = 8;
  int group_gap = -1;
  guint min_area = 1;
  guint max_components = G_MAXUINT;
  bool tracking = false;
  int frames = 1;
};

// Frame f of a scene: its random blobs moved f pixels right (the tracks follow).
GrayImage scene_frame(const Scene& s, int f) {
  const GrayImage base = random_gray(s.width, s.height, s.density, s.granularity, s.seed);
  GrayImage g = base;
  for (int y = 0; y < s.height; ++y)
    for (int x = 0; x < s.width; ++x)
      g.pixels[size_t(y) * s.width + x] = x >= f ? base.pixels[size_t(y) * s.width + x - f] : 0;
  return g;
}

std::vector<Scene> scenes() {
  return {
      {"1x1", 1, 1, 1.0, 1, 1},
      {"1x1 empty", 1, 1, 0.0, 1, 1},
      {"1x57", 1, 57, 0.5, 1, 2},
      {"61x1", 61, 1, 0.5, 1, 3},
      {"5x3", 5, 3, 0.5, 1, 4},
      {"odd 33x17", 33, 17, 0.35, 2, 5},
      {"odd 127x93 4-way", 127, 93, 0.4, 1, 6, 4},
      {"64x48 few large", 64, 48, 0.2, 8, 7},
      {"odd 321x241 many (16-bit ids)", 321, 241, 0.3, 1, 8},
      {"1023x61 grouped", 1023, 61, 0.15, 2, 9, 8, 2},
      {"199x101 grouped 4-way", 199, 101, 0.2, 3, 10, 4, 0},
      {"160x120 min-area, max-components", 160, 120, 0.3, 2, 11, 8, -1, 6, 40},
      {"97x75 tracked", 97, 75, 0.25, 3, 12, 8, -1, 1, G_MAXUINT, true, 3},
      {"131x67 tracked grouped", 131, 67, 0.2, 2, 13, 8, 1, 1, G_MAXUINT, true, 3},
  };
}

CclSettings scene_settings(const Scene& s) {
  CclSettings settings = mask_settings();
  settings.connectivity = guint(s.connectivity);
  settings.group_gap = s.group_gap;
  settings.min_area = s.min_area;
  settings.max_components = s.max_components;
  settings.tracking = s.tracking;
  return settings;
}

// Every mask of one labeled frame: ids of 8 and 16 bits (and the element's own: the
// labels, or the track ids), rectangles of the whole frame, the union of the boxes, a
// random one and a single pixel, rows packed or padded. With `other` (the CUDA
// backend, the same frame labeled by it), each mask must also be its byte for byte.
void check_frame(MaskBackend& backend, MaskBackend* other, const GrayImage& g,
                 const std::vector<GstCclComponent>& comps, const Scene& scene,
                 std::mt19937& rng, const std::string& ctx) {
  const Pieces pieces = opencv_pieces(g, scene.connectivity);
  const size_t n = comps.size();
  struct Variant {
    std::string name;
    int bpp;
    std::vector<guint> ids;
  };
  std::vector<Variant> variants;
  std::vector<guint> own(n);
  guint own_max = 0;
  for (size_t i = 0; i < n; ++i) {
    own[i] = scene.tracking ? guint(comps[i].track_id) : comps[i].label;
    own_max = std::max(own_max, own[i]);
  }
  variants.push_back({"element ids", own_max <= 255 ? 1 : 2, own});
  if (n <= 255) variants.push_back({"random 8-bit ids", 1, random_ids(n, 255, rng)});
  variants.push_back({"random 16-bit ids", 2, random_ids(n, 65535, rng)});

  std::uniform_int_distribution<int> coin(0, 1);
  for (const Variant& v : variants) {
    const std::string vctx = ctx + ", " + v.name;
    auto write = [&](const Rect& r, size_t pad) {
      const size_t stride = size_t(r.w) * size_t(v.bpp) + pad;
      bool ok = false;
      std::string message;
      std::vector<uint8_t> buf = backend.write(v.ids, r, v.bpp, stride, &ok, &message);
      EXPECT_TRUE(ok) << vctx << ", rect " << str(r) << ": " << message;
      EXPECT_EQ(padding_written(buf, r, v.bpp, stride), 0)
          << vctx << ", rect " << str(r) << ": row padding written";
      if (other) {
        bool other_ok = false;
        const std::vector<uint8_t> theirs =
            other->write(v.ids, r, v.bpp, stride, &other_ok, &message);
        EXPECT_TRUE(other_ok) << vctx << ", " << other->name() << ": " << message;
        EXPECT_TRUE(theirs == buf) << vctx << ", rect " << str(r) << " (stride " << stride
                                   << "): " << other->name() << " and " << backend.name()
                                   << " masks differ";
      }
      return decode(buf, r, v.bpp, stride);
    };

    const Rect whole{0, 0, g.width, g.height};
    const std::vector<uint32_t> full = write(whole, coin(rng) ? 0 : 3);
    const int with_id =
        check_whole_mask(full, g, pieces, comps, v.ids, scene.group_gap >= 0, vctx);
    if (n > 0) {
      EXPECT_GE(with_id, int(n)) << vctx;
    }

    std::vector<Rect> rects;
    if (n > 0) rects.push_back(union_of_boxes(comps));
    std::uniform_int_distribution<int> rx(0, g.width - 1), ry(0, g.height - 1);
    const int x0 = rx(rng), y0 = ry(rng);
    std::uniform_int_distribution<int> rw(1, g.width - x0), rh(1, g.height - y0);
    rects.push_back({x0, y0, rw(rng), rh(rng)});
    rects.push_back({rx(rng), ry(rng), 1, 1});
    for (const Rect& r : rects) {
      const std::vector<uint32_t> got = write(r, size_t(coin(rng) ? 0 : 64 + 1));
      EXPECT_TRUE(got == crop(full, g.width, r))
          << vctx << ": the mask of " << str(r) << " is not the whole frame's mask cut there";
    }
  }
}

void run_scenes(MaskBackend& backend, MaskBackend* other) {
  for (const Scene& scene : scenes()) {
    const CclSettings settings = scene_settings(scene);
    std::mt19937 rng(scene.seed * 7919u + 17u);
    for (int f = 0; f < scene.frames; ++f) {
      const std::string ctx = scene.name + ", frame " + std::to_string(f);
      SCOPED_TRACE(ctx);
      const GrayImage g = scene_frame(scene, f);
      const std::vector<GstCclComponent> comps = backend.label(g, settings);
      if (other) {
        const std::vector<GstCclComponent> theirs = other->label(g, settings);
        ASSERT_EQ(theirs.size(), comps.size()) << ctx << ": reported components";
        for (size_t i = 0; i < comps.size(); ++i) {
          EXPECT_EQ(theirs[i].label, comps[i].label) << ctx << " component " << i;
          EXPECT_EQ(theirs[i].area, comps[i].area) << ctx << " component " << i;
          EXPECT_EQ(theirs[i].track_id, comps[i].track_id) << ctx << " component " << i;
        }
      }
      if (scene.tracking) {
        for (const GstCclComponent& c : comps) EXPECT_NE(c.track_id, 0u) << ctx;
      }
      check_frame(backend, other, g, comps, scene, rng, ctx);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

TEST(MaskBackend, CpuMaskHoldsTheReportedComponents) {
  MaskBackend cpu(CCL_BACKEND_CPU);
  ASSERT_TRUE(cpu.usable()) << cpu.why();
  run_scenes(cpu, nullptr);
}

TEST(MaskBackend, CudaMaskIsTheCpuMask) {
  MaskBackend cuda(CCL_BACKEND_CUDA);
  if (!cuda.usable()) {
    std::printf("skipped: no CUDA backend: %s\n", cuda.why().c_str());
    GTEST_SKIP() << "no CUDA backend: " << cuda.why();
  }
  MaskBackend cpu(CCL_BACKEND_CPU);
  ASSERT_TRUE(cpu.usable()) << cpu.why();
  run_scenes(cpu, &cuda);
  // And the CUDA backend's masks on their own, against OpenCV.
  run_scenes(cuda, nullptr);
}

// What ccl_backend_write_mask refuses, on each backend there is: a frame labeled
// without analytics_mask, a rectangle outside the frame, rows too short, a pixel size
// other than 1 or 2; and it works again after.
void check_refusals(MaskBackend& backend) {
  const GrayImage g = random_gray(40, 30, 0.3, 2, 21);
  CclSettings settings = mask_settings();
  settings.analytics_mask = FALSE;
  std::vector<GstCclComponent> comps = backend.label(g, settings);
  ASSERT_FALSE(comps.empty());
  std::vector<guint> ids(comps.size());
  std::iota(ids.begin(), ids.end(), 1u);
  bool ok = true;
  std::string message;
  const size_t stride = 80;
  backend.write(ids, {0, 0, 40, 30}, 2, stride, &ok, &message);
  EXPECT_FALSE(ok) << backend.name() << ": a frame labeled without analytics_mask";
  EXPECT_NE(message.find("analytics_mask"), std::string::npos) << message;

  settings.analytics_mask = TRUE;
  comps = backend.label(g, settings);
  ids.resize(comps.size());
  std::iota(ids.begin(), ids.end(), 1u);
  const Rect outside[] = {{-1, 0, 10, 10}, {0, -1, 10, 10}, {31, 0, 10, 10},
                          {0, 21, 10, 10}, {0, 0, 41, 1},   {0, 0, 1, 31}};
  for (const Rect& r : outside) {
    const std::vector<uint8_t> buf = backend.write(ids, r, 2, stride, &ok, &message);
    EXPECT_FALSE(ok) << backend.name() << ": rectangle " << str(r) << " outside 40x30";
    EXPECT_NE(message.find("outside"), std::string::npos) << message;
    EXPECT_TRUE(std::all_of(buf.begin(), buf.end(), [](uint8_t b) { return b == kPoison; }))
        << "written though refused";
  }
  backend.write(ids, {0, 0, 40, 30}, 2, 79, &ok, &message);
  EXPECT_FALSE(ok) << "rows of 79 bytes for 40 16-bit pixels";
  backend.write(ids, {0, 0, 40, 30}, 3, 120, &ok, &message);
  EXPECT_FALSE(ok) << "3 bytes per pixel";
  backend.write(ids, {0, 0, 0, 0}, 1, 0, &ok, &message);
  EXPECT_TRUE(ok) << "an empty rectangle writes nothing: " << message;
  const std::vector<uint8_t> buf = backend.write(ids, {0, 0, 40, 30}, 2, stride, &ok, &message);
  EXPECT_TRUE(ok) << message;
  const Pieces pieces = opencv_pieces(g, 8);
  check_whole_mask(decode(buf, {0, 0, 40, 30}, 2, stride), g, pieces, comps, ids, false,
                   std::string(backend.name()) + " after the refusals");
}

TEST(MaskBackend, CpuRefusesWhatItCannotWrite) {
  MaskBackend cpu(CCL_BACKEND_CPU);
  ASSERT_TRUE(cpu.usable()) << cpu.why();
  check_refusals(cpu);
}

TEST(MaskBackend, CudaRefusesWhatItCannotWrite) {
  MaskBackend cuda(CCL_BACKEND_CUDA);
  if (!cuda.usable()) {
    std::printf("skipped: no CUDA backend: %s\n", cuda.why().c_str());
    GTEST_SKIP() << "no CUDA backend: " << cuda.why();
  }
  check_refusals(cuda);
}

}  // namespace
}  // namespace ccl::element_test
