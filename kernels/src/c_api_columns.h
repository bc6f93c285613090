// One component's row of the columns ccl_engine_columns and ccl_engine_device_columns
// write (ccl/ccl.h), shared by the host loop (c_api.cpp) and the device kernel
// (c_api_columns.cu), so that both give the same numbers.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ccl/ccl.h"
#include "ccl/types.h"

#ifdef __CUDACC__
#define CCL_COLUMNS_FN __host__ __device__ inline
#else
#define CCL_COLUMNS_FN inline
#endif

namespace ccl::capi {

/// Row i of n of the integer and floating-point columns, from component c.
CCL_COLUMNS_FN void write_column_row(const Component& c, size_t i, size_t n, int64_t* ints,
                                     double* floats) {
  const int64_t r0 = c.y, c0 = c.x, a = int64_t(c.area);
  const int64_t sr = int64_t(c.sum_y), sc = int64_t(c.sum_x);
  const int64_t srr = int64_t(c.sum_yy), src = int64_t(c.sum_xy), scc = int64_t(c.sum_xx);
  int64_t* I = ints + i;
  I[CCL_COL_LABEL * n] = int64_t(c.label);
  I[CCL_COL_BBOX0 * n] = r0;
  I[CCL_COL_BBOX1 * n] = c0;
  I[CCL_COL_BBOX2 * n] = r0 + c.height;
  I[CCL_COL_BBOX3 * n] = c0 + c.width;
  I[CCL_COL_AREA * n] = a;
  I[CCL_COL_IMAGE_M10 * n] = sr;
  I[CCL_COL_IMAGE_M01 * n] = sc;
  I[CCL_COL_IMAGE_M20 * n] = srr;
  I[CCL_COL_IMAGE_M11 * n] = src;
  I[CCL_COL_IMAGE_M02 * n] = scc;
  // About the box's corner, exactly in integers, then as floating point.
  const int64_t m10 = sr - r0 * a, m01 = sc - c0 * a;
  const int64_t m20 = srr - 2 * r0 * sr + r0 * r0 * a;
  const int64_t m02 = scc - 2 * c0 * sc + c0 * c0 * a;
  const int64_t m11 = src - c0 * sr - r0 * sc + r0 * c0 * a;
  double* F = floats + i;
  F[CCL_COL_CENTROID0 * n] = a ? double(sr) / double(a) : 0.0;
  F[CCL_COL_CENTROID1 * n] = a ? double(sc) / double(a) : 0.0;
  F[CCL_COL_M00 * n] = double(a);
  F[CCL_COL_M10 * n] = double(m10);
  F[CCL_COL_M01 * n] = double(m01);
  F[CCL_COL_M20 * n] = double(m20);
  F[CCL_COL_M11 * n] = double(m11);
  F[CCL_COL_M02 * n] = double(m02);
}

/// The same for a device table of n components into device columns, queued on
/// `stream` (c_api_columns.cu; CUDA builds only).
void launch_column_rows(const Component* table, uint32_t n, int64_t* ints, double* floats,
                        uintptr_t stream);

}  // namespace ccl::capi
