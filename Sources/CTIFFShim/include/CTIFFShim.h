// The part of CodersTIFF that must be C: libtiff's error and warning handlers take a va_list, and
// TIFFGetField/TIFFSetField are varargs. A TIFF is opened over caller-owned bytes (read-only,
// bounds-checked callbacks, mapped so strips are read in place); its errors and warnings go to the
// reader, never to stderr: the first of each is kept with how many came.
#ifndef CTIFFSHIM_H
#define CTIFFSHIM_H

#include <stddef.h>
#include <stdint.h>
#include <tiffio.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Bytes being read and what libtiff said about them. The caller owns it, and the bytes, for as
/// long as the TIFF is open.
typedef struct ip_tiff_reader {
    const uint8_t *bytes;
    uint64_t size;
    uint64_t position;
    char error[512];
    int error_count;
    char warning[512];
    int warning_count;
} ip_tiff_reader;

/// The first error and warning kept (empty when none came).
const char *ip_tiff_error(const ip_tiff_reader *reader);
const char *ip_tiff_warning(const ip_tiff_reader *reader);

/// Opens the TIFF in `reader`'s bytes (its first directory read), or NULL with the reason in
/// `reader->error`. `max_single_allocation` bounds any one buffer libtiff allocates (0: libtiff's default).
TIFF *ip_tiff_open(ip_tiff_reader *reader, int64_t max_single_allocation);

/// TIFFGetField for one value of each type; 1 when the tag is present (or defaulted, for the
/// `_defaulted` ones), else 0.
int ip_tiff_get_u16(TIFF *tiff, uint32_t tag, uint16_t *value);
int ip_tiff_get_u16_defaulted(TIFF *tiff, uint32_t tag, uint16_t *value);
int ip_tiff_get_u32(TIFF *tiff, uint32_t tag, uint32_t *value);
int ip_tiff_get_u32_defaulted(TIFF *tiff, uint32_t tag, uint32_t *value);
/// The colour map's three arrays of 2^bits entries (libtiff owns them).
int ip_tiff_get_colormap(TIFF *tiff, uint16_t **red, uint16_t **green, uint16_t **blue);
/// ExtraSamples: the count and the kinds (libtiff owns them).
int ip_tiff_get_extra_samples(TIFF *tiff, uint16_t *count, uint16_t **kinds);
/// A byte-array tag with its length (ICC profile, XMP packet).
int ip_tiff_get_bytes(TIFF *tiff, uint32_t tag, uint32_t *length, const void **bytes);
/// Asks libjpeg to convert YCbCr to RGB for JPEG-compressed YCbCr images.
int ip_tiff_set_jpeg_rgb(TIFF *tiff);
/// When the current directory's samples are stored with horizontal differencing (Predictor 2),
/// tells libtiff not to undo it, so the caller does, and returns 1; else changes nothing and
/// returns 0. Only before the directory's first strip or tile is read.
int ip_tiff_take_horizontal_predictor(TIFF *tiff);

#ifdef __cplusplus
}
#endif

#endif
