/* cudaccl: cudacontext.h in a build without CUDA: there is never a context, no
 * memory is CUDA memory, and the element labels on the CPU.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "cudacontext.h"

void
ccl_cuda_context_handle_set_context (GstElement * element,
    GstContext * gst_context, gint device_id, GstObject ** context)
{
}

gboolean
ccl_cuda_context_handle_query (GstElement * element, GstQuery * query,
    GstObject * context)
{
  return FALSE;
}

gboolean
ccl_cuda_context_ensure (GstElement * element, gint device_id,
    GstObject ** context, gchar ** why)
{
  *why = g_strdup ("this build of cudaccl has no CUDA support");
  return FALSE;
}

gint
ccl_cuda_context_get_device_id (GstObject * context)
{
  return -1;
}

gboolean
ccl_cuda_context_push (GstObject * context)
{
  return FALSE;
}

void
ccl_cuda_context_pop (void)
{
}

GstObject *
ccl_cuda_context_of_buffer (GstBuffer * buffer)
{
  return NULL;
}

GstMapFlags
ccl_cuda_context_map_flag (void)
{
  return 0;
}

GstBufferPool *
ccl_cuda_context_new_pool (GstObject * context, GstCaps * caps, guint * size)
{
  return NULL;
}

gboolean
ccl_cuda_context_is_pool_of (GstBufferPool * pool, GstObject * context)
{
  return FALSE;
}
