// CodersPNG's writer: the PNG container framed here, IDAT compressed with libdeflate. libpng is not
// involved (its writer spent most of an encode in zlib's deflate), so nothing here can longjmp.
// Large images whose encode can be cancelled go through zlib's streaming deflate instead, asking
// between steps whether to stop: libdeflate compresses in one call that cannot be interrupted.
//
// Only 8-bit gray, gray+alpha, RGB and RGBA are written, never interlaced, with no ancillary chunks.
#include "CPNGShim.h"
#include "PNGFilter.h"

#include <libdeflate.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

// PNG caps a side (and a chunk's length) at 2^31-1.
#define IPNG_MAX_SIDE 0x7fffffffU
// A reader that checks a chunk's CRC before using it holds the whole chunk, so IDATs stay small.
#define IPNG_IDAT_MAX ((size_t)1 << 20)
#define IPNG_CHUNK_OVERHEAD ((size_t)12)
// Signature plus the whole IHDR chunk.
#define IPNG_HEAD_SIZE ((size_t)(8 + 12 + 13))

// Filtered data above this goes through zlib when the encode can be stopped: libdeflate takes about
// 0.03 s a MiB at level 6 on one core, so below it a stop waits at most about 0.1 s.
#define IPNG_STOPPABLE_MIN ((size_t)4 << 20)
// zlib is fed this much between two questions whether to stop (about 0.07 s at level 6).
#define IPNG_DEFLATE_STEP ((size_t)1 << 20)

static void ipng_fail(char *message, size_t message_size, const char *text) {
    if (message != NULL && message_size > 0) snprintf(message, message_size, "%s", text);
}

static void ipng_put32(uint8_t *at, uint32_t value) {
    at[0] = (uint8_t)(value >> 24);
    at[1] = (uint8_t)(value >> 16);
    at[2] = (uint8_t)(value >> 8);
    at[3] = (uint8_t)value;
}

// Writes a chunk's length and type; its data goes after. Returns where the data starts.
static uint8_t *ipng_chunk_begin(uint8_t *at, uint32_t length, const char type[4]) {
    ipng_put32(at, length);
    memcpy(at + 4, type, 4);
    return at + 8;
}

// Writes the CRC of the chunk that starts at `chunk` (its type and data). Returns the chunk's end.
static uint8_t *ipng_chunk_end(uint8_t *chunk, size_t length) {
    // libdeflate_crc32 from 0 is the plain CRC-32 PNG specifies.
    ipng_put32(chunk + 8 + length, libdeflate_crc32(0, chunk + 4, 4 + length));
    return chunk + 8 + length + 4;
}

// Fills `filtered` with each row's filter byte and filtered bytes (`ipng_filter_best`). `scratch`
// holds 5 rows: zeros, then one per filter. 0 when `should_stop` (asked every 64 rows) stopped it.
static int ipng_filter_image(const uint8_t *pixels, uint32_t height, size_t rowbytes, size_t bpp, int level,
                             uint8_t *scratch, uint8_t *filtered, int (*should_stop)(void *), void *stop_context) {
    const uint8_t *prior = scratch;
    for (uint32_t y = 0; y < height; y++) {
        if (should_stop != NULL && (y & 63) == 0 && should_stop(stop_context)) return 0;
        const uint8_t *row = pixels + (size_t)y * rowbytes;
        uint8_t *out = filtered + (size_t)y * (rowbytes + 1);
        ipng_filter_best(row, prior, rowbytes, bpp, level, scratch + rowbytes, out);
        prior = row;
    }
    return 1;
}

// `in` as one zlib stream into `out` (room for `capacity` bytes: at least compressBound(size), at
// most UINT_MAX, so each deflate call has room for all it can write), fed to zlib's deflate a step
// at a time, asking `should_stop` before each. Returns the stream's size; 0 with *stopped set when
// asked to stop, 0 alone when zlib failed.
static size_t ipng_deflate_stoppable(const uint8_t *in, size_t size, int level, uint8_t *out, size_t capacity,
                                     int (*should_stop)(void *), void *stop_context, int *stopped) {
    z_stream stream;
    memset(&stream, 0, sizeof stream);
    if (deflateInit(&stream, level) != Z_OK) return 0;
    stream.next_out = out;
    stream.avail_out = (uInt)capacity;
    size_t offset = 0;
    int status = Z_OK;
    while (status == Z_OK) {
        if (should_stop(stop_context)) {
            *stopped = 1;
            break;
        }
        size_t step = size - offset < IPNG_DEFLATE_STEP ? size - offset : IPNG_DEFLATE_STEP;
        stream.next_in = (Bytef *)(in + offset);
        stream.avail_in = (uInt)step;
        offset += step;
        status = deflate(&stream, offset == size ? Z_FINISH : Z_NO_FLUSH);
        if (status == Z_OK && (offset == size || stream.avail_in > 0)) status = Z_BUF_ERROR;  // out of room
    }
    size_t written = status == Z_STREAM_END ? (size_t)stream.total_out : 0;
    deflateEnd(&stream);
    return written;
}

int ipng_encode(const uint8_t *pixels, uint32_t width, uint32_t height, int channels, int level,
                ipng_buffer *out, int (*should_stop)(void *), void *stop_context, char *message, size_t message_size) {
    static const uint8_t color_types[] = {0, 4, 2, 6};
    memset(out, 0, sizeof *out);
    if (pixels == NULL || channels < 1 || channels > 4 || width == 0 || height == 0) {
        ipng_fail(message, message_size, "invalid image geometry");
        return 0;
    }
    if (level < 0 || level > 12) {
        ipng_fail(message, message_size, "invalid compression level");
        return 0;
    }
    if (width > IPNG_MAX_SIDE || height > IPNG_MAX_SIDE) {
        ipng_fail(message, message_size, "image is larger than PNG allows");
        return 0;
    }
    // Every size is checked before the pixels are touched, so a caller's wrong geometry fails here
    // instead of reading past its buffer.
    size_t rowbytes = (size_t)width * (size_t)channels;
    if ((size_t)width > SIZE_MAX / (size_t)channels || rowbytes > SIZE_MAX - 1 ||
        (size_t)height > SIZE_MAX / (rowbytes + 1) || rowbytes > SIZE_MAX / 5) {
        ipng_fail(message, message_size, "image is too large for memory");
        return 0;
    }
    size_t filtered_size = (size_t)height * (rowbytes + 1);

    uint8_t *filtered = malloc(filtered_size);
    uint8_t *scratch = calloc(5, rowbytes);
    if (filtered == NULL || scratch == NULL) {
        free(filtered);
        free(scratch);
        ipng_fail(message, message_size, "out of memory");
        return 0;
    }
    int filtered_whole = ipng_filter_image(pixels, height, rowbytes, (size_t)channels, level, scratch, filtered,
                                           should_stop, stop_context);
    free(scratch);
    if (!filtered_whole || (should_stop != NULL && should_stop(stop_context))) {
        free(filtered);
        return -1;
    }

    struct libdeflate_compressor *compressor = libdeflate_alloc_compressor(level);
    if (compressor == NULL) {
        free(filtered);
        ipng_fail(message, message_size, "out of memory");
        return 0;
    }
    size_t bound = libdeflate_zlib_compress_bound(compressor, filtered_size);
    // zlib's bound for the same data; outputs past 4 GiB stay with libdeflate.
    size_t zlib_bound = filtered_size < UINT_MAX ? (size_t)compressBound((uLong)filtered_size) : SIZE_MAX;
    int stoppable = should_stop != NULL && filtered_size > IPNG_STOPPABLE_MIN && zlib_bound <= UINT_MAX;
    if (stoppable && zlib_bound > bound) bound = zlib_bound;
    // Room before the compressed stream for every IDAT's length, type and CRC: the chunks are then
    // framed in place by moving the stream toward the front, with no second buffer.
    size_t max_chunks = bound / IPNG_IDAT_MAX + 1;
    size_t lead = IPNG_HEAD_SIZE + max_chunks * IPNG_CHUNK_OVERHEAD;
    if (bound < filtered_size || bound > SIZE_MAX - lead - IPNG_CHUNK_OVERHEAD) {
        libdeflate_free_compressor(compressor);
        free(filtered);
        ipng_fail(message, message_size, "image is too large for memory");
        return 0;
    }
    uint8_t *file = malloc(lead + bound + IPNG_CHUNK_OVERHEAD);
    size_t compressed = 0;
    int stopped = 0;
    if (file != NULL && stoppable) {
        compressed = ipng_deflate_stoppable(filtered, filtered_size, level, file + lead, bound, should_stop, stop_context, &stopped);
    } else if (file != NULL) {
        compressed = libdeflate_zlib_compress(compressor, filtered, filtered_size, file + lead, bound);
    }
    libdeflate_free_compressor(compressor);
    free(filtered);
    if (stopped) {
        free(file);
        return -1;
    }
    if (file == NULL || compressed == 0) {
        free(file);
        ipng_fail(message, message_size, file == NULL ? "out of memory" : "compression failed");
        return 0;
    }

    memcpy(file, "\x89PNG\r\n\x1a\n", 8);
    uint8_t *data = ipng_chunk_begin(file + 8, 13, "IHDR");
    ipng_put32(data, width);
    ipng_put32(data + 4, height);
    data[8] = 8;
    data[9] = color_types[channels - 1];
    data[10] = 0;  // compression: deflate
    data[11] = 0;  // filter method: adaptive
    data[12] = 0;  // no interlace
    uint8_t *at = ipng_chunk_end(file + 8, 13);
    // Chunk i's header and data end no later than where chunk i+1's data still waits, because the
    // lead reserved 12 bytes for each chunk (see above); memmove covers the overlap within a chunk.
    for (size_t offset = 0; offset < compressed; offset += IPNG_IDAT_MAX) {
        size_t length = compressed - offset < IPNG_IDAT_MAX ? compressed - offset : IPNG_IDAT_MAX;
        uint8_t *chunk = at;
        memmove(ipng_chunk_begin(chunk, (uint32_t)length, "IDAT"), file + lead + offset, length);
        at = ipng_chunk_end(chunk, length);
    }
    (void)ipng_chunk_begin(at, 0, "IEND");
    at = ipng_chunk_end(at, 0);

    out->size = (size_t)(at - file);
    out->capacity = lead + bound + IPNG_CHUNK_OVERHEAD;
    // The bound is far above most images' compressed size; give the slack back.
    uint8_t *fitted = realloc(file, out->size);
    if (fitted != NULL) {
        file = fitted;
        out->capacity = out->size;
    }
    out->bytes = file;
    return 1;
}

void ipng_buffer_free(ipng_buffer *buffer) {
    if (buffer == NULL) return;
    free(buffer->bytes);
    buffer->bytes = NULL;
    buffer->size = 0;
    buffer->capacity = 0;
}
