// The borders of the 64 x kTileForestRows tiles (tile_rows.cuh) that the union-find
// and Komura labelers label in shared memory: each tile's nodes point at their tile
// root, and this one launch unites the trees that touch across tile borders, in
// global memory on the label image.
#pragma once

#include "labeler.h"

namespace ccl::cuda {

/// Unites the tiles' trees across every tile row border and every border between tile
/// columns (one launch, chained when frame.chained).
void merge_tile_borders(const LabelingFrame& frame);

}  // namespace ccl::cuda
