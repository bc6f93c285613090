/* cudaccl: GstCclCudaTransform, the CUDA context of an in-place video filter
 * (see gstcclcudatransform.h).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcclcudatransform.h"

#include "cudacontext.h"

GST_DEBUG_CATEGORY_STATIC (gst_ccl_cuda_transform_debug);
#define GST_CAT_DEFAULT gst_ccl_cuda_transform_debug

#define DEFAULT_CUDA_DEVICE_ID -1

enum
{
  PROP_0,
  PROP_CUDA_DEVICE_ID,
};

typedef struct {
  /* property, under the object lock */
  gint device_id;

  /* The pipeline's GstCudaContext: given by set_context (possibly before
   * start), or found or created by open(); dropped by stop(). */
  GstObject *context;
  /* under the object lock: open() succeeded, so the work happens in context */
  gboolean open;
  /* streaming thread */
  gboolean warned_foreign_memory;
} GstCclCudaTransformPrivate;

#define gst_ccl_cuda_transform_parent_class parent_class
G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (GstCclCudaTransform,
    gst_ccl_cuda_transform, GST_TYPE_VIDEO_FILTER);

#define PRIV(self) \
    ((GstCclCudaTransformPrivate *) gst_ccl_cuda_transform_get_instance_private (self))

static void gst_ccl_cuda_transform_dispose (GObject * object);
static void gst_ccl_cuda_transform_set_property (GObject * object,
    guint prop_id, const GValue * value, GParamSpec * pspec);
static void gst_ccl_cuda_transform_get_property (GObject * object,
    guint prop_id, GValue * value, GParamSpec * pspec);
static void gst_ccl_cuda_transform_set_context (GstElement * element,
    GstContext * context);
static gboolean gst_ccl_cuda_transform_start (GstBaseTransform * trans);
static gboolean gst_ccl_cuda_transform_stop (GstBaseTransform * trans);
static gboolean gst_ccl_cuda_transform_query (GstBaseTransform * trans,
    GstPadDirection direction, GstQuery * query);
static gboolean gst_ccl_cuda_transform_propose_allocation (GstBaseTransform *
    trans, GstQuery * decide_query, GstQuery * query);

static void
gst_ccl_cuda_transform_class_init (GstCclCudaTransformClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  gobject_class->dispose = gst_ccl_cuda_transform_dispose;
  gobject_class->set_property = gst_ccl_cuda_transform_set_property;
  gobject_class->get_property = gst_ccl_cuda_transform_get_property;

  g_object_class_install_property (gobject_class, PROP_CUDA_DEVICE_ID,
      g_param_spec_int ("cuda-device-id", "CUDA device id",
          "CUDA device to label on (-1: the device of the CUDA context that "
          "neighbouring CUDA elements share, else device 0)", -1, G_MAXINT16,
          DEFAULT_CUDA_DEVICE_ID, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));

  element_class->set_context =
      GST_DEBUG_FUNCPTR (gst_ccl_cuda_transform_set_context);

  trans_class->start = GST_DEBUG_FUNCPTR (gst_ccl_cuda_transform_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_ccl_cuda_transform_stop);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_ccl_cuda_transform_query);
  trans_class->propose_allocation =
      GST_DEBUG_FUNCPTR (gst_ccl_cuda_transform_propose_allocation);

  gst_type_mark_as_plugin_api (GST_TYPE_CCL_CUDA_TRANSFORM, 0);

  GST_DEBUG_CATEGORY_INIT (gst_ccl_cuda_transform_debug, "cclcudatransform", 0,
      "CUDA context of the cudaccl elements");
}

static void
gst_ccl_cuda_transform_init (GstCclCudaTransform * self)
{
  PRIV (self)->device_id = DEFAULT_CUDA_DEVICE_ID;
}

static void
gst_ccl_cuda_transform_dispose (GObject * object)
{
  GstCclCudaTransform *self = GST_CCL_CUDA_TRANSFORM (object);

  /* A context may have come through set_context without a start(). */
  gst_clear_object (&PRIV (self)->context);
  G_OBJECT_CLASS (parent_class)->dispose (object);
}

static void
gst_ccl_cuda_transform_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCclCudaTransform *self = GST_CCL_CUDA_TRANSFORM (object);

  switch (prop_id) {
    case PROP_CUDA_DEVICE_ID:
      GST_OBJECT_LOCK (self);
      PRIV (self)->device_id = g_value_get_int (value);
      GST_OBJECT_UNLOCK (self);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_ccl_cuda_transform_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstCclCudaTransform *self = GST_CCL_CUDA_TRANSFORM (object);

  switch (prop_id) {
    case PROP_CUDA_DEVICE_ID:
      g_value_set_int (value, gst_ccl_cuda_transform_get_device_id (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

gint
gst_ccl_cuda_transform_get_device_id (GstCclCudaTransform * self)
{
  gint device_id;

  GST_OBJECT_LOCK (self);
  device_id = PRIV (self)->device_id;
  GST_OBJECT_UNLOCK (self);
  return device_id;
}

static void
gst_ccl_cuda_transform_set_context (GstElement * element, GstContext * context)
{
  GstCclCudaTransform *self = GST_CCL_CUDA_TRANSFORM (element);

  /* Takes the pipeline's CUDA context when it is on our device and we have
   * none yet; open() then shares it instead of creating one. */
  ccl_cuda_context_handle_set_context (element, context,
      gst_ccl_cuda_transform_get_device_id (self), &PRIV (self)->context);
  GST_ELEMENT_CLASS (parent_class)->set_context (element, context);
}

gboolean
gst_ccl_cuda_transform_open (GstCclCudaTransform * self, gboolean * shared,
    gchar ** why)
{
  GstCclCudaTransformPrivate *priv = PRIV (self);
  gint device_id = gst_ccl_cuda_transform_get_device_id (self);
  gboolean given = priv->context != NULL;

  if (!ccl_cuda_context_ensure (GST_ELEMENT (self), device_id, &priv->context,
          why))
    return FALSE;
  /* Fails early, with the reason, rather than on the first frame. */
  if (!ccl_cuda_context_push (priv->context)) {
    *why = g_strdup_printf ("could not make the CUDA context of device %d "
        "current", ccl_cuda_context_get_device_id (priv->context));
    gst_clear_object (&priv->context);
    return FALSE;
  }
  ccl_cuda_context_pop ();

  GST_OBJECT_LOCK (self);
  priv->open = TRUE;
  GST_OBJECT_UNLOCK (self);
  if (shared)
    *shared = given;
  GST_DEBUG_OBJECT (self, "open in CUDA context %" GST_PTR_FORMAT
      " on device %d", priv->context,
      ccl_cuda_context_get_device_id (priv->context));
  return TRUE;
}

void
gst_ccl_cuda_transform_close (GstCclCudaTransform * self)
{
  GstCclCudaTransformPrivate *priv = PRIV (self);

  GST_OBJECT_LOCK (self);
  priv->open = FALSE;
  GST_OBJECT_UNLOCK (self);
  gst_clear_object (&priv->context);
}

gboolean
gst_ccl_cuda_transform_is_open (GstCclCudaTransform * self)
{
  gboolean open;

  GST_OBJECT_LOCK (self);
  open = PRIV (self)->open;
  GST_OBJECT_UNLOCK (self);
  return open;
}

GstObject *
gst_ccl_cuda_transform_get_context (GstCclCudaTransform * self)
{
  GstCclCudaTransformPrivate *priv = PRIV (self);

  return priv->open ? priv->context : NULL;
}

gint
gst_ccl_cuda_transform_get_context_device (GstCclCudaTransform * self)
{
  GstObject *context = gst_ccl_cuda_transform_get_context (self);

  return context ? ccl_cuda_context_get_device_id (context) : -1;
}

/* open only changes in start() and stop(), when no work is under way: the
 * streaming thread reads it without the lock. */
gboolean
gst_ccl_cuda_transform_enter (GstCclCudaTransform * self)
{
  GstCclCudaTransformPrivate *priv = PRIV (self);

  return !priv->open || ccl_cuda_context_push (priv->context);
}

void
gst_ccl_cuda_transform_leave (GstCclCudaTransform * self)
{
  if (PRIV (self)->open)
    ccl_cuda_context_pop ();
}

gboolean
gst_ccl_cuda_transform_buffer_on_device (GstCclCudaTransform * self,
    GstBuffer * buf)
{
  GstCclCudaTransformPrivate *priv = PRIV (self);
  GstObject *memory_context;

  if (!priv->open)
    return FALSE;
  memory_context = ccl_cuda_context_of_buffer (buf);
  if (!memory_context || memory_context == priv->context)
    return memory_context != NULL;
  if (!priv->warned_foreign_memory) {
    GST_ELEMENT_WARNING (self, STREAM, FAILED,
        ("Frames in CUDA memory of another CUDA context: copying each through "
            "host memory"), ("memory context %" GST_PTR_FORMAT ", ours %"
            GST_PTR_FORMAT " (is cuda-device-id set to another device than the "
            "upstream element's?)", memory_context, priv->context));
    priv->warned_foreign_memory = TRUE;
  }
  return FALSE;
}

GstMapFlags
gst_ccl_cuda_transform_device_map_flags (void)
{
  return ccl_cuda_context_map_flag ();
}

static gboolean
gst_ccl_cuda_transform_start (GstBaseTransform * trans)
{
  PRIV (GST_CCL_CUDA_TRANSFORM (trans))->warned_foreign_memory = FALSE;
  return TRUE;
}

static gboolean
gst_ccl_cuda_transform_stop (GstBaseTransform * trans)
{
  gst_ccl_cuda_transform_close (GST_CCL_CUDA_TRANSFORM (trans));
  return TRUE;
}

static gboolean
gst_ccl_cuda_transform_query (GstBaseTransform * trans,
    GstPadDirection direction, GstQuery * query)
{
  GstCclCudaTransform *self = GST_CCL_CUDA_TRANSFORM (trans);

  if (GST_QUERY_TYPE (query) == GST_QUERY_CONTEXT &&
      ccl_cuda_context_handle_query (GST_ELEMENT (self), query,
          PRIV (self)->context))
    return TRUE;
  return GST_BASE_TRANSFORM_CLASS (parent_class)->query (trans, direction,
      query);
}

static gboolean
caps_have_cuda_memory (GstCaps * caps)
{
  GstCapsFeatures *features = gst_caps_get_features (caps, 0);

  return features && !gst_caps_features_is_any (features) &&
      gst_caps_features_contains (features, CCL_CAPS_FEATURE_CUDA_MEMORY);
}

/* In place: upstream's buffers are the ones that go downstream, so the query
 * is downstream's to answer (the parent forwards it). For CUDA memory the
 * first pool must allocate in our context, or every frame would be read from
 * another context's memory: when downstream offered none, or one of another
 * context, ours goes first. (decide_allocation never runs for an element that
 * always works in place, so there is no decision to make here.) */
static gboolean
gst_ccl_cuda_transform_propose_allocation (GstBaseTransform * trans,
    GstQuery * decide_query, GstQuery * query)
{
  GstCclCudaTransform *self = GST_CCL_CUDA_TRANSFORM (trans);
  GstCclCudaTransformPrivate *priv = PRIV (self);
  GstBufferPool *pool = NULL;
  GstCaps *caps = NULL;
  guint size = 0, min = 0, max = 0;

  if (!GST_BASE_TRANSFORM_CLASS (parent_class)->propose_allocation (trans,
          decide_query, query))
    GST_DEBUG_OBJECT (self, "downstream did not answer the allocation query");

  gst_query_parse_allocation (query, &caps, NULL);
  if (!caps)
    return FALSE;
  if (!priv->open || gst_caps_is_empty (caps) || !caps_have_cuda_memory (caps))
    return TRUE;

  if (gst_query_get_n_allocation_pools (query) > 0) {
    gst_query_parse_nth_allocation_pool (query, 0, &pool, &size, &min, &max);
    if (ccl_cuda_context_is_pool_of (pool, priv->context)) {
      GST_DEBUG_OBJECT (self, "downstream proposed a CUDA pool of our context");
      gst_object_unref (pool);
      return TRUE;
    }
    gst_clear_object (&pool);
  }

  pool = ccl_cuda_context_new_pool (priv->context, caps, &size);
  if (!pool) {
    GST_WARNING_OBJECT (self, "could not configure a CUDA buffer pool for %"
        GST_PTR_FORMAT, caps);
    return FALSE;
  }
  if (gst_query_get_n_allocation_pools (query) > 0)
    gst_query_set_nth_allocation_pool (query, 0, pool, size, min, max);
  else
    gst_query_add_allocation_pool (query, pool, size, 0, 0);
  GST_DEBUG_OBJECT (self, "proposing CUDA buffer pool %" GST_PTR_FORMAT
      " (buffers of %u bytes)", pool, size);
  gst_object_unref (pool);
  return TRUE;
}
