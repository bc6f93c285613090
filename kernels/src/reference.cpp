#include "ccl/reference.h"

#include <algorithm>
#include <array>

#include "ccl/blob.h"
#include "ccl/luma.h"

namespace ccl {

namespace {

const uint8_t* row_of(const ImageView& image, int y) {
  return static_cast<const uint8_t*>(image.planes[0]) + size_t(y) * image.strides[0];
}

void require_host(const ImageView& image) {
  if (image.space != MemorySpace::Host)
    throw Error("the CPU reference needs an image in host memory");
}

}  // namespace

std::vector<uint32_t> luma_histogram(const ImageView& image) {
  require_host(image);
  std::vector<uint32_t> hist(256, 0);
  for (int y = 0; y < image.height; ++y) {
    const uint8_t* row = row_of(image, y);
    for (int x = 0; x < image.width; ++x) ++hist[luma8(luma_at(row, x, image.format), image.format)];
  }
  return hist;
}

int threshold_image(const ImageView& image, const Options& options, BinaryImage& out) {
  validate(image, options);
  require_host(image);
  int level = options.threshold;
  ThresholdMode mode = options.mode;
  if (mode == ThresholdMode::Otsu) {
    level = otsu_level(luma_histogram(image).data());
    mode = ThresholdMode::Above;
  }
  const uint32_t scaled = scaled_level(level, image.format);
  out.width = image.width;
  out.height = image.height;
  out.pixels.assign(size_t(image.pixels()), 0);
  for (int y = 0; y < image.height; ++y) {
    const uint8_t* row = row_of(image, y);
    uint8_t* dst = out.pixels.data() + size_t(y) * image.width;
    for (int x = 0; x < image.width; ++x)
      dst[x] = is_foreground(luma_at(row, x, image.format), scaled, mode) ? 1 : 0;
  }
  return level;
}

void label_binary(const BinaryImage& binary, int connectivity, Result& out) {
  const int w = binary.width, h = binary.height;
  out.width = w;
  out.height = h;
  out.labels.assign(size_t(w) * h, 0);
  uint32_t next = 0;
  std::vector<int64_t> stack;
  for (int64_t start = 0; start < int64_t(w) * h; ++start) {
    if (!binary.pixels[start] || out.labels[start]) continue;
    const uint32_t label = ++next;
    out.labels[start] = label;
    stack.push_back(start);
    while (!stack.empty()) {
      const int64_t p = stack.back();
      stack.pop_back();
      const int px = int(p % w), py = int(p / w);
      for (int dy = -1; dy <= 1; ++dy) {
        for (int dx = -1; dx <= 1; ++dx) {
          if (dx == 0 && dy == 0) continue;
          if (connectivity == 4 && dx != 0 && dy != 0) continue;
          const int nx = px + dx, ny = py + dy;
          if (nx < 0 || ny < 0 || nx >= w || ny >= h) continue;
          const int64_t q = int64_t(ny) * w + nx;
          if (binary.pixels[q] && !out.labels[q]) {
            out.labels[q] = label;
            stack.push_back(q);
          }
        }
      }
    }
  }
  out.num_components = next;
  out.components = component_table(out.labels.data(), w, h, next);
}

std::vector<Component> component_table(const uint32_t* labels, int width, int height,
                                       uint32_t n) {
  std::vector<Component> table(n);
  std::vector<int32_t> x1(n, -1), y1(n, -1);
  for (uint32_t i = 0; i < n; ++i) {
    table[i].label = i + 1;
    table[i].x = width;
    table[i].y = height;
  }
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      const uint32_t l = labels[size_t(y) * width + x];
      if (!l) continue;
      if (l > n) throw Error("label " + std::to_string(l) + " exceeds the component count");
      Component& c = table[l - 1];
      c.x = std::min(c.x, x);
      c.y = std::min(c.y, y);
      x1[l - 1] = std::max(x1[l - 1], x);
      y1[l - 1] = std::max(y1[l - 1], y);
      c.area += 1;
      c.sum_x += uint64_t(x);
      c.sum_y += uint64_t(y);
      c.sum_xx += uint64_t(x) * uint64_t(x);
      c.sum_xy += uint64_t(x) * uint64_t(y);
      c.sum_yy += uint64_t(y) * uint64_t(y);
    }
  }
  for (uint32_t i = 0; i < n; ++i) {
    table[i].width = x1[i] - table[i].x + 1;
    table[i].height = y1[i] - table[i].y + 1;
  }
  return table;
}

void report_labeled(const ImageView& image, const Options& options, Result& out) {
  out.blobs.clear();
  if (const uint32_t properties = needed_properties(options))
    out.blobs = measure_blobs(out.labels.data(), image, uint32_t(out.components.size()),
                              properties, options.connectivity);
  if (!options.write_labels) out.labels.clear();
  select_reported(out.components, out.blobs, options, &out.num_components, &out.group_of);
}

void reference_label(const ImageView& image, const Options& options, Result& out) {
  BinaryImage binary;
  const int level = threshold_image(image, options, binary);
  label_binary(binary, options.connectivity, out);
  out.threshold_used = level;
  report_labeled(image, options, out);
}

}  // namespace ccl
