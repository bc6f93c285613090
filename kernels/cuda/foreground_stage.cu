#include "foreground_stage.h"

#include <string>

#include "ccl/foreground.h"
#include "ccl/luma.h"

namespace ccl::cuda {

namespace {

constexpr int kPixelBlock = 256;

/// Only the last pass applies the region, so that the cleanup never reaches into it.
__device__ __forceinline__ uint8_t in_region(const uint8_t* region, size_t i, uint8_t v) {
  return region && !region[i] ? 0 : v;
}

/// The model's step for one pixel per thread: the state stays in its planes (one
/// uint16 field per plane, so a warp's loads and stores are contiguous), the mask byte
/// is the step's answer.
template <class Reader>
__global__ void __launch_bounds__(kPixelBlock)
    model_kernel(bg::Planes frame, int width, size_t pixels, uint16_t* state,
                 bg::StepParams p, const uint8_t* region, uint8_t* mask) {
  constexpr int C = Reader::C;
  const size_t i = size_t(blockIdx.x) * kPixelBlock + threadIdx.x;
  if (i >= pixels) return;
  const int y = int(i / unsigned(width)), x = int(i - size_t(y) * width);
  int32_t px[C];
  Reader::at(frame, x, y, px);
  bg::Modes<C> modes;
  if (p.first) {
    // The state of a model's first frame is whatever the memory held (poisoned in tests).
    for (int k = 0; k < bg::kModes; ++k) {
      modes.w[k] = modes.v[k] = 0;
      for (int c = 0; c < C; ++c) modes.m[k][c] = 0;
    }
  } else {
    bg::load(modes, state, pixels, i);
  }
  const bool fg = bg::step(modes, px, p);
  bg::store(modes, state, pixels, i);
  mask[i] = in_region(region, i, fg ? 1 : 0);
}

/// The global threshold written as a mask, for frames whose mask is cleaned.
template <class Luma>
__global__ void __launch_bounds__(kPixelBlock)
    threshold_kernel(Foreground fg, int width, size_t pixels, const uint8_t* region,
                     uint8_t* mask) {
  const size_t i = size_t(blockIdx.x) * kPixelBlock + threadIdx.x;
  if (i >= pixels) return;
  const int y = int(i / unsigned(width)), x = int(i - size_t(y) * width);
  mask[i] = in_region(region, i, fg.test<Luma>(x, y, fg.load_level()) ? 1 : 0);
}

/// One direction of a separable erosion (min) or dilation (max) over 2r+1 pixels,
/// clipped to the frame, as ccl::erode_mask / dilate_mask do on the CPU.
template <bool kMax, bool kRows>
__global__ void __launch_bounds__(kPixelBlock)
    morph_kernel(const uint8_t* src, int width, int height, int radius, const uint8_t* region,
                 uint8_t* dst) {
  const size_t pixels = size_t(width) * size_t(height);
  const size_t i = size_t(blockIdx.x) * kPixelBlock + threadIdx.x;
  if (i >= pixels) return;
  const int y = int(i / unsigned(width)), x = int(i - size_t(y) * width);
  const int at = kRows ? x : y, len = kRows ? width : height;
  const int lo = max(0, at - radius), hi = min(len - 1, at + radius);
  const uint8_t* line = kRows ? src + size_t(y) * width : src + x;
  const size_t step = kRows ? 1 : size_t(width);
  uint8_t v = kMax ? 0 : 1;
  for (int j = lo; j <= hi; ++j) {
    const uint8_t s = line[size_t(j) * step];
    v = kMax ? (s > v ? s : v) : (s < v ? s : v);
  }
  dst[i] = in_region(region, i, v);
}

unsigned pixel_blocks(size_t pixels) { return ceil_div(pixels, kPixelBlock); }

}  // namespace

bool ForegroundPass::reserve(const ImageView& image, const Options& options) {
  const size_t pixels = size_t(image.pixels());
  bool moved = false;
  if (options.mask_stage() || has_region()) moved |= mask_.reserve(pixels, "cudaMalloc (foreground mask)");
  if (options.open_radius > 0 || options.close_radius > 0)
    moved |= scratch_.reserve(pixels, "cudaMalloc (cleanup scratch)");
  if (options.foreground == ForegroundModel::Background) {
    const size_t planes = background_state_bytes_per_pixel(image.format) / sizeof(uint16_t);
    if (state_.reserve(pixels * planes, "cudaMalloc (background model)")) {
      moved = true;
      frames_ = 0;
    }
  }
  return moved;
}

bg::StepParams ForegroundPass::begin_frame(const ImageView& image, const Options& options) {
  if (options.foreground != ForegroundModel::Background) {
    frames_ = 0;
    return bg::StepParams{};
  }
  const int channels = background_channels(image.format);
  const bool chroma = bg::chroma_channels(image.format);
  if (image.width != width_ || image.height != height_ || channels != channels_ ||
      chroma != chroma_) {
    width_ = image.width;
    height_ = image.height;
    channels_ = channels;
    chroma_ = chroma;
    frames_ = 0;
  }
  ++frames_;
  const BackgroundOptions& o = options.background;
  return bg::step_params(o.history, o.learning_rate, o.variance_threshold, o.detect_shadows,
                         frames_, chroma);
}

Foreground ForegroundPass::enqueue(const ImageView& image, const Options& options,
                                   const Foreground& threshold, const bg::StepParams& params,
                                   cudaStream_t stream) {
  const int w = image.width, h = image.height;
  const size_t pixels = size_t(image.pixels());
  if (has_region() && (region_width_ != w || region_height_ != h))
    throw Error("the region mask is " + std::to_string(region_width_) + "x" +
                std::to_string(region_height_) + " but the frame is " + std::to_string(w) +
                "x" + std::to_string(h));
  const bool cleanup = options.open_radius > 0 || options.close_radius > 0;
  // Without cleanup the first kernel applies the region; with it, the last pass does.
  const uint8_t* first_region = cleanup ? nullptr : region();
  if (options.foreground == ForegroundModel::Background) {
    for (int p = 1; p < plane_count(image.format); ++p)
      if (!image.planes[p])
        throw Error(std::string("a ") + to_string(image.format) +
                    " frame needs its chroma planes on the device for the background model");
    bg::Planes planes{};
    for (int p = 0; p < 3; ++p) {
      planes.base[p] = static_cast<const uint8_t*>(image.planes[p]);
      planes.stride[p] = image.strides[p];
    }
    bg::with_channels(image.format, [&](auto reader) {
      model_kernel<decltype(reader)><<<pixel_blocks(pixels), kPixelBlock, 0, stream>>>(
          planes, w, pixels, state_.get(), params, first_region, mask_.get());
    });
    check_launch("model_kernel");
  } else {
    with_luma(image.format, [&](auto luma) {
      threshold_kernel<decltype(luma)><<<pixel_blocks(pixels), kPixelBlock, 0, stream>>>(
          threshold, w, pixels, first_region, mask_.get());
    });
    check_launch("threshold_kernel");
  }
  // Opening (erode, dilate) then closing (dilate, erode), each as a row then a column
  // pass; the region joins the very last pass.
  struct Pass {
    bool max;
    int radius;
  };
  const Pass passes[4] = {{false, options.open_radius},
                          {true, options.open_radius},
                          {true, options.close_radius},
                          {false, options.close_radius}};
  int last = -1;
  for (int k = 0; k < 4; ++k)
    if (passes[k].radius > 0) last = k;
  for (int k = 0; k <= last; ++k) {
    const Pass& pass = passes[k];
    if (pass.radius == 0) continue;
    const uint8_t* final_region = k == last ? region() : nullptr;
    const unsigned blocks = pixel_blocks(pixels);
    if (pass.max) {
      morph_kernel<true, true><<<blocks, kPixelBlock, 0, stream>>>(mask_.get(), w, h, pass.radius,
                                                                  nullptr, scratch_.get());
      morph_kernel<true, false><<<blocks, kPixelBlock, 0, stream>>>(
          scratch_.get(), w, h, pass.radius, final_region, mask_.get());
    } else {
      morph_kernel<false, true><<<blocks, kPixelBlock, 0, stream>>>(
          mask_.get(), w, h, pass.radius, nullptr, scratch_.get());
      morph_kernel<false, false><<<blocks, kPixelBlock, 0, stream>>>(
          scratch_.get(), w, h, pass.radius, final_region, mask_.get());
    }
    check_launch("morph_kernel");
  }
  Foreground fg{};
  fg.base = mask_.get();
  fg.stride = size_t(w);
  fg.format = PixelFormat::Gray8;
  fg.mode = ThresholdMode::Above;
  fg.level = nullptr;
  fg.fixed_level = 0;
  return fg;
}

void ForegroundPass::set_region(const uint8_t* region, int width, int height, size_t stride) {
  if (!region) {
    region_width_ = region_height_ = 0;
    return;
  }
  if (width < 1 || height < 1 || int64_t(width) * height > kMaxPixels)
    throw Error("region mask of " + std::to_string(width) + "x" + std::to_string(height) +
                " pixels cannot be used");
  if (!stride) stride = size_t(width);
  std::vector<uint8_t> packed(size_t(width) * height);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      packed[size_t(y) * width + x] = region[size_t(y) * stride + x] ? 1 : 0;
  region_.reserve(packed.size(), "cudaMalloc (region mask)");
  check_copy(cudaMemcpy(region_.get(), packed.data(), packed.size(), cudaMemcpyHostToDevice),
             "cudaMemcpy (region mask)");
  region_width_ = width;
  region_height_ = height;
}

void ForegroundPass::poison(int byte, size_t pixels, cudaStream_t stream) {
  mask_.fill_bytes(byte, pixels, stream);
  scratch_.fill_bytes(byte, pixels, stream);
  if (frames_ <= 1) state_.fill_bytes(byte, state_.capacity(), stream);
}

}  // namespace ccl::cuda
