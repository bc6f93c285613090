// Features of a set of pixels in closed form per run: what a run's start adds to its
// component (Hennequin et al. §IV-D, extended to the second moments), how partial sums
// combine, and how they reach a table entry. Sums are exact modulo 2^64 like the CPU
// reference's.
#pragma once

#include <climits>
#include <cstdint>

#include "ccl/types.h"
#include "geometry.h"

namespace ccl::cuda {

struct Moments {
  uint64_t area, sum_x, sum_y, sum_xx, sum_xy, sum_yy;
  int32_t x_min, x_max, y_max;

  __device__ static Moments none() { return {0, 0, 0, 0, 0, 0, INT_MAX, -1, -1}; }

  /// The run x0 .. x0+len-1 of row y: sums of k and k^2 for k < len, shifted by x0.
  __device__ static Moments run(uint32_t x0, uint32_t len, uint32_t y) {
    const uint64_t n = len, x = x0, yy = y;
    const uint64_t sum_k = n * (n - 1) / 2;
    const uint64_t sum_kk = (n - 1) * n * (2 * n - 1) / 6;
    Moments m;
    m.area = n;
    m.sum_x = n * x + sum_k;
    m.sum_xx = n * x * x + 2 * x * sum_k + sum_kk;
    m.sum_y = n * yy;
    m.sum_xy = yy * m.sum_x;
    m.sum_yy = n * yy * yy;
    m.x_min = int32_t(x0);
    m.x_max = int32_t(x0 + len - 1);
    m.y_max = int32_t(y);
    return m;
  }

  __device__ void add(const Moments& o) {
    area += o.area;
    sum_x += o.sum_x;
    sum_y += o.sum_y;
    sum_xx += o.sum_xx;
    sum_xy += o.sum_xy;
    sum_yy += o.sum_yy;
    x_min = min(x_min, o.x_min);
    x_max = max(x_max, o.x_max);
    y_max = max(y_max, o.y_max);
  }

  /// Sum over the warp (every lane gets it).
  __device__ void warp_sum() {
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) {
      Moments o;
      o.area = __shfl_xor_sync(kFullWarp, area, d);
      o.sum_x = __shfl_xor_sync(kFullWarp, sum_x, d);
      o.sum_y = __shfl_xor_sync(kFullWarp, sum_y, d);
      o.sum_xx = __shfl_xor_sync(kFullWarp, sum_xx, d);
      o.sum_xy = __shfl_xor_sync(kFullWarp, sum_xy, d);
      o.sum_yy = __shfl_xor_sync(kFullWarp, sum_yy, d);
      o.x_min = __shfl_xor_sync(kFullWarp, x_min, d);
      o.x_max = __shfl_xor_sync(kFullWarp, x_max, d);
      o.y_max = __shfl_xor_sync(kFullWarp, y_max, d);
      add(o);
    }
  }

  /// Adds into a table entry that accumulates (width = x max, height = y max until
  /// the table is finished; y is the root's row, already the minimum).
  __device__ void atomic_add_to(Component& c) const {
    using ull = unsigned long long;
    atomicAdd(reinterpret_cast<ull*>(&c.area), ull(area));
    atomicAdd(reinterpret_cast<ull*>(&c.sum_x), ull(sum_x));
    atomicAdd(reinterpret_cast<ull*>(&c.sum_y), ull(sum_y));
    atomicAdd(reinterpret_cast<ull*>(&c.sum_xx), ull(sum_xx));
    atomicAdd(reinterpret_cast<ull*>(&c.sum_xy), ull(sum_xy));
    atomicAdd(reinterpret_cast<ull*>(&c.sum_yy), ull(sum_yy));
    atomicMin(&c.x, x_min);
    atomicMax(&c.width, x_max);
    atomicMax(&c.height, y_max);
  }
};

}  // namespace ccl::cuda
