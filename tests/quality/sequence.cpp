// The sequence generator (sequence.h) and the color photographs it draws from.
#include "sequence.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <mutex>
#include <stdexcept>

#include <opencv2/imgproc.hpp>

#include "color_images.h"
#include "splitmix.h"

namespace ccl::quality {

namespace {

std::vector<Photo> load_photos(std::string* why) {
  // The color images of the test-image cache (tests/common/color_images.h), already
  // decoded to PPM when the cache was filled; the photographs of python3-skimage are
  // those named skimage_<name>.
  const std::string prefix = "skimage_";
  std::vector<Photo> out;
  for (test::RgbImage& img : test::real_color_images(why)) {
    if (img.name.compare(0, prefix.size(), prefix) != 0) continue;
    Photo p;
    p.name = img.name.substr(prefix.size());
    p.rgb = cv::Mat(img.height, img.width, CV_8UC3, img.rgb.data()).clone();
    out.push_back(std::move(p));
  }
  if (out.empty() && why && why->empty()) *why = "the color cache holds no skimage photograph";
  return out;
}

/// Deterministic draws from splitmix64 (the same numbers with every standard library,
/// unlike std's distributions).
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    const uint64_t v = test::splitmix64(state_);
    state_ += test::kSplitMixIncrement;
    return v;
  }
  double uniform(double lo, double hi) { return lo + (hi - lo) * double(next() >> 11) * 0x1.0p-53; }
  int integer(int lo, int hi) { return lo + int(next() % uint64_t(hi - lo + 1)); }  // [lo, hi]
  bool chance(double p) { return uniform(0, 1) < p; }

 private:
  uint64_t state_;
};

/// 65536 quantiles of the standard normal: noise drawn by indexing it with 16 random
/// bits is Gaussian to within 1/65536 of probability (tails cut at about 4.3 sigma),
/// costs a table read per channel and is the same on every machine.
const std::array<float, 65536>& normal_table() {
  static const std::array<float, 65536> table = [] {
    std::array<float, 65536> t{};
    for (size_t i = 0; i < t.size(); ++i) {
      const double p = (double(i) + 0.5) / double(t.size());
      double lo = -10, hi = 10;  // bisection on the CDF: slow, but once and exact
      for (int k = 0; k < 60; ++k) {
        const double mid = 0.5 * (lo + hi);
        (0.5 * std::erfc(-mid / std::sqrt(2.0)) < p ? lo : hi) = mid;
      }
      t[i] = float(0.5 * (lo + hi));
    }
    return t;
  }();
  return table;
}

/// A separable Gaussian blur of a float image with zero outside, written out here so
/// that shadows do not depend on a library's vectorized rounding.
cv::Mat blur(const cv::Mat& src, double sigma) {
  const int r = int(std::ceil(3 * sigma));
  std::vector<float> k(size_t(2 * r + 1));
  double sum = 0;
  for (int i = -r; i <= r; ++i) sum += k[size_t(i + r)] = float(std::exp(-0.5 * i * i / (sigma * sigma)));
  for (float& v : k) v = float(v / sum);
  cv::Mat tmp = cv::Mat::zeros(src.size(), CV_32F), dst = cv::Mat::zeros(src.size(), CV_32F);
  for (int y = 0; y < src.rows; ++y)
    for (int x = 0; x < src.cols; ++x) {
      float v = 0;
      for (int i = -r; i <= r; ++i)
        if (x + i >= 0 && x + i < src.cols) v += k[size_t(i + r)] * src.at<float>(y, x + i);
      tmp.at<float>(y, x) = v;
    }
  for (int y = 0; y < src.rows; ++y)
    for (int x = 0; x < src.cols; ++x) {
      float v = 0;
      for (int i = -r; i <= r; ++i)
        if (y + i >= 0 && y + i < src.rows) v += k[size_t(i + r)] * tmp.at<float>(y + i, x);
      dst.at<float>(y, x) = v;
    }
  return dst;
}

const Photo& photo(const std::vector<Photo>& photos, const std::string& name) {
  for (const Photo& p : photos)
    if (p.name == name) return p;
  throw std::runtime_error("no color photograph named " + name);
}

/// A random crop of `p` of aspect w:h, covering `share` of the photo's limiting side,
/// resized to w x h; 32-bit float RGB.
cv::Mat crop(const Photo& p, int w, int h, double share, Rng& rng) {
  const double scale = std::min(p.rgb.cols / double(w), p.rgb.rows / double(h)) * share;
  const int cw = std::max(1, int(w * scale)), ch = std::max(1, int(h * scale));
  const int x = rng.integer(0, p.rgb.cols - cw), y = rng.integer(0, p.rgb.rows - ch);
  cv::Mat out;
  cv::resize(p.rgb(cv::Rect(x, y, cw, ch)), out, cv::Size(w, h), 0, 0,
             scale >= 1 ? cv::INTER_AREA : cv::INTER_LINEAR);
  out.convertTo(out, CV_32FC3);
  return out;
}

constexpr int kShadowPad = 8;  // room around a shadow sprite for its soft edge
constexpr double kShadowSigma = 2.5;
// Two objects are in contact when their silhouettes, each grown by 2 pixels, touch:
// gaps of up to 4 pixels, which a 5x5 closing bridges, so they show as one component.
constexpr int kContactGrow = 2;
// The longest contact a plan may have. While two objects show as one component, one of
// them goes unseen by a tracker; ccl::Tracker keeps an unseen track's id for 15 frames
// (TrackerOptions::max_lost), so crossings are kept shorter than that: crossings the
// tracker is designed to see through, with a margin for the frame or two a detector's
// mask may stay joined beyond the contact (soft rims, noise in the gap).
constexpr int kLongestContact = 10;
// A still object becomes background once the old scene's mode holds less than 90 % of
// the weight. Learning at 1/(2m) in frame m (the first history/2 frames), with the
// prior of 0.05 that starves unsupported modes, the old mode keeps about
// (n / (n + k))^0.475 of its share k frames after a stop that began in frame n: it falls
// below 0.9 at k = 0.25 n. Stops are kept to 0.18 n (the older objects' random stops)
// and the recipe's long stop to 0.2 n, so that a model that works as specified sees
// them as foreground in every frame of the stop.
constexpr double kStopShare = 0.18;
constexpr double kLongStopShare = 0.2;
// The recipe's objects: texture and the scene under it mixed 55/45.
constexpr float kTextureShare = 0.55f;

struct Object {
  int id = 0;
  int half = 0;     // the sprite is (2 half + 1)^2, centered on the position
  cv::Mat alpha;    // CV_32F coverage, 0..1 (a one-pixel soft edge)
  cv::Mat solid;    // CV_8U alpha >= 0.5 (what the truth calls the object)
  cv::Mat grown;    // CV_8U solid grown by kContactGrow, (2 (half + grow) + 1)^2
  cv::Mat color;    // CV_32FC3 RGB (the recipe's objects: the texture before the blend)
  double sign = 0;  // the recipe's objects: +1 brighter than the scene, -1 darker; 0: older ones
  cv::Mat shadow;   // CV_32F darkening weight 0..1, (2 (half + pad) + 1)^2
  float shadow_gain = 0.7f;  // what the scene is multiplied by under the full shadow
  cv::Point shadow_offset;
  int start = 0;    // frame at which it sets off from path[0] (outside the frame)
  std::vector<cv::Point2d> path;
  double speed = 1;  // pixels per frame
  int stop = 0;      // frames it stands at path[1]
  bool bounces = false;  // its path touches a frame edge between inner points

  double length(size_t from, size_t to) const {
    double l = 0;
    for (size_t i = from; i < to; ++i) l += std::hypot(path[i + 1].x - path[i].x, path[i + 1].y - path[i].y);
    return l;
  }
  int arrival() const { return start + int(std::ceil(length(0, 1) / speed)); }
  int finish() const { return start + stop + int(std::ceil(length(0, path.size() - 1) / speed)); }

  /// Where it is in frame t; false before it starts and after it has left.
  bool at(int t, cv::Point* p) const {
    if (t < start || t > finish()) return false;
    double travelled = (t - start) * speed;
    const double first = length(0, 1);
    if (travelled > first) travelled = std::max(first, travelled - stop * speed);
    for (size_t i = 0; i + 1 < path.size(); ++i) {
      const double seg = length(i, i + 1);
      if (travelled <= seg || i + 2 == path.size()) {
        const double f = seg > 0 ? std::min(1.0, travelled / seg) : 1.0;
        p->x = int(std::lround(path[i].x + f * (path[i + 1].x - path[i].x)));
        p->y = int(std::lround(path[i].y + f * (path[i + 1].y - path[i].y)));
        return true;
      }
      travelled -= seg;
    }
    return false;
  }
};

}  // namespace

std::vector<Photo> color_photos(std::string* why) {
  static std::mutex mutex;
  static bool loaded = false;
  static std::vector<Photo> photos;
  static std::string reason;
  std::lock_guard<std::mutex> lock(mutex);
  if (!loaded) {
    photos = load_photos(&reason);
    loaded = true;
  }
  if (why) *why = reason;
  return photos;
}

struct Sequence::Impl {
  SequenceSpec spec;
  SequenceStats stats;
  cv::Mat background;  // CV_32FC3 RGB
  std::vector<Object> objects;

  double gain(int t) const {
    double g = 1.0 + spec.illumination * (spec.frames > 1 ? double(t) / (spec.frames - 1) : 0.0);
    if (spec.drift != 0) {
      const int period = spec.drift_period > 0 ? spec.drift_period : spec.frames;
      g *= 1.0 + spec.drift * std::sin(2 * 3.14159265358979 * t / period);
    }
    if (spec.light_step != 0 && t >= spec.step_frame) g *= 1.0 + spec.light_step;
    return g;
  }

  bool recipe() const { return spec.contrast > 0; }

  /// Draws one object: silhouette, texture, shadow and path.
  Object make_object(int id, const std::vector<Photo>& photos, const cv::Scalar& scene_mean,
                     double light_angle, double first_sign, Rng& rng) const {
    const int W = spec.width, H = spec.height;
    const double size = std::min(W, H);
    Object o;
    o.id = id;
    // Silhouette: a rotated ellipse whose rim wobbles (blobs, not discs).
    const double r = rng.uniform(0.055, 0.10) * size * spec.object_scale;
    const double rx = r * rng.uniform(0.7, 1.0), ry = r * rng.uniform(0.7, 1.0);
    const double wobble = rng.uniform(0.0, 0.18), phase = rng.uniform(0, 6.283);
    const int lobes = rng.integer(2, 4);
    const double turn = rng.uniform(0, 3.1416), c = std::cos(turn), s = std::sin(turn);
    o.half = int(std::ceil(std::max(rx, ry) * (1 + wobble))) + 2;
    const int side = 2 * o.half + 1;
    o.alpha = cv::Mat::zeros(side, side, CV_32F);
    for (int v = -o.half; v <= o.half; ++v)
      for (int u = -o.half; u <= o.half; ++u) {
        const double a = (c * u + s * v) / rx, b = (-s * u + c * v) / ry;
        const double rho = std::hypot(a, b), rim = 1 + wobble * std::sin(lobes * std::atan2(b, a) + phase);
        const double inside = (rim - rho) * std::min(rx, ry);  // ~ pixels to the rim
        o.alpha.at<float>(v + o.half, u + o.half) = float(std::clamp(0.5 + inside, 0.0, 1.0));
      }
    o.solid = o.alpha >= 0.5f;
    cv::copyMakeBorder(o.solid, o.grown, kContactGrow, kContactGrow, kContactGrow, kContactGrow,
                       cv::BORDER_CONSTANT, 0);
    cv::dilate(o.grown, o.grown, cv::Mat::ones(2 * kContactGrow + 1, 2 * kContactGrow + 1, CV_8U));
    // Texture: cut from another photograph. The older objects: its contrast lowered,
    // slightly tinted, and its mean pulled toward the scene's: the object differs from
    // the scene by texture and a modest shift of color, as real things do, not by being
    // a bright blob. The recipe's: blended with the scene as they move (render()).
    const Photo& src = photo(photos, spec.textures[size_t(rng.integer(0, int(spec.textures.size()) - 1))]);
    o.color = crop(src, side, side, rng.uniform(0.08, 0.3), rng);
    if (recipe()) {
      o.sign = id % 2 ? first_sign : -first_sign;
    } else {
      const cv::Scalar mean = cv::mean(o.color, o.alpha > 0.5f);
      const double contrast = rng.uniform(0.45, 0.75), pull = rng.uniform(0.45, 0.75);
      for (int ch = 0; ch < 3; ++ch) {
        const double tint = rng.uniform(0.9, 1.1);
        const double target = ((1 - pull) * mean[ch] + pull * scene_mean[ch]) * tint;
        for (int y = 0; y < side; ++y)
          for (int x = 0; x < side; ++x) {
            float& v = o.color.ptr<float>(y)[3 * x + ch];
            v = float(std::clamp(target + contrast * (v - mean[ch]), 0.0, 255.0));
          }
      }
    }
    // Shadow: the silhouette, blurred (a soft penumbra), offset along the light.
    const int sh = o.half + kShadowPad;
    cv::Mat hard = cv::Mat::zeros(2 * sh + 1, 2 * sh + 1, CV_32F);
    o.alpha.copyTo(hard(cv::Rect(kShadowPad, kShadowPad, side, side)));
    o.shadow = blur(hard, kShadowSigma);
    o.shadow_gain = recipe() ? float(rng.uniform(spec.shadow_gain - 0.03, spec.shadow_gain + 0.03))
                             : float(rng.uniform(0.6, 0.75));
    const double reach = rng.uniform(0.6, 1.0) * o.half;
    o.shadow_offset = cv::Point(int(std::lround(reach * std::cos(light_angle))),
                                int(std::lround(reach * std::sin(light_angle))));

    // Path: from outside one edge through one or two inner points to outside another
    // edge; far enough out that neither the object nor its shadow shows at either end.
    const double out = o.half + sh + std::hypot(o.shadow_offset.x, o.shadow_offset.y) + 2;
    auto edge_point = [&](int edge) {
      const double f = rng.uniform(0.1, 0.9);
      switch (edge) {
        case 0: return cv::Point2d(-out, f * H);
        case 1: return cv::Point2d(W - 1 + out, f * H);
        case 2: return cv::Point2d(f * W, -out);
        default: return cv::Point2d(f * W, H - 1 + out);
      }
    };
    const int entry = rng.integer(0, 3);
    int exit = rng.integer(0, 2);
    if (exit >= entry) ++exit;
    o.path.push_back(edge_point(entry));
    const bool long_stop = spec.long_stop > 0 && id == 1;
    const int inner = long_stop ? 1 : rng.integer(1, 2);
    for (int i = 0; i < inner; ++i)
      o.path.emplace_back(rng.uniform(0.2, 0.8) * W, rng.uniform(0.2, 0.8) * H);
    if (recipe() && !long_stop && rng.chance(0.5)) {
      // A bounce: on to an edge, the silhouette touching it, and back in through
      // another inner point.
      const double f = rng.uniform(0.2, 0.8), in = o.half + 1;
      switch (rng.integer(0, 3)) {
        case 0: o.path.emplace_back(in, f * H); break;
        case 1: o.path.emplace_back(W - 1 - in, f * H); break;
        case 2: o.path.emplace_back(f * W, in); break;
        default: o.path.emplace_back(f * W, H - 1 - in); break;
      }
      o.path.emplace_back(rng.uniform(0.2, 0.8) * W, rng.uniform(0.2, 0.8) * H);
      o.bounces = true;
    }
    o.path.push_back(edge_point(exit));

    // Timing: start staggered over the first 40 %; a stop at the first inner point for
    // about half of them, kept to kStopShare of its arrival frame so that it stays
    // foreground in every frame for a model that works as specified (see kStopShare).
    // Speeds scale with the frame, and larger objects move faster (nearer the camera),
    // so that crossings take no longer than with objects of the default size.
    const double unit = W / 320.0 * std::max(1.0, spec.object_scale);
    // The recipe's objects move faster (more objects, more crossings: each must stay
    // shorter than kLongestContact).
    const double slowest = recipe() ? 1.8 : 1.2, fastest = recipe() ? 4.0 : 3.0, hurry = fastest + 1;
    o.speed = rng.uniform(slowest, fastest) * unit;
    o.start = rng.integer(2, int(spec.frames * 0.4));
    if (long_stop) {
      // The long stop: arrival no earlier than the stop allows (kLongStopShare), up to
      // 10 frames later; hurry when the way out does not fit. A plan that still does not
      // fit is drawn again (plan()).
      o.stop = spec.long_stop;
      const int earliest = int(std::ceil(o.stop / kLongStopShare)) + rng.integer(0, 10);
      for (int tries = 0; tries < 50; ++tries) {
        o.start = std::max(2, earliest - int(std::floor(o.length(0, 1) / o.speed)));
        while (o.arrival() < earliest) ++o.start;
        if (o.finish() <= spec.frames - 4 || o.speed >= hurry * unit) break;
        o.speed = std::min(hurry * unit, o.speed * 1.15);
      }
      return o;
    }
    const bool stops = (id == 1 && spec.long_stop <= 0) || rng.chance(0.5);
    const int wanted_stop = stops ? rng.integer(15, 40) : 0;
    for (int tries = 0; tries < 50; ++tries) {
      o.stop = std::min(wanted_stop, int(kStopShare * o.arrival()));
      if (o.stop < 10) o.stop = 0;
      if (o.finish() <= spec.frames - 4) break;
      // Too slow to leave in time: hurry, and failing that, set off earlier.
      if (o.speed < hurry * unit) o.speed = std::min(hurry * unit, o.speed * 1.15);
      else o.start = std::max(2, o.start - 5);
    }
    return o;
  }

  /// Whether the silhouettes of a at pa and b at pb, each grown by `grow` pixels (a
  /// square), share a pixel inside the frame.
  bool silhouettes_meet(const Object& a, cv::Point pa, const Object& b, cv::Point pb, int grow) const {
    const int ha = a.half + grow, hb = b.half + grow;
    const cv::Rect ra(pa.x - ha, pa.y - ha, 2 * ha + 1, 2 * ha + 1);
    const cv::Rect rb(pb.x - hb, pb.y - hb, 2 * hb + 1, 2 * hb + 1);
    const cv::Rect both = ra & rb & cv::Rect(0, 0, spec.width, spec.height);
    if (both.empty()) return false;
    const cv::Mat& ma = grow ? a.grown : a.solid;
    const cv::Mat& mb = grow ? b.grown : b.solid;
    for (int y = both.y; y < both.y + both.height; ++y)
      for (int x = both.x; x < both.x + both.width; ++x)
        if (ma.at<uint8_t>(y - ra.y, x - ra.x) && mb.at<uint8_t>(y - rb.y, x - rb.x)) return true;
    return false;
  }

  SequenceStats measure() const {
    SequenceStats st;
    for (const Object& o : objects) {
      if (o.stop >= 10) ++st.stopped_objects;
      if (o.stop > st.longest_stop) {
        st.longest_stop = o.stop;
        st.longest_stop_start = o.arrival();
      }
      st.bounces += o.bounces;
      st.last_exit = std::max(st.last_exit, o.finish());
    }
    for (size_t i = 0; i < objects.size(); ++i)
      for (size_t j = i + 1; j < objects.size(); ++j) {
        bool crossed = false;
        int run = 0;
        for (int t = 0; t < spec.frames; ++t) {
          cv::Point pi, pj;
          const bool both = objects[i].at(t, &pi) && objects[j].at(t, &pj);
          if (both && silhouettes_meet(objects[i], pi, objects[j], pj, kContactGrow)) {
            st.longest_contact = std::max(st.longest_contact, ++run);
            crossed = crossed || silhouettes_meet(objects[i], pi, objects[j], pj, 0);
          } else {
            run = 0;
          }
        }
        st.crossing_pairs += crossed;
      }
    return st;
  }

  void plan(const std::vector<Photo>& photos) {
    if (spec.objects < 1 || spec.objects > 8 || spec.textures.empty() || spec.width < 64 ||
        spec.height < 64 || spec.frames < 60 || spec.object_scale <= 0 || spec.contrast < 0 ||
        spec.long_stop < 0)
      throw std::runtime_error("sequence " + spec.name + ": spec out of range");
    // The scene: a crop of most of the photograph.
    Rng scene_rng(test::splitmix64(spec.seed));
    background = crop(photo(photos, spec.background), spec.width, spec.height,
                      scene_rng.uniform(0.75, 1.0), scene_rng);
    const cv::Scalar scene_mean = cv::mean(background);
    // Plans are drawn until one has a crossing, a stop (the long one when asked for), a
    // bounce (the recipe's objects) and no contact longer than a tracker can bridge, so
    // that every sequence exercises them all; the attempt is derived from the seed, so
    // this stays deterministic.
    for (int attempt = 1; attempt <= 2000; ++attempt) {
      Rng rng(test::splitmix64(spec.seed * 1000003u + uint64_t(attempt)));
      const double light = rng.uniform(0, 6.283);
      const double first_sign = recipe() && rng.chance(0.5) ? -1 : 1;
      objects.clear();
      bool fits = true;
      for (int i = 1; i <= spec.objects; ++i) {
        objects.push_back(make_object(i, photos, scene_mean, light, first_sign, rng));
        fits = fits && objects.back().finish() <= spec.frames - 4;
      }
      if (!fits) continue;
      stats = measure();
      stats.attempts = attempt;
      if (stats.crossing_pairs >= 1 && stats.longest_stop >= std::max(15, spec.long_stop) &&
          stats.longest_contact <= kLongestContact && (!recipe() || stats.bounces >= 1))
        return;
    }
    throw std::runtime_error("sequence " + spec.name + ": no plan with a crossing, a stop, a bounce and short contacts");
  }
};

Sequence::Sequence(const SequenceSpec& spec, const std::vector<Photo>& photos)
    : impl_(std::make_unique<Impl>()) {
  impl_->spec = spec;
  impl_->plan(photos);
}
Sequence::~Sequence() = default;
Sequence::Sequence(Sequence&&) noexcept = default;
Sequence& Sequence::operator=(Sequence&&) noexcept = default;

const SequenceSpec& Sequence::spec() const { return impl_->spec; }
const SequenceStats& Sequence::stats() const { return impl_->stats; }

cv::Mat Sequence::scene(int t) const { return impl_->background * impl_->gain(t); }
double Sequence::gain(int t) const { return impl_->gain(t); }

void Sequence::render(int t, cv::Mat& rgb, FrameTruth& truth, cv::Mat* clean) const {
  const Impl& d = *impl_;
  const int W = d.spec.width, H = d.spec.height;
  const cv::Rect frame(0, 0, W, H);
  std::vector<cv::Point> where(d.objects.size());
  std::vector<bool> present(d.objects.size());
  for (size_t i = 0; i < d.objects.size(); ++i) present[i] = t > 0 && d.objects[i].at(t, &where[i]);

  // Shadows fall on the scene; where two overlap the darker one wins (one light).
  cv::Mat light(H, W, CV_32F, cv::Scalar(1.0f));
  for (size_t i = 0; i < d.objects.size(); ++i) {
    if (!present[i] || !d.spec.shadows) continue;
    const Object& o = d.objects[i];
    const int sh = o.half + kShadowPad;
    const cv::Rect box(where[i].x + o.shadow_offset.x - sh, where[i].y + o.shadow_offset.y - sh,
                       2 * sh + 1, 2 * sh + 1);
    const cv::Rect in = box & frame;
    for (int y = in.y; y < in.y + in.height; ++y)
      for (int x = in.x; x < in.x + in.width; ++x) {
        const float m = 1.0f - (1.0f - o.shadow_gain) * o.shadow.at<float>(y - box.y, x - box.x);
        light.at<float>(y, x) = std::min(light.at<float>(y, x), m);
      }
  }
  cv::Mat img(H, W, CV_32FC3);
  for (int y = 0; y < H; ++y) {
    const float* bg = d.background.ptr<float>(y);
    const float* l = light.ptr<float>(y);
    float* out = img.ptr<float>(y);
    for (int x = 0; x < W; ++x)
      for (int c = 0; c < 3; ++c) out[3 * x + c] = bg[3 * x + c] * l[x];
  }

  // Objects over the scene, later ids in front; the truth is what is seen.
  truth.width = W;
  truth.height = H;
  truth.owner.assign(size_t(W) * H, 0);
  for (size_t i = 0; i < d.objects.size(); ++i) {
    if (!present[i]) continue;
    const Object& o = d.objects[i];
    const cv::Rect box(where[i].x - o.half, where[i].y - o.half, 2 * o.half + 1, 2 * o.half + 1);
    const cv::Rect in = box & frame;
    // The recipe's object: 0.55 texture + 0.45 scene, plus the offset per channel that
    // puts the mean over its pixels (alpha >= 0.5, in the frame) `contrast` levels from
    // the scene's there: the scene's own structure shows through, the object differs
    // by the offset and by how its texture departs from the scene.
    float offset[3] = {0, 0, 0};
    if (o.sign != 0) {
      double sum[3] = {0, 0, 0};
      int n = 0;
      for (int y = in.y; y < in.y + in.height; ++y)
        for (int x = in.x; x < in.x + in.width; ++x) {
          if (o.alpha.at<float>(y - box.y, x - box.x) < 0.5f) continue;
          const float* c = o.color.ptr<float>(y - box.y) + 3 * (x - box.x);
          const float* b = d.background.ptr<float>(y) + 3 * x;
          for (int k = 0; k < 3; ++k) sum[k] += kTextureShare * (c[k] - b[k]);
          ++n;
        }
      for (int k = 0; k < 3; ++k)
        offset[k] = float(o.sign * d.spec.contrast - (n ? sum[k] / n : 0.0));
    }
    for (int y = in.y; y < in.y + in.height; ++y)
      for (int x = in.x; x < in.x + in.width; ++x) {
        const float a = o.alpha.at<float>(y - box.y, x - box.x);
        if (a <= 0) continue;
        const float* c = o.color.ptr<float>(y - box.y) + 3 * (x - box.x);
        float* p = img.ptr<float>(y) + 3 * x;
        if (o.sign != 0) {
          const float* b = d.background.ptr<float>(y) + 3 * x;
          for (int k = 0; k < 3; ++k) {
            const float v = std::clamp(kTextureShare * c[k] + (1 - kTextureShare) * b[k] + offset[k], 0.0f, 255.0f);
            p[k] = p[k] * (1 - a) + v * a;
          }
        } else {
          for (int k = 0; k < 3; ++k) p[k] = p[k] * (1 - a) + c[k] * a;
        }
        if (a >= 0.5f) truth.owner[size_t(y) * W + x] = uint8_t(o.id);
      }
  }
  truth.contacts.clear();
  for (size_t i = 0; i < d.objects.size(); ++i)
    for (size_t j = i + 1; j < d.objects.size(); ++j)
      if (present[i] && present[j] &&
          d.silhouettes_meet(d.objects[i], where[i], d.objects[j], where[j], kContactGrow))
        truth.contacts.emplace_back(d.objects[i].id, d.objects[j].id);
  truth.objects.clear();
  std::vector<ObjectTruth> all(d.objects.size() + 1);
  std::vector<int> x1(all.size(), -1), y1(all.size(), -1);
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) {
      const int id = truth.owner[size_t(y) * W + x];
      if (!id) continue;
      ObjectTruth& o = all[size_t(id)];
      if (o.pixels++ == 0) {
        o.x = x1[size_t(id)] = x;
        o.y = y1[size_t(id)] = y;
      }
      o.x = std::min(o.x, x);
      x1[size_t(id)] = std::max(x1[size_t(id)], x);
      y1[size_t(id)] = y;
    }
  for (size_t id = 1; id < all.size(); ++id) {
    if (!all[id].pixels) continue;
    ObjectTruth o = all[id];
    o.id = int(id);
    o.width = x1[id] - o.x + 1;
    o.height = y1[id] - o.y + 1;
    truth.objects.push_back(o);
  }

  // The light of the frame, then the sensor: Gaussian noise per channel, rounded.
  const float g = float(d.gain(t));
  if (clean) *clean = img * g;
  const float sigma = float(d.spec.noise_sigma);
  const std::array<float, 65536>& normal = normal_table();
  rgb.create(H, W, CV_8UC3);
  uint64_t state = test::splitmix64(d.spec.seed ^ (uint64_t(t + 1) << 40));
  for (int y = 0; y < H; ++y) {
    const float* p = img.ptr<float>(y);
    uint8_t* out = rgb.ptr<uint8_t>(y);
    for (int x = 0; x < W; ++x) {
      const uint64_t bits = test::splitmix64(state);
      state += test::kSplitMixIncrement;
      for (int c = 0; c < 3; ++c) {
        const float v = p[3 * x + c] * g + sigma * normal[(bits >> (16 * c)) & 0xFFFF];
        out[3 * x + c] = uint8_t(std::clamp(std::lround(v), 0L, 255L));
      }
    }
  }
}

}  // namespace ccl::quality
