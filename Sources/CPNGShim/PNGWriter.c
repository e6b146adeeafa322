// CodersPNG's writer: the PNG container framed here, IDAT compressed with libdeflate. libpng is not
// involved (its writer spent most of an encode in zlib's deflate), so nothing here can longjmp.
// Large images whose encode can be cancelled go through zlib's streaming deflate instead, asking
// between steps whether to stop: libdeflate compresses in one call that cannot be interrupted.
//
// Only 8-bit gray, gray+alpha, RGB and RGBA are written, never interlaced, with no ancillary chunks.
#include "CPNGShim.h"
#include "PNGChunk.h"
#include "PNGFilter.h"

#include <libdeflate.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>


// Filtered data above this goes through zlib when the encode can be stopped: libdeflate takes about
// 0.03 s a MiB at level 6 on one core, so below it a stop waits at most about 0.1 s.
#define IPNG_STOPPABLE_MIN ((size_t)4 << 20)
// zlib is fed this much between two questions whether to stop (about 0.07 s at level 6).
#define IPNG_DEFLATE_STEP ((size_t)1 << 20)

static void ipng_fail(char *message, size_t message_size, const char *text) {
    if (message != NULL && message_size > 0) snprintf(message, message_size, "%s", text);
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

    ipng_write_head(file, width, height, channels);
    uint8_t *at = file + IPNG_HEAD_SIZE;
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
