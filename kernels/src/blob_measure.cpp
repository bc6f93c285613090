// The CPU's blob analysis (ccl::measure_blobs): the oracle of the device's blob pass,
// and what the CPU backends report. One sweep over the label image per property group.
#include <algorithm>
#include <climits>
#include <string>

#include "blob_math.h"
#include "ccl/blob.h"

namespace ccl {

std::vector<Blob> measure_blobs(const uint32_t* labels, const ImageView& image, uint32_t n,
                                uint32_t properties, int connectivity) {
  if (image.space != MemorySpace::Host)
    throw Error("measure_blobs needs an image in host memory");
  const int w = image.width, h = image.height;
  std::vector<Blob> blobs(n);
  if (properties & kPropertyIntensity)
    for (Blob& b : blobs) b.intensity_min = UINT32_MAX;
  auto at = [&](int x, int y) -> uint32_t {
    return x < 0 || y < 0 || x >= w || y >= h ? 0u : labels[size_t(y) * w + x];
  };
  auto entry = [&](uint32_t l) -> Blob& {
    if (l > n) throw Error("label " + std::to_string(l) + " exceeds the component count");
    return blobs[l - 1];
  };
  const blob::Planes planes = blob::Planes::of(image);

  if (properties & (kPropertyIntensity | kPropertyColor))
    for (int y = 0; y < h; ++y) {
      const uint8_t* row = planes.plane[0] + size_t(y) * planes.stride[0];
      for (int x = 0; x < w; ++x) {
        const uint32_t l = at(x, y);
        if (!l) continue;
        Blob& b = entry(l);
        if (properties & kPropertyIntensity) {
          const uint64_t v = luma_at(row, x, image.format);
          b.intensity_sum += v;
          b.intensity_sum_sq += v * v;
          b.intensity_min = std::min(b.intensity_min, uint32_t(v));
          b.intensity_max = std::max(b.intensity_max, uint32_t(v));
        }
        if (properties & kPropertyColor) {
          uint32_t c[3];
          planes.channels(x, y, c);
          for (int k = 0; k < 3; ++k) b.channel_sum[k] += c[k];
        }
      }
    }

  if (properties & kPropertyPerimeter) {
    // A boundary pixel has a 4-neighbour outside its component (or outside the frame).
    auto boundary = [&](int x, int y, uint32_t l) {
      return at(x, y) == l &&
             (at(x - 1, y) != l || at(x + 1, y) != l || at(x, y - 1) != l || at(x, y + 1) != l);
    };
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        const uint32_t l = at(x, y);
        if (!l || !boundary(x, y, l)) continue;
        const int n4 = boundary(x - 1, y, l) + boundary(x + 1, y, l) + boundary(x, y - 1, l) +
                       boundary(x, y + 1, l);
        const int nd = boundary(x - 1, y - 1, l) + boundary(x + 1, y - 1, l) +
                       boundary(x - 1, y + 1, l) + boundary(x + 1, y + 1, l);
        const int k = blob::perimeter_class(n4, nd);
        if (k >= 0) ++entry(l).perimeter_counts[k];
      }
  }

  if (properties & kPropertyEuler)
    // Every 2x2 window that meets the frame, by its bottom-right pixel (x, y).
    for (int y = 0; y <= h; ++y)
      for (int x = 0; x <= w; ++x) {
        const uint32_t q[4] = {at(x, y), at(x, y - 1), at(x - 1, y), at(x - 1, y - 1)};
        for (int i = 0; i < 4; ++i) {
          const uint32_t l = q[i];
          bool first = l != 0;
          for (int j = 0; j < i && first; ++j) first = q[j] != l;
          if (!first) continue;
          uint32_t code = 0;
          for (int j = 0; j < 4; ++j) code |= uint32_t(q[j] == l) << j;
          entry(l).euler += blob::euler_coefficient(code, connectivity);
        }
      }
  return blobs;
}

}  // namespace ccl
