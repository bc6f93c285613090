// The foreground stage on the CPU (ccl/foreground.h): the same per-pixel model as the
// GPU (background_model.h, run a vector of pixels at a time by background_model_simd.h
// with the same results), the region and the cleanup. It is the oracle the GPU's
// masks are compared with, and the production CPU path: rows are cut into bands that
// the calling thread's pool (parallel.h) shares out, and every pixel's result depends
// on the frame alone, so the mask is the same for any number of threads.
#include "ccl/foreground.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <string>
#include <type_traits>

#include "background_model.h"
#include "background_model_simd.h"
#include "cpu_features.h"
#include "color_range.h"
#include "local_threshold.h"
#include "parallel.h"
#include "ccl/luma.h"

namespace ccl {

int background_channels(PixelFormat format) {
  return bg::with_channels(format, [](auto reader) { return decltype(reader)::C; });
}

size_t background_state_bytes_per_pixel(PixelFormat format) {
  return size_t(bg::kModes) * size_t(background_channels(format) + 2) * sizeof(uint16_t);
}

namespace {

// ---- cleanup --------------------------------------------------------------------------
// A square min (erode) or max (dilate) is separable: along rows, then along columns.
// Pixels outside the frame are ignored, which is the same as padding with the
// operation's identity (0 for max, 255 for min). Both directions are written as plain
// loops over x with a short inner window, so that GCC turns them into byte-wise
// min/max over whole vectors: (2r+1) vector operations per 16 or 32 pixels. The small
// radii that cleanups use are compiled with the radius fixed, so that a window is
// taken in registers and written once, instead of once per offset.

/// One erosion or dilation of the cleanup.
struct MorphOp {
  bool max;
  int radius;
};

/// The cleanup's operations in order: opening (erode, dilate), closing (dilate, erode).
int cleanup_ops(int open_radius, int close_radius, MorphOp* ops) {
  int n = 0;
  if (open_radius > 0) {
    ops[n++] = {false, open_radius};
    ops[n++] = {true, open_radius};
  }
  if (close_radius > 0) {
    ops[n++] = {true, close_radius};
    ops[n++] = {false, close_radius};
  }
  return n;
}

#define CCL_MORPH_INLINE __attribute__((always_inline)) inline

template <bool kMax>
CCL_MORPH_INLINE uint8_t pick(uint8_t a, uint8_t b) {
  return kMax ? (a > b ? a : b) : (a < b ? a : b);
}

/// Rows [y0, y1) of src filtered along x into dst; `line` is scratch of w + 2r bytes.
/// kR > 0: the radius, known when compiled (the window's loop unrolls and each output
/// vector is computed in registers); 0: r, at run time (a pass over the row per offset).
template <bool kMax, int kR>
CCL_MORPH_INLINE void morph_rows(const uint8_t* src, uint8_t* dst, int w, int y0, int y1, int r,
                                 uint8_t* line) {
  if (kR) r = kR;
  const uint8_t pad = kMax ? 0 : 255;
  for (int i = 0; i < r; ++i) line[i] = line[size_t(r) + w + i] = pad;
  for (int y = y0; y < y1; ++y) {
    const uint8_t* s = src + size_t(y) * w;
    uint8_t* d = dst + size_t(y) * w;
    std::memcpy(line + r, s, size_t(w));
    if constexpr (kR > 0) {
      for (int x = 0; x < w; ++x) {
        uint8_t m = line[x];
        for (int j = 1; j <= 2 * kR; ++j) m = pick<kMax>(m, line[x + j]);
        d[x] = m;
      }
    } else {
      for (int x = 0; x < w; ++x) d[x] = line[x];
      for (int j = 1; j <= 2 * r; ++j) {
        const uint8_t* l = line + j;
        for (int x = 0; x < w; ++x) d[x] = pick<kMax>(d[x], l[x]);
      }
    }
  }
}

/// Rows [y0, y1) of dst: src (all h rows) filtered along y; kR as for morph_rows.
template <bool kMax, int kR>
CCL_MORPH_INLINE void morph_cols(const uint8_t* src, uint8_t* dst, int w, int h, int y0, int y1,
                                 int r) {
  if (kR) r = kR;
  for (int y = y0; y < y1; ++y) {
    const int lo = std::max(0, y - r), hi = std::min(h - 1, y + r);
    uint8_t* d = dst + size_t(y) * w;
    if constexpr (kR > 0) {
      if (hi - lo == 2 * kR) {  // the whole window inside the frame
        const uint8_t* s[2 * kR + 1];
        for (int j = 0; j <= 2 * kR; ++j) s[j] = src + size_t(lo + j) * w;
        for (int x = 0; x < w; ++x) {
          uint8_t m = s[0][x];
          for (int j = 1; j <= 2 * kR; ++j) m = pick<kMax>(m, s[j][x]);
          d[x] = m;
        }
        continue;
      }
    }
    const uint8_t* first = src + size_t(lo) * w;
    for (int x = 0; x < w; ++x) d[x] = first[x];
    for (int j = lo + 1; j <= hi; ++j) {
      const uint8_t* s = src + size_t(j) * w;
      for (int x = 0; x < w; ++x) d[x] = pick<kMax>(d[x], s[x]);
    }
  }
}

template <bool kMax>
CCL_MORPH_INLINE void rows_radius(const uint8_t* src, uint8_t* dst, int w, int y0, int y1, int r,
                                  uint8_t* line) {
  switch (r) {
    case 1: return morph_rows<kMax, 1>(src, dst, w, y0, y1, r, line);
    case 2: return morph_rows<kMax, 2>(src, dst, w, y0, y1, r, line);
    case 3: return morph_rows<kMax, 3>(src, dst, w, y0, y1, r, line);
    default: return morph_rows<kMax, 0>(src, dst, w, y0, y1, r, line);
  }
}

template <bool kMax>
CCL_MORPH_INLINE void cols_radius(const uint8_t* src, uint8_t* dst, int w, int h, int y0, int y1,
                                  int r) {
  switch (r) {
    case 1: return morph_cols<kMax, 1>(src, dst, w, h, y0, y1, r);
    case 2: return morph_cols<kMax, 2>(src, dst, w, h, y0, y1, r);
    case 3: return morph_cols<kMax, 3>(src, dst, w, h, y0, y1, r);
    default: return morph_cols<kMax, 0>(src, dst, w, h, y0, y1, r);
  }
}

CCL_MORPH_INLINE void rows_impl(const MorphOp& op, const uint8_t* src, uint8_t* dst, int w, int y0,
                                int y1, uint8_t* line) {
  if (op.max) rows_radius<true>(src, dst, w, y0, y1, op.radius, line);
  else rows_radius<false>(src, dst, w, y0, y1, op.radius, line);
}

CCL_MORPH_INLINE void cols_impl(const MorphOp& op, const uint8_t* src, uint8_t* dst, int w, int h,
                                int y0, int y1) {
  if (op.max) cols_radius<true>(src, dst, w, h, y0, y1, op.radius);
  else cols_radius<false>(src, dst, w, h, y0, y1, op.radius);
}

// Each pass is compiled for the baseline instruction set and for AVX2 (twice the bytes
// per operation); the CPU picks. Byte min and max give the same bytes either way.
void rows_generic(const MorphOp& op, const uint8_t* src, uint8_t* dst, int w, int y0, int y1,
                  uint8_t* line) {
  rows_impl(op, src, dst, w, y0, y1, line);
}

CCL_TARGET_AVX2 void rows_avx2(const MorphOp& op, const uint8_t* src,
                                               uint8_t* dst, int w, int y0, int y1,
                                               uint8_t* line) {
  rows_impl(op, src, dst, w, y0, y1, line);
}

void cols_generic(const MorphOp& op, const uint8_t* src, uint8_t* dst, int w, int h, int y0,
                  int y1) {
  cols_impl(op, src, dst, w, h, y0, y1);
}

CCL_TARGET_AVX2 void cols_avx2(const MorphOp& op, const uint8_t* src,
                                               uint8_t* dst, int w, int h, int y0, int y1) {
  cols_impl(op, src, dst, w, h, y0, y1);
}

void rows_pass(const MorphOp& op, const uint8_t* src, uint8_t* dst, int w, int y0, int y1,
               uint8_t* line) {
  if (::ccl::cpu::has_avx2()) rows_avx2(op, src, dst, w, y0, y1, line);
  else rows_generic(op, src, dst, w, y0, y1, line);
}

void cols_pass(const MorphOp& op, const uint8_t* src, uint8_t* dst, int w, int h, int y0,
               int y1) {
  if (::ccl::cpu::has_avx2()) cols_avx2(op, src, dst, w, h, y0, y1);
  else cols_generic(op, src, dst, w, h, y0, y1);
}

#undef CCL_MORPH_INLINE

void clear_outside(uint8_t* mask, const uint8_t* region, size_t begin, size_t end) {
  for (size_t i = begin; i < end; ++i) mask[i] = region[i] ? mask[i] : 0;
}

template <bool kMax>
void morph(BinaryImage& mask, int radius, std::vector<uint8_t>& scratch) {
  if (radius <= 0) return;
  const int w = mask.width, h = mask.height;
  scratch.resize(mask.pixels.size() + size_t(w) + 2 * size_t(radius));
  uint8_t* line = scratch.data() + mask.pixels.size();
  const MorphOp op{kMax, radius};
  rows_pass(op, mask.pixels.data(), scratch.data(), w, 0, h, line);
  cols_pass(op, scratch.data(), mask.pixels.data(), w, h, 0, h);
}

void size_mask(BinaryImage& mask, const ImageView& frame) {
  mask.width = frame.width;
  mask.height = frame.height;
  mask.pixels.resize(size_t(frame.pixels()));
}

void require_host(const ImageView& frame) {
  if (frame.space != MemorySpace::Host)
    throw Error("the CPU foreground stage needs an image in host memory");
}

/// A stage without a prepare phase.
struct NoPrepare {
  void operator()(int, int, int) const {}
};

// Pixels per stripe below which another thread costs more than it saves.
constexpr int64_t kMinPixelsPerStripe = 16 * 1024;
// Pixels of a band of the background model (Impl::model_band): a fifth of a
// millisecond or so of the model's step on one core, long against taking a band (an
// atomic add), short against a frame.
constexpr int64_t kBandPixels = 16 * 1024;

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
  if (region) clear_outside(mask.pixels.data(), region, 0, mask.pixels.size());
}

struct ForegroundStage::Impl {
  std::vector<uint16_t> state;  // the model: StateLayout planes of width*height each
  int width = 0, height = 0;
  PixelFormat format = PixelFormat::Gray8;
  uint64_t frames = 0;
  std::vector<uint8_t> region;
  int region_width = 0, region_height = 0;
  std::vector<uint8_t> scratch;  // the cleanup's two intermediate masks
  std::vector<uint8_t> luma;     // the local threshold's luma plane
  std::vector<std::vector<uint8_t>> lines;      // per stripe: the cleanup's padded row
  std::vector<std::vector<uint32_t>> sums;      // per stripe: the local threshold's sums
  std::vector<uint32_t> votes;  // the gain's histogram
  int32_t last_gain = 256;
  int threads = 0;

  /// Stripes of rows for a w x h frame: the threads set_threads asked for, or by default
  /// par::default_threads(), fewer for small frames; at most one per row and what the
  /// pool can run at once.
  int stripes(int w, int h) const {
    int64_t n = threads;
    if (n <= 0)
      n = std::min<int64_t>(par::default_threads(),
                            std::max<int64_t>(1, int64_t(w) * h / kMinPixelsPerStripe));
    return par::local_pool().reserve(int(std::min<int64_t>({n, int64_t(h), par::kMaxThreads})));
  }

  /// The mask of the frame, band by band, then the cleanup and the region. Phase 0
  /// runs prepare(s, y0, y1) (rows that other bands read later), phase 1 produce(s,
  /// y0, y1), which writes the mask's rows y0..y1 - 1; s is the thread's index, for its
  /// scratch. Each later phase ends one erosion or dilation along y (it reads other
  /// bands' rows, hence a phase of its own) and starts the next along x. Within a phase
  /// the threads take bands of `band` rows from a shared counter until none is left:
  /// a thread that runs slower (another process on its core, a band full of shadow
  /// tests) takes fewer, and one that never starts leaves its share to the others.
  /// Every pixel's value depends on the frame only, never on the split: any number of
  /// threads and any band height give the same mask.
  template <class Prepare, class Produce>
  void run(BinaryImage& mask, const Options& options, int band, Prepare&& prepare,
           Produce&& produce) {
    const int w = mask.width, h = mask.height;
    const uint8_t* reg = region.empty() ? nullptr : region.data();
    MorphOp ops[4];
    const int nops = cleanup_ops(options.open_radius, options.close_radius, ops);
    int max_radius = 0;
    for (int i = 0; i < nops; ++i) max_radius = std::max(max_radius, ops[i].radius);
    const int T = stripes(w, h);
    if (T <= 1 || band <= 0) band = h;
    const int bands = (h + band - 1) / band;
    // Two intermediate masks, alternating: a phase reads other bands' rows of the one
    // the previous phase wrote while its own band writes the other.
    if (nops) scratch.resize(2 * mask.pixels.size());
    if (int(lines.size()) < T) lines.resize(size_t(T));
    for (int s = 0; s < T; ++s) lines[size_t(s)].resize(size_t(w) + 2 * size_t(max_radius));
    uint8_t* const m = mask.pixels.data();
    uint8_t* const tmp[2] = {scratch.data(), scratch.data() + mask.pixels.size()};
    par::Pool& pool = par::local_pool();
    // Each phase's bands, shared among the threads through `next`.
    const auto each_band = [&](auto&& work) {
      std::atomic<int> next{0};
      pool.share(T, [&](int s) {
        for (int b; (b = next.fetch_add(1, std::memory_order_relaxed)) < bands;)
          work(s, b * band, std::min(h, (b + 1) * band));
      });
    };
    if constexpr (!std::is_same_v<std::decay_t<Prepare>, NoPrepare>)
      each_band([&](int s, int y0, int y1) { prepare(s, y0, y1); });
    for (int phase = 0; phase <= nops; ++phase)
      each_band([&](int s, int y0, int y1) {
        if (phase == 0) produce(s, y0, y1);
        else cols_pass(ops[phase - 1], tmp[(phase - 1) & 1], m, w, h, y0, y1);
        if (phase < nops)
          rows_pass(ops[phase], m, tmp[phase & 1], w, y0, y1, lines[size_t(s)].data());
        else if (reg) clear_outside(m, reg, size_t(y0) * w, size_t(y1) * w);
      });
  }

  /// Rows per band of run() for the background model: about kBandPixels, and at least
  /// four bands per thread, so that the threads end a phase close together.
  int model_band(int w, int h) const {
    const int T = stripes(w, h);
    const int by_pixels = int(std::max<int64_t>(1, kBandPixels / std::max(1, w)));
    const int per_thread = std::max(1, (h + 4 * T - 1) / (4 * T));
    return std::min(by_pixels, per_thread);
  }

  /// Rows per band for the others: one band per thread, as even as integers allow (the
  /// local threshold's bands start with a window of sums, which small bands would repeat).
  int stripe_band(int w, int h) const {
    const int T = stripes(w, h);
    return (h + T - 1) / T;
  }

  template <class Reader>
  void model(const ImageView& frame, const Options& options, BinaryImage& mask) {
    constexpr int C = Reader::C;
    const BackgroundOptions& o = options.background;
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
    uint16_t* const st = state.data();
    uint8_t* const out = mask.pixels.data();
    const int w = frame.width;
    run(mask, options, model_band(w, frame.height), NoPrepare{}, [&](int, int y0, int y1) {
      bg::model_rows<Reader>(planes, w, y0, y1, st, plane, p, gain, out);
    });
  }

  void local_threshold(const ImageView& frame, const Options& options, BinaryImage& mask) {
    const int w = frame.width, h = frame.height;
    const local::Params p = local::params(options.local, options.mode, w);
    luma.resize(size_t(w) * size_t(h));
    const size_t words = local::scratch_words(w, p);
    const int T = stripes(w, h);
    if (int(sums.size()) < T) sums.resize(size_t(T));
    for (int s = 0; s < T; ++s) sums[size_t(s)].resize(words);
    run(mask, options, stripe_band(w, h),
        [&](int, int y0, int y1) { local::luma_rows(frame, luma.data(), y0, y1); },
        [&](int s, int y0, int y1) {
          local::mask_rows(luma.data(), w, h, p, y0, y1, mask.pixels.data(),
                           sums[size_t(s)].data());
        });
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
  const NoPrepare no_prepare;
  if (options.foreground == ForegroundModel::Threshold) {
    level = threshold_image(frame, options, mask);
    d.frames = 0;  // a model that skipped frames starts over when it is chosen again
    d.run(mask, options, d.stripe_band(mask.width, mask.height), no_prepare,
          [](int, int, int) {});
  } else if (options.foreground == ForegroundModel::Local) {
    require_host(frame);
    size_mask(mask, frame);
    d.local_threshold(frame, options, mask);
    d.frames = 0;  // as for the threshold: the background model starts over after it
  } else if (options.foreground == ForegroundModel::Color) {
    require_host(frame);
    size_mask(mask, frame);
    d.run(mask, options, d.stripe_band(frame.width, frame.height), no_prepare,
          [&](int, int y0, int y1) {
            color::mask_rows(frame, options.color, mask.pixels.data(), y0, y1);
          });
    d.frames = 0;  // as for the threshold: the background model starts over after it
  } else {
    require_host(frame);  // its planes are validate()'s
    size_mask(mask, frame);
    bg::with_channels(frame.format, [&](auto reader) {
      d.model<decltype(reader)>(frame, options, mask);
    });
  }
  return level;
}

void ForegroundStage::reset() { impl_->frames = 0; }

void ForegroundStage::set_threads(int threads) { impl_->threads = threads < 0 ? 0 : threads; }

int ForegroundStage::threads() const { return impl_->threads; }

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
