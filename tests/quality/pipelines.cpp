// The detectors and frame formats of pipelines.h.
#include "pipelines.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cmath>
#include <stdexcept>

#include <opencv2/imgproc.hpp>

#include "ccl/cuda_engine.h"
#include "ccl/luma.h"
#include "ccl/reference.h"

namespace ccl::quality {

const char* to_string(Format f) {
  switch (f) {
    case Format::RGBx: return "RGBx";
    case Format::NV12: return "NV12";
    case Format::I420: return "I420";
    case Format::Gray8: return "GRAY8";
  }
  return "?";
}

namespace {

uint8_t clamp_byte(double v) { return uint8_t(std::clamp(std::lround(v), 0L, 255L)); }

// Limited-range BT.601, the encoding of camera NV12 and the one OpenCV's NV12 decoder
// assumes.
double y601(double r, double g, double b) { return 16 + (65.481 * r + 128.553 * g + 24.966 * b) / 255; }
double u601(double r, double g, double b) { return 128 + (-37.797 * r - 74.203 * g + 112.0 * b) / 255; }
double v601(double r, double g, double b) { return 128 + (112.0 * r - 93.786 * g - 18.214 * b) / 255; }

}  // namespace

void convert(const cv::Mat& rgb, Format format, Input& out) {
  const int W = rgb.cols, H = rgb.rows;
  out.view = ImageView{};
  out.view.width = W;
  out.view.height = H;
  switch (format) {
    case Format::RGBx: {
      out.plane0.resize(size_t(W) * H * 4);
      for (int y = 0; y < H; ++y) {
        const uint8_t* s = rgb.ptr<uint8_t>(y);
        uint8_t* d = out.plane0.data() + size_t(y) * W * 4;
        for (int x = 0; x < W; ++x) {
          d[4 * x] = s[3 * x];
          d[4 * x + 1] = s[3 * x + 1];
          d[4 * x + 2] = s[3 * x + 2];
          d[4 * x + 3] = 0xFF;
        }
      }
      out.view.format = PixelFormat::RGBx;
      out.view.planes[0] = out.plane0.data();
      out.view.strides[0] = size_t(W) * 4;
      cv::cvtColor(rgb, out.peer, cv::COLOR_RGB2BGR);
      break;
    }
    case Format::NV12:
    case Format::I420: {
      // Luma per pixel; chroma of each 2x2 block from the block's mean color: NV12
      // interleaves U and V in one plane, I420 keeps a plane of each, (W/2) x (H/2).
      // Both carry the same values.
      if (W % 2 || H % 2) throw std::runtime_error("NV12 / I420 frames of odd size");
      const bool nv12 = format == Format::NV12;
      const int cw = W / 2, ch = H / 2;
      out.plane0.resize(size_t(W) * H);
      out.plane1.resize(nv12 ? size_t(W) * ch : size_t(cw) * ch);
      out.plane2.resize(nv12 ? 0 : size_t(cw) * ch);
      for (int y = 0; y < H; ++y) {
        const uint8_t* s = rgb.ptr<uint8_t>(y);
        for (int x = 0; x < W; ++x)
          out.plane0[size_t(y) * W + x] = clamp_byte(y601(s[3 * x], s[3 * x + 1], s[3 * x + 2]));
      }
      for (int y = 0; y < ch; ++y)
        for (int x = 0; x < cw; ++x) {
          double r = 0, g = 0, b = 0;
          for (int dy = 0; dy < 2; ++dy)
            for (int dx = 0; dx < 2; ++dx) {
              const uint8_t* p = rgb.ptr<uint8_t>(2 * y + dy) + 3 * (2 * x + dx);
              r += p[0] / 4.0;
              g += p[1] / 4.0;
              b += p[2] / 4.0;
            }
          const uint8_t u = clamp_byte(u601(r, g, b)), v = clamp_byte(v601(r, g, b));
          if (nv12) {
            out.plane1[size_t(y) * W + 2 * x] = u;
            out.plane1[size_t(y) * W + 2 * x + 1] = v;
          } else {
            out.plane1[size_t(y) * cw + x] = u;
            out.plane2[size_t(y) * cw + x] = v;
          }
        }
      out.view.format = nv12 ? PixelFormat::NV12 : PixelFormat::I420;
      out.view.planes[0] = out.plane0.data();
      out.view.planes[1] = out.plane1.data();
      out.view.strides[0] = size_t(W);
      out.view.strides[1] = nv12 ? size_t(W) : size_t(cw);
      if (!nv12) {
        out.view.planes[2] = out.plane2.data();
        out.view.strides[2] = size_t(cw);
      }
      // OpenCV's layout of both: the Y rows, then H/2 rows of W bytes holding the
      // chroma planes one after the other (I420: all of U, then all of V).
      cv::Mat yuv(H + ch, W, CV_8UC1);
      uint8_t* dst = yuv.ptr<uint8_t>(0);
      dst = std::copy(out.plane0.begin(), out.plane0.end(), dst);
      dst = std::copy(out.plane1.begin(), out.plane1.end(), dst);
      std::copy(out.plane2.begin(), out.plane2.end(), dst);
      cv::cvtColor(yuv, out.peer, nv12 ? cv::COLOR_YUV2BGR_NV12 : cv::COLOR_YUV2BGR_I420);
      break;
    }
    case Format::Gray8: {
      out.plane0.resize(size_t(W) * H);
      for (int y = 0; y < H; ++y) {
        const uint8_t* s = rgb.ptr<uint8_t>(y);
        for (int x = 0; x < W; ++x)
          out.plane0[size_t(y) * W + x] = uint8_t(bt601_luma(s[3 * x], s[3 * x + 1], s[3 * x + 2]));
      }
      out.view = ImageView::gray8(out.plane0.data(), W, H);
      out.peer = cv::Mat(H, W, CV_8UC1, out.plane0.data()).clone();
      break;
    }
  }
}

namespace {

std::atomic<uint64_t> compared_frames{0}, mismatched_frames{0};

class Ours : public Detector {
 public:
  explicit Ours(const Cleanup& c) : options_(ours_options(c)) {
    if (ours_backend() == "cuda") engine_ = std::make_unique<cuda::Engine>();
  }

  void process(const Input& in, std::vector<Detection>& out, BinaryImage& mask) override {
    reference_label(in.view, options_, stage_, result_, &mask);
    if (engine_) {
      // The GPU's frame is the one scored; the CPU's must be the same, bit for bit.
      Result gpu;
      engine_->label_host(in.view, options_, gpu);
      engine_->copy_mask(gpu_mask_);
      ++compared_frames;
      if (gpu_mask_ != mask.pixels || gpu.components != result_.components ||
          gpu.num_components != result_.num_components)
        ++mismatched_frames;
      result_ = std::move(gpu);
      mask.pixels = gpu_mask_;
    }
    tracker_.update(in.view.width, in.view.height, result_.components, tracks_);
    out.clear();
    for (size_t i = 0; i < result_.components.size(); ++i) {
      const Component& c = result_.components[i];
      out.push_back({c.x, c.y, c.width, c.height, c.area, tracks_[i].id});
    }
  }

 private:
  Options options_;
  ForegroundStage stage_;
  Tracker tracker_;
  Result result_;
  std::vector<TrackInfo> tracks_;
  std::unique_ptr<cuda::Engine> engine_;
  std::vector<uint8_t> gpu_mask_;
};

class Mog2 : public Detector {
 public:
  explicit Mog2(const Cleanup& c)
      : cleanup_(c),
        mog2_(cv::createBackgroundSubtractorMOG2()),  // history 500, varThreshold 16, shadows on
        kernel_(cv::getStructuringElement(cv::MORPH_RECT,
                                          cv::Size(2 * c.close_radius + 1, 2 * c.close_radius + 1))) {}

  void process(const Input& in, std::vector<Detection>& out, BinaryImage& mask) override {
    mog2_->apply(in.peer, fg_);  // learning rate -1: 1/min(2n, history), as ours
    // MOG2 marks shadows 127 and foreground 255. Shadows are counted as background:
    // that is the stronger peer (its shadows would otherwise be false foreground),
    // and it is what ours does by design.
    cv::compare(fg_, 255, binary_, cv::CMP_EQ);
    if (cleanup_.close_radius > 0) cv::morphologyEx(binary_, binary_, cv::MORPH_CLOSE, kernel_);
    const int n = cv::connectedComponentsWithStats(binary_, labels_, stats_, centroids_, 8, CV_32S);
    components_.clear();
    for (int i = 1; i < n; ++i) {
      const int* s = stats_.ptr<int>(i);
      const uint64_t area = uint64_t(s[cv::CC_STAT_AREA]);
      if (area < cleanup_.min_area) continue;
      Component c;
      c.label = uint32_t(i);
      c.x = s[cv::CC_STAT_LEFT];
      c.y = s[cv::CC_STAT_TOP];
      c.width = s[cv::CC_STAT_WIDTH];
      c.height = s[cv::CC_STAT_HEIGHT];
      c.area = area;
      // The tracker reads centroids from the sums.
      c.sum_x = uint64_t(std::llround(centroids_.at<double>(i, 0) * double(area)));
      c.sum_y = uint64_t(std::llround(centroids_.at<double>(i, 1) * double(area)));
      components_.push_back(c);
    }
    tracker_.update(in.peer.cols, in.peer.rows, components_, tracks_);
    out.clear();
    for (size_t i = 0; i < components_.size(); ++i) {
      const Component& c = components_[i];
      out.push_back({c.x, c.y, c.width, c.height, c.area, tracks_[i].id});
    }
    mask.width = binary_.cols;
    mask.height = binary_.rows;
    mask.pixels.resize(size_t(binary_.total()));
    for (int y = 0; y < binary_.rows; ++y) {
      const uint8_t* s = binary_.ptr<uint8_t>(y);
      for (int x = 0; x < binary_.cols; ++x) mask.pixels[size_t(y) * binary_.cols + x] = s[x] ? 1 : 0;
    }
  }

 private:
  Cleanup cleanup_;
  cv::Ptr<cv::BackgroundSubtractorMOG2> mog2_;
  cv::Mat kernel_, fg_, binary_, labels_, stats_, centroids_;
  std::vector<Component> components_;
  Tracker tracker_;
  std::vector<TrackInfo> tracks_;
};

}  // namespace

Cleanup issue_cleanup(int width, int height) {
  Cleanup c;
  c.close_radius = 2;
  c.min_area = uint64_t(std::llround(120.0 * double(width) * height / (640.0 * 360.0)));
  return c;
}

std::string ours_backend() {
  const char* b = std::getenv("CCL_QUALITY_BACKEND");
  return b && *b ? b : "cpu";
}

uint64_t backend_frames() { return compared_frames.load(); }
uint64_t backend_mismatches() { return mismatched_frames.load(); }

Options ours_options(const Cleanup& cleanup) {
  Options o;
  o.foreground = ForegroundModel::Background;
  // The model's settings: BackgroundOptions' defaults (history 500, variance threshold
  // 16, shadows detected, light compensation on), as the issue's users run it.
  o.background = BackgroundOptions{};
  o.close_radius = cleanup.close_radius;
  o.min_area = cleanup.min_area;
  o.connectivity = 8;
  o.write_labels = false;
  return o;
}

std::unique_ptr<Detector> make_ours(const Cleanup& cleanup) { return std::make_unique<Ours>(cleanup); }
std::unique_ptr<Detector> make_mog2(const Cleanup& cleanup) { return std::make_unique<Mog2>(cleanup); }

}  // namespace ccl::quality
