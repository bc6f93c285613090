// The fast CPU labeler (ccl/cpu_labeler.h): runs of foreground pixels in row stripes,
// one thread per stripe, union-find over run indices.
//
// Runs live in one array with a stripe's runs starting at first_row * max_runs_per_row,
// so a run's index is global from the start, stripes never overlap, and indices grow
// in raster order. Every union links the larger root under the smaller, so a
// component's root is its first run in raster order, which holds its first pixel:
// numbering the roots in index order gives the reference's labels.
//
//   P1 (parallel)  each stripe: its runs (row bit masks, transitions), unions with the
//                  row above inside the stripe; counts its roots.
//   S1 (thread 0)  unions across the stripe borders; components with a run in a border
//                  row are "shared" (they may span stripes) and get a dense index;
//                  prefix of root counts per stripe; the table is sized.
//   P2 (parallel)  each stripe numbers its roots.
//   P3 (parallel)  each stripe: every run's label (its parent's, or its root's), the
//                  label image's rows, and each component's box and moments in closed
//                  form per run: into the table for a component inside the stripe,
//                  into the stripe's own partial table for a shared one.
//   S2 (thread 0)  the shared components' partials are added up into the table.
#include "ccl/cpu_labeler.h"

#include "ccl/luma.h"
#include "parallel.h"

#include <algorithm>
#include <atomic>
#include <climits>
#include <condition_variable>
#include <mutex>
#include <cstring>
#include <exception>
#include <memory>
#include <thread>
#include <vector>

#if defined(__SSE2__) || defined(_M_X64)
#include <emmintrin.h>
#define CCL_HAVE_SSE2 1
#endif

namespace ccl {

namespace {

// ---- bit masks of rows --------------------------------------------------------------

// Bit k set when pixel p[k] (k < 64) is foreground: p[k] > level, or with Below
// p[k] <= level (a binary image: level 0, not Below, any nonzero byte).
template <bool Below>
inline uint64_t mask64(const uint8_t* p, uint8_t level) {
#ifdef CCL_HAVE_SSE2
  const __m128i z = _mm_setzero_si128();
  const __m128i l = _mm_set1_epi8(char(level));
  uint64_t m = 0;
  for (int q = 0; q < 4; ++q) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * q));
    // v - level saturates to 0 exactly where v <= level.
    const unsigned at_most = unsigned(_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_subs_epu8(v, l), z)));
    m |= uint64_t((Below ? at_most : ~at_most) & 0xFFFFu) << (16 * q);
  }
  return m;
#else
  uint64_t m = 0;
  for (int k = 0; k < 64; ++k) m |= uint64_t(Below ? p[k] <= level : p[k] > level) << k;
  return m;
#endif
}

inline int ctz64(uint64_t v) { return __builtin_ctzll(v); }

// Writes the row's runs as (start, end) pairs (end exclusive) into `out`; returns
// their number. `out` has room for (w + 1) / 2 pairs.
template <bool Below>
uint32_t extract_row(const uint8_t* row, int w, uint8_t level, int32_t* out) {
  int32_t* o = out;
  uint64_t carry = 0;  // the pixel before the chunk
  int x = 0;
  for (; x + 64 <= w; x += 64) {
    const uint64_t m = mask64<Below>(row + x, level);
    uint64_t t = m ^ ((m << 1) | carry);
    carry = m >> 63;
    while (t) {
      *o++ = x + ctz64(t);
      t &= t - 1;
    }
  }
  if (x < w) {
    alignas(16) uint8_t tail[64] = {};
    std::memcpy(tail, row + x, size_t(w - x));
    const uint64_t m = mask64<Below>(tail, level) & ((uint64_t(1) << (w - x)) - 1);
    uint64_t t = m ^ ((m << 1) | carry);  // the end of a run at w shows as bit w - x
    while (t) {
      *o++ = x + ctz64(t);
      t &= t - 1;
    }
  }
  size_t k = size_t(o - out);
  if (k & 1) {  // a run up to the row's end at a multiple of 64
    *o++ = w;
    ++k;
  }
  return uint32_t(k / 2);
}

// ---- union-find over run indices ------------------------------------------------------

inline uint32_t find(uint32_t* parent, uint32_t i) {
  while (parent[i] != i) {
    parent[i] = parent[parent[i]];
    i = parent[i];
  }
  return i;
}

inline uint32_t find_readonly(const uint32_t* parent, uint32_t i) {
  while (parent[i] != i) i = parent[i];
  return i;
}

// Joins the sets of a and b; returns the root that stopped being one, or UINT32_MAX.
inline uint32_t unite(uint32_t* parent, uint32_t a, uint32_t b) {
  a = find(parent, a);
  b = find(parent, b);
  if (a == b) return UINT32_MAX;
  if (a < b) std::swap(a, b);
  parent[a] = b;
  return a;
}

// Unions the runs [c0, c1) of a row with the runs [a0, a1) of the row above; calls
// demoted(root) for each root that stops being one.
template <bool Eight, class F>
void merge_rows(uint32_t* parent, const int32_t* runs, uint32_t a0, uint32_t a1, uint32_t c0,
                uint32_t c1, F&& demoted) {
  uint32_t i = c0, j = a0;
  while (i < c1 && j < a1) {
    const int32_t cs = runs[2 * size_t(i)], ce = runs[2 * size_t(i) + 1];
    const int32_t as = runs[2 * size_t(j)], ae = runs[2 * size_t(j) + 1];
    if (Eight ? ae < cs : ae <= cs) {
      ++j;
      continue;
    }
    if (Eight ? as > ce : as >= ce) {
      ++i;
      continue;
    }
    const uint32_t d = unite(parent, i, j);
    if (d != UINT32_MAX) demoted(d);
    if (ae < ce) {
      ++j;
    } else if (ce < ae) {
      ++i;
    } else {
      ++i;
      ++j;
    }
  }
}

// ---- run features in closed form ------------------------------------------------------

struct RunSums {
  uint64_t sx, sxx;
};

// Sum of x and of x^2 over [s, s + n), modulo 2^64 (as the reference accumulates).
inline RunSums run_sums(uint64_t s, uint64_t n) {
  // t1 = sum_{k<n} k = n (n - 1) / 2; t2 = sum_{k<n} k^2 = (n - 1) n (2n - 1) / 6, the
  // divisions done on the factors first so that nothing overflows before them.
  const uint64_t t1 = (n & 1) ? n * ((n - 1) / 2) : (n / 2) * (n - 1);
  if (n < (uint64_t(1) << 21))  // (n - 1) n (2n - 1) < 2^64: one division by a constant
    return {n * s + t1, n * s * s + 2 * s * t1 + (n - 1) * n * (2 * n - 1) / 6};
  uint64_t a = n - 1, b = n, c = 2 * n - 1;
  if (a % 2 == 0) a /= 2; else b /= 2;
  if (a % 3 == 0) a /= 3; else if (b % 3 == 0) b /= 3; else c /= 3;
  const uint64_t t2 = a * b * c;
  return {n * s + t1, n * s * s + 2 * s * t1 + t2};
}

// A shared component's sums over one stripe: a cache line each, so that the threads'
// partials of the same component (written every run of it) share none.
struct alignas(64) Partial {
  uint64_t area, sx, sy, sxx, sxy, syy;
  int32_t x0, y0, x1, y1;  // box, inclusive
};

// ---- the threads --------------------------------------------------------------------

// Threads spin a little at a barrier (the phases of a frame take about as long on every
// stripe), then sleep, so that more threads than cores cost no more than they must.
class Barrier {
 public:
  // The core count is read once: asking the system costs microseconds (a file read),
  // as much as labeling a small frame.
  explicit Barrier(int n) : n_(n), spins_(n <= machine_cores() ? 4000 : 0) {}
  static int machine_cores() {
    static const int cores = int(std::max(1u, std::thread::hardware_concurrency()));
    return cores;
  }
  void wait() {
    if (n_ == 1) return;
    const unsigned gen = gen_.load(std::memory_order_acquire);
    if (count_.fetch_add(1, std::memory_order_acq_rel) == n_ - 1) {
      count_.store(0, std::memory_order_relaxed);
      {
        std::lock_guard<std::mutex> lock(mutex_);
        gen_.fetch_add(1, std::memory_order_release);
      }
      cv_.notify_all();
      return;
    }
    for (int spins = 0; spins < spins_; ++spins) {
      if (passed(gen)) return;
#ifdef CCL_HAVE_SSE2
      _mm_pause();
#endif
    }
    std::unique_lock<std::mutex> lock(mutex_);
    cv_.wait(lock, [&] { return passed(gen); });
  }
  // Lets every wait, now and later, return at once (the caller then checks its own
  // failure flag).
  void abort() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      abort_.store(true, std::memory_order_release);
    }
    cv_.notify_all();
  }

 private:
  bool passed(unsigned gen) const {
    return gen_.load(std::memory_order_acquire) != gen || abort_.load(std::memory_order_acquire);
  }
  const int n_;
  const int spins_;  // none when there are more threads than cores
  std::atomic<int> count_{0};
  std::atomic<unsigned> gen_{0};
  std::atomic<bool> abort_{false};
  std::mutex mutex_;
  std::condition_variable cv_;
};

// Scratch of one calling thread, grown as needed and kept (pages are touched only as
// far as runs are written).
struct Workspace {
  size_t capacity = 0;
  std::unique_ptr<int32_t[]> runs;     // 2 per run
  std::unique_ptr<uint32_t[]> parent;  // union-find
  std::unique_ptr<uint32_t[]> shared;  // per root: 1 + dense index of a shared component, or 0
  std::unique_ptr<uint64_t[]> lab;     // label | shared << 32, per run
  std::vector<uint32_t> row_begin, row_end;

  void reserve(size_t n) {
    if (n <= capacity) return;
    runs.reset();
    parent.reset();
    shared.reset();
    lab.reset();
    capacity = 0;
    runs.reset(new int32_t[2 * n]);
    parent.reset(new uint32_t[n]);
    shared.reset(new uint32_t[n]);
    lab.reset(new uint64_t[n]);
    capacity = n;
  }
};

thread_local Workspace tls_workspace;

int auto_threads(int64_t pixels) {
  const int64_t by_size = std::max<int64_t>(1, pixels / (64 * 1024));
  return int(std::min<int64_t>(par::default_threads(), by_size));
}

// Foreground: bytes of `pixels` (w x h, `stride` bytes per row) above `level`, or with
// Below at most `level`.
template <bool Eight, bool Below>
void label_stripes(const uint8_t* pixels, size_t stride, int w, int h, uint8_t level,
                   Result& out, int nstripes) {
  const uint32_t max_runs = uint32_t((w + 1) / 2);
  Workspace& ws = tls_workspace;
  ws.reserve(size_t(h) * max_runs);
  ws.row_begin.resize(size_t(h));
  ws.row_end.resize(size_t(h));
  int32_t* const runs = ws.runs.get();
  uint32_t* const parent = ws.parent.get();
  uint32_t* const shared = ws.shared.get();
  uint64_t* const lab = ws.lab.get();
  uint32_t* const row_begin = ws.row_begin.data();
  uint32_t* const row_end = ws.row_end.data();

  // Fewer stripes when the system refuses more threads.
  par::Pool& pool = par::local_pool();
  const int S = pool.reserve(nstripes);
  std::vector<int> y0(size_t(S) + 1);
  for (int s = 0; s <= S; ++s) y0[size_t(s)] = int(int64_t(s) * h / S);
  auto base_of = [&](int s) { return uint32_t(y0[size_t(s)]) * max_runs; };
  std::vector<int64_t> roots(size_t(S), 0);     // P1, S1: roots per stripe
  std::vector<uint32_t> first_label(static_cast<size_t>(S));  // S1: labels before the stripe's
  std::vector<uint32_t> shared_label(1);         // P2: label of each shared index
  std::vector<Partial> partials;                 // P3: S x nshared
  uint32_t nshared = 0;

  out.width = w;
  out.height = h;
  // Every pixel is written below: a label image of the right size is reused as is.
  out.labels.resize(size_t(w) * h);
  uint32_t* const labels = out.labels.data();

  Barrier barrier(S);
  std::atomic<bool> failed{false};
  std::exception_ptr error;

  auto stripe_of = [&](uint32_t run) {
    int lo = 0, hi = S - 1;  // the last stripe whose base <= run
    while (lo < hi) {
      const int mid = (lo + hi + 1) / 2;
      if (base_of(mid) <= run) lo = mid; else hi = mid - 1;
    }
    return lo;
  };

  auto work = [&](int s) {
    const int ya = y0[size_t(s)], yb = y0[size_t(s) + 1];
    const uint32_t base = base_of(s);
    // P1: runs and unions inside the stripe.
    {
      uint32_t n = base;
      int64_t merges = 0;
      for (int y = ya; y < yb; ++y) {
        const uint32_t k =
            extract_row<Below>(pixels + size_t(y) * stride, w, level, runs + 2 * size_t(n));
        row_begin[y] = n;
        for (uint32_t i = n; i < n + k; ++i) {
          parent[i] = i;
          shared[i] = 0;
        }
        n += k;
        row_end[y] = n;
        if (y > ya)
          merge_rows<Eight>(parent, runs, row_begin[y - 1], row_end[y - 1], row_begin[y], n,
                            [&](uint32_t) { ++merges; });
      }
      roots[size_t(s)] = int64_t(n - base) - merges;
    }
    barrier.wait();
    if (failed.load()) return;
    // S1: the borders, the shared components, the numbering's offsets.
    if (s == 0) {
      try {
        for (int t = 1; t < S; ++t) {
          const int y = y0[size_t(t)];
          merge_rows<Eight>(parent, runs, row_begin[y - 1], row_end[y - 1], row_begin[y],
                            row_end[y], [&](uint32_t d) { --roots[size_t(stripe_of(d))]; });
        }
        auto mark = [&](int y) {
          for (uint32_t i = row_begin[y]; i < row_end[y]; ++i) {
            const uint32_t r = find(parent, i);
            if (!shared[r]) shared[r] = ++nshared;
          }
        };
        for (int t = 0; t < S; ++t) {
          if (t > 0) mark(y0[size_t(t)]);
          if (t < S - 1) mark(y0[size_t(t) + 1] - 1);
        }
        uint32_t total = 0;
        for (int t = 0; t < S; ++t) {
          first_label[size_t(t)] = total;
          total += uint32_t(roots[size_t(t)]);
        }
        out.num_components = total;
        // Entries kept from a previous call are overwritten below.
        out.components.resize(total);
        shared_label.assign(size_t(nshared) + 1, 0);
        partials.resize(size_t(S) * nshared);
      } catch (...) {
        error = std::current_exception();
        failed.store(true);
      }
    }
    barrier.wait();
    if (failed.load()) return;
    const uint32_t end = row_end[yb - 1];
    // P2: the stripe's roots are numbered in raster order.
    {
      uint32_t next = first_label[size_t(s)];
      for (uint32_t i = base; i < end; ++i) {
        if (parent[i] != i) continue;
        const uint32_t label = ++next;
        lab[i] = label | (uint64_t(shared[i]) << 32);
        if (shared[i]) shared_label[shared[i]] = label;
      }
    }
    barrier.wait();
    if (failed.load()) return;
    // P3: labels of every run, the label image, the features.
    {
      Partial* const part = partials.data() + size_t(s) * nshared;
      for (uint32_t k = 0; k < nshared; ++k)
        part[k] = Partial{0, 0, 0, 0, 0, 0, INT32_MAX, INT32_MAX, -1, -1};
      Component* const table = out.components.data();
      for (int y = ya; y < yb; ++y) {
        uint32_t* const row = labels + size_t(y) * w;
        int32_t prev = 0;
        const uint64_t uy = uint64_t(y);
        for (uint32_t i = row_begin[y]; i < row_end[y]; ++i) {
          const uint32_t p = parent[i];
          uint64_t v;
          if (p == i) {
            v = lab[i];
          } else {
            v = p >= base ? lab[p] : lab[find_readonly(parent, p)];
            lab[i] = v;
          }
          const uint32_t label = uint32_t(v);
          const uint32_t sh = uint32_t(v >> 32);
          const int32_t xs = runs[2 * size_t(i)], xe = runs[2 * size_t(i) + 1];
          std::fill(row + prev, row + xs, 0u);
          std::fill(row + xs, row + xe, label);
          prev = xe;
          const uint64_t n = uint64_t(xe - xs);
          const RunSums rs = run_sums(uint64_t(xs), n);
          if (!sh) {
            Component& c = table[label - 1];
            if (p == i) {
              c.label = label;
              c.x = xs;
              c.y = y;
              c.width = xe - xs;
              c.height = 1;
              c.area = n;
              c.sum_x = rs.sx;
              c.sum_y = n * uy;
              c.sum_xx = rs.sxx;
              c.sum_xy = uy * rs.sx;
              c.sum_yy = n * uy * uy;
            } else {
              const int32_t right = std::max(c.x + c.width, xe);
              c.x = std::min(c.x, xs);
              c.width = right - c.x;
              c.height = y - c.y + 1;
              c.area += n;
              c.sum_x += rs.sx;
              c.sum_y += n * uy;
              c.sum_xx += rs.sxx;
              c.sum_xy += uy * rs.sx;
              c.sum_yy += n * uy * uy;
            }
          } else {
            Partial& q = part[sh - 1];
            q.x0 = std::min(q.x0, xs);
            q.x1 = std::max(q.x1, xe - 1);
            q.y0 = std::min(q.y0, y);
            q.y1 = y;
            q.area += n;
            q.sx += rs.sx;
            q.sy += n * uy;
            q.sxx += rs.sxx;
            q.sxy += uy * rs.sx;
            q.syy += n * uy * uy;
          }
        }
        std::fill(row + prev, row + w, 0u);
      }
    }
    barrier.wait();
    if (failed.load()) return;
    // S2: the shared components.
    if (s == 0) {
      Component* const table = out.components.data();
      for (uint32_t k = 0; k < nshared; ++k) {
        Partial sum{0, 0, 0, 0, 0, 0, INT32_MAX, INT32_MAX, -1, -1};
        for (int t = 0; t < S; ++t) {
          const Partial& q = partials[size_t(t) * nshared + k];
          if (!q.area) continue;
          sum.area += q.area;
          sum.sx += q.sx;
          sum.sy += q.sy;
          sum.sxx += q.sxx;
          sum.sxy += q.sxy;
          sum.syy += q.syy;
          sum.x0 = std::min(sum.x0, q.x0);
          sum.y0 = std::min(sum.y0, q.y0);
          sum.x1 = std::max(sum.x1, q.x1);
          sum.y1 = std::max(sum.y1, q.y1);
        }
        const uint32_t label = shared_label[k + 1];
        Component& c = table[label - 1];
        c.label = label;
        c.x = sum.x0;
        c.y = sum.y0;
        c.width = sum.x1 - sum.x0 + 1;
        c.height = sum.y1 - sum.y0 + 1;
        c.area = sum.area;
        c.sum_x = sum.sx;
        c.sum_y = sum.sy;
        c.sum_xx = sum.sxx;
        c.sum_xy = sum.sxy;
        c.sum_yy = sum.syy;
      }
    }
  };

  // S is what the pool could reserve: every stripe has a thread of its own for the
  // barriers.
  pool.run(S, work);
  if (error) std::rethrow_exception(error);
}

}  // namespace

namespace {

void label_bytes(const uint8_t* pixels, size_t stride, int w, int h, uint8_t level, bool below,
                 int connectivity, Result& out, int threads) {
  if (w == 0 || h == 0) {
    out.width = w;
    out.height = h;
    out.labels.clear();
    out.num_components = 0;
    out.components.clear();
    return;
  }
  int t = threads > 0 ? threads : auto_threads(int64_t(w) * h);
  t = std::max(1, std::min(t, h));
  if (connectivity == 8) {
    if (below) label_stripes<true, true>(pixels, stride, w, h, level, out, t);
    else label_stripes<true, false>(pixels, stride, w, h, level, out, t);
  } else {
    if (below) label_stripes<false, true>(pixels, stride, w, h, level, out, t);
    else label_stripes<false, false>(pixels, stride, w, h, level, out, t);
  }
}

// Histogram of an 8-bit luma plane, as luma_histogram gives it for these formats.
std::vector<uint32_t> histogram8(const ImageView& image) {
  uint32_t part[4][256] = {};
  for (int y = 0; y < image.height; ++y) {
    const uint8_t* row = static_cast<const uint8_t*>(image.planes[0]) + size_t(y) * image.strides[0];
    int x = 0;
    for (; x + 4 <= image.width; x += 4) {
      ++part[0][row[x]];
      ++part[1][row[x + 1]];
      ++part[2][row[x + 2]];
      ++part[3][row[x + 3]];
    }
    for (; x < image.width; ++x) ++part[0][row[x]];
  }
  std::vector<uint32_t> hist(256);
  for (int i = 0; i < 256; ++i) hist[i] = part[0][i] + part[1][i] + part[2][i] + part[3][i];
  return hist;
}

// The threshold test fused into the labeling: for a frame whose luma is its first
// plane's bytes (GRAY8, NV12, I420) and a threshold without a mask stage. Returns false,
// doing nothing, for any other frame or options.
bool label_luma8(const ImageView& image, const Options& options, Result& out, int threads) {
  if (options.mask_stage() || options.foreground != ForegroundModel::Threshold) return false;
  if (image.format != PixelFormat::Gray8 && image.format != PixelFormat::NV12 &&
      image.format != PixelFormat::I420)
    return false;
  validate(image, options);
  if (image.space != MemorySpace::Host)
    throw Error("the CPU reference needs an image in host memory");
  int level = options.threshold;
  ThresholdMode mode = options.mode;
  if (mode == ThresholdMode::Otsu) {
    level = otsu_level(histogram8(image).data());
    mode = ThresholdMode::Above;
  }
  label_bytes(static_cast<const uint8_t*>(image.planes[0]), image.strides[0], image.width,
              image.height, uint8_t(level), mode == ThresholdMode::Below, options.connectivity,
              out, threads);
  out.threshold_used = level;
  return true;
}

}  // namespace

void label_binary_fast(const BinaryImage& binary, int connectivity, Result& out, int threads) {
  const int w = binary.width, h = binary.height;
  if (connectivity != 4 && connectivity != 8)
    throw Error("connectivity must be 4 or 8, not " + std::to_string(connectivity));
  if (w < 0 || h < 0 || binary.pixels.size() != size_t(w) * size_t(h))
    throw Error("binary image of " + std::to_string(binary.pixels.size()) + " bytes is not " +
                std::to_string(w) + "x" + std::to_string(h));
  label_bytes(binary.pixels.data(), size_t(w), w, h, 0, false, connectivity, out, threads);
}

// The mask of a frame that is not labeled straight from its bytes: kept per calling
// thread, so that a stream's frames do not allocate (and fault in) a frame's bytes each.
static thread_local BinaryImage tls_mask;

void label_frame_cpu(const ImageView& image, const Options& options, Result& out,
                     int threads) {
  if (label_luma8(image, options, out, threads)) {
    report_labeled(image, options, out);
    return;
  }
  BinaryImage& binary = tls_mask;
  const int level = threshold_image(image, options, binary);
  label_binary_fast(binary, options.connectivity, out, threads);
  out.threshold_used = level;
  report_labeled(image, options, out);
}

void label_frame_cpu(const ImageView& image, const Options& options, ForegroundStage& stage,
                     Result& out, BinaryImage* mask, int threads) {
  if (!mask && !stage.has_region() && label_luma8(image, options, out, threads)) {
    stage.reset();  // as ForegroundStage::apply does for the threshold
    report_labeled(image, options, out);
    return;
  }
  BinaryImage& m = mask ? *mask : tls_mask;
  const int level = stage.apply(image, options, m);
  label_binary_fast(m, options.connectivity, out, threads);
  out.threshold_used = level;
  report_labeled(image, options, out);
}

}  // namespace ccl
