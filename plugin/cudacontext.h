/* cudaccl: the element's use of GStreamer's CUDA library (gstreamer-cuda-1.0):
 * the GstCudaContext shared with neighbouring CUDA elements, CUDA buffer pools
 * and device mappings of GstCudaMemory.
 *
 * Kept behind this small interface so that the element stays free of CUDA
 * headers: a build without CUDA links cudacontext_none.c, where there is never a
 * context and no memory is CUDA memory.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __CCL_CUDA_CONTEXT_H__
#define __CCL_CUDA_CONTEXT_H__

#include <gst/gst.h>

G_BEGIN_DECLS

/* The caps feature of GstCudaMemory (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY),
 * spelled out so that builds without CUDA can name it in their caps. */
#define CCL_CAPS_FEATURE_CUDA_MEMORY "memory:CUDAMemory"

/* element->set_context: takes a CUDA GstContext into *context when it is on
 * device_id (any device when -1) and *context is still empty. */
void ccl_cuda_context_handle_set_context (GstElement * element,
    GstContext * gst_context, gint device_id, GstObject ** context);

/* Answers a GST_QUERY_CONTEXT for the CUDA context; FALSE when the query is
 * about something else or there is no context yet. */
gboolean ccl_cuda_context_handle_query (GstElement * element, GstQuery * query,
    GstObject * context);

/* Finds the CUDA context of the pipeline (neighbours, then the application,
 * through GstContext queries), or creates one on device_id (-1: device 0) and
 * announces it. FALSE with the reason in *why (g_free) when CUDA is not usable. */
gboolean ccl_cuda_context_ensure (GstElement * element, gint device_id,
    GstObject ** context, gchar ** why);

/* The CUDA device of a context. */
gint ccl_cuda_context_get_device_id (GstObject * context);

/* Makes the context current on the calling thread (the CUDA runtime then works
 * in it) until ccl_cuda_context_pop(). */
gboolean ccl_cuda_context_push (GstObject * context);
void ccl_cuda_context_pop (void);

/* The context that the buffer's memory lives in when every memory of the
 * buffer is GstCudaMemory of one context; NULL otherwise (no ref). */
GstObject *ccl_cuda_context_of_buffer (GstBuffer * buffer);

/* The map flag that makes a GstCudaMemory map give its device address. */
GstMapFlags ccl_cuda_context_map_flag (void);

/* A configured CUDA buffer pool of the context for caps (with GstVideoMeta);
 * *size receives the pool's buffer size. NULL on failure. */
GstBufferPool *ccl_cuda_context_new_pool (GstObject * context, GstCaps * caps,
    guint * size);

/* Whether pool is a CUDA buffer pool allocating in this context. */
gboolean ccl_cuda_context_is_pool_of (GstBufferPool * pool,
    GstObject * context);

G_END_DECLS

#endif /* __CCL_CUDA_CONTEXT_H__ */
