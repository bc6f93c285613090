// Komura equivalence after Y. Komura, "GPU-based cluster-labeling algorithm without
// the use of conventional iteration" (CPC 2015), and its 8-way form with the reduction
// decision tree of S. Allegretti et al., "Optimizing GPU-based connected components
// labeling algorithms" (IPAS 2018), algorithms 3 and 4: INITIALIZATION (each pixel
// takes the smallest raster index among its foreground neighbours, NW < N < NE < W),
// ANALYSIS (every pixel to its root), REDUCTION (unions only where no initialization
// already links the two trees) and ANALYSIS again.
//
// The four steps run per tile of 64 columns by kTileForestRows rows in shared memory
// (tile_rows.cuh), and the reduction across tile borders then runs on the label image
// (tile_borders.h, shared with union-find). Inside a tile, pixels are taken run by run,
// which gives every step the result the paper's per-pixel kernels give:
//  - INITIALIZATION: a pixel with a foreground W neighbour and none above points W, so
//    after the first ANALYSIS every pixel of a run holds the root of its run's start;
//    the start itself takes the first pixel above that its run touches (the smallest
//    index among NW, N, NE of the run's pixels is the first touching column), and that
//    pixel's run start is where ANALYSIS takes it. So only run starts are nodes, and
//    each is initialized to the start of the first run above that it touches.
//  - ANALYSIS: every node replaced by its root (one find in shared memory).
//  - REDUCTION: the configurations of Allegretti's tree that need a union (N background
//    with NW and NE foreground; NW background with W and N or NE foreground) are the
//    columns where a run meets a run of the row above other than the first it touches:
//    one union per such run pair (4-way: W and N foreground, N's run not the first).
//  - ANALYSIS: every run start is written to the label image pointing at its tile root.
// The frame-wide reduction then unites the tiles' trees across their borders, and the
// shared analysis stage (analysis.h) numbers the roots; the last frame-wide ANALYSIS
// is its walk from each run start, which leaves ids behind it.
//
// Why tiles: run as the paper's per-pixel kernels over the whole label image, the
// initialization writes every pixel's label, the compression walks every pixel and the
// reduction's unions wait on global memory; in a tile the frame is read and the label
// image written once, and the finds run in shared memory (PERF_NOTES.md).
#include "chain.h"
#include "ccl/cuda_memory.h"
#include "labeler.h"
#include "segments.cuh"
#include "tile_borders.h"
#include "tile_rows.cuh"
#include "union_find.cuh"

namespace ccl::cuda {

namespace {

/// One block per tile; each thread takes kTileThreadColumns columns of one row. The
/// steps are a barrier apart; the shared forest is touched through AtomicForest while
/// threads write it concurrently (data-race free, see union_find.cuh).
template <int Connectivity, class Luma>
__global__ void __launch_bounds__(kTileThreads)
    ke_tile_kernel(Foreground fg, FrameGeometry geo, uint32_t* labels, uint64_t* mask) {
  __shared__ uint64_t row_bits[kTileForestRows];
  __shared__ uint32_t local[kTileForestRows * 64];

  const TileThread<Connectivity> t = begin_tile<Connectivity, Luma>(fg, geo, mask, row_bits);

  // INITIALIZATION: the smallest foreground neighbour, or the pixel itself.
  const FirstLinks links = link_first_above(t, local);
  __syncthreads();

  // ANALYSIS: nodes to their roots, so that the reduction's finds take one step.
  const AtomicForest forest{local};
  if (links.linked)
    for_each_bit(t.starts, [&](int s) {
      const uint32_t node = t.base + uint32_t(s) + 1;
      forest.shortcut(node, uf_find_compress(forest, node));
    });
  __syncthreads();

  // REDUCTION: the run pairs that no initialization linked.
  if (links.further) unite_further_above(t, forest);
  __syncthreads();

  // ANALYSIS: run starts to their tile roots, in frame raster indices.
  write_tile_nodes(local, geo, t, labels);
  allow_next_grid();
}

void ke_label_tiles(const LabelingFrame& f) {
  const unsigned tiles = unsigned(f.geo.words) * ceil_div(f.geo.height, kTileForestRows);
  with_luma(f.fg.format, [&](auto luma) {
    using Luma = decltype(luma);
    if (f.connectivity == 4)
      ke_tile_kernel<4, Luma>
          <<<tiles, kTileThreads, 0, f.stream>>>(f.fg, f.geo, f.labels, f.mask);
    else
      ke_tile_kernel<8, Luma>
          <<<tiles, kTileThreads, 0, f.stream>>>(f.fg, f.geo, f.labels, f.mask);
  });
  check_launch("ke_tile_kernel");
}

class Komura final : public Labeler {
 public:
  void local(const LabelingFrame& f) const override { ke_label_tiles(f); }
  void merge(const LabelingFrame& f) const override { merge_tile_borders(f); }
};

}  // namespace

template <>
const Labeler& labeler_of<Algorithm::Komura>() {
  static const Komura instance;
  return instance;
}

}  // namespace ccl::cuda
