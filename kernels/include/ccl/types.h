// cudaccl engine: the types every backend shares (docs/CONTRACT.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace ccl {

enum class PixelFormat { Gray8, Gray16LE, NV12, I420, RGBA, BGRA, RGBx, BGRx };

enum class MemorySpace { Host, Device };

enum class ThresholdMode { Above, Below, Otsu };

/// What decides which pixels are foreground (docs/FOREGROUND.md).
enum class ForegroundModel {
  /// One global level per frame: Options::threshold and mode (fixed, inverted, Otsu).
  Threshold,
  /// A per-pixel adaptive background model (a mixture of a few modes per pixel, as in
  /// Zivkovic's improved Gaussian mixture); what differs from it is foreground, shadows
  /// are not. Stateful: the engine (or ccl::ForegroundStage) keeps it per stream.
  Background,
  /// A local threshold for uneven light: a pixel's luma above the mean of its
  /// block_size x block_size window minus offset (ThresholdMode::Below: at or under it),
  /// identical to cv::adaptiveThreshold with ADAPTIVE_THRESH_MEAN_C. Options::local.
  Local,
  /// A color range: the pixel's 8-bit HSV (OpenCV's: H 0..179, S and V 0..255) within
  /// [low, high] per channel, a hue range with low > high wrapping around red; identical
  /// to cv::cvtColor(RGB2HSV) + cv::inRange. Color formats only. Options::color.
  Color,
};

/// The background model's settings (ForegroundModel::Background).
struct BackgroundOptions {
  /// Frames the model remembers: with learning_rate < 0 the rate is 1/min(2n, history)
  /// at the n-th frame since the model was reset. 1..100000.
  int history = 500;
  /// < 0: from history (above); 0: the model is frozen after its first frame;
  /// otherwise the weight of each new frame, up to 1.
  double learning_rate = -1;
  /// Squared distance, in variances, within which a pixel matches a background mode
  /// (MOG2's varThreshold). 1..255.
  double variance_threshold = 16;
  /// A darker pixel of the background's chromaticity is a shadow, and not foreground.
  bool detect_shadows = true;
  /// Each frame's global light is measured against the model (the median ratio of
  /// luma over a grid of pixels), and when it changed by more than 1 % the model's
  /// means follow it before the frame is compared: lights switched on, auto-exposure,
  /// clouds. Off: a sudden change of light makes much of the frame foreground until
  /// the model has relearned it.
  bool compensate_light = true;
};

/// The local threshold's settings (ForegroundModel::Local).
struct LocalOptions {
  /// Side of the square window whose mean is the pixel's level: odd, 3..255.
  int block_size = 31;
  /// Subtracted from the window mean (may be fractional or negative, as OpenCV's C).
  double offset = 10;
};

/// The color range's settings (ForegroundModel::Color): inclusive bounds of H (0..179),
/// S and V (0..255). low[0] > high[0] selects hues >= low[0] or <= high[0].
struct ColorOptions {
  int low[3] = {0, 0, 0};
  int high[3] = {179, 255, 255};
};

/// Largest open_radius / close_radius (a (2r+1) x (2r+1) square).
constexpr int kMaxCleanupRadius = 32;
/// Largest Options::group_gap, in pixels.
constexpr int kMaxGroupGap = 1024;

/// The labeling algorithms (ccl/algorithms.def, the registry; every one gives the same
/// labels and features).
enum class Algorithm {
#define CCL_ALGORITHM(id, nick, title, description) id,
#include "ccl/algorithms.def"
#undef CCL_ALGORITHM
};

/// One registry entry of ccl/algorithms.def.
struct AlgorithmInfo {
  Algorithm id;
  const char* nick;         // "ha4", "komura", ...: what users type
  const char* title;        // the method and its authors
  const char* description;  // one line
};

/// Every algorithm, in registry order (the order of Algorithm's values).
const std::vector<AlgorithmInfo>& algorithms();
/// The registry entry of `a`; throws ccl::Error for a value outside the registry.
const AlgorithmInfo& info(Algorithm a);

/// Largest number of pixels an image may have (W*H < 2^31, docs/CONTRACT.md).
constexpr int64_t kMaxPixels = (int64_t(1) << 31) - 1;

/// A frame as the engine reads it. planes[0] is the plane that holds the luma
/// (the Y plane for NV12/I420, the packed pixels for RGB, the values for GRAY);
/// the further planes are only used by overlay drawing.
struct ImageView {
  int width = 0;
  int height = 0;
  PixelFormat format = PixelFormat::Gray8;
  MemorySpace space = MemorySpace::Host;
  void* planes[3] = {nullptr, nullptr, nullptr};
  size_t strides[3] = {0, 0, 0};  // bytes per row, per plane

  /// One GRAY8 plane: `stride` bytes per row (0: `width`).
  static ImageView gray8(const void* pixels, int width, int height, size_t stride = 0,
                         MemorySpace space = MemorySpace::Host) {
    ImageView v;
    v.width = width;
    v.height = height;
    v.format = PixelFormat::Gray8;
    v.space = space;
    v.planes[0] = const_cast<void*>(pixels);
    v.strides[0] = stride ? stride : size_t(width);
    return v;
  }

  int64_t pixels() const { return int64_t(width) * height; }
};

/// Number of planes a format carries and bytes per pixel of its first plane.
int plane_count(PixelFormat f);
int luma_bytes_per_pixel(PixelFormat f);

/// Bytes per row (without padding) and rows of plane `plane` of a width x height frame;
/// zero for a plane the format does not have.
struct PlaneSize {
  size_t row_bytes = 0;
  size_t rows = 0;
  size_t bytes() const { return row_bytes * rows; }
};
PlaneSize plane_size(PixelFormat f, int width, int height, int plane);
const char* to_string(PixelFormat f);
const char* to_string(ThresholdMode m);
const char* to_string(ForegroundModel m);
const char* to_string(Algorithm a);
/// The inverse of to_string (for algorithms the registry's nick, plus the short names
/// "ha" and "ke"); false, leaving *out alone, for any other text.
bool parse(const std::string& text, ThresholdMode* out);
bool parse(const std::string& text, ForegroundModel* out);
bool parse(const std::string& text, Algorithm* out);

/// Properties a caller may ask for (bits of Options::properties). Each costs device
/// time of its own, so none is computed unless asked for (or needed by a filter).
enum Property : uint32_t {
  /// Luma sum, sum of squares, minimum and maximum: intensity_mean, _std, _min, _max.
  kPropertyIntensity = 1u << 0,
  /// Each channel's sum: R, G, B for the RGB formats, Y, U, V for NV12 / I420 (the
  /// chroma of the pixel's 2x2 site), the value for GRAY8 / GRAY16 (all three).
  kPropertyColor = 1u << 1,
  /// scikit-image's perimeter (4-neighbourhood): boundary pixels weighted by how their
  /// boundary neighbours lie (1, sqrt 2 or (1 + sqrt 2) / 2).
  kPropertyPerimeter = 1u << 2,
  /// The Euler number (components minus holes) with the labeling's connectivity, from
  /// bit-quad counts.
  kPropertyEuler = 1u << 3,
  kAllProperties = (1u << 4) - 1,
};

/// The blob properties of one component: sums over its pixels, exact modulo 2^64.
/// Fields of properties that were not asked for are 0.
struct Blob {
  uint64_t intensity_sum = 0;     // sum of luma (the format's own range)
  uint64_t intensity_sum_sq = 0;  // sum of luma squared
  uint64_t channel_sum[3] = {0, 0, 0};
  uint32_t intensity_min = 0, intensity_max = 0;
  /// Boundary pixels by weight: 1, sqrt(2) and (1 + sqrt(2)) / 2 (perimeter()).
  uint32_t perimeter_counts[3] = {0, 0, 0};
  int32_t euler = 0;  // Euler number with the labeling's connectivity

  bool operator==(const Blob& o) const;
  bool operator!=(const Blob& o) const { return !(*this == o); }
};
static_assert(sizeof(Blob) == 64, "Blob is a device table's entry: keep it one line");

struct Options {
  /// 0..255; for GRAY16_LE compared against value * 257.
  int threshold = 128;
  ThresholdMode mode = ThresholdMode::Above;
  int connectivity = 8;  // 4 or 8
  Algorithm algorithm = Algorithm::HA;
  /// When false a backend may skip writing the label image (features only).
  bool write_labels = true;
  /// Which components a frame reports (docs/ARCHITECTURE.md, "Reported components"):
  /// those of at least min_area pixels (and at most max_area), in label order; when more than max_components
  /// pass, only the max_components largest, largest first and equal areas by label.
  /// The defaults report every component. Result::num_components counts them all.
  uint64_t min_area = 0;
  uint32_t max_components = UINT32_MAX;
  /// Components of more pixels than this are not reported either; 0: no limit.
  uint64_t max_area = 0;

  /// The foreground test (docs/FOREGROUND.md); the threshold fields above serve
  /// ForegroundModel::Threshold only.
  ForegroundModel foreground = ForegroundModel::Threshold;
  BackgroundOptions background;
  LocalOptions local;
  ColorOptions color;
  /// Cleanup of the foreground mask before labeling, for every model: a morphological
  /// opening, then a closing, with a (2r+1) x (2r+1) square; 0: off. 0..kMaxCleanupRadius.
  int open_radius = 0;
  int close_radius = 0;
  /// Pieces whose bounding boxes come within this many pixels of each other (in both
  /// directions; 0: boxes that touch or overlap, directly or through other pieces) are
  /// reported as one component: its box, area and sums are those of the union of the
  /// pieces, its label the first piece's. min_area, max_area and max_components then
  /// apply to the groups, and Result::num_components counts groups. -1 (the default):
  /// off. 0..kMaxGroupGap.
  int group_gap = -1;

  /// Blob analysis (ccl/blob.h, docs/BLOBS.md): the Property bits computed for every
  /// reported component, into Result::blobs. 0: none, and no time spent on them.
  uint32_t properties = 0;
  /// Blob filters, applied where min_area and max_area are (with group_gap, to the
  /// groups): a component is reported only when its circularity (4 pi area /
  /// perimeter^2), mean luma and eccentricity lie within these inclusive bounds. A max
  /// of 0 is no limit; a filter that is set computes what it reads (perimeter,
  /// intensity) whether or not properties asks for it.
  double min_circularity = 0, max_circularity = 0;
  double min_intensity = 0, max_intensity = 0;
  double min_eccentricity = 0, max_eccentricity = 0;

  /// True when every component is reported, whatever the frame holds.
  bool reports_all() const {
    return min_area <= 1 && max_components == UINT32_MAX && max_area == 0 && !filters_blobs();
  }
  /// True when a blob filter (circularity, intensity, eccentricity) is set.
  bool filters_blobs() const {
    return min_circularity > 0 || max_circularity > 0 || min_intensity > 0 ||
           max_intensity > 0 || min_eccentricity > 0 || max_eccentricity > 0;
  }
  /// True when area alone lets a component be reported (min_area, max_area).
  bool area_passes(uint64_t area) const {
    return area >= min_area && (max_area == 0 || area <= max_area);
  }
  /// True when the foreground is written as a mask of its own before labeling (a model
  /// other than the threshold, or cleanup); otherwise the labelers test the threshold
  /// as they read the frame.
  bool mask_stage() const {
    return foreground != ForegroundModel::Threshold || open_radius > 0 || close_radius > 0;
  }
  /// True when the foreground test (or the color property) reads every plane of a
  /// color frame (its chroma or all three colors), not only the luma.
  bool reads_all_planes() const {
    return foreground == ForegroundModel::Background || foreground == ForegroundModel::Color ||
           (properties & kPropertyColor);
  }
};

/// One connected component (docs/CONTRACT.md, "Output"). Sums are over the component's pixels.
struct Component {
  uint32_t label = 0;  // 1..N, raster order of the component's first pixel
  int32_t x = 0, y = 0, width = 0, height = 0;  // bounding box
  uint64_t area = 0;
  uint64_t sum_x = 0, sum_y = 0;
  uint64_t sum_xx = 0, sum_xy = 0, sum_yy = 0;

  double centroid_x() const { return area ? double(sum_x) / double(area) : 0.0; }
  double centroid_y() const { return area ? double(sum_y) / double(area) : 0.0; }
  bool operator==(const Component& o) const;
};


/// What a backend returns for one frame.
struct Result {
  int width = 0;
  int height = 0;
  /// The level actually compared against (Otsu's when automatic), 0..255.
  int threshold_used = 0;
  /// Every component of the frame, reported or not (with Options::group_gap: every group).
  uint32_t num_components = 0;
  /// With Options::group_gap: group_of[l] is the label of the group (its first piece's
  /// label) of the piece the label image calls l, for l up to the pieces' count; empty
  /// without grouping, when the label image's labels are the components' own.
  std::vector<uint32_t> group_of;
  /// The reported components (Options::min_area, max_components); with the default
  /// options all of them, components[i].label == i + 1.
  std::vector<Component> components;
  /// With Options::properties (or a blob filter): blobs[i] belongs to components[i];
  /// empty otherwise.
  std::vector<Blob> blobs;
  /// width*height labels, row-major, no padding; empty when not requested.
  std::vector<uint32_t> labels;
};

/// Components held elsewhere (a Result, an engine's pinned memory), not owned.
struct TableView {
  const Component* data = nullptr;
  uint32_t size = 0;
  /// The blobs of the same components (size of them), or null without properties.
  const Blob* blobs = nullptr;

  const Component* begin() const { return data; }
  const Component* end() const { return data + size; }
};

/// Thrown by every backend: bad input, CUDA failure (message names the CUDA error).
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A failure of the CUDA runtime (ccl/cuda_memory.h throws it): the message names the
/// CUDA error and the call; code() is the cudaError_t value.
class CudaError : public Error {
 public:
  CudaError(int code, bool out_of_memory, const std::string& what)
      : Error(what), code_(code), out_of_memory_(out_of_memory) {}
  int code() const { return code_; }
  /// Device or pinned memory could not be allocated (cudaErrorMemoryAllocation).
  bool out_of_memory() const { return out_of_memory_; }

 private:
  int code_;
  bool out_of_memory_;
};

/// Whether `a` comes before `b` when the largest are reported: larger area first,
/// equal areas by label.
inline bool reported_before(const Component& a, const Component& b) {
  return a.area != b.area ? a.area > b.area : a.label < b.label;
}

/// Keeps of a frame's whole table (label order) the components `options` reports, in
/// the order they are reported: what every backend returns in Result::components.
/// With options.group_gap >= 0 the table's pieces are grouped first
/// (group_components), and *count, when given, receives the number of groups.
void select_reported(std::vector<Component>& table, const Options& options,
                     uint32_t* count = nullptr, std::vector<uint32_t>* group_of = nullptr);
/// The same with each component's Blob beside it (blobs: empty, or one per entry of the
/// table, kept parallel to it); the blob filters need them.
void select_reported(std::vector<Component>& table, std::vector<Blob>& blobs,
                     const Options& options, uint32_t* count = nullptr,
                     std::vector<uint32_t>* group_of = nullptr);

/// Pieces whose boxes come within `gap` pixels of each other (transitively) become one
/// component each, in the order of their first piece (by label), carrying the union's
/// box and the sums of area and moments; returns the number of groups. gap < 0: none.
/// group_of (when given) receives, for each piece's label l, the label of its group
/// (its first piece's), so that a label image's pieces can be drawn as their group;
/// it is left empty when nothing was grouped (gap < 0). blobs (when given and not
/// empty: one per piece) are combined alike: sums added, extremes kept; a group's
/// perimeter and Euler number are its pieces' sums.
uint32_t group_components(std::vector<Component>& table, int gap,
                          std::vector<uint32_t>* group_of = nullptr,
                          std::vector<Blob>* blobs = nullptr);

/// Throws ccl::Error when the view cannot be labeled (size, stride, pointer).
void validate(const ImageView& image, const Options& options);

}  // namespace ccl
