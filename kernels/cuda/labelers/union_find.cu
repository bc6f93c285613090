// Union-find labeling after V. M. Oliveira and R. A. Lotufo, "A study on connected
// components labeling algorithms using GPUs" (SIBGRAPI 2010), as described and extended
// to 8-connectivity by S. Allegretti et al., "Optimizing GPU-based connected components
// labeling algorithms" (IPAS 2018): algorithm 1 (FIND, UNION) and algorithm 2
// (INITIALIZATION, MERGE, ANALYSIS), run first on rectangular blocks in shared memory,
// then MERGE on the blocks' border pixels only (end of §II-A).
//
// Stages:
//  - uf_tile_kernel (local): a block per tile of 64 columns (one mask word) by
//    kTileForestRows rows (tile_rows.cuh). Its warps read and threshold kTileWarpRows rows each (two pixels
//    per lane and row, all loads in flight at once); the ballots are the mask. Then each
//    thread takes one row and 8 of its columns: INITIALIZATION and MERGE with the row
//    above in shared memory, then every node is written to the label image pointing
//    straight at its tile root. Nodes are tile-local indices row * 64 + column, which
//    order like the raster index, so each tile root is the tile component's first pixel.
//  - merge: MERGE across the tiles' borders with uf_union on the label image
//    (tile_borders.h, shared with Komura's tiles): a warp per 64-column window of each
//    tile's first row (against the row above), and a warp per 32 rows of each border
//    between tile columns (columns 64 w - 1 and 64 w, read as two bit words down the rows).
//
// Unions left out (the aim of Allegretti et al.'s decision tree, algorithm 4 and fig. 1:
// never unite two trees that other unions join anyway):
//  - only run starts are nodes; a run's other pixels belong to it by construction;
//  - two rows are joined once per pair of touching runs (8-connected: overlapping or
//    one column apart), not once per pair of touching pixels;
//  - the first union of each run in a tile, with the first run above that it touches,
//    is a plain store: the run is still a root of its own then (nothing else has
//    touched it), and UNION of a lone root with any node of another tree just hangs it
//    there. Only the run's further touching runs go through uf_union;
//  - across tile borders, lanes whose pixel pairs lead to the same two parents (a dense
//    window's union columns mostly join the same two tile components) unite them once;
//  - the border between tile columns is the row problem turned sideways: pixels that
//    touch vertically in either of its two columns are one tree already (same tile, or
//    joined by the tile-row merge), so one union per touching pair of vertical runs.
//
// Connectivity: the paper's 8-way UF adds the diagonal neighbours to MERGE; here they
// widen each run's contact with the other row by one column on both sides (in the
// tiles, on tile rows' borders and, turned sideways, between tile columns).
//
// Left out: ANALYSIS (algorithm 2's flattening of every pixel to its root) and any
// compression after the merge. The shared analysis walks from run starts only and
// leaves ids behind in the nodes it passes, and every node already points at its tile
// root, so flattening the whole image first would cost more than it saves. Only run
// starts hold labels; other pixels keep whatever they held (labeler.h allows it).
#include "chain.h"
#include "ccl/cuda_memory.h"
#include "labeler.h"
#include "segments.cuh"
#include "tile_borders.h"
#include "tile_rows.cuh"
#include "union_find.cuh"

namespace ccl::cuda {

namespace {

/// One block per tile. The threads work on the row bits alone, each on the runs
/// starting in its columns, so that a sparse row costs little (no per-window work
/// repeated by a whole warp). Three steps, a barrier apart: each run links to the first
/// run of the row above that it touches (plain stores: every node has one writer); its
/// further touching runs above are united with it (uf_union on the shared forest
/// through AtomicForest, data-race free, see union_find.cuh); every node is written to
/// the label image pointing at its tile root.
template <int Connectivity, class Luma>
__global__ void __launch_bounds__(kTileThreads)
    uf_tile_kernel(Foreground fg, FrameGeometry geo, uint32_t* labels, uint64_t* mask) {
  __shared__ uint64_t row_bits[kTileForestRows];
  __shared__ uint32_t local[kTileForestRows * 64];

  const TileThread<Connectivity> t = begin_tile<Connectivity, Luma>(fg, geo, mask, row_bits);
  const FirstLinks links = link_first_above(t, local);
  __syncthreads();
  if (links.further) unite_further_above(t, AtomicForest{local});
  __syncthreads();
  write_tile_nodes(local, geo, t, labels);
  allow_next_grid();
}

void uf_label_tiles(const LabelingFrame& f) {
  const unsigned tiles = unsigned(f.geo.words) * ceil_div(f.geo.height, kTileForestRows);
  with_luma(f.fg.format, [&](auto luma) {
    using Luma = decltype(luma);
    if (f.connectivity == 4)
      uf_tile_kernel<4, Luma>
          <<<tiles, kTileThreads, 0, f.stream>>>(f.fg, f.geo, f.labels, f.mask);
    else
      uf_tile_kernel<8, Luma>
          <<<tiles, kTileThreads, 0, f.stream>>>(f.fg, f.geo, f.labels, f.mask);
  });
  check_launch("uf_tile_kernel");
}

class UnionFind final : public Labeler {
 public:
  void local(const LabelingFrame& f) const override { uf_label_tiles(f); }
  void merge(const LabelingFrame& f) const override { merge_tile_borders(f); }
};

}  // namespace

template <>
const Labeler& labeler_of<Algorithm::UnionFind>() {
  static const UnionFind instance;
  return instance;
}

}  // namespace ccl::cuda
