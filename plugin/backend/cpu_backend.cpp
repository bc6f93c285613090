// The CPU backend: the engine's foreground stage (threshold or background model,
// cleanup and region, so that the mask is the GPU's bit for bit), the engine's fast
// labeler for labels, boxes, areas and moments in the contract's order, the engine's
// blob analysis over the label image (ccl::measure_blobs) when blob properties or
// filters ask for it, and the host overlay. Both the stage and the labeler split their
// rows over the CPUs the process may use (CCL_CPU_THREADS overrides).
#include <cstring>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "ccl/blob.h"
#include "ccl/cpu_labeler.h"
#include "ccl/foreground.h"
#include "ccl/reference.h"
#include "overlay/overlay_host.h"

namespace ccl::plugin {

namespace {

class CpuBackend final : public Backend {
 public:
  const char* name() const override { return "cpu"; }

  void configure(PixelFormat, int width, int height) override {
    // Sized once per caps: frames of these caps allocate nothing, and draw() has a label
    // image to read even before the first frame was labeled.
    const size_t pixels = size_t(width) * size_t(height);
    binary_.pixels.reserve(pixels);
    labels_.assign(pixels, 0);
  }

  // The label image is always there (draw() reads it), so keep_labels is moot.
  TableView label(const ImageView& frame, const Options& options, bool, bool,
                  Result& out) override {
    out.threshold_used = stage_.apply(frame, options, binary_);
    label_binary_fast(binary_, options.connectivity, out);
    // The label image stays here for draw() and measure(); the caller gets the table.
    // Swapping hands the labeler last frame's buffer, so neither is allocated again.
    labels_.swap(out.labels);
    out.labels.clear();
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
    const overlay::Scene scene{tints ? labels_.data() : nullptr,
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

  void write_mask(const std::vector<uint32_t>& id_of, int frame_width, int x, int y, int width,
                  int height, int bytes_per_pixel, uint8_t* mask, size_t stride) override {
    // Labels past the table read 0, as on the device (mask_cuda.cu).
    const size_t n = id_of.size();
    auto id = [&](uint32_t l) { return l < n ? id_of[l] : 0u; };
    for (int r = 0; r < height; ++r) {
      const uint32_t* labels = labels_.data() + size_t(y + r) * size_t(frame_width) + size_t(x);
      uint8_t* row = mask + size_t(r) * stride;
      if (bytes_per_pixel == 1)
        for (int c = 0; c < width; ++c) row[c] = uint8_t(id(labels[c]));
      else
        for (int c = 0; c < width; ++c) {
          const uint16_t v = uint16_t(id(labels[c]));
          std::memcpy(row + 2 * size_t(c), &v, 2);
        }
    }
  }

 private:
  // The blobs of every labeled component (before the selection, which keeps them
  // parallel to the components it keeps), over the label image in the contract's
  // order: the engine's own analysis, so that they are the reference's bit for bit.
  void measure(const ImageView& frame, const Options& options, Result& out) {
    out.blobs.clear();
    const uint32_t properties = needed_properties(options);
    if (!properties) return;
    out.blobs = measure_blobs(labels_.data(), frame, uint32_t(out.components.size()),
                              properties, options.connectivity);
  }

  ForegroundStage stage_;
  BinaryImage binary_;
  std::vector<uint32_t> labels_;  // the last frame's label image
  std::vector<uint32_t> owner_;
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend() { return std::make_unique<CpuBackend>(); }

}  // namespace ccl::plugin
