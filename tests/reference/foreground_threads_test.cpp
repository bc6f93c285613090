// The foreground stage split over threads (ForegroundStage::set_threads) gives exactly
// the masks of one thread: the background model over many frames of a changing scene
// (moving blocks, noise, changes of light, a region), the local threshold, the color
// range and the cleanup's radii, in every format, at odd sizes and padded strides, with
// 2, 3 and 7 threads (more stripes than this machine has cores, and stripes of a few
// rows, whose borders the cleanup's windows cross). And the row loops of the local
// threshold and the color range, on both instruction sets, against the per-pixel
// definitions the GPU shares.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "ccl/foreground.h"
#include "ccl/reference.h"
#include "ccl/types.h"
#include "color_range.h"
#include "local_threshold.h"

namespace {

using ccl::PixelFormat;

const PixelFormat kAllFormats[] = {PixelFormat::Gray8, PixelFormat::Gray16LE,
                                   PixelFormat::NV12,  PixelFormat::I420,
                                   PixelFormat::RGBA,  PixelFormat::BGRx};
const PixelFormat kColorFormats[] = {PixelFormat::NV12, PixelFormat::I420, PixelFormat::RGBA,
                                     PixelFormat::BGRx};
const int kThreads[] = {2, 3, 7};

struct Size {
  int width, height;
};
const Size kSizes[] = {{37, 23}, {101, 67}, {160, 91}};

/// Frames of one format and size whose content moves: a fixed texture per plane, blocks
/// that travel, noise on some pixels, and now and then a change of light.
class Scene {
 public:
  Scene(PixelFormat format, int width, int height, uint64_t seed)
      : format_(format), width_(width), height_(height), rng_(seed) {
    for (int p = 0; p < ccl::plane_count(format); ++p) {
      const ccl::PlaneSize ps = ccl::plane_size(format, width, height, p);
      strides_[p] = ps.row_bytes + (rng_() % 2) * 5;  // sometimes padded
      rows_[p] = ps.rows;
      row_bytes_[p] = ps.row_bytes;
      texture_[p].resize(strides_[p] * rows_[p]);
      for (size_t i = 0; i < texture_[p].size(); ++i)
        texture_[p][i] = uint8_t(60 + (i * 7 + (i / strides_[p]) * 13) % 90 + rng_() % 6);
      bytes_[p].resize(texture_[p].size());
    }
  }

  /// Frame t of the scene (the view stays valid until the next call).
  const ccl::ImageView& frame(int t) {
    const int light = (t / 9) % 3 == 1 ? 40 : (t / 9) % 3 == 2 ? -30 : 0;
    for (int p = 0; p < ccl::plane_count(format_); ++p) {
      const size_t stride = strides_[p];
      for (size_t y = 0; y < rows_[p]; ++y)
        for (size_t x = 0; x < row_bytes_[p]; ++x) {
          const size_t i = y * stride + x;
          int v = texture_[p][i] + light;
          // Two blocks that move across the plane.
          const int bx = int((x + size_t(t) * 3) % row_bytes_[p]), by = int((y + size_t(t)) % rows_[p]);
          if (bx < int(row_bytes_[p]) / 4 && by < int(rows_[p]) / 3) v = 230 - (bx & 7) * 5;
          const int cx = int(x + row_bytes_[p] - (size_t(t) * 2) % row_bytes_[p]) % int(row_bytes_[p]);
          if (cx < int(row_bytes_[p]) / 6 && y > rows_[p] / 2) v = 20 + int(y % 11);
          if (rng_() % 23 == 0) v += int(rng_() % 120) - 60;  // noise
          bytes_[p][i] = uint8_t(v < 0 ? 0 : v > 255 ? 255 : v);
        }
      view_.planes[p] = bytes_[p].data();
      view_.strides[p] = stride;
    }
    view_.width = width_;
    view_.height = height_;
    view_.format = format_;
    return view_;
  }

 private:
  PixelFormat format_;
  int width_, height_;
  std::mt19937_64 rng_;
  size_t strides_[3] = {}, rows_[3] = {}, row_bytes_[3] = {};
  std::vector<uint8_t> texture_[3], bytes_[3];
  ccl::ImageView view_;
};

std::string describe(PixelFormat f, Size s, int threads, int frame) {
  return std::string(ccl::to_string(f)) + " " + std::to_string(s.width) + "x" +
         std::to_string(s.height) + ", " + std::to_string(threads) + " threads, frame " +
         std::to_string(frame);
}

/// Runs `frames` frames of a scene through a one-thread stage and an n-thread stage
/// and expects the same masks (and the same light gain) every frame.
void expect_same(PixelFormat format, Size size, int threads, const ccl::Options& o, int frames,
                 uint64_t seed, bool region = false) {
  Scene scene(format, size.width, size.height, seed);
  ccl::ForegroundStage one, many;
  one.set_threads(1);
  many.set_threads(threads);
  if (region) {
    std::vector<uint8_t> r(size_t(size.width) * size.height);
    for (size_t i = 0; i < r.size(); ++i) r[i] = (i % 17) < 13;
    one.set_region(r.data(), size.width, size.height);
    many.set_region(r.data(), size.width, size.height);
  }
  ccl::BinaryImage a, b;
  uint64_t foreground = 0;
  for (int t = 0; t < frames; ++t) {
    const ccl::ImageView& f = scene.frame(t);
    const int la = one.apply(f, o, a);
    const int lb = many.apply(f, o, b);
    ASSERT_EQ(la, lb) << describe(format, size, threads, t);
    ASSERT_EQ(a.width, b.width);
    ASSERT_EQ(a.height, b.height);
    ASSERT_EQ(a.pixels, b.pixels) << describe(format, size, threads, t);
    ASSERT_EQ(one.light_gain(), many.light_gain()) << describe(format, size, threads, t);
    for (uint8_t v : a.pixels) foreground += v;
  }
  // The scene must give the stage something to decide.
  EXPECT_GT(foreground, 0u) << describe(format, size, threads, frames);
}

TEST(ForegroundThreads, BackgroundModelOverManyFrames) {
  for (PixelFormat f : kAllFormats)
    for (Size s : kSizes)
      for (int n : kThreads) {
        ccl::Options o;
        o.foreground = ccl::ForegroundModel::Background;
        o.background.history = 20;
        o.close_radius = 2;
        o.open_radius = n == 3 ? 1 : 0;
        expect_same(f, s, n, o, 30, uint64_t(n) * 1000 + uint64_t(s.width),
                    /*region=*/n == 7);
      }
}

TEST(ForegroundThreads, BackgroundModelWithoutShadowsOrLight) {
  for (PixelFormat f : {PixelFormat::I420, PixelFormat::RGBA, PixelFormat::Gray8}) {
    ccl::Options o;
    o.foreground = ccl::ForegroundModel::Background;
    o.background.detect_shadows = false;
    o.background.compensate_light = false;
    o.background.learning_rate = 0.05;
    expect_same(f, {83, 59}, 3, o, 20, 77);
  }
}

TEST(ForegroundThreads, LocalThreshold) {
  for (PixelFormat f : kAllFormats)
    for (Size s : kSizes)
      for (int n : kThreads)
        for (int block : {3, 15, 31, 59}) {
          ccl::Options o;
          o.foreground = ccl::ForegroundModel::Local;
          o.local.block_size = block;
          o.local.offset = block == 15 ? -2.5 : 7;
          o.mode = block == 31 ? ccl::ThresholdMode::Below : ccl::ThresholdMode::Above;
          o.close_radius = block == 3 ? 0 : 1;
          expect_same(f, s, n, o, 3, uint64_t(block) * 31 + uint64_t(n));
        }
}

TEST(ForegroundThreads, ColorRange) {
  for (PixelFormat f : kColorFormats)
    for (Size s : kSizes)
      for (int n : kThreads)
        for (bool wraps : {false, true}) {
          ccl::Options o;
          o.foreground = ccl::ForegroundModel::Color;
          o.color.low[0] = wraps ? 150 : 10;
          o.color.high[0] = wraps ? 40 : 120;
          o.color.low[1] = 5;
          o.color.low[2] = 30;
          o.close_radius = wraps ? 2 : 0;
          expect_same(f, s, n, o, 3, uint64_t(n) + (wraps ? 100 : 0));
        }
}

TEST(ForegroundThreads, CleanupRadii) {
  for (PixelFormat f : {PixelFormat::Gray8, PixelFormat::NV12})
    for (Size s : kSizes)
      for (int n : kThreads)
        for (int open : {0, 1, 3})
          for (int close : {0, 1, 2, 5, 12}) {
            ccl::Options o;
            o.foreground = ccl::ForegroundModel::Threshold;
            o.threshold = 120;
            o.open_radius = open;
            o.close_radius = close;
            expect_same(f, s, n, o, 2, uint64_t(open * 16 + close), /*region=*/close == 5);
          }
}

// The CPU's row loops of the color range and the local threshold are written for the
// vectorizer (factors by division, window sums in several chains) and built twice, for
// the baseline instruction set and for AVX2. Both must give the bytes of the per-pixel
// definitions the GPU's kernels use: classify(), and window_mean + is_foreground over
// the window's sum taken pixel by pixel.
TEST(ForegroundThreads, RowLoopsMatchThePixelDefinitions) {
  std::mt19937_64 rng(2024);
  static const ccl::color::Factors factors = ccl::color::make_factors();
  for (int round = 0; round < 40; ++round)
    for (PixelFormat f : kAllFormats) {
      const int w = 1 + int(rng() % (round < 8 ? 9 : 300)), h = 1 + int(rng() % 37);
      Scene scene(f, w, h, rng());
      ccl::ImageView view = scene.frame(int(rng() % 40));
      // Half the rounds on noise: every color and every window sum the scene lacks.
      std::vector<uint8_t> noise[3];
      if (round % 2)
        for (int p = 0; p < ccl::plane_count(f); ++p) {
          const ccl::PlaneSize ps = ccl::plane_size(f, w, h, p);
          noise[p].resize(view.strides[p] * ps.rows);
          for (uint8_t& b : noise[p]) b = uint8_t(rng());
          view.planes[p] = noise[p].data();
        }
      const std::string where = std::string(ccl::to_string(f)) + " " + std::to_string(w) +
                                "x" + std::to_string(h) + ", round " + std::to_string(round);
      const size_t n = size_t(w) * size_t(h);

      // The local threshold, over its own luma plane.
      std::vector<uint8_t> luma(n);
      ccl::local::luma_rows(view, luma.data(), 0, h);
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
          const uint8_t* row =
              static_cast<const uint8_t*>(view.planes[0]) + size_t(y) * view.strides[0];
          const uint32_t want = ccl::with_luma(f, [&](auto reader) {
            return ccl::local::luma_byte<decltype(reader)>(row, x);
          });
          ASSERT_EQ(luma[size_t(y) * w + x], want) << where << " luma at " << x << "," << y;
        }
      ccl::LocalOptions lo;
      lo.block_size = 3 + 2 * int(rng() % 40);
      lo.offset = double(int(rng() % 31) - 15) / 2;
      const ccl::ThresholdMode mode =
          rng() % 2 ? ccl::ThresholdMode::Above : ccl::ThresholdMode::Below;
      const ccl::local::Params lp = ccl::local::params(lo, mode, w);
      std::vector<uint8_t> want(n), fast(n, 7), base(n, 7);
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
          uint32_t sum = 0;
          for (int j = y - lp.radius; j <= y + lp.radius; ++j)
            for (int i = x - lp.radius; i <= x + lp.radius; ++i)
              sum += luma[size_t(std::clamp(j, 0, h - 1)) * w + size_t(std::clamp(i, 0, w - 1))];
          want[size_t(y) * w + x] = ccl::local::is_foreground(
              luma[size_t(y) * w + x], ccl::local::window_mean(sum, x, lp), lp);
        }
      std::vector<uint32_t> scratch(ccl::local::scratch_words(w, lp));
      const int cut = int(rng() % uint64_t(h + 1));  // two stripes, one maybe empty
      ccl::local::mask_rows(luma.data(), w, h, lp, 0, cut, fast.data(), scratch.data());
      ccl::local::mask_rows(luma.data(), w, h, lp, cut, h, fast.data(), scratch.data());
      ccl::local::cpu::mask_generic(luma.data(), w, h, lp, 0, h, base.data(), scratch.data());
      ASSERT_EQ(fast, want) << where << ", block " << lo.block_size;
      ASSERT_EQ(base, want) << where << ", block " << lo.block_size << " (baseline loop)";

      // The color range.
      if (f == PixelFormat::Gray8 || f == PixelFormat::Gray16LE) continue;
      ccl::ColorOptions co;
      for (int c = 0; c < 3; ++c) {
        const int top = c ? 256 : 180;
        const int a = int(rng() % uint64_t(top)), b = int(rng() % uint64_t(top));
        co.low[c] = c ? std::min(a, b) : a;  // the hue may wrap
        co.high[c] = c ? std::max(a, b) : b;
      }
      const ccl::color::Range range = ccl::color::make_range(co);
      const ccl::color::Planes planes = ccl::color::planes_of(view);
      ccl::color::with_reader(f, [&](auto reader) {
        for (int y = 0; y < h; ++y)
          for (int x = 0; x < w; ++x)
            want[size_t(y) * w + x] = ccl::color::classify<decltype(reader)>(
                planes, x, y, range, factors.saturation, factors.hue);
      });
      std::fill(fast.begin(), fast.end(), 7);
      std::fill(base.begin(), base.end(), 7);
      ccl::color::mask_rows(view, co, fast.data(), 0, cut);
      ccl::color::mask_rows(view, co, fast.data(), cut, h);
      if (range.wraps) ccl::color::cpu::rows_generic<true>(view, range, base.data(), 0, h);
      else ccl::color::cpu::rows_generic<false>(view, range, base.data(), 0, h);
      ASSERT_EQ(fast, want) << where << ", color range";
      ASSERT_EQ(base, want) << where << ", color range (baseline loop)";
    }
}

// The default thread count (0) and CCL_CPU_THREADS give the one thread's masks too.
TEST(ForegroundThreads, DefaultAndEnvironment) {
  ccl::Options o;
  o.foreground = ccl::ForegroundModel::Background;
  o.close_radius = 2;
  const Size big{640, 130};  // large enough for several stripes by default
  for (const char* env : {"", "5"}) {
    if (*env) setenv("CCL_CPU_THREADS", env, 1);
    else unsetenv("CCL_CPU_THREADS");
    Scene scene(PixelFormat::NV12, big.width, big.height, 5);
    ccl::ForegroundStage one, def;
    one.set_threads(1);
    ccl::BinaryImage a, b;
    for (int t = 0; t < 8; ++t) {
      const ccl::ImageView& f = scene.frame(t);
      one.apply(f, o, a);
      def.apply(f, o, b);
      ASSERT_EQ(a.pixels, b.pixels) << "CCL_CPU_THREADS='" << env << "' frame " << t;
    }
  }
  unsetenv("CCL_CPU_THREADS");
}

}  // namespace
