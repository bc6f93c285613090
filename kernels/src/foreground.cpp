// The foreground stage on the CPU (ccl/foreground.h): the same per-pixel model code as
// the GPU (background_model.h), the region and the cleanup. Sequential and plain: it is
// the oracle the GPU's masks are compared with.
#include "ccl/foreground.h"

#include <algorithm>
#include <string>

#include "background_model.h"
#include "color_range.h"
#include "local_threshold.h"
#include "ccl/luma.h"

namespace ccl {

int background_channels(PixelFormat format) {
  return bg::with_channels(format, [](auto reader) { return decltype(reader)::C; });
}

size_t background_state_bytes_per_pixel(PixelFormat format) {
  return size_t(bg::kModes) * size_t(background_channels(format) + 2) * sizeof(uint16_t);
}

namespace {

/// One direction of a separable min (erode) or max (dilate) over 2r+1 pixels, clipped
/// to the frame, from `src` into `dst`.
template <bool kMax>
void sweep(const uint8_t* src, uint8_t* dst, int width, int height, int radius, bool rows) {
  const int len = rows ? width : height, lines = rows ? height : width;
  const size_t step = rows ? 1 : size_t(width), line_step = rows ? size_t(width) : 1;
  for (int l = 0; l < lines; ++l) {
    const uint8_t* s = src + size_t(l) * line_step;
    uint8_t* d = dst + size_t(l) * line_step;
    for (int i = 0; i < len; ++i) {
      const int lo = std::max(0, i - radius), hi = std::min(len - 1, i + radius);
      uint8_t v = s[size_t(lo) * step];
      for (int j = lo + 1; j <= hi; ++j) v = kMax ? std::max(v, s[size_t(j) * step]) : std::min(v, s[size_t(j) * step]);
      d[size_t(i) * step] = v;
    }
  }
}

template <bool kMax>
void morph(BinaryImage& mask, int radius, std::vector<uint8_t>& scratch) {
  if (radius <= 0) return;
  scratch.resize(mask.pixels.size());
  sweep<kMax>(mask.pixels.data(), scratch.data(), mask.width, mask.height, radius, true);
  sweep<kMax>(scratch.data(), mask.pixels.data(), mask.width, mask.height, radius, false);
}

void require_host(const ImageView& frame) {
  if (frame.space != MemorySpace::Host)
    throw Error("the CPU foreground stage needs an image in host memory");
}

}  // namespace

void erode_mask(BinaryImage& mask, int radius, std::vector<uint8_t>& scratch) {
  morph<false>(mask, radius, scratch);
}

void dilate_mask(BinaryImage& mask, int radius, std::vector<uint8_t>& scratch) {
  morph<true>(mask, radius, scratch);
}

void clean_mask(BinaryImage& mask, int open_radius, int close_radius, const uint8_t* region,
                std::vector<uint8_t>& scratch) {
  erode_mask(mask, open_radius, scratch);
  dilate_mask(mask, open_radius, scratch);
  dilate_mask(mask, close_radius, scratch);
  erode_mask(mask, close_radius, scratch);
  if (region)
    for (size_t i = 0; i < mask.pixels.size(); ++i)
      if (!region[i]) mask.pixels[i] = 0;
}

struct ForegroundStage::Impl {
  std::vector<uint16_t> state;  // the model: StateLayout planes of width*height each
  int width = 0, height = 0;
  PixelFormat format = PixelFormat::Gray8;
  uint64_t frames = 0;
  std::vector<uint8_t> region;
  int region_width = 0, region_height = 0;
  std::vector<uint8_t> scratch;
  std::vector<uint32_t> votes;  // the gain's histogram
  int32_t last_gain = 256;

  template <class Reader>
  void model(const ImageView& frame, const BackgroundOptions& o, BinaryImage& mask) {
    constexpr int C = Reader::C;
    const size_t plane = size_t(frame.pixels());
    if (frame.width != width || frame.height != height || frame.format != format) {
      width = frame.width;
      height = frame.height;
      format = frame.format;
      frames = 0;
    }
    if (frames == 0) state.assign(plane * bg::StateLayout<C>::kPlanes, 0);
    ++frames;
    const bg::StepParams p = bg::step_params(o, frames);
    bg::Planes planes{};
    for (int i = 0; i < 3; ++i) {
      planes.base[i] = static_cast<const uint8_t*>(frame.planes[i]);
      planes.stride[i] = frame.strides[i];
    }
    const int32_t gain = p.compensate ? measure_gain<Reader>(planes, frame, p) : 256;
    last_gain = gain;
    for (int y = 0; y < frame.height; ++y)
      for (int x = 0; x < frame.width; ++x) {
        const size_t i = size_t(y) * frame.width + x;
        int32_t px[C];
        Reader::at(planes, x, y, px);
        bg::Modes<C> modes;
        bg::load(modes, state.data(), plane, i);
        mask.pixels[i] = bg::step(modes, px, p, gain) ? 1 : 0;
        bg::store(modes, state.data(), plane, i);
      }
  }

  /// The frame's light against the model's, before the model moves (bg::gain_vote).
  template <class Reader>
  int32_t measure_gain(const bg::Planes& planes, const ImageView& frame, const bg::StepParams& p) {
    constexpr int C = Reader::C;
    votes.assign(bg::kGainBins, 0);
    const size_t plane = size_t(frame.pixels());
    for (int y = 0; y < frame.height; y += bg::kGainStepY)
      for (int x = 0; x < frame.width; x += bg::kGainStepX) {
        int32_t px[C];
        Reader::at(planes, x, y, px);
        const int b = bg::gain_vote<C>(px, state.data(), plane, size_t(y) * frame.width + x);
        if (b >= 0) ++votes[size_t(b)];
      }
    uint64_t total = 0, before = 0;
    for (uint32_t v : votes) total += v;
    for (int b = 0; b < bg::kGainBins; before += votes[size_t(b)], ++b)
      if (bg::median_bin(before, votes[size_t(b)], total)) return bg::gain_of(b, total, p);
    return 256;
  }
};

ForegroundStage::ForegroundStage() : impl_(std::make_unique<Impl>()) {}
ForegroundStage::~ForegroundStage() = default;
ForegroundStage::ForegroundStage(ForegroundStage&&) noexcept = default;
ForegroundStage& ForegroundStage::operator=(ForegroundStage&&) noexcept = default;

int ForegroundStage::apply(const ImageView& frame, const Options& options, BinaryImage& mask) {
  validate(frame, options);
  Impl& d = *impl_;
  if (!d.region.empty() && (d.region_width != frame.width || d.region_height != frame.height))
    throw Error("the region mask is " + std::to_string(d.region_width) + "x" +
                std::to_string(d.region_height) + " but the frame is " +
                std::to_string(frame.width) + "x" + std::to_string(frame.height));
  int level = 0;
  if (options.foreground == ForegroundModel::Threshold) {
    level = threshold_image(frame, options, mask);
    d.frames = 0;  // a model that skipped frames starts over when it is chosen again
  } else if (options.foreground == ForegroundModel::Local) {
    require_host(frame);
    mask.width = frame.width;
    mask.height = frame.height;
    mask.pixels.resize(size_t(frame.pixels()));
    local::mask_host(frame, options, mask.pixels.data());
    d.frames = 0;  // as for the threshold: the background model starts over after it
  } else if (options.foreground == ForegroundModel::Color) {
    require_host(frame);
    mask.width = frame.width;
    mask.height = frame.height;
    mask.pixels.resize(size_t(frame.pixels()));
    color::mask_host(frame, options.color, mask.pixels.data());
    d.frames = 0;  // as for the threshold: the background model starts over after it
  } else {
    require_host(frame);  // its planes are validate()'s
    mask.width = frame.width;
    mask.height = frame.height;
    mask.pixels.resize(size_t(frame.pixels()));
    bg::with_channels(frame.format, [&](auto reader) {
      d.model<decltype(reader)>(frame, options.background, mask);
    });
  }
  clean_mask(mask, options.open_radius, options.close_radius,
             d.region.empty() ? nullptr : d.region.data(), d.scratch);
  return level;
}

void ForegroundStage::reset() { impl_->frames = 0; }

uint64_t ForegroundStage::frames() const { return impl_->frames; }

double ForegroundStage::light_gain() const { return impl_->last_gain / 256.0; }

void ForegroundStage::set_region(const uint8_t* region, int width, int height, size_t stride) {
  Impl& d = *impl_;
  if (!region) {
    d.region.clear();
    d.region_width = d.region_height = 0;
    return;
  }
  if (width < 1 || height < 1 || int64_t(width) * height > kMaxPixels)
    throw Error("region mask of " + std::to_string(width) + "x" + std::to_string(height) +
                " pixels cannot be used");
  if (!stride) stride = size_t(width);
  d.region.resize(size_t(width) * height);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      d.region[size_t(y) * width + x] = region[size_t(y) * stride + x] ? 1 : 0;
  d.region_width = width;
  d.region_height = height;
}

bool ForegroundStage::has_region() const { return !impl_->region.empty(); }

void reference_label(const ImageView& image, const Options& options, ForegroundStage& stage,
                     Result& out, BinaryImage* mask) {
  BinaryImage local;
  BinaryImage& m = mask ? *mask : local;
  const int level = stage.apply(image, options, m);
  label_binary(m, options.connectivity, out);
  out.threshold_used = level;
  report_labeled(image, options, out);
}

}  // namespace ccl
