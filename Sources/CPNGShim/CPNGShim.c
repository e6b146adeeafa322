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

// Ancillary chunks libpng knows but CodersPNG never uses (text, background, histogram, physical
// size...): skipped unread, with their CRCs still checked, so none of them is ever allocated or
// inflated. eXIf (orientation), tRNS (alpha) and the colour chunks (iCCP, sRGB, gAMA, cHRM) are
// kept; unknown chunks are skipped too.
static const png_byte ipng_unused_chunks[] =
    "bKGD\0hIST\0iTXt\0oFFs\0pCAL\0pHYs\0sBIT\0sCAL\0sPLT\0sTER\0tEXt\0tIME\0zTXt";

// Limits shared by both readers. Sizes are checked by the caller against its own pixel limit,
// so libpng's default of 1,000,000 a side (which would refuse legal files) is lifted; the bytes
// libpng may inflate for one chunk (an ICC profile) are capped at the caller's figure.
static void ipng_set_limits(png_structp png, size_t max_chunk_bytes) {
    png_set_user_limits(png, 0x7fffffffU, 0x7fffffffU);
    png_set_chunk_malloc_max(png, max_chunk_bytes);
    png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, NULL, 0);
    png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, ipng_unused_chunks, (int)(sizeof ipng_unused_chunks / 5));
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
    header->passes = interlaced ? 7 : 1;
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
    uint32_t height;
    int interlaced;
    // Compressed image data read after the last row was complete.
    size_t data_after_rows;
    // 1 once reading stopped at surplus image data: the rows are complete, the rest is unread.
    int stopped_after_rows;
};

// After the last row only the end of the zlib stream should follow (a few bytes). libpng reads on
// to the stream's end, inflating whatever is there: gigabytes of surplus data in a small file cost
// minutes. Past this much, reading stops and the image counts as complete, as libpng itself only
// warns about surplus data ("Too much image data").
#define IPNG_MAX_DATA_AFTER_ROWS 32768
// libpng's chunk names are big-endian 32-bit numbers; its png_IDAT is private.
#define IPNG_CHUNK_IDAT 0x49444154U

static int ipng_rows_complete(const ipng_reader *reader) {
    if (reader->height == 0) return 0;
    if (reader->interlaced) return png_get_current_pass_number(reader->png) >= 7;
    return png_get_current_row_number(reader->png) >= reader->height;
}

static void ipng_read_memory(png_structp png, png_bytep out, size_t length) {
    ipng_reader *reader = (ipng_reader *)png_get_io_ptr(png);
    if (length > reader->size - reader->offset) {
        reader->status.truncated = 1;
        png_error(png, "file is truncated");
    }
    png_uint_32 state = png_get_io_state(png);
    if ((state & PNG_IO_MASK_LOC) == PNG_IO_CHUNK_DATA && png_get_io_chunk_type(png) == IPNG_CHUNK_IDAT
        && ipng_rows_complete(reader)) {
        reader->data_after_rows += length;
        if (reader->data_after_rows > IPNG_MAX_DATA_AFTER_ROWS) {
            reader->stopped_after_rows = 1;
            png_error(png, "surplus image data after the last row");
        }
    }
    memcpy(out, reader->data + reader->offset, length);
    reader->offset += length;
    // A chunk libpng would read whole (anything but IDAT, which it reads in pieces and which may
    // end early in a truncated file) must fit in the bytes left: refused before libpng allocates
    // the length its header declares.
    if ((state & PNG_IO_MASK_LOC) == PNG_IO_CHUNK_HDR && length == 8) {
        uint64_t declared = (uint64_t)out[0] << 24 | (uint64_t)out[1] << 16 | (uint64_t)out[2] << 8 | out[3];
        uint64_t type = (uint64_t)out[4] << 24 | (uint64_t)out[5] << 16 | (uint64_t)out[6] << 8 | out[7];
        uint64_t left = reader->size - reader->offset;
        if (type != IPNG_CHUNK_IDAT && declared + 4 > left) {
            char message[128];
            snprintf(message, sizeof message, "file is truncated: a %.4s chunk declares %llu bytes, %llu remain",
                     (const char *)out + 4, (unsigned long long)declared, (unsigned long long)(left >= 4 ? left - 4 : 0));
            reader->status.truncated = 1;
            png_error(png, message);
        }
    }
}

ipng_reader *ipng_reader_create(const uint8_t *data, size_t size, size_t max_chunk_bytes) {
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
    ipng_set_limits(reader->png, max_chunk_bytes);
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
    reader->height = header->height;
    reader->interlaced = header->interlaced;
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

int ipng_reader_read_rows(ipng_reader *reader, uint8_t **rows, uint32_t count) {
    if (reader->stopped_after_rows) return 1;
    // Stopping at surplus data happens after the last row was written: a success.
    if (setjmp(png_jmpbuf(reader->png))) return reader->stopped_after_rows;
    png_read_rows(reader->png, rows, NULL, count);
    return 1;
}

int ipng_reader_finish(ipng_reader *reader) {
    // libpng is mid-chunk after stopping at surplus data; what follows is left unread.
    if (reader->stopped_after_rows) return 1;
    if (setjmp(png_jmpbuf(reader->png))) return reader->stopped_after_rows;
    png_read_end(reader->png, NULL);
    return 1;
}

int ipng_reader_stopped_after_rows(const ipng_reader *reader) { return reader->stopped_after_rows; }

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

ipng_stream *ipng_stream_create(uint64_t max_pixels, size_t max_chunk_bytes) {
    ipng_stream *stream = calloc(1, sizeof *stream);
    if (stream == NULL) return NULL;
    stream->max_pixels = max_pixels;
    stream->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &stream->status, ipng_on_error, ipng_on_warning);
    if (stream->png != NULL) stream->info = png_create_info_struct(stream->png);
    if (stream->png == NULL || stream->info == NULL) {
        ipng_stream_destroy(stream);
        return NULL;
    }
    ipng_set_limits(stream->png, max_chunk_bytes);
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
