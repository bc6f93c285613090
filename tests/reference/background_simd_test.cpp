// The background model's lanes (background_model_simd.h) against bg::step, the oracle
// the GPU shares: over long sequences of frames (noise, moving blocks, sudden changes of
// light, saturated pixels) in gray and color, with every parameter variant, every state
// word and every mask byte must equal the scalar path's, on every vector path this CPU
// runs. Odd widths leave a tail of pixels to the scalar step after the blocks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "background_model.h"
#include "background_model_simd.h"

namespace {

using namespace ccl::bg;

std::vector<StepPath> vector_paths() {
  std::vector<StepPath> paths = {StepPath::Generic};
  if (ccl::cpu::has_avx2()) paths.push_back(StepPath::Avx2);
  paths.push_back(StepPath::Best);
  return paths;
}

/// Frames of 4-byte pixels (read as gray from the first byte, or as 3 colors): a texture,
/// blocks that move, noise, saturated runs, and now and then a jump of light.
class Scene {
 public:
  Scene(int w, int h, uint64_t seed) : w_(w), h_(h), rng_(seed), base_(size_t(w) * h * 4) {
    for (auto& b : base_) b = uint8_t(rng_() % 256);
    frame_.resize(base_.size());
  }
  const uint8_t* next(int t) {
    std::uniform_int_distribution<int> noise(-12, 12);
    if (t % 37 == 36) light_ = 0.5 + double(rng_() % 100) / 66.0;  // 0.5 .. 2
    for (int y = 0; y < h_; ++y)
      for (int x = 0; x < w_; ++x)
        for (int c = 0; c < 4; ++c) {
          const size_t i = (size_t(y) * w_ + x) * 4 + c;
          int v = int(base_[i] * light_);
          const int bx = (t * 3) % (w_ + 20) - 10, by = (t * 2) % (h_ + 10) - 5;
          if (x >= bx && x < bx + 9 && y >= by && y < by + 7) v = 40 + 50 * c;
          if (rng_() % 4 == 0) v += noise(rng_);
          if ((x + t) % 29 == 0) v = 255;
          if ((y * 7 + t) % 31 == 0) v = 0;
          frame_[i] = uint8_t(std::clamp(v, 0, 255));
        }
    return frame_.data();
  }

 private:
  int w_, h_;
  std::mt19937_64 rng_;
  std::vector<uint8_t> base_, frame_;
  double light_ = 1.0;
};

struct Gray4 {  // the first byte of a 4-byte pixel, as gray
  static constexpr int C = 1;
  static void at(const Planes& f, int x, int y, int32_t* o) {
    o[0] = int32_t(f.base[0][size_t(y) * f.stride[0] + 4 * size_t(x)]) << 8;
  }
};

struct Variant {
  int history;
  double learning_rate, variance_threshold;
  bool shadows, compensate;
};
const Variant kVariants[] = {
    {500, -1, 16, true, true},  {500, -1, 16, false, false}, {5, -1, 4, true, false},
    {2, -1, 1, true, true},     {100, 0.01, 255, true, false}, {100, 0, 16, true, true},
    {100, 1.0, 9, true, false}, {1, -1, 30, false, true},      {100000, -1, 100, true, true},
    {50, 0.0001, 2.5, true, false}};

template <class Reader>
void run_sequence(int w, int h, int frames, const Variant& v, uint64_t seed) {
  constexpr int C = Reader::C;
  const size_t plane = size_t(w) * h;
  Scene scene(w, h, seed);
  const auto paths = vector_paths();
  std::vector<uint16_t> ref(plane * StateLayout<C>::kPlanes, 0);
  std::vector<std::vector<uint16_t>> fast(paths.size(), ref);
  std::vector<uint8_t> ref_mask(plane), mask(plane);
  ccl::BackgroundOptions o;
  o.history = v.history;
  o.learning_rate = v.learning_rate;
  o.variance_threshold = v.variance_threshold;
  o.detect_shadows = v.shadows;
  o.compensate_light = v.compensate;
  std::mt19937 rng{uint32_t(seed)};
  for (int t = 1; t <= frames; ++t) {
    const StepParams p = step_params(o, uint64_t(t));
    ASSERT_TRUE(fast_path_ok(p));
    Planes f{};
    f.base[0] = scene.next(t);
    f.stride[0] = size_t(w) * 4;
    // Gains as gain_of hands them: mostly none, now and then a change of light.
    const int32_t gain = p.compensate && rng() % 5 == 0 ? int32_t(128 + rng() % 400) : 256;
    model_rows<Reader>(f, w, 0, h, ref.data(), plane, p, gain, ref_mask.data(),
                       StepPath::Scalar);
    for (size_t k = 0; k < paths.size(); ++k) {
      model_rows<Reader>(f, w, 0, h, fast[k].data(), plane, p, gain, mask.data(), paths[k]);
      ASSERT_EQ(mask, ref_mask) << "path " << int(paths[k]) << " frame " << t;
      if (fast[k] != ref) {
        size_t i = 0;
        while (fast[k][i] == ref[i]) ++i;
        FAIL() << "path " << int(paths[k]) << " frame " << t << ": state word " << i
               << " (plane " << i / plane << ", pixel " << i % plane << ") is " << fast[k][i]
               << ", the scalar step's " << ref[i];
      }
    }
  }
}

TEST(BackgroundSimd, GraySequences) {
  uint64_t seed = 1;
  for (const Variant& v : kVariants) run_sequence<Gray4>(67, 13, 300, v, seed++);
}

TEST(BackgroundSimd, Gray8Sequences) {
  // The 8-bit reader's vector loads, over the bytes of the same frames.
  uint64_t seed = 50;
  for (const Variant& v : kVariants) run_sequence<ReadGray8>(71, 12, 300, v, seed++);
}

TEST(BackgroundSimd, ColorSequences) {
  uint64_t seed = 100;
  for (const Variant& v : kVariants) run_sequence<ReadRgb4>(53, 11, 300, v, seed++);
}

TEST(BackgroundSimd, ColorYuv) {
  // NV12's reader: fractional Q8 channels, not multiples of 256.
  const int w = 35, h = 10;
  std::mt19937 rng(7);
  std::vector<uint8_t> y(size_t(w) * h), uv(size_t(w + 1) * ((h + 1) / 2));
  const size_t plane = size_t(w) * h;
  const auto paths = vector_paths();
  std::vector<uint16_t> ref(plane * StateLayout<3>::kPlanes, 0);
  std::vector<std::vector<uint16_t>> fast(paths.size(), ref);
  std::vector<uint8_t> ref_mask(plane), mask(plane);
  ccl::BackgroundOptions o;
  for (int t = 1; t <= 400; ++t) {
    for (size_t i = 0; i < y.size(); ++i) y[i] = uint8_t((i * 13 + (rng() % 9)) % 256);
    for (auto& b : uv) b = uint8_t(t % 50 < 25 ? 128 + rng() % 5 : rng() % 256);
    Planes f{};
    f.base[0] = y.data();
    f.stride[0] = size_t(w);
    f.base[1] = uv.data();
    f.stride[1] = size_t(w + 1);
    const StepParams p = step_params(o, uint64_t(t));
    model_rows<ReadNV12>(f, w, 0, h, ref.data(), plane, p, 256, ref_mask.data(),
                         StepPath::Scalar);
    for (size_t k = 0; k < paths.size(); ++k) {
      model_rows<ReadNV12>(f, w, 0, h, fast[k].data(), plane, p, 256, mask.data(), paths[k]);
      ASSERT_EQ(mask, ref_mask) << "frame " << t;
      ASSERT_TRUE(fast[k] == ref) << "frame " << t;
    }
  }
}

TEST(BackgroundSimd, YuvToRgbLanes) {
  // The lanes' conversion of NV12 and I420 against bg::yuv_to_rgb, for every Y, U and V.
  for (int y = 0; y < 256; ++y)
    for (int u = 0; u < 256; ++u)
      for (int v0 = 0; v0 < 256; v0 += kLanes) {
        VI vy = splat(y), vu = splat(u), vv{};
        for (int l = 0; l < kLanes; ++l) vv[l] = v0 + l;
        VI lanes[3];
        yuv_to_rgb_lanes(vy, vu, vv, lanes);
        for (int l = 0; l < kLanes; ++l) {
          int32_t one[3];
          yuv_to_rgb(y, u, v0 + l, one);
          for (int c = 0; c < 3; ++c)
            ASSERT_EQ(lanes[c][l], one[c]) << "y " << y << " u " << u << " v " << v0 + l;
        }
      }
}

TEST(BackgroundSimd, ColorI420) {
  // I420's reader (its chroma loads and the lanes' pairing of chroma samples), at an odd
  // width with padded rows, the rows run in bands that start on odd rows too.
  const int w = 37, h = 11, cw = (w + 1) / 2, ch = (h + 1) / 2;
  const size_t ys = size_t(w) + 3, cs = size_t(cw) + 5;
  std::mt19937 rng(9);
  std::vector<uint8_t> y(ys * h), u(cs * ch), v(cs * ch);
  const size_t plane = size_t(w) * h;
  const auto paths = vector_paths();
  std::vector<uint16_t> ref(plane * StateLayout<3>::kPlanes, 0);
  std::vector<std::vector<uint16_t>> fast(paths.size(), ref);
  std::vector<uint8_t> ref_mask(plane), mask(plane);
  ccl::BackgroundOptions o;
  o.detect_shadows = true;
  const int bands[] = {0, 3, 4, 9, h};
  for (int t = 1; t <= 400; ++t) {
    for (size_t i = 0; i < y.size(); ++i)
      y[i] = uint8_t(t % 40 < 20 ? (i * 13 + (rng() % 9)) % 256 : rng() % 256);
    for (size_t i = 0; i < u.size(); ++i) {
      u[i] = uint8_t(t % 50 < 25 ? 128 + rng() % 5 : rng() % 256);
      v[i] = uint8_t(t % 30 < 15 ? 120 + rng() % 17 : rng() % 256);
    }
    Planes f{};
    f.base[0] = y.data();
    f.stride[0] = ys;
    f.base[1] = u.data();
    f.stride[1] = cs;
    f.base[2] = v.data();
    f.stride[2] = cs;
    const StepParams p = step_params(o, uint64_t(t));
    model_rows<ReadI420>(f, w, 0, h, ref.data(), plane, p, 256, ref_mask.data(),
                         StepPath::Scalar);
    for (size_t k = 0; k < paths.size(); ++k) {
      for (int b = 0; b + 1 < int(std::size(bands)); ++b)
        model_rows<ReadI420>(f, w, bands[b], bands[b + 1], fast[k].data(), plane, p, 256,
                             mask.data(), paths[k]);
      ASSERT_EQ(mask, ref_mask) << "frame " << t;
      ASSERT_TRUE(fast[k] == ref) << "frame " << t;
    }
  }
}

/// Random states that keep the model's invariant (modes past the count all zero), any
/// order of weights, any means and variances: one step each, every parameter variant.
template <class Reader>
void random_states(uint64_t seed) {
  constexpr int C = Reader::C;
  const int w = 16 * 40 + 3, h = 1;
  const size_t plane = size_t(w);
  std::mt19937_64 rng(seed);
  const auto paths = vector_paths();
  std::vector<uint8_t> px(size_t(w) * 4), ref_mask(plane), mask(plane);
  for (int round = 0; round < 200; ++round) {
    const Variant& v = kVariants[size_t(round) % std::size(kVariants)];
    ccl::BackgroundOptions o;
    o.history = v.history;
    o.learning_rate = v.learning_rate;
    o.variance_threshold = v.variance_threshold;
    o.detect_shadows = v.shadows;
    const StepParams p = step_params(o, 1 + rng() % 1000);
    std::vector<uint16_t> ref(plane * StateLayout<C>::kPlanes, 0);
    using L = StateLayout<C>;
    for (size_t i = 0; i < plane; ++i) {
      const int n = int(rng() % (kModes + 1));
      for (int k = 0; k < n; ++k) {
        const int kind = int(rng() % 4);
        ref[L::weight(k) * plane + i] = uint16_t(kind == 0 ? 65535 : kind == 1 ? 1 + rng() % 64
                                                                               : 1 + rng() % 65535);
        for (int c = 0; c < C; ++c) {
          const int mk = int(rng() % 4);
          ref[L::mean(k, c) * plane + i] =
              uint16_t(mk == 0 ? 0 : mk == 1 ? kWhite : mk == 2 ? rng() % 65536 : (rng() % 256) << 8);
        }
        ref[L::var(k) * plane + i] = uint16_t(rng() % 3 ? 1024 + rng() % 18177 : rng() % 65536);
      }
    }
    for (size_t i = 0; i < px.size(); ++i) {
      const int kind = int(rng() % 4);
      px[i] = uint8_t(kind == 0 ? 0 : kind == 1 ? 255 : rng() % 256);
    }
    // Pixels equal to a mode's mean, so that matches and shadows happen.
    for (size_t i = 0; i < plane; i += 2)
      for (int c = 0; c < C; ++c)
        px[i * 4 + c] = uint8_t(ref[L::mean(0, c) * plane + i] >> 8) / (i % 4 ? 1 : 2);
    Planes f{};
    f.base[0] = px.data();
    f.stride[0] = px.size();
    const int32_t gain = rng() % 2 ? 256 : int32_t(100 + rng() % 900);
    std::vector<uint16_t> start = ref;
    model_rows<Reader>(f, w, 0, h, ref.data(), plane, p, gain, ref_mask.data(),
                       StepPath::Scalar);
    for (StepPath path : paths) {
      std::vector<uint16_t> st = start;
      model_rows<Reader>(f, w, 0, h, st.data(), plane, p, gain, mask.data(), path);
      ASSERT_EQ(mask, ref_mask) << "round " << round;
      ASSERT_TRUE(st == ref) << "round " << round;
    }
  }
}

TEST(BackgroundSimd, RandomStatesGray) {
  random_states<Gray4>(11);
  random_states<ReadGray8>(13);
}
TEST(BackgroundSimd, RandomStatesColor) { random_states<ReadRgb4>(12); }

}  // namespace
