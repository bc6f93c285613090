#include "foreground_stage.h"

#include <algorithm>
#include <string>

#include <cub/block/block_scan.cuh>

#include "ccl/foreground.h"
#include "ccl/luma.h"
#include "color_range.h"

namespace ccl::cuda {

namespace {

constexpr int kPixelBlock = 256;
/// Mask rows and state planes are padded to this many bytes / entries, so that the
/// cleanup moves 4 mask bytes and the model 2 state fields per access.
constexpr size_t kPitchAlign = 64;

size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

template <int C, class F>
__device__ __forceinline__ void for_each_field(bg::Modes<C>& s, F&& f) {
  using L = bg::StateLayout<C>;
#pragma unroll
  for (int k = 0; k < bg::kModes; ++k) {
    f(L::weight(k), s.w[k]);
#pragma unroll
    for (int c = 0; c < C; ++c) f(L::mean(k, c), s.m[k][c]);
    f(L::var(k), s.v[k]);
  }
}

/// One pixel's step: reads it, updates its modes, writes its mask byte.
template <class Reader>
__device__ __forceinline__ void classify(const bg::Planes& frame, int width, size_t i,
                                         bg::Modes<Reader::C>& modes, const bg::StepParams& p,
                                         int32_t gain, const uint8_t* region, uint8_t* mask,
                                         size_t pitch) {
  const int y = int(i / unsigned(width)), x = int(i - size_t(y) * width);
  int32_t px[Reader::C];
  Reader::at(frame, x, y, px);
  const bool fg = bg::step(modes, px, p, gain);
  const size_t o = size_t(y) * pitch + x;
  mask[o] = region && !region[o] ? 0 : fg ? 1 : 0;
}

/// The model's step for two neighbouring pixels per thread: each state field of the
/// pair is one 32-bit word of its plane, so a warp moves 128 contiguous bytes per field.
template <class Reader>
__global__ void __launch_bounds__(kPixelBlock)
    model_kernel(bg::Planes frame, int width, size_t pixels, uint16_t* state, size_t plane,
                 bg::StepParams p, const int32_t* gain, const uint8_t* region, uint8_t* mask,
                 size_t pitch) {
  constexpr int C = Reader::C;
  const size_t i = 2 * (size_t(blockIdx.x) * kPixelBlock + threadIdx.x);
  if (i >= pixels) return;
  const int32_t g = gain ? *gain : 256;
  const bool pair = i + 1 < pixels;
  bg::Modes<C> a, b;
  if (p.first) {
    // A model's first frame reads nothing of the state (poisoned in tests).
    for_each_field(a, [](size_t, int32_t& v) { v = 0; });
    for_each_field(b, [](size_t, int32_t& v) { v = 0; });
  } else if (pair) {
    uint32_t words[bg::StateLayout<C>::kPlanes];
#pragma unroll
    for (int q = 0; q < bg::StateLayout<C>::kPlanes; ++q)
      words[q] = *reinterpret_cast<const uint32_t*>(state + size_t(q) * plane + i);
    for_each_field(a, [&](size_t q, int32_t& v) { v = int32_t(words[q] & 0xffffu); });
    for_each_field(b, [&](size_t q, int32_t& v) { v = int32_t(words[q] >> 16); });
  } else {
    bg::load(a, state, plane, i);
  }
  // Two explicit calls, not a loop over a reference to a or b: a mode array picked at
  // run time would live in local memory.
  classify<Reader>(frame, width, i, a, p, g, region, mask, pitch);
  if (pair) classify<Reader>(frame, width, i + 1, b, p, g, region, mask, pitch);
  if (pair) {
    // Both pixels' fields go out as one word per plane.
    uint32_t words[bg::StateLayout<C>::kPlanes];
    for_each_field(a, [&](size_t q, int32_t& v) { words[q] = bg::to_field(v); });
    for_each_field(b, [&](size_t q, int32_t& v) { words[q] |= uint32_t(bg::to_field(v)) << 16; });
#pragma unroll
    for (int q = 0; q < bg::StateLayout<C>::kPlanes; ++q)
      *reinterpret_cast<uint32_t*>(state + size_t(q) * plane + i) = words[q];
  } else {
    bg::store(a, state, plane, i);
  }
}

/// The frame's gain in one launch: each block counts the votes of its share of the
/// sample pixels (bg::gain_vote) in shared memory (a frame's votes fall in a few bins,
/// so few reach the global histogram); the last block to finish finds the median
/// (bg::gain_of) and clears the histogram for the next frame.
template <class Reader>
__global__ void __launch_bounds__(kPixelBlock)
    gain_kernel(bg::Planes frame, int width, int height, const uint16_t* state, size_t plane,
                bg::StepParams p, GainState* g) {
  constexpr int kPerThread = bg::kGainBins / kPixelBlock;
  __shared__ uint32_t local[bg::kGainBins];
  __shared__ bool last;
  for (int b = threadIdx.x; b < bg::kGainBins; b += kPixelBlock) local[b] = 0;
  __syncthreads();
  const unsigned cols = unsigned(width + bg::kGainStepX - 1) / bg::kGainStepX;
  const size_t samples = size_t(cols) * unsigned((height + bg::kGainStepY - 1) / bg::kGainStepY);
  for (size_t s = size_t(blockIdx.x) * kPixelBlock + threadIdx.x; s < samples;
       s += size_t(gridDim.x) * kPixelBlock) {
    const int y = int(s / cols) * bg::kGainStepY, x = int(s % cols) * bg::kGainStepX;
    int32_t px[Reader::C];
    Reader::at(frame, x, y, px);
    const int b = bg::gain_vote<Reader::C>(px, state, plane, size_t(y) * width + x);
    if (b >= 0) atomicAdd(&local[b], 1u);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < bg::kGainBins; b += kPixelBlock)
    if (local[b]) atomicAdd(&g->votes[b], local[b]);
  // Every block's votes are in the histogram before the last block reads it.
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) last = atomicAdd(&g->blocks_done, 1u) == gridDim.x - 1;
  __syncthreads();
  if (!last) return;
  __threadfence();
  using Scan = cub::BlockScan<uint32_t, kPixelBlock>;
  __shared__ typename Scan::TempStorage temp;
  uint32_t v[kPerThread], before[kPerThread];
  const int first = threadIdx.x * kPerThread;
#pragma unroll
  for (int k = 0; k < kPerThread; ++k) {
    v[k] = atomicExch(&g->votes[first + k], 0u);  // read, and cleared for the next frame
  }
  uint32_t total = 0;
  Scan(temp).ExclusiveSum(v, before, total);
#pragma unroll
  for (int k = 0; k < kPerThread; ++k)
    if (bg::median_bin(before[k], v[k], total)) g->gain = bg::gain_of(first + k, total, p);
  if (total == 0 && threadIdx.x == 0) g->gain = 256;
  if (threadIdx.x == 0) g->blocks_done = 0;
}

/// The global threshold written as a mask, for frames whose mask is cleaned.
template <class Luma>
__global__ void __launch_bounds__(kPixelBlock)
    threshold_kernel(Foreground fg, int width, size_t pixels, const uint8_t* region,
                     uint8_t* mask, size_t pitch) {
  const size_t i = size_t(blockIdx.x) * kPixelBlock + threadIdx.x;
  if (i >= pixels) return;
  const int y = int(i / unsigned(width)), x = int(i - size_t(y) * width);
  const size_t o = size_t(y) * pitch + x;
  mask[o] = region && !region[o] ? 0 : fg.test<Luma>(x, y, fg.load_level()) ? 1 : 0;
}

/// Erosion (min) or dilation (max) of 4 mask bytes per thread along the row, over
/// 2r+1 pixels clipped to the frame, as ccl::erode_mask / dilate_mask do on the CPU.
template <bool kMax>
__global__ void __launch_bounds__(kPixelBlock)
    morph_rows_kernel(const uint8_t* src, int width, int height, size_t pitch, int radius,
                      uint8_t* dst) {
  const int x0 = 4 * (blockIdx.x * kPixelBlock + threadIdx.x), y = blockIdx.y;
  if (x0 >= width || y >= height) return;
  const uint8_t* row = src + size_t(y) * pitch;
  uint32_t out = 0;
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    const int x = x0 + k;
    if (x >= width) break;
    const int lo = max(0, x - radius), hi = min(width - 1, x + radius);
    uint32_t v = kMax ? 0u : 1u;
    for (int j = lo; j <= hi; ++j) v = kMax ? max(v, uint32_t(row[j])) : min(v, uint32_t(row[j]));
    out |= v << (8 * k);
  }
  *reinterpret_cast<uint32_t*>(dst + size_t(y) * pitch + x0) = out;
}

/// The same along the column, 4 columns per thread as one word per row (byte-wise
/// min / max); the last pass also clears what lies outside the region.
template <bool kMax>
__global__ void __launch_bounds__(kPixelBlock)
    morph_columns_kernel(const uint8_t* src, int width, int height, size_t pitch, int radius,
                         const uint8_t* region, uint8_t* dst) {
  const int x0 = 4 * (blockIdx.x * kPixelBlock + threadIdx.x), y = blockIdx.y;
  if (x0 >= width || y >= height) return;
  const int lo = max(0, y - radius), hi = min(height - 1, y + radius);
  uint32_t v = kMax ? 0u : 0x01010101u;
  for (int j = lo; j <= hi; ++j) {
    const uint32_t s = *reinterpret_cast<const uint32_t*>(src + size_t(j) * pitch + x0);
    v = kMax ? __vmaxu4(v, s) : __vminu4(v, s);
  }
  const size_t o = size_t(y) * pitch + x0;
  if (region) v &= *reinterpret_cast<const uint32_t*>(region + o) * 0xffu;  // bytes 0 or 1
  *reinterpret_cast<uint32_t*>(dst + o) = v;
}

/// One erosion or dilation of `mask` in place: rows into `scratch`, columns back.
template <bool kMax>
void morph(dim3 grid, uint8_t* mask, uint8_t* scratch, int width, int height, size_t pitch,
           int radius, const uint8_t* region, cudaStream_t stream) {
  morph_rows_kernel<kMax><<<grid, kPixelBlock, 0, stream>>>(mask, width, height, pitch, radius,
                                                            scratch);
  check_launch("morph_rows_kernel");
  morph_columns_kernel<kMax><<<grid, kPixelBlock, 0, stream>>>(scratch, width, height, pitch,
                                                               radius, region, mask);
  check_launch("morph_columns_kernel");
}

unsigned pixel_blocks(size_t pixels) { return ceil_div(pixels, kPixelBlock); }

/// A block per 256 samples hides the latency of their scattered reads (a 4K frame has
/// 260,000); beyond this many, blocks loop over their share.
constexpr unsigned kMaxGainBlocks = 1024;

}  // namespace

void ForegroundPass::check(const ImageView& image) const {
  if (has_region() && (region_width_ != image.width || region_height_ != image.height))
    throw Error("the region mask is " + std::to_string(region_width_) + "x" +
                std::to_string(region_height_) + " but the frame is " +
                std::to_string(image.width) + "x" + std::to_string(image.height));
}

size_t ForegroundPass::pitch(int width) { return round_up(size_t(width), kPitchAlign); }

bool ForegroundPass::reserve(const ImageView& image, const Options& options) {
  const size_t bytes = pitch(image.width) * size_t(image.height);
  bool moved = false;
  if (options.mask_stage() || has_region()) moved |= mask_.reserve(bytes, "cudaMalloc (foreground mask)");
  if (options.open_radius > 0 || options.close_radius > 0)
    moved |= scratch_.reserve(bytes, "cudaMalloc (cleanup scratch)");
  if (options.foreground == ForegroundModel::Local) moved |= local_.reserve(image);
  if (options.foreground == ForegroundModel::Background) {
    const size_t planes = background_state_bytes_per_pixel(image.format) / sizeof(uint16_t);
    if (state_.reserve(round_up(size_t(image.pixels()), kPitchAlign) * planes,
                       "cudaMalloc (background model)")) {
      moved = true;
      frames_ = 0;
    }
    if (gain_.reserve(1, "cudaMalloc (light gain)")) {
      // The votes and the count start at zero; the gain kernel keeps them so.
      CCL_CUDA_CHECK(cudaMemset(gain_.get(), 0, sizeof(GainState)));
      moved = true;
    }
  }
  return moved;
}

bg::StepParams ForegroundPass::begin_frame(const ImageView& image, const Options& options) {
  if (options.foreground != ForegroundModel::Background) {
    frames_ = 0;
    return bg::StepParams{};
  }
  // Any other format restarts the model: BGRA read as RGBA would swap two channels.
  if (image.width != width_ || image.height != height_ || image.format != format_) {
    width_ = image.width;
    height_ = image.height;
    format_ = image.format;
    frames_ = 0;
  }
  ++frames_;
  return bg::step_params(options.background, frames_);
}

Foreground ForegroundPass::enqueue(const ImageView& image, const Options& options,
                                   const Foreground& threshold, const bg::StepParams& params,
                                   cudaStream_t stream) {
  const int w = image.width, h = image.height;
  const size_t pixels = size_t(image.pixels());
  const bool cleanup = options.open_radius > 0 || options.close_radius > 0;
  const size_t mp = pitch(w);
  // Without cleanup the first kernel applies the region; with it, the last pass does.
  const uint8_t* first_region = cleanup ? nullptr : region();
  if (options.foreground == ForegroundModel::Background) {
    bg::Planes planes{};
    for (int p = 0; p < 3; ++p) {
      planes.base[p] = static_cast<const uint8_t*>(image.planes[p]);
      planes.stride[p] = image.strides[p];
    }
    const size_t plane = round_up(pixels, kPitchAlign);
    GainState* g = params.compensate ? gain_.get() : nullptr;
    bg::with_channels(image.format, [&](auto reader) {
      using Reader = decltype(reader);
      if (g) {
        const size_t samples = size_t((w + bg::kGainStepX - 1) / bg::kGainStepX) *
                               size_t((h + bg::kGainStepY - 1) / bg::kGainStepY);
        const unsigned blocks = std::min(pixel_blocks(samples), kMaxGainBlocks);
        gain_kernel<Reader><<<blocks, kPixelBlock, 0, stream>>>(planes, w, h, state_.get(), plane,
                                                                params, g);
        check_launch("gain_kernel");
      }
      model_kernel<Reader><<<pixel_blocks((pixels + 1) / 2), kPixelBlock, 0, stream>>>(
          planes, w, pixels, state_.get(), plane, params, g ? &g->gain : nullptr, first_region,
          mask_.get(), mp);
    });
    check_launch("model_kernel");
  } else if (options.foreground == ForegroundModel::Local) {
    local_.enqueue(image, options, first_region, mask_.get(), mp, stream);
  } else if (options.foreground == ForegroundModel::Color) {
    enqueue_color_range(image, options.color, first_region, mask_.get(), mp, stream);
  } else {
    with_luma(image.format, [&](auto luma) {
      threshold_kernel<decltype(luma)><<<pixel_blocks(pixels), kPixelBlock, 0, stream>>>(
          threshold, w, pixels, first_region, mask_.get(), mp);
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
  const dim3 grid(ceil_div(ceil_div(size_t(w), 4), kPixelBlock), unsigned(h));
  for (int k = 0; k <= last; ++k) {
    const Pass& pass = passes[k];
    if (pass.radius == 0) continue;
    const uint8_t* final_region = k == last ? region() : nullptr;
    (pass.max ? morph<true> : morph<false>)(grid, mask_.get(), scratch_.get(), w, h, mp,
                                            pass.radius, final_region, stream);
  }
  Foreground fg{};
  fg.base = mask_.get();
  fg.stride = mp;
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
  // Pitched as the mask is, so that the cleanup's last pass reads it a word at a time.
  const size_t rp = pitch(width);
  std::vector<uint8_t> packed(rp * size_t(height), 0);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      packed[size_t(y) * rp + x] = region[size_t(y) * stride + x] ? 1 : 0;
  region_.reserve(packed.size(), "cudaMalloc (region mask)");
  check_copy(cudaMemcpy(region_.get(), packed.data(), packed.size(), cudaMemcpyHostToDevice),
             "cudaMemcpy (region mask)");
  region_width_ = width;
  region_height_ = height;
}

void ForegroundPass::poison(int byte, int width, int height, cudaStream_t stream) {
  const size_t bytes = pitch(width) * size_t(height);
  mask_.fill_bytes(byte, bytes, stream);
  scratch_.fill_bytes(byte, bytes, stream);
  local_.poison(byte, width, height, stream);
  // Only the gain itself: the votes are an accumulator that the kernel leaves at zero.
  if (gain_.capacity())
    CCL_CUDA_CHECK(cudaMemsetAsync(&gain_.get()->gain, byte, sizeof(int32_t), stream));
  if (frames_ <= 1) state_.fill_bytes(byte, state_.capacity(), stream);
}

}  // namespace ccl::cuda
