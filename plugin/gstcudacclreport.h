/* cudaccl: ROI metas and the per-frame bus message of a labeled frame.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include "backend/cclbackend.h"

G_BEGIN_DECLS

/* The roi-type of the GstVideoRegionOfInterestMeta attached per component. */
#define GST_CUDA_CCL_ROI_TYPE "ccl-component"
/* The name of its second parameter structure, a component's GstCclBlob, with
 * blob analysis (blob-properties or a blob filter). */
#define GST_CUDA_CCL_BLOB_PARAMS "cudaccl-blob"

void        gst_cuda_ccl_report_add_roi_metas (GstBuffer * buf,
                                               const CclReport * report);

GstMessage *gst_cuda_ccl_report_message       (GstObject * src,
                                               GstBuffer * buf,
                                               const GstSegment * segment,
                                               const GstVideoInfo * info,
                                               const CclReport * report);

G_END_DECLS
