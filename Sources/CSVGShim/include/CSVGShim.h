// SVG rendering on librsvg and cairo, reduced to what CodersSVG needs: parse bytes, read the
// document's size, draw it into a buffer the caller owns. librsvg is opened on first use (with
// GLib, cairo, pango and their dependencies it costs every start of a program that never reads an
// SVG), and only through this file: its GLib types never reach Swift, so the module needs no GLib
// headers to build against.
#ifndef CSVGSHIM_H
#define CSVGSHIM_H
#include <stddef.h>
#include <stdint.h>

/// Opens librsvg the first time; NULL once it is usable, else why not (naming the library).
const char *ip_svg_open(void);

/// A parsed document; owned by the caller, released with ip_svg_free.
typedef struct ip_svg_document ip_svg_document;

/// Parses `size` bytes with no base file: librsvg then refuses every external reference (images,
/// `xi:include`, external stylesheets), as it resolves them only against a base. `data:` URLs
/// still load. NULL on failure, with librsvg's message in `error`.
ip_svg_document *ip_svg_load(const uint8_t *data, size_t size, char *error, size_t error_size);

/// The document's size in pixels at 96 DPI, from its `width` and `height`, or failing that its
/// `viewBox`. 0 when it has neither.
int ip_svg_size(ip_svg_document *document, double *width, double *height);

/// Draws rows `first_row` ..< `first_row + row_count` of the document scaled to `width` x `height`
/// into `pixels`, the whole image's buffer (cairo's ARGB32: premultiplied, one native-endian 32-bit
/// word a pixel, rows of `width` * 4 bytes), which must start zeroed (transparent). Every row at
/// once is the whole drawing. 0 on success, else -1 with the reason in `error`.
int ip_svg_render_rows(ip_svg_document *document, uint8_t *pixels, int width, int height, int first_row, int row_count, char *error,
                       size_t error_size);

void ip_svg_free(ip_svg_document *document);

#endif
