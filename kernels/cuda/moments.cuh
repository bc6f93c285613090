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

/// A run of columns c0 .. c0+len-1 of a 64-column window in closed form: its count,
/// sum of c and sum of c^2 (at most 64, 2016 and 85344 over a whole window, so warp
/// reductions of them fit 32 bits).
struct WindowRun {
  uint32_t count, sum_c, sum_cc;

  __device__ static WindowRun of(uint32_t c0, uint32_t len) {
    const uint32_t sum_k = len * (len - 1) / 2;
    const uint32_t sum_kk = (len - 1) * len * (2 * len - 1) / 6;
    return {len, len * c0 + sum_k, len * c0 * c0 + 2 * c0 * sum_k + sum_kk};
  }
};

/// Runs of one component among a few columns (a lane's), added left to right:
/// WindowRun sums plus the extreme columns.
struct PartialSums {
  uint32_t count, sum_c, sum_cc, c_min, c_max;

  __device__ static PartialSums none() { return {0, 0, 0, 0, 0}; }
  __device__ void add(uint32_t c0, uint32_t len) {
    const WindowRun run = WindowRun::of(c0, len);
    if (count == 0) c_min = c0;
    count += run.count;
    sum_c += run.sum_c;
    sum_cc += run.sum_cc;
    c_max = c0 + len - 1;
  }
  /// The same pixels d columns further right.
  __device__ PartialSums shifted(uint32_t d) const {
    return {count, sum_c + d * count, sum_cc + 2 * d * sum_c + d * d * count, c_min + d,
            c_max + d};
  }
};

struct Moments {
  uint64_t area, sum_x, sum_y, sum_xx, sum_xy, sum_yy;
  int32_t x_min, x_max, y_max;

  __device__ static Moments none() { return {0, 0, 0, 0, 0, 0, INT_MAX, -1, -1}; }

  /// Pixels at (x0 + dx, y0 + dy), given their count, the sums of dx, dx^2, dy, dx dy
  /// and dy^2, and the extreme dx and dy.
  __device__ static Moments of_tile(uint32_t x0, uint32_t y0, uint32_t count, uint32_t sum_dx,
                                    uint32_t sum_dxx, uint32_t sum_dy, uint32_t sum_dxy,
                                    uint32_t sum_dyy, uint32_t dx_min, uint32_t dx_max,
                                    uint32_t dy_max) {
    const uint64_t n = count, x = x0, y = y0;
    Moments m;
    m.area = n;
    m.sum_x = n * x + sum_dx;
    m.sum_xx = n * x * x + 2 * x * sum_dx + sum_dxx;
    m.sum_y = n * y + sum_dy;
    m.sum_yy = n * y * y + 2 * y * sum_dy + sum_dyy;
    m.sum_xy = n * x * y + x * sum_dy + y * sum_dx + sum_dxy;
    m.x_min = int32_t(x0 + dx_min);
    m.x_max = int32_t(x0 + dx_max);
    m.y_max = int32_t(y0 + dy_max);
    return m;
  }

  /// Pixels of row y at columns x_window + c, given the count, the sum of c and the
  /// sum of c^2 over them and their extreme c.
  __device__ static Moments of_window(uint32_t x_window, uint32_t y, uint32_t count,
                                      uint32_t sum_c, uint32_t sum_cc, uint32_t c_min,
                                      uint32_t c_max) {
    return of_tile(x_window, y, count, sum_c, sum_cc, 0, 0, 0, c_min, c_max, 0);
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

  /// Writes the sums as a table entry's accumulating fields (x, width = x max,
  /// height = y max; the caller sets label and y).
  __device__ void store_to(Component& c) const {
    c.area = area;
    c.sum_x = sum_x;
    c.sum_y = sum_y;
    c.sum_xx = sum_xx;
    c.sum_xy = sum_xy;
    c.sum_yy = sum_yy;
    c.x = x_min;
    c.width = x_max;
    c.height = y_max;
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
