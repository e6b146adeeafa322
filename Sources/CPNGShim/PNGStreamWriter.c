// CodersPNG's row-streaming writer: rows are filtered as they arrive and compressed a piece at a
// time, and each full IDAT goes straight to a file descriptor, so neither the image nor the file
// is ever held. Like PNGWriter.c it frames the file itself and never longjmps.
//
// The pieces are compressed with libdeflate (2-3x zlib's speed at the same level, as the one-shot
// writer uses), which only makes whole deflate streams. Every piece but the last is made a
// non-final part of one stream the way zlib's gzjoin example joins streams: inflate walks its
// blocks (Z_BLOCK) to find the last one, whose BFINAL bit is cleared, and empty blocks pad it to a
// byte boundary. The zlib header and the Adler-32 of all the filtered bytes frame the pieces.
#include "CPNGShim.h"
#include "PNGChunk.h"
#include "PNGFilter.h"

#include <errno.h>
#include <libdeflate.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

// Filtered bytes compressed at a time: large enough that starting each piece without the previous
// one's 32 KiB window costs little, small enough to stay a few MiB.
#define IPNG_STREAM_PIECE ((size_t)4 << 20)
// Room gzjoin's padding may add after a piece: an empty stored block and its header byte.
#define IPNG_STREAM_PAD 6

struct ipng_stream_writer {
    int fd;
    size_t rowbytes;
    size_t bpp;
    int level;
    uint32_t height;
    uint32_t rows_written;
    uint32_t adler;
    struct libdeflate_compressor *compressor;
    uint8_t *prior;       // the previous row, zeros above the first
    uint8_t *scratch;     // one row per filter
    uint8_t *piece;       // filtered rows waiting to be compressed
    size_t piece_size;
    size_t piece_capacity;
    uint8_t *compressed;  // one piece compressed, with room for the padding
    size_t compressed_capacity;
    uint8_t *idat;        // length, type, up to IPNG_IDAT_MAX bytes of data, CRC
    size_t idat_size;
    char message[256];
};

static int ipng_stream_fail(ipng_stream_writer *writer, const char *text) {
    snprintf(writer->message, sizeof writer->message, "%s", text);
    return 0;
}

static int ipng_stream_write_all(ipng_stream_writer *writer, const uint8_t *bytes, size_t size) {
    while (size > 0) {
        ssize_t n = write(writer->fd, bytes, size);
        if (n < 0) {
            if (errno == EINTR) continue;
            snprintf(writer->message, sizeof writer->message, "writing the file: %s", strerror(errno));
            return 0;
        }
        bytes += n;
        size -= (size_t)n;
    }
    return 1;
}

// Writes a whole chunk of `length` data bytes that already sit at `chunk + 8`.
static int ipng_stream_write_chunk(ipng_stream_writer *writer, uint8_t *chunk, size_t length, const char type[4]) {
    ipng_chunk_begin(chunk, (uint32_t)length, type);
    ipng_chunk_end(chunk, length);
    return ipng_stream_write_all(writer, chunk, 12 + length);
}

// Appends zlib stream bytes to the IDAT being filled, writing each one as it fills.
static int ipng_stream_emit(ipng_stream_writer *writer, const uint8_t *bytes, size_t size) {
    while (size > 0) {
        size_t room = IPNG_IDAT_MAX - writer->idat_size;
        size_t step = size < room ? size : room;
        memcpy(writer->idat + 8 + writer->idat_size, bytes, step);
        writer->idat_size += step;
        bytes += step;
        size -= step;
        if (writer->idat_size == IPNG_IDAT_MAX) {
            if (!ipng_stream_write_chunk(writer, writer->idat, writer->idat_size, "IDAT")) return 0;
            writer->idat_size = 0;
        }
    }
    return 1;
}

// Makes the whole raw deflate stream `stream` (`*size` bytes, room for IPNG_STREAM_PAD more) a
// non-final part of a longer one: its last block's BFINAL bit cleared and empty blocks appended
// up to a byte boundary (zlib's examples/gzjoin.c). 0 when inflate cannot follow it.
static int ipng_stream_unfinish(uint8_t *stream, size_t *size) {
    z_stream inflater;
    memset(&inflater, 0, sizeof inflater);
    if (inflateInit2(&inflater, -15) != Z_OK) return 0;
    uint8_t junk[32768];
    inflater.next_in = stream;
    inflater.avail_in = (uInt)*size;
    // The bit that holds the current block's BFINAL: the first block's is the stream's first bit.
    size_t header_byte = 0;
    unsigned header_bit = 1;
    int ok = 0;
    for (;;) {
        inflater.next_out = junk;
        inflater.avail_out = sizeof junk;
        int status = inflate(&inflater, Z_BLOCK);
        if (status != Z_OK && status != Z_STREAM_END && status != Z_BUF_ERROR) break;
        if (inflater.data_type & 128) {
            size_t used = (size_t)(inflater.next_in - stream);
            unsigned unused = (unsigned)inflater.data_type & 7;
            if (inflater.data_type & 64) {
                // The block that just ended was the last: clear its BFINAL and pad.
                stream[header_byte] &= (uint8_t)~header_bit;
                size_t end = used;
                if (unused != 0) {
                    uint8_t last = stream[end - 1] & (uint8_t)((0x100u >> unused) - 1);
                    if (unused & 1) {
                        // Odd: an empty stored block (3 header bits, then a byte boundary).
                        stream[end - 1] = last;
                        if (unused == 1) stream[end++] = 0;
                        memcpy(stream + end, "\0\0\xff\xff", 4);
                        end += 4;
                    } else {
                        // Even: one, two or three empty fixed blocks (10 bits each).
                        switch (unused) {
                        case 6:
                            stream[end - 1] = last | 8;
                            last = 0;
                            stream[end++] = last | 0x20;
                            stream[end++] = 0x80;
                            stream[end++] = 0;
                            break;
                        case 4:
                            stream[end - 1] = last | 0x20;
                            stream[end++] = 0x80;
                            stream[end++] = 0;
                            break;
                        default:  // 2
                            stream[end - 1] = last | 0x80;
                            stream[end++] = 0;
                            break;
                        }
                    }
                }
                *size = end;
                ok = 1;
                break;
            }
            // The next block's header starts right after the bits used so far.
            if (unused != 0) {
                header_byte = used - 1;
                header_bit = 0x100u >> unused;
            } else {
                header_byte = used;
                header_bit = 1;
            }
        }
        if (status == Z_STREAM_END || (inflater.avail_in == 0 && inflater.avail_out != 0)) break;
    }
    inflateEnd(&inflater);
    return ok;
}

// Compresses the waiting filtered rows as the next piece of the stream (the last when `final`).
static int ipng_stream_flush_piece(ipng_stream_writer *writer, int final) {
    size_t size = libdeflate_deflate_compress(writer->compressor, writer->piece, writer->piece_size, writer->compressed,
                                              writer->compressed_capacity - IPNG_STREAM_PAD);
    if (size == 0) return ipng_stream_fail(writer, "compression failed");
    if (!final && !ipng_stream_unfinish(writer->compressed, &size)) return ipng_stream_fail(writer, "compression could not be joined");
    writer->piece_size = 0;
    return ipng_stream_emit(writer, writer->compressed, size);
}

ipng_stream_writer *ipng_stream_writer_create(int fd, uint32_t width, uint32_t height, int channels, int level,
                                              char *message, size_t message_size) {
    const char *failure = NULL;
    if (channels < 1 || channels > 4 || width == 0 || height == 0) failure = "invalid image geometry";
    else if (level < 0 || level > 9) failure = "invalid compression level";
    else if (width > IPNG_MAX_SIDE || height > IPNG_MAX_SIDE) failure = "image is larger than PNG allows";
    // A row and its filter byte go to inflate in one piece, whose counts are 32-bit.
    else if ((uint64_t)width * (uint64_t)channels + 1 > UINT32_MAX / 2) failure = "image is too large for memory";
    if (failure != NULL) {
        if (message != NULL && message_size > 0) snprintf(message, message_size, "%s", failure);
        return NULL;
    }
    ipng_stream_writer *writer = calloc(1, sizeof *writer);
    if (writer == NULL) {
        if (message != NULL && message_size > 0) snprintf(message, message_size, "out of memory");
        return NULL;
    }
    writer->fd = fd;
    writer->rowbytes = (size_t)width * (size_t)channels;
    writer->bpp = (size_t)channels;
    writer->level = level;
    writer->height = height;
    writer->adler = 1;
    writer->piece_capacity = writer->rowbytes + 1 > IPNG_STREAM_PIECE ? writer->rowbytes + 1 : IPNG_STREAM_PIECE;
    writer->compressor = libdeflate_alloc_compressor(level);
    writer->prior = calloc(1, writer->rowbytes);
    writer->scratch = malloc(4 * writer->rowbytes);
    writer->piece = malloc(writer->piece_capacity);
    writer->idat = malloc(IPNG_IDAT_MAX + 12);
    if (writer->compressor != NULL) {
        writer->compressed_capacity =
            libdeflate_deflate_compress_bound(writer->compressor, writer->piece_capacity) + IPNG_STREAM_PAD;
        writer->compressed = malloc(writer->compressed_capacity);
    }
    if (writer->compressor == NULL || writer->prior == NULL || writer->scratch == NULL || writer->piece == NULL ||
        writer->idat == NULL || writer->compressed == NULL) {
        if (message != NULL && message_size > 0) snprintf(message, message_size, "out of memory");
        ipng_stream_writer_destroy(writer);
        return NULL;
    }

    uint8_t head[IPNG_HEAD_SIZE];
    ipng_write_head(head, width, height, channels);
    // The zlib header libdeflate's own zlib wrapper writes: 32 KiB window, the level's hint.
    uint8_t zlib_header[2] = {0x78, level < 2 ? 0x01 : level < 6 ? 0x5E : level == 6 ? 0x9C : 0xDA};
    if (!ipng_stream_write_all(writer, head, IPNG_HEAD_SIZE) ||
        !ipng_stream_emit(writer, zlib_header, 2)) {
        if (message != NULL && message_size > 0) snprintf(message, message_size, "%s", writer->message);
        ipng_stream_writer_destroy(writer);
        return NULL;
    }
    return writer;
}

int ipng_stream_writer_write_rows(ipng_stream_writer *writer, const uint8_t *rows, uint32_t count) {
    if (count > writer->height - writer->rows_written) return ipng_stream_fail(writer, "more rows than the image has");
    for (uint32_t y = 0; y < count; y++) {
        if (writer->piece_capacity - writer->piece_size < writer->rowbytes + 1 && !ipng_stream_flush_piece(writer, 0)) return 0;
        const uint8_t *row = rows + (size_t)y * writer->rowbytes;
        uint8_t *out = writer->piece + writer->piece_size;
        ipng_filter_best(row, writer->prior, writer->rowbytes, writer->bpp, writer->level, writer->scratch, out);
        writer->adler = libdeflate_adler32(writer->adler, out, writer->rowbytes + 1);
        writer->piece_size += writer->rowbytes + 1;
        memcpy(writer->prior, row, writer->rowbytes);
        writer->rows_written++;
    }
    return 1;
}

int ipng_stream_writer_finish(ipng_stream_writer *writer) {
    if (writer->rows_written != writer->height) return ipng_stream_fail(writer, "fewer rows than the image has");
    if (!ipng_stream_flush_piece(writer, 1)) return 0;
    uint8_t adler[4];
    ipng_put32(adler, writer->adler);
    if (!ipng_stream_emit(writer, adler, 4)) return 0;
    if (writer->idat_size > 0 && !ipng_stream_write_chunk(writer, writer->idat, writer->idat_size, "IDAT")) return 0;
    writer->idat_size = 0;
    uint8_t iend[12];
    return ipng_stream_write_chunk(writer, iend, 0, "IEND");
}

const char *ipng_stream_writer_message(const ipng_stream_writer *writer) { return writer->message; }

void ipng_stream_writer_destroy(ipng_stream_writer *writer) {
    if (writer == NULL) return;
    libdeflate_free_compressor(writer->compressor);
    free(writer->prior);
    free(writer->scratch);
    free(writer->piece);
    free(writer->compressed);
    free(writer->idat);
    free(writer);
}
