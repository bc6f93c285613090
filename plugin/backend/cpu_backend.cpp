// The CPU backend: the engine's foreground stage (threshold or background model,
// cleanup and region, so that the mask is the GPU's bit for bit), OpenCV's
// connectedComponentsWithStats for labels, boxes and areas, the moments from the
// label image, the engine's blob analysis over it (ccl::measure_blobs) when blob
// properties or filters ask for it, and the host overlay.
#include <opencv2/imgproc.hpp>

#include <new>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "ccl/blob.h"
#include "ccl/foreground.h"
#include "ccl/reference.h"
#include "overlay/overlay_host.h"

namespace ccl::plugin {

namespace {

// Runs an OpenCV call, its failures as the engine's: std::bad_alloc when memory ran
// out, ccl::Error naming the call otherwise (the element tells the two apart).
template <typename F>
void opencv(const char* call, F&& f) {
  try {
    f();
  } catch (const cv::Exception& e) {
    if (e.code == cv::Error::StsNoMem) throw std::bad_alloc();
    throw Error(std::string("cpu backend: OpenCV's ") + call + " failed: " + e.what());
  }
}

class CpuBackend final : public Backend {
 public:
  const char* name() const override { return "cpu"; }

  void configure(PixelFormat, int width, int height) override {
    // cv::Mat::create keeps memory whose size already fits: allocated once per caps.
    opencv("cv::Mat::create", [&] { labels_.create(height, width, CV_32S); });
    binary_.pixels.reserve(size_t(width) * size_t(height));
  }

  // The label image is always there (OpenCV writes it), so keep_labels is moot.
  TableView label(const ImageView& frame, const Options& options, bool, bool,
                  Result& out) override {
    out.threshold_used = stage_.apply(frame, options, binary_);
    out.width = frame.width;
    out.height = frame.height;
    out.labels.clear();

    const cv::Mat binary(frame.height, frame.width, CV_8U, binary_.pixels.data());
    int n = 0;
    opencv("connectedComponentsWithStats", [&] {
      n = cv::connectedComponentsWithStats(binary, labels_, stats_, centroids_,
                                           options.connectivity, CV_32S, cv::CCL_WU);
    });
    features(uint32_t(n - 1), out);
    measure(frame, options, out);
    select_reported(out.components, out.blobs, options, &out.num_components, &out.group_of);
    return TableView{out.components.data(), uint32_t(out.components.size()),
                     out.blobs.empty() ? nullptr : out.blobs.data()};
  }

  void reset_foreground() override { stage_.reset(); }

  void set_region(const uint8_t* region, int width, int height) override {
    stage_.set_region(region, width, height);
  }

  void draw(const ImageView& frame, const Selection& selection, uint32_t flags,
            uint32_t alpha256) override {
    const int w = frame.width, h = frame.height;
    const bool marks = flags & overlay::kSolidFlags;
    if (marks)
      overlay::rasterize_marks_host(selection.marks.data(), selection.marks.size(),
                                    selection.trails.data(), selection.trails.size(), flags, w,
                                    h, owner_);
    const uint32_t tints = flags & (overlay::kFill | overlay::kForeground);
    const overlay::Scene scene{tints ? labels_.ptr<uint32_t>() : nullptr,
                               selection.color_key.data(),
                               uint32_t(selection.color_key.size() - 1),
                               marks ? owner_.data() : nullptr, alpha256, tints};
    overlay::Target target{frame.format, w, h, {}, {}};
    for (int p = 0; p < 3; ++p) {
      target.planes[p] = static_cast<uint8_t*>(frame.planes[p]);
      target.strides[p] = frame.strides[p];
    }
    overlay::draw_host(target, scene);
  }

 private:
  // Renumbers OpenCV's labels into the contract's order (raster order of first pixels,
  // docs/CONTRACT.md) when they are not already, and adds the moments OpenCV does not
  // compute.
  void features(uint32_t n, Result& out) {
    const int w = labels_.cols, h = labels_.rows;
    remap_.assign(size_t(n) + 1, 0);
    out.components.assign(n, Component{});
    uint32_t next = 0;
    bool identity = true;
    for (int y = 0; y < h; ++y) {
      const uint32_t* row = labels_.ptr<uint32_t>(y);
      for (int x = 0; x < w; ++x) {
        const uint32_t l = row[x];
        if (!l) continue;
        uint32_t& spec = remap_[l];
        if (!spec) {
          spec = ++next;
          identity = identity && spec == l;
          Component& c = out.components[spec - 1];
          c.label = spec;
          const int* s = stats_.ptr<int>(int(l));
          c.x = s[cv::CC_STAT_LEFT];
          c.y = s[cv::CC_STAT_TOP];
          c.width = s[cv::CC_STAT_WIDTH];
          c.height = s[cv::CC_STAT_HEIGHT];
          c.area = uint64_t(s[cv::CC_STAT_AREA]);
        }
        Component& c = out.components[spec - 1];
        c.sum_x += uint64_t(x);
        c.sum_y += uint64_t(y);
        c.sum_xx += uint64_t(x) * uint64_t(x);
        c.sum_xy += uint64_t(x) * uint64_t(y);
        c.sum_yy += uint64_t(y) * uint64_t(y);
      }
    }
    if (next != n)
      throw Error("cpu backend: OpenCV reported " + std::to_string(n) +
                  " components but the label image holds " + std::to_string(next));
    out.num_components = n;
    if (identity) return;
    for (int y = 0; y < h; ++y) {
      uint32_t* row = labels_.ptr<uint32_t>(y);
      for (int x = 0; x < w; ++x) row[x] = remap_[row[x]];
    }
  }

  // The blobs of every labeled component (before the selection, which keeps them
  // parallel to the components it keeps), over the label image in the contract's
  // order (features() renumbered it): the engine's own analysis, so that they are
  // the reference's bit for bit.
  void measure(const ImageView& frame, const Options& options, Result& out) {
    out.blobs.clear();
    const uint32_t properties = needed_properties(options);
    if (!properties) return;
    out.blobs = measure_blobs(labels_.ptr<uint32_t>(), frame, uint32_t(out.components.size()),
                              properties, options.connectivity);
  }

  ForegroundStage stage_;
  BinaryImage binary_;
  cv::Mat labels_, stats_, centroids_;
  std::vector<uint32_t> remap_;
  std::vector<uint32_t> owner_;
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend() { return std::make_unique<CpuBackend>(); }

}  // namespace ccl::plugin
