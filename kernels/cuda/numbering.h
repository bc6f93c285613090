// Launcher of the root numbering (numbering.cu).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "ccl/types.h"
#include "geometry.h"
#include "threshold.h"

namespace ccl::cuda {

/// Blocks of the numbering for frames of `geo`: one scan status each.
unsigned numbering_blocks(const FrameGeometry& geo);

/// Gives each root its id 1..N in raster order, tags its label kIdTag | id, starts its
/// table entry and leaves N in info->count. status: numbering_blocks(geo) words, valid
/// for frame *epoch + 1 (look_back.cuh). Never launched chained (numbering.cu says why).
/// blobs (null when the frame has none): the blob table beside `table`, whose entries
/// are started too, zeroed but for the intensity's minimum, which is blob_min.
void launch_numbering(const FrameGeometry& geo, const uint64_t* mask, uint32_t* labels,
                      int connectivity, uint64_t* status, const uint32_t* epoch,
                      Component* table, Blob* blobs, uint32_t blob_min, FrameInfo* info,
                      cudaStream_t stream);

}  // namespace ccl::cuda
