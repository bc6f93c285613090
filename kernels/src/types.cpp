#include "ccl/types.h"

#include <algorithm>
#include <numeric>

#include "blob_math.h"

namespace ccl {

int plane_count(PixelFormat f) {
  switch (f) {
    case PixelFormat::NV12: return 2;
    case PixelFormat::I420: return 3;
    default: return 1;
  }
}

PlaneSize plane_size(PixelFormat f, int width, int height, int plane) {
  const size_t w = size_t(width), h = size_t(height);
  const size_t cw = (w + 1) / 2, ch = (h + 1) / 2;
  if (plane == 0) return {w * size_t(luma_bytes_per_pixel(f)), h};
  if (f == PixelFormat::NV12 && plane == 1) return {2 * cw, ch};
  if (f == PixelFormat::I420 && plane <= 2) return {cw, ch};
  return {};
}

int luma_bytes_per_pixel(PixelFormat f) {
  switch (f) {
    case PixelFormat::Gray16LE: return 2;
    case PixelFormat::RGBA:
    case PixelFormat::BGRA:
    case PixelFormat::RGBx:
    case PixelFormat::BGRx: return 4;
    default: return 1;
  }
}

const char* to_string(PixelFormat f) {
  switch (f) {
    case PixelFormat::Gray8: return "GRAY8";
    case PixelFormat::Gray16LE: return "GRAY16_LE";
    case PixelFormat::NV12: return "NV12";
    case PixelFormat::I420: return "I420";
    case PixelFormat::RGBA: return "RGBA";
    case PixelFormat::BGRA: return "BGRA";
    case PixelFormat::RGBx: return "RGBx";
    case PixelFormat::BGRx: return "BGRx";
  }
  return "?";
}

const char* to_string(ThresholdMode m) {
  switch (m) {
    case ThresholdMode::Above: return "above";
    case ThresholdMode::Below: return "below";
    case ThresholdMode::Otsu: return "otsu";
  }
  return "?";
}

const char* to_string(ForegroundModel m) {
  switch (m) {
    case ForegroundModel::Threshold: return "threshold";
    case ForegroundModel::Background: return "background";
    case ForegroundModel::Local: return "local";
    case ForegroundModel::Color: return "color";
  }
  return "?";
}

const std::vector<AlgorithmInfo>& algorithms() {
  static const std::vector<AlgorithmInfo> list = {
#define CCL_ALGORITHM(id, nick, title, description) {Algorithm::id, nick, title, description},
#include "ccl/algorithms.def"
#undef CCL_ALGORITHM
  };
  return list;
}

const AlgorithmInfo& info(Algorithm a) {
  const auto& list = algorithms();
  const size_t i = size_t(a);
  if (i >= list.size()) throw Error("unknown algorithm " + std::to_string(int(a)));
  return list[i];
}

const char* to_string(Algorithm a) { return info(a).nick; }

bool parse(const std::string& text, ThresholdMode* out) {
  for (ThresholdMode m : {ThresholdMode::Above, ThresholdMode::Below, ThresholdMode::Otsu})
    if (text == to_string(m)) {
      *out = m;
      return true;
    }
  return false;
}

bool parse(const std::string& text, ForegroundModel* out) {
  for (ForegroundModel m : {ForegroundModel::Threshold, ForegroundModel::Background,
                            ForegroundModel::Local, ForegroundModel::Color})
    if (text == to_string(m)) {
      *out = m;
      return true;
    }
  return false;
}

bool parse(const std::string& text, Algorithm* out) {
  // Short names kept from the first two algorithms' command lines.
  const std::string name = text == "ha" ? "ha4" : text == "ke" ? "komura" : text;
  for (const AlgorithmInfo& a : algorithms())
    if (name == a.nick) {
      *out = a.id;
      return true;
    }
  return false;
}

bool Component::operator==(const Component& o) const {
  return label == o.label && x == o.x && y == o.y && width == o.width &&
         height == o.height && area == o.area && sum_x == o.sum_x && sum_y == o.sum_y &&
         sum_xx == o.sum_xx && sum_xy == o.sum_xy && sum_yy == o.sum_yy;
}

void select_reported(std::vector<Component>& table, const Options& options, uint32_t* count,
                     std::vector<uint32_t>* group_of) {
  std::vector<Blob> none;
  select_reported(table, none, options, count, group_of);
}

void select_reported(std::vector<Component>& table, std::vector<Blob>& blobs,
                     const Options& options, uint32_t* count, std::vector<uint32_t>* group_of) {
  if (group_of) group_of->clear();
  const bool with_blobs = !blobs.empty();
  if (with_blobs && blobs.size() != table.size())
    throw Error("select_reported: " + std::to_string(blobs.size()) + " blobs for " +
                std::to_string(table.size()) + " components");
  const blob::Filter filter = blob::Filter::of(options);
  if (filter.reads && !with_blobs && !table.empty())
    throw Error("select_reported: the blob filters need the components' blobs");
  if (options.group_gap >= 0) {
    const uint32_t groups =
        group_components(table, options.group_gap, group_of, with_blobs ? &blobs : nullptr);
    if (count) *count = groups;
  }
  if (options.reports_all()) return;
  if (options.min_area > 1 || options.max_area || !filter.area_only()) {
    size_t kept = 0;
    for (size_t i = 0; i < table.size(); ++i) {
      if (!filter.passes(table[i], with_blobs ? &blobs[i] : nullptr)) continue;
      table[kept] = table[i];
      if (with_blobs) blobs[kept] = blobs[i];
      ++kept;
    }
    table.resize(kept);
    if (with_blobs) blobs.resize(kept);
  }
  if (table.size() <= options.max_components) return;
  if (!with_blobs) {
    const auto keep = table.begin() + options.max_components;
    std::partial_sort(table.begin(), keep, table.end(), reported_before);
    table.erase(keep, table.end());
    return;
  }
  std::vector<uint32_t> order(table.size());
  std::iota(order.begin(), order.end(), 0u);
  const auto keep = order.begin() + options.max_components;
  std::partial_sort(order.begin(), keep, order.end(),
                    [&](uint32_t a, uint32_t b) { return reported_before(table[a], table[b]); });
  order.erase(keep, order.end());
  std::vector<Component> kept_table(order.size());
  std::vector<Blob> kept_blobs(order.size());
  for (size_t i = 0; i < order.size(); ++i) {
    kept_table[i] = table[order[i]];
    kept_blobs[i] = blobs[order[i]];
  }
  table.swap(kept_table);
  blobs.swap(kept_blobs);
}

void validate(const ImageView& image, const Options& options) {
  if (image.width < 1 || image.height < 1)
    throw Error("image size " + std::to_string(image.width) + "x" +
                std::to_string(image.height) + " is empty");
  if (image.pixels() > kMaxPixels)
    throw Error("image of " + std::to_string(image.pixels()) +
                " pixels is too large: at most 2^31-1 pixels are supported");
  if (!image.planes[0]) throw Error("image has no luma plane");
  if (image.strides[0] < size_t(image.width) * luma_bytes_per_pixel(image.format))
    throw Error("row stride " + std::to_string(image.strides[0]) +
                " is smaller than a row of " + std::to_string(image.width) + " " +
                to_string(image.format) + " pixels");
  if (options.connectivity != 4 && options.connectivity != 8)
    throw Error("connectivity must be 4 or 8, not " + std::to_string(options.connectivity));
  if (options.threshold < 0 || options.threshold > 255)
    throw Error("threshold must be within 0..255, not " + std::to_string(options.threshold));
  if (options.group_gap < -1 || options.group_gap > kMaxGroupGap)
    throw Error("group gap must be -1 (off) or within 0.." + std::to_string(kMaxGroupGap) + ", not " +
                std::to_string(options.group_gap));
  if (options.properties & ~uint32_t(kAllProperties))
    throw Error("unknown blob property bits " + std::to_string(options.properties));
  const struct {
    const char* name;
    double min, max, top;
  } bounds[] = {{"circularity", options.min_circularity, options.max_circularity, 1e6},
                {"intensity", options.min_intensity, options.max_intensity, 65535},
                {"eccentricity", options.min_eccentricity, options.max_eccentricity, 1}};
  for (const auto& b : bounds)
    if (!(b.min >= 0 && b.min <= b.top) || !(b.max >= 0 && b.max <= b.top) ||
        (b.max > 0 && b.max < b.min))
      throw Error(std::string("the ") + b.name + " filter needs 0 <= min <= max <= " +
                  std::to_string(b.top) + " (max 0: no limit), not " + std::to_string(b.min) +
                  ".." + std::to_string(b.max));
  for (int r : {options.open_radius, options.close_radius})
    if (r < 0 || r > kMaxCleanupRadius)
      throw Error("open and close radii must be within 0.." + std::to_string(kMaxCleanupRadius) +
                  ", not " + std::to_string(r));
  if (options.reads_all_planes()) {
    for (int p = 1; p < plane_count(image.format); ++p)
      if (!image.planes[p] ||
          image.strides[p] < plane_size(image.format, image.width, image.height, p).row_bytes)
        throw Error(std::string("a ") + to_string(image.format) + " frame needs its plane " +
                    std::to_string(p) + " (and a stride that holds its rows) for the " +
                    to_string(options.foreground) + " foreground" +
                    (options.properties & kPropertyColor ? " and the color property" : ""));
  }
  if (options.foreground == ForegroundModel::Local) {
    const LocalOptions& l = options.local;
    if (l.block_size < 3 || l.block_size > 255 || l.block_size % 2 == 0)
      throw Error("local block size must be odd and within 3..255, not " +
                  std::to_string(l.block_size));
    if (!(l.offset >= -255.0 && l.offset <= 255.0))
      throw Error("local offset must be within -255..255, not " + std::to_string(l.offset));
    if (options.mode == ThresholdMode::Otsu)
      throw Error("the local foreground compares with its window's mean: threshold mode "
                  "above or below, not otsu");
  }
  if (options.foreground == ForegroundModel::Color) {
    if (image.format == PixelFormat::Gray8 || image.format == PixelFormat::Gray16LE)
      throw Error(std::string("the color foreground needs a color format, not ") +
                  to_string(image.format));
    const ColorOptions& c = options.color;
    for (int i = 0; i < 3; ++i) {
      const int top = i == 0 ? 179 : 255;
      if (c.low[i] < 0 || c.low[i] > top || c.high[i] < 0 || c.high[i] > top)
        throw Error(std::string("color bounds of ") + "HSV"[i] + " must be within 0.." +
                    std::to_string(top) + ", not " + std::to_string(c.low[i]) + ".." +
                    std::to_string(c.high[i]));
      if (i > 0 && c.low[i] > c.high[i])
        throw Error(std::string("color bounds of ") + "HSV"[i] + " are empty: " +
                    std::to_string(c.low[i]) + " > " + std::to_string(c.high[i]));
    }
  }
  if (options.foreground == ForegroundModel::Background) {
    const BackgroundOptions& b = options.background;
    if (b.history < 1 || b.history > 100000)
      throw Error("background history must be within 1..100000 frames, not " +
                  std::to_string(b.history));
    if (!(b.learning_rate <= 1.0))
      throw Error("background learning rate must be at most 1, not " +
                  std::to_string(b.learning_rate));
    if (!(b.variance_threshold >= 1.0 && b.variance_threshold <= 255.0))
      throw Error("background variance threshold must be within 1..255, not " +
                  std::to_string(b.variance_threshold));
  }
}

}  // namespace ccl
