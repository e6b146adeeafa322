#include "CTIFFShim.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static tmsize_t ip_read(thandle_t handle, void *buffer, tmsize_t count) {
    ip_tiff_reader *reader = (ip_tiff_reader *)handle;
    if (count <= 0 || reader->position >= reader->size) return 0;
    uint64_t available = reader->size - reader->position;
    uint64_t n = (uint64_t)count < available ? (uint64_t)count : available;
    memcpy(buffer, reader->bytes + reader->position, (size_t)n);
    reader->position += n;
    return (tmsize_t)n;
}

static tmsize_t ip_write(thandle_t handle, void *buffer, tmsize_t count) {
    (void)handle;
    (void)buffer;
    (void)count;
    return -1;
}

static toff_t ip_seek(thandle_t handle, toff_t offset, int whence) {
    ip_tiff_reader *reader = (ip_tiff_reader *)handle;
    uint64_t base;
    switch (whence) {
    case SEEK_SET: base = 0; break;
    case SEEK_CUR: base = reader->position; break;
    case SEEK_END: base = reader->size; break;
    default: return (toff_t)-1;
    }
    if (offset > UINT64_MAX - base) return (toff_t)-1;
    // Past the end is allowed, as for a file: reads there return nothing.
    reader->position = base + offset;
    return reader->position;
}

static int ip_close(thandle_t handle) {
    (void)handle;
    return 0;
}

static toff_t ip_size(thandle_t handle) { return ((ip_tiff_reader *)handle)->size; }

static int ip_map(thandle_t handle, void **base, toff_t *size) {
    ip_tiff_reader *reader = (ip_tiff_reader *)handle;
    // libtiff only reads a mapping opened for reading.
    *base = (void *)reader->bytes;
    *size = reader->size;
    return 1;
}

static void ip_unmap(thandle_t handle, void *base, toff_t size) {
    (void)handle;
    (void)base;
    (void)size;
}

static void ip_keep(char *into, size_t capacity, int *count, const char *module, const char *format, va_list arguments) {
    if ((*count)++ > 0) return;
    char message[400];
    vsnprintf(message, sizeof message, format, arguments);
    if (module && *module) {
        snprintf(into, capacity, "%s: %s", module, message);
    } else {
        snprintf(into, capacity, "%s", message);
    }
}

static int ip_error(TIFF *tiff, void *user_data, const char *module, const char *format, va_list arguments) {
    (void)tiff;
    ip_tiff_reader *reader = (ip_tiff_reader *)user_data;
    ip_keep(reader->error, sizeof reader->error, &reader->error_count, module, format, arguments);
    return 1;
}

static int ip_warning(TIFF *tiff, void *user_data, const char *module, const char *format, va_list arguments) {
    (void)tiff;
    ip_tiff_reader *reader = (ip_tiff_reader *)user_data;
    ip_keep(reader->warning, sizeof reader->warning, &reader->warning_count, module, format, arguments);
    return 1;
}

static pthread_once_t ip_silence_once = PTHREAD_ONCE_INIT;

/// libtiff's process-wide handlers print to stderr; they are only reached by messages about no
/// particular TIFF, which the per-TIFF handlers above cannot take.
static void ip_silence(void) {
    TIFFSetErrorHandler(NULL);
    TIFFSetWarningHandler(NULL);
}

TIFF *ip_tiff_open(ip_tiff_reader *reader, int64_t max_single_allocation) {
    pthread_once(&ip_silence_once, ip_silence);
    TIFFOpenOptions *options = TIFFOpenOptionsAlloc();
    if (!options) {
        snprintf(reader->error, sizeof reader->error, "out of memory");
        reader->error_count = 1;
        return NULL;
    }
    if (max_single_allocation > 0) TIFFOpenOptionsSetMaxSingleMemAlloc(options, (tmsize_t)max_single_allocation);
    TIFFOpenOptionsSetErrorHandlerExtR(options, ip_error, reader);
    TIFFOpenOptionsSetWarningHandlerExtR(options, ip_warning, reader);
    TIFF *tiff = TIFFClientOpenExt("TIFF", "r", (thandle_t)reader, ip_read, ip_write, ip_seek, ip_close, ip_size, ip_map, ip_unmap, options);
    TIFFOpenOptionsFree(options);
    if (!tiff && reader->error_count == 0) {
        snprintf(reader->error, sizeof reader->error, "not a TIFF libtiff can open");
        reader->error_count = 1;
    }
    return tiff;
}

int ip_tiff_get_u16(TIFF *tiff, uint32_t tag, uint16_t *value) { return TIFFGetField(tiff, tag, value); }
int ip_tiff_get_u16_defaulted(TIFF *tiff, uint32_t tag, uint16_t *value) { return TIFFGetFieldDefaulted(tiff, tag, value); }
int ip_tiff_get_u32(TIFF *tiff, uint32_t tag, uint32_t *value) { return TIFFGetField(tiff, tag, value); }
int ip_tiff_get_u32_defaulted(TIFF *tiff, uint32_t tag, uint32_t *value) { return TIFFGetFieldDefaulted(tiff, tag, value); }

int ip_tiff_get_colormap(TIFF *tiff, uint16_t **red, uint16_t **green, uint16_t **blue) {
    return TIFFGetField(tiff, TIFFTAG_COLORMAP, red, green, blue);
}

int ip_tiff_get_extra_samples(TIFF *tiff, uint16_t *count, uint16_t **kinds) {
    return TIFFGetField(tiff, TIFFTAG_EXTRASAMPLES, count, kinds);
}

int ip_tiff_get_bytes(TIFF *tiff, uint32_t tag, uint32_t *length, const void **bytes) {
    return TIFFGetField(tiff, tag, length, bytes);
}

int ip_tiff_set_jpeg_rgb(TIFF *tiff) { return TIFFSetField(tiff, TIFFTAG_JPEGCOLORMODE, JPEGCOLORMODE_RGB); }

int ip_tiff_take_horizontal_predictor(TIFF *tiff) {
    // Only codecs with a predictor (LZW, Deflate, ZSTD, LZMA) define the tag. Under any other, a
    // Predictor tag in the file is an anonymous field, which TIFFGetField would answer with a
    // count and a pointer: two arguments where one was passed.
    const TIFFField *field = TIFFFindField(tiff, TIFFTAG_PREDICTOR, TIFF_ANY);
    if (!field || TIFFFieldIsAnonymous(field) || TIFFFieldPassCount(field)) return 0;
    uint16_t predictor = 0;
    if (TIFFGetField(tiff, TIFFTAG_PREDICTOR, &predictor) != 1 || predictor != PREDICTOR_HORIZONTAL) return 0;
    return TIFFSetField(tiff, TIFFTAG_PREDICTOR, PREDICTOR_NONE) == 1;
}

const char *ip_tiff_error(const ip_tiff_reader *reader) { return reader->error; }
const char *ip_tiff_warning(const ip_tiff_reader *reader) { return reader->warning; }
