/* cudaccl: GstCudaContext sharing, CUDA buffer pools and device mappings through
 * gstreamer-cuda-1.0 (see cudacontext.h).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "cudacontext.h"

#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>
#include <gst/video/video.h>

G_STATIC_ASSERT (sizeof (CCL_CAPS_FEATURE_CUDA_MEMORY) ==
    sizeof (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY));

void
ccl_cuda_context_handle_set_context (GstElement * element,
    GstContext * gst_context, gint device_id, GstObject ** context)
{
  gst_cuda_handle_set_context (element, gst_context, device_id,
      (GstCudaContext **) context);
}

gboolean
ccl_cuda_context_handle_query (GstElement * element, GstQuery * query,
    GstObject * context)
{
  if (!context)
    return FALSE;
  return gst_cuda_handle_context_query (element, query,
      GST_CUDA_CONTEXT (context));
}

gboolean
ccl_cuda_context_ensure (GstElement * element, gint device_id,
    GstObject ** context, gchar ** why)
{
  /* The library reaches the driver through dlopen; every Cu* call before a
   * successful load would jump through a null pointer. */
  if (!gst_cuda_load_library ()) {
    *why = g_strdup ("GStreamer's CUDA library could not load the CUDA driver "
        "(libcuda.so.1)");
    return FALSE;
  }
  gst_cuda_memory_init_once ();
  if (!gst_cuda_ensure_element_context (element, device_id,
          (GstCudaContext **) context)) {
    *why = g_strdup_printf ("no CUDA context could be created on device %d",
        MAX (device_id, 0));
    return FALSE;
  }
  return TRUE;
}

gint
ccl_cuda_context_get_device_id (GstObject * context)
{
  guint device_id = 0;

  g_object_get (context, "cuda-device-id", &device_id, NULL);
  return (gint) device_id;
}

gboolean
ccl_cuda_context_push (GstObject * context)
{
  return gst_cuda_context_push (GST_CUDA_CONTEXT (context));
}

void
ccl_cuda_context_pop (void)
{
  gst_cuda_context_pop (NULL);
}

GstObject *
ccl_cuda_context_of_buffer (GstBuffer * buffer)
{
  GstCudaContext *context = NULL;
  guint i, n = gst_buffer_n_memory (buffer);

  for (i = 0; i < n; i++) {
    GstMemory *mem = gst_buffer_peek_memory (buffer, i);
    GstCudaContext *c;

    if (!gst_is_cuda_memory (mem))
      return NULL;
    c = GST_CUDA_MEMORY_CAST (mem)->context;
    if (context && c != context)
      return NULL;
    context = c;
  }
  return GST_OBJECT_CAST (context);
}

GstMapFlags
ccl_cuda_context_map_flag (void)
{
  return GST_MAP_CUDA;
}

GstBufferPool *
ccl_cuda_context_new_pool (GstObject * context, GstCaps * caps, guint * size)
{
  GstBufferPool *pool;
  GstStructure *config;
  GstVideoInfo info;

  if (!gst_video_info_from_caps (&info, caps))
    return NULL;

  pool = gst_cuda_buffer_pool_new (GST_CUDA_CONTEXT (context));
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  gst_buffer_pool_config_set_params (config, caps, GST_VIDEO_INFO_SIZE (&info),
      0, 0);
  if (!gst_buffer_pool_set_config (pool, config)) {
    gst_object_unref (pool);
    return NULL;
  }
  /* The pool pads rows to the device's pitch: its size is the one to announce. */
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_get_params (config, NULL, size, NULL, NULL);
  gst_structure_free (config);
  return pool;
}

gboolean
ccl_cuda_context_is_pool_of (GstBufferPool * pool, GstObject * context)
{
  return pool && context && GST_IS_CUDA_BUFFER_POOL (pool) &&
      GST_OBJECT_CAST (GST_CUDA_BUFFER_POOL (pool)->context) == context;
}
