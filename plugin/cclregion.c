/* cudaccl: the region mask of mask-location, decoded from a PGM or PNG file.
 *
 * PGM is simple enough to read here; PNG goes through libpng, which the GStreamer
 * runtime carries anyway (its png plugin), so the element gains no heavy image
 * library for one file read at start.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "cclregion.h"

#include <png.h>
#include <setjmp.h>
#include <string.h>

static void
set_decode_error (GError ** error, const gchar * path, const gchar * why)
{
  g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_OPEN_READ,
      "Could not decode mask file \"%s\": %s", path, why);
}

static gboolean
size_fits (guint64 width, guint64 height)
{
  return width > 0 && height > 0 && width <= G_MAXINT && height <= G_MAXINT &&
      width * height <= (guint64) CCL_MAX_PIXELS;
}

static CclRegion *
region_new (gint width, gint height)
{
  CclRegion *region = g_new0 (CclRegion, 1);

  region->width = width;
  region->height = height;
  region->pixels = g_malloc0 ((gsize) width * (gsize) height);
  return region;
}

void
ccl_region_free (CclRegion * region)
{
  if (!region)
    return;
  g_free (region->pixels);
  g_free (region);
}

/* ---- PGM (P5 binary, P2 plain) ---- */

/* Whitespace and '#' comments between header fields; FALSE at the end of data. */
static gboolean
pnm_skip (const guint8 * d, gsize n, gsize * pos)
{
  while (*pos < n) {
    if (d[*pos] == '#') {
      while (*pos < n && d[*pos] != '\n' && d[*pos] != '\r')
        (*pos)++;
    } else if (g_ascii_isspace (d[*pos])) {
      (*pos)++;
    } else {
      return TRUE;
    }
  }
  return FALSE;
}

static gboolean
pnm_number (const guint8 * d, gsize n, gsize * pos, guint64 limit, guint64 * out)
{
  guint64 v = 0;
  gsize start;

  if (!pnm_skip (d, n, pos))
    return FALSE;
  start = *pos;
  while (*pos < n && g_ascii_isdigit (d[*pos])) {
    v = v * 10 + (guint64) (d[*pos] - '0');
    if (v > limit)
      return FALSE;
    (*pos)++;
  }
  *out = v;
  return *pos > start;
}

static CclRegion *
decode_pgm (const guint8 * d, gsize n, const gchar * path, GError ** error)
{
  const gboolean plain = d[1] == '2';
  gsize pos = 2;
  guint64 width, height, maxval, bytes_per_sample, i, count;
  CclRegion *region;

  if (!pnm_number (d, n, &pos, G_MAXINT, &width) ||
      !pnm_number (d, n, &pos, G_MAXINT, &height) ||
      !pnm_number (d, n, &pos, 65535, &maxval) || maxval == 0) {
    set_decode_error (error, path, "bad PGM header (width, height, maxval)");
    return NULL;
  }
  if (!size_fits (width, height)) {
    gchar *why = g_strdup_printf ("PGM of %" G_GUINT64_FORMAT "x%"
        G_GUINT64_FORMAT " pixels: empty or more than 2^31-1 pixels", width,
        height);
    set_decode_error (error, path, why);
    g_free (why);
    return NULL;
  }
  count = width * height;
  region = region_new ((gint) width, (gint) height);

  if (plain) {
    for (i = 0; i < count; ++i) {
      guint64 v;
      if (!pnm_number (d, n, &pos, maxval, &v)) {
        set_decode_error (error, path, "plain PGM data truncated or out of "
            "range");
        ccl_region_free (region);
        return NULL;
      }
      region->pixels[i] = v != 0;
    }
    return region;
  }

  /* One whitespace byte separates the header from binary samples. */
  if (pos >= n || !g_ascii_isspace (d[pos])) {
    set_decode_error (error, path, "bad PGM header (no separator after maxval)");
    ccl_region_free (region);
    return NULL;
  }
  pos++;
  bytes_per_sample = maxval > 255 ? 2 : 1;
  if ((n - pos) / bytes_per_sample < count) {
    gchar *why = g_strdup_printf ("PGM data truncated: %" G_GSIZE_FORMAT
        " of %" G_GUINT64_FORMAT " bytes", n - pos, count * bytes_per_sample);
    set_decode_error (error, path, why);
    g_free (why);
    ccl_region_free (region);
    return NULL;
  }
  for (i = 0; i < count; ++i) {
    const guint8 *s = d + pos + i * bytes_per_sample;
    region->pixels[i] = bytes_per_sample == 2 ? (s[0] | s[1]) != 0 : s[0] != 0;
  }
  return region;
}

/* ---- PNG (libpng) ---- */

typedef struct
{
  const guint8 *data;
  gsize size;
  gsize pos;
  gchar *why;                   /* libpng's error message */
  png_structp png;
  png_infop info;
  png_bytep image;
  png_bytep *rows;
} PngDecode;

static void
png_read_memory (png_structp png, png_bytep out, png_size_t n)
{
  PngDecode *dec = png_get_io_ptr (png);

  if (n > dec->size - dec->pos)
    png_error (png, "file truncated");
  memcpy (out, dec->data + dec->pos, n);
  dec->pos += n;
}

static void
png_on_error (png_structp png, png_const_charp message)
{
  PngDecode *dec = png_get_error_ptr (png);

  if (!dec->why)
    dec->why = g_strdup (message);
  png_longjmp (png, 1);
}

static void
png_on_warning (png_structp png, png_const_charp message)
{
  GST_DEBUG ("libpng: %s", message);
}

/* Everything that can fail through libpng's longjmp happens here; `dec` holds
 * what must be freed whatever happens, outside this frame. */
static gboolean
png_decode_into (PngDecode * dec, CclRegion ** out)
{
  png_uint_32 width, height, y, x;
  gsize row_bytes, pixel_bytes;
  guint b;
  int channels, depth;
  CclRegion *region;

  if (setjmp (png_jmpbuf (dec->png)))
    return FALSE;
  png_set_read_fn (dec->png, dec, png_read_memory);
  png_read_info (dec->png, dec->info);
  width = png_get_image_width (dec->png, dec->info);
  height = png_get_image_height (dec->png, dec->info);
  if (!size_fits (width, height))
    png_error (dec->png, "empty, or more than 2^31-1 pixels");

  /* Palette to colors, gray below 8 bits to 8 (keeping "zero is zero"), and no
   * alpha: a pixel is allowed by its color alone. */
  png_set_expand (dec->png);
  png_set_strip_alpha (dec->png);
  png_set_interlace_handling (dec->png);
  png_read_update_info (dec->png, dec->info);
  channels = png_get_channels (dec->png, dec->info);
  depth = png_get_bit_depth (dec->png, dec->info);
  row_bytes = png_get_rowbytes (dec->png, dec->info);
  pixel_bytes = (gsize) channels * (gsize) (depth / 8);
  if (depth < 8 || pixel_bytes == 0 || row_bytes < pixel_bytes * width)
    png_error (dec->png, "unexpected pixel layout after expansion");

  dec->image = g_try_malloc (row_bytes * height);
  dec->rows = g_try_new (png_bytep, height);
  if (!dec->image || !dec->rows)
    png_error (dec->png, "out of memory");
  for (y = 0; y < height; ++y)
    dec->rows[y] = dec->image + (gsize) y * row_bytes;
  png_read_image (dec->png, dec->rows);
  png_read_end (dec->png, NULL);

  region = region_new ((gint) width, (gint) height);
  for (y = 0; y < height; ++y) {
    const guint8 *row = dec->rows[y];
    for (x = 0; x < width; ++x) {
      const guint8 *p = row + (gsize) x * pixel_bytes;
      guint8 any = 0;
      for (b = 0; b < pixel_bytes; ++b)
        any |= p[b];
      region->pixels[(gsize) y * width + x] = any != 0;
    }
  }
  *out = region;
  return TRUE;
}

static CclRegion *
decode_png (const guint8 * d, gsize n, const gchar * path, GError ** error)
{
  PngDecode dec = { d, n, 0, NULL, NULL, NULL, NULL, NULL };
  CclRegion *region = NULL;

  dec.png = png_create_read_struct (PNG_LIBPNG_VER_STRING, &dec, png_on_error,
      png_on_warning);
  if (dec.png)
    dec.info = png_create_info_struct (dec.png);
  if (!dec.png || !dec.info)
    dec.why = g_strdup ("libpng could not start");
  else if (!png_decode_into (&dec, &region))
    g_clear_pointer (&region, ccl_region_free);

  if (!region)
    set_decode_error (error, path, dec.why ? dec.why : "invalid PNG");
  png_destroy_read_struct (dec.png ? &dec.png : NULL,
      dec.info ? &dec.info : NULL, NULL);
  g_free (dec.image);
  g_free (dec.rows);
  g_free (dec.why);
  return region;
}

CclRegion *
ccl_region_load (const gchar * path, GError ** error)
{
  static const guint8 png_signature[8] = { 0x89, 'P', 'N', 'G', '\r', '\n',
    0x1a, '\n'
  };
  gchar *contents = NULL;
  gsize length = 0;
  GError *file_error = NULL;
  CclRegion *region = NULL;
  const guint8 *d;

  if (!g_file_get_contents (path, &contents, &length, &file_error)) {
    if (g_error_matches (file_error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
      g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND,
          "Mask file \"%s\" not found", path);
    else
      g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_OPEN_READ,
          "Could not read mask file \"%s\": %s", path, file_error->message);
    g_error_free (file_error);
    return NULL;
  }

  d = (const guint8 *) contents;
  if (length >= sizeof png_signature &&
      memcmp (d, png_signature, sizeof png_signature) == 0)
    region = decode_png (d, length, path, error);
  else if (length >= 2 && d[0] == 'P' && (d[1] == '5' || d[1] == '2'))
    region = decode_pgm (d, length, path, error);
  else
    set_decode_error (error, path, "neither a PGM (P5, P2) nor a PNG image");
  g_free (contents);
  return region;
}
