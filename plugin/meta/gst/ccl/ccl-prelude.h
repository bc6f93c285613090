/* cudaccl metadata library: symbol export for the public API.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_CCL_PRELUDE_H__
#define __GST_CCL_PRELUDE_H__

#include <gst/gst.h>

/* The library is built with hidden visibility; only GST_CCL_API symbols are exported. */
#ifndef GST_CCL_API
# if defined(BUILDING_GST_CCL) && defined(G_HAVE_GNUC_VISIBILITY)
#  define GST_CCL_API __attribute__ ((visibility ("default"))) extern
# else
#  define GST_CCL_API extern
# endif
#endif

#endif /* __GST_CCL_PRELUDE_H__ */
