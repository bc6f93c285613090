/* cudaccl: the base class of an in-place video filter that works in the
 * pipeline's CUDA context, the way gst-plugins-bad's CUDA elements keep that job
 * in GstCudaBaseTransform.
 *
 * It owns the GstCudaContext (cudacontext.h below it): the cuda-device-id
 * property, the context given by set_context or found through context queries
 * (and answering those queries once it has one), the CUDA buffer pool proposed
 * to upstream, and entering and leaving the context around the subclass's work.
 * A subclass decides in its start() whether it works on CUDA at all (opening the
 * context, or leaving it closed to work on the CPU) and chains up in start() and
 * stop(); it frees what it made in the context before chaining up in stop().
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_CCL_CUDA_TRANSFORM_H__
#define __GST_CCL_CUDA_TRANSFORM_H__

#include <gst/gst.h>
#include <gst/video/video.h>
#include <gst/video/gstvideofilter.h>

G_BEGIN_DECLS

#define GST_TYPE_CCL_CUDA_TRANSFORM (gst_ccl_cuda_transform_get_type ())
G_DECLARE_DERIVABLE_TYPE (GstCclCudaTransform, gst_ccl_cuda_transform, GST,
    CCL_CUDA_TRANSFORM, GstVideoFilter)

struct _GstCclCudaTransformClass {
  GstVideoFilterClass parent_class;
};

/* The cuda-device-id property: the device to work on, -1 for the device of the
 * context the neighbours share (else device 0). */
gint gst_ccl_cuda_transform_get_device_id (GstCclCudaTransform * self);

/* From start(): takes the pipeline's CUDA context (given by set_context, found
 * through context queries to the neighbours and the application) or creates one
 * on the cuda-device-id device and announces it; from then on enter() pushes it,
 * and CUDA memory caps get a pool of it. *shared (may be NULL): the context was
 * given before start() rather than found or created here. FALSE with the reason
 * in *why (g_free) when CUDA is not usable; the element is then not open. */
gboolean gst_ccl_cuda_transform_open (GstCclCudaTransform * self,
    gboolean * shared, gchar ** why);

/* Gives the context up: enter() and leave() do nothing until the next open().
 * stop() does it too. */
void gst_ccl_cuda_transform_close (GstCclCudaTransform * self);

/* Whether open() succeeded since the last start (any thread). */
gboolean gst_ccl_cuda_transform_is_open (GstCclCudaTransform * self);

/* The open context (no ref; NULL when not open) and its device (-1 then). */
GstObject *gst_ccl_cuda_transform_get_context (GstCclCudaTransform * self);
gint gst_ccl_cuda_transform_get_context_device (GstCclCudaTransform * self);

/* Around every piece of work that touches CUDA: makes the context current on
 * the calling thread (the CUDA runtime works in whichever is current), and back.
 * Both do nothing when the element is not open; enter() is FALSE only when the
 * push failed (then no leave()). */
gboolean gst_ccl_cuda_transform_enter (GstCclCudaTransform * self);
void gst_ccl_cuda_transform_leave (GstCclCudaTransform * self);

/* Whether buf can be worked on where it is: GstCudaMemory of the open context.
 * Memory of another context cannot be read in ours, so FALSE for it too (it goes
 * through a host mapping), with one element warning per start. */
gboolean gst_ccl_cuda_transform_buffer_on_device (GstCclCudaTransform * self,
    GstBuffer * buf);

/* The map flags that give the device address of buf's memory when
 * gst_ccl_cuda_transform_buffer_on_device() said so. */
GstMapFlags gst_ccl_cuda_transform_device_map_flags (void);

G_END_DECLS

#endif /* __GST_CCL_CUDA_TRANSFORM_H__ */
