// libpng's error handling for CodersPNG; see CPNGShim.h for why this is C.
//
// Each entry point that calls libpng does `if (setjmp(png_jmpbuf(png))) return 0;` first, so the
// error callback's png_longjmp lands in this file. Callbacks that libpng calls (read, row)
// are C too and never call back into Swift. Writing does not use libpng: see PNGWriter.c.
#include "CPNGShim.h"

#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct ipng_warning {
    int repeats;
    char text[128];
} ipng_warning;

typedef struct ipng_status {
    char message[256];
    ipng_warning warnings[IPNG_MAX_WARNINGS];
    int warning_count;
    /// Set when the bytes ran out: the error is a truncation, and the rows read before it stand.
    int truncated;
} ipng_status;

static void ipng_on_error(png_structp png, png_const_charp text) {
    ipng_status *status = (ipng_status *)png_get_error_ptr(png);
    if (status != NULL) {
        strncpy(status->message, text != NULL ? text : "unknown libpng error", sizeof status->message - 1);
        status->message[sizeof status->message - 1] = '\0';
    }
    png_longjmp(png, 1);
}

// libpng prints warnings (and benign errors, which it reports as warnings when reading) to stderr
// by default; a library must not, so the first of each text is kept for the decoded image.
static void ipng_on_warning(png_structp png, png_const_charp text) {
    ipng_status *status = (ipng_status *)png_get_error_ptr(png);
    if (status == NULL) return;
    if (text == NULL) text = "unknown libpng warning";
    for (int index = 0; index < status->warning_count; index++) {
        if (strncmp(status->warnings[index].text, text, sizeof status->warnings[index].text - 1) == 0) {
            status->warnings[index].repeats += 1;
            return;
        }
    }
    if (status->warning_count == IPNG_MAX_WARNINGS) return;
    ipng_warning *warning = &status->warnings[status->warning_count++];
    warning->repeats = 1;
    strncpy(warning->text, text, sizeof warning->text - 1);
    warning->text[sizeof warning->text - 1] = '\0';
}

static const char *ipng_status_warning(const ipng_status *status, int index, int *repeats) {
    if (index < 0 || index >= status->warning_count) return NULL;
    *repeats = status->warnings[index].repeats;
    return status->warnings[index].text;
}

// The transforms that keep the narrowest 8-bit format: gray stays gray, alpha appears only when the
// file has it (an alpha channel or tRNS). Gamma is left as stored. Must run under a setjmp point.
static void ipng_configure(png_structp png, png_infop info, ipng_header *header) {
    int color_type = png_get_color_type(png, info);
    int bit_depth = png_get_bit_depth(png, info);
    if (color_type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
    if (color_type == PNG_COLOR_TYPE_GRAY && bit_depth < 8) png_set_expand_gray_1_2_4_to_8(png);
    if (png_get_valid(png, info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(png);
    // scale_16 rounds (65535 -> 255, 32768 -> 128) where strip_16 would truncate.
    if (bit_depth == 16) png_set_scale_16(png);
    int interlaced = png_get_interlace_type(png, info) != PNG_INTERLACE_NONE;
    if (interlaced) (void)png_set_interlace_handling(png);
    // Also starts the row machinery in progressive mode (it includes png_start_read_image's work)
    // and, unlike it, updates `info` to the transformed layout read below.
    png_read_update_info(png, info);
    header->width = png_get_image_width(png, info);
    header->height = png_get_image_height(png, info);
    header->channels = png_get_channels(png, info);
    header->interlaced = interlaced;
    header->rowbytes = png_get_rowbytes(png, info);
}

// MARK: sequential reader

struct ipng_reader {
    ipng_status status;
    png_structp png;
    png_infop info;
    const uint8_t *data;
    size_t size;
    size_t offset;
};

static void ipng_read_memory(png_structp png, png_bytep out, size_t length) {
    ipng_reader *reader = (ipng_reader *)png_get_io_ptr(png);
    if (length > reader->size - reader->offset) {
        reader->status.truncated = 1;
        png_error(png, "file is truncated");
    }
    memcpy(out, reader->data + reader->offset, length);
    reader->offset += length;
}

ipng_reader *ipng_reader_create(const uint8_t *data, size_t size) {
    ipng_reader *reader = calloc(1, sizeof *reader);
    if (reader == NULL) return NULL;
    reader->data = data;
    reader->size = size;
    reader->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &reader->status, ipng_on_error, ipng_on_warning);
    if (reader->png != NULL) reader->info = png_create_info_struct(reader->png);
    if (reader->png == NULL || reader->info == NULL) {
        ipng_reader_destroy(reader);
        return NULL;
    }
    png_set_read_fn(reader->png, reader, ipng_read_memory);
    // The caller checks the pixel count against its own limit before reading; libpng's default of
    // 1,000,000 a side would refuse legal files that the caller's limit allows.
    png_set_user_limits(reader->png, 0x7fffffffU, 0x7fffffffU);
    return reader;
}

void ipng_reader_set_read_size(ipng_reader *reader, size_t size) {
    // For a read struct this only sets the IDAT piece size; it cannot fail for 0 < size < 2^31.
    if (size > 0 && size < 0x7fffffffU) png_set_compression_buffer_size(reader->png, size);
}

void ipng_reader_destroy(ipng_reader *reader) {
    if (reader == NULL) return;
    if (reader->png != NULL) png_destroy_read_struct(&reader->png, reader->info != NULL ? &reader->info : NULL, NULL);
    free(reader);
}

int ipng_reader_read_header(ipng_reader *reader, ipng_header *header) {
    if (setjmp(png_jmpbuf(reader->png))) return 0;
    png_read_info(reader->png, reader->info);
    ipng_configure(reader->png, reader->info, header);
    return 1;
}

size_t ipng_reader_exif(const ipng_reader *reader, const uint8_t **bytes) {
    png_uint_32 size = 0;
    png_bytep exif = NULL;
    *bytes = NULL;
    if (!(png_get_eXIf_1(reader->png, reader->info, &size, &exif) & PNG_INFO_eXIf) || exif == NULL) return 0;
    *bytes = exif;
    return size;
}

void ipng_reader_color(const ipng_reader *reader, ipng_color *color) {
    memset(color, 0, sizeof *color);
    png_charp name = NULL;
    int compression = 0;
    png_bytep profile = NULL;
    png_uint_32 profile_size = 0;
    if (png_get_iCCP(reader->png, reader->info, &name, &compression, &profile, &profile_size) & PNG_INFO_iCCP) {
        color->icc = profile;
        color->icc_size = profile ? profile_size : 0;
    }
    int intent = 0;
    color->has_srgb = (png_get_sRGB(reader->png, reader->info, &intent) & PNG_INFO_sRGB) != 0;
    png_fixed_point gamma = 0;
    if (png_get_gAMA_fixed(reader->png, reader->info, &gamma) & PNG_INFO_gAMA) color->gamma = gamma;
    png_fixed_point c[8];
    if (png_get_cHRM_fixed(reader->png, reader->info, &c[0], &c[1], &c[2], &c[3], &c[4], &c[5], &c[6], &c[7]) & PNG_INFO_cHRM) {
        color->has_chrm = 1;
        for (int i = 0; i < 8; i++) color->chrm[i] = c[i];
    }
}

int ipng_reader_read_image(ipng_reader *reader, uint8_t **rows) {
    if (setjmp(png_jmpbuf(reader->png))) return 0;
    png_read_image(reader->png, rows);
    return 1;
}

int ipng_reader_read_rows(ipng_reader *reader, uint8_t **rows, uint32_t count) {
    if (setjmp(png_jmpbuf(reader->png))) return 0;
    png_read_rows(reader->png, rows, NULL, count);
    return 1;
}

int ipng_reader_finish(ipng_reader *reader) {
    if (setjmp(png_jmpbuf(reader->png))) return 0;
    png_read_end(reader->png, NULL);
    return 1;
}

const char *ipng_reader_message(const ipng_reader *reader) { return reader->status.message; }
int ipng_reader_truncated(const ipng_reader *reader) { return reader->status.truncated; }
uint32_t ipng_reader_rows_read(const ipng_reader *reader) { return png_get_current_row_number(reader->png); }
int ipng_reader_warning_count(const ipng_reader *reader) { return reader->status.warning_count; }
const char *ipng_reader_warning(const ipng_reader *reader, int index, int *repeats) {
    return ipng_status_warning(&reader->status, index, repeats);
}

// MARK: progressive reader

struct ipng_stream {
    ipng_status status;
    png_structp png;
    png_infop info;
    uint64_t max_pixels;
    ipng_header header;
    int has_header;
    uint8_t *canvas;
    uint32_t rows;
    int pass;
    int finished;
    int over_limit;
    uint64_t claimed_pixels;
};

static void ipng_stream_on_info(png_structp png, png_infop info) {
    ipng_stream *stream = (ipng_stream *)png_get_progressive_ptr(png);
    uint64_t width = png_get_image_width(png, info);
    uint64_t height = png_get_image_height(png, info);
    // Both sides are below 2^31, so the product fits in 64 bits.
    if (width * height > stream->max_pixels) {
        stream->over_limit = 1;
        stream->claimed_pixels = width * height;
        png_error(png, "image has more pixels than the limit");
    }
    ipng_configure(png, info, &stream->header);
    if (stream->header.rowbytes != 0 && stream->header.height > SIZE_MAX / stream->header.rowbytes) {
        png_error(png, "image is too large for memory");
    }
    stream->canvas = calloc(stream->header.height, stream->header.rowbytes);
    if (stream->canvas == NULL) png_error(png, "out of memory");
    stream->has_header = 1;
}

static void ipng_stream_on_row(png_structp png, png_bytep row, png_uint_32 row_number, int pass) {
    ipng_stream *stream = (ipng_stream *)png_get_progressive_ptr(png);
    if (row_number >= stream->header.height) return;
    if (row != NULL) {
        png_progressive_combine_row(png, stream->canvas + (size_t)row_number * stream->header.rowbytes, row);
    }
    if (pass != stream->pass) {
        stream->pass = pass;
        stream->rows = 0;
    }
    if (row_number + 1 > stream->rows) stream->rows = row_number + 1;
}

static void ipng_stream_on_end(png_structp png, png_infop info) {
    (void)info;
    ipng_stream *stream = (ipng_stream *)png_get_progressive_ptr(png);
    stream->finished = 1;
}

ipng_stream *ipng_stream_create(uint64_t max_pixels) {
    ipng_stream *stream = calloc(1, sizeof *stream);
    if (stream == NULL) return NULL;
    stream->max_pixels = max_pixels;
    stream->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &stream->status, ipng_on_error, ipng_on_warning);
    if (stream->png != NULL) stream->info = png_create_info_struct(stream->png);
    if (stream->png == NULL || stream->info == NULL) {
        ipng_stream_destroy(stream);
        return NULL;
    }
    png_set_user_limits(stream->png, 0x7fffffffU, 0x7fffffffU);
    png_set_progressive_read_fn(stream->png, stream, ipng_stream_on_info, ipng_stream_on_row, ipng_stream_on_end);
    return stream;
}

void ipng_stream_destroy(ipng_stream *stream) {
    if (stream == NULL) return;
    if (stream->png != NULL) png_destroy_read_struct(&stream->png, stream->info != NULL ? &stream->info : NULL, NULL);
    free(stream->canvas);
    free(stream);
}

int ipng_stream_feed(ipng_stream *stream, const uint8_t *data, size_t size) {
    if (setjmp(png_jmpbuf(stream->png))) return 0;
    png_process_data(stream->png, stream->info, (png_bytep)data, size);
    return 1;
}

int ipng_stream_header(const ipng_stream *stream, ipng_header *header) {
    if (!stream->has_header) return 0;
    *header = stream->header;
    return 1;
}

const uint8_t *ipng_stream_canvas(const ipng_stream *stream) { return stream->canvas; }
uint32_t ipng_stream_rows(const ipng_stream *stream) { return stream->rows; }
int ipng_stream_pass(const ipng_stream *stream) { return stream->pass; }
int ipng_stream_finished(const ipng_stream *stream) { return stream->finished; }
int ipng_stream_over_limit(const ipng_stream *stream) { return stream->over_limit; }
uint64_t ipng_stream_claimed_pixels(const ipng_stream *stream) { return stream->claimed_pixels; }
const char *ipng_stream_message(const ipng_stream *stream) { return stream->status.message; }
