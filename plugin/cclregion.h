/* cudaccl: the region mask of mask-location, decoded from a PGM or PNG file.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __CCL_REGION_H__
#define __CCL_REGION_H__

#include <gst/gst.h>

#include "backend/cclbackend.h"

G_BEGIN_DECLS

/* Reads and decodes `path` (binary or plain PGM of any maxval, PNG of any color
 * type and depth; the content decides, not the name): a pixel whose gray value or
 * any color channel is non-zero may be foreground, one that is zero everywhere
 * may not (a PNG's alpha is ignored). NULL with *error in GST_RESOURCE_ERROR:
 * NOT_FOUND when the file does not exist, OPEN_READ when it cannot be read or is
 * no image of those kinds; the message names the file. */
CclRegion *ccl_region_load (const gchar * path, GError ** error);

void ccl_region_free (CclRegion * region);

G_END_DECLS

#endif /* __CCL_REGION_H__ */
