// CodersPNG's row-streaming writer: rows are filtered as they arrive and compressed a piece at a
// time, and each full IDAT goes straight to a file descriptor, so neither the image nor the file
// is ever held. Like PNGWriter.c it frames the file itself and never longjmps.
//
// The pieces are compressed with libdeflate (2-3x zlib's speed at the same level, as the one-shot
// writer uses), which only makes whole deflate streams. Every piece but the last is made a
// non-final part of one stream the way zlib's gzjoin example joins streams: inflate walks its
// blocks (Z_BLOCK) to find the last one, whose BFINAL bit is cleared, and empty blocks pad it to a
// byte boundary. The zlib header and the Adler-32 of all the filtered bytes frame the pieces.
//
// Pieces are independent, so with compressor threads they are compressed while the caller's thread
// decodes and filters the next rows. The pieces form a ring of threads + 1: the caller fills one,
// the threads take the queued ones in ring order, and the caller writes each piece's output to the
// file, in ring order, when it comes round to fill that piece again. Only the caller's thread
// touches the file; a piece belongs to whoever its state says, changed under the lock.
#include "CPNGShim.h"
#include "PNGChunk.h"
#include "PNGFilter.h"

#include <errno.h>
#include <libdeflate.h>
#include <pthread.h>
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
// How much lower the compressor threads' priority is than the caller's (nice levels).
#define IPNG_COMPRESSOR_NICENESS 5

enum ipng_piece_state {
    IPNG_PIECE_FREE,         // the caller's: empty, or being filled
    IPNG_PIECE_QUEUED,       // full, waiting for a compressor thread
    IPNG_PIECE_COMPRESSING,  // a compressor thread's
    IPNG_PIECE_DONE,         // compressed (or failed), waiting for the caller to write it
};

// Filtered rows and, once compressed, their part of the deflate stream.
typedef struct ipng_piece {
    enum ipng_piece_state state;
    int final;                // the stream's last piece: its BFINAL stays set
    const char *failure;      // why compressing it failed, or NULL
    uint8_t *filtered;
    size_t filtered_size;
    uint8_t *compressed;      // with room for the padding
    size_t compressed_size;
} ipng_piece;

struct ipng_stream_writer {
    int fd;
    size_t rowbytes;
    size_t bpp;
    int level;
    uint32_t height;
    uint32_t rows_written;
    uint32_t adler;
    uint8_t *prior;       // the previous row, zeros above the first
    uint8_t *scratch;     // one row per filter
    ipng_piece *pieces;   // the ring
    size_t piece_count;
    size_t filling;       // the piece the caller fills
    size_t piece_capacity;
    size_t compressed_capacity;
    // The caller's compressor when there are no threads; else one per thread, in `threads` order.
    struct libdeflate_compressor **compressors;
    pthread_t *threads;
    int thread_count;
    int threads_started;
    int locks_made;
    pthread_mutex_t lock;
    pthread_cond_t queued;   // a piece was queued, or the threads must stop
    pthread_cond_t done;     // a piece was compressed
    size_t next_to_take;     // the piece the threads take next, in ring order
    int stopping;
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

// Compresses `piece` with `compressor`, joinable unless it is the last; sets `failure` when not.
static void ipng_piece_compress(ipng_piece *piece, struct libdeflate_compressor *compressor, size_t capacity) {
    size_t size = libdeflate_deflate_compress(compressor, piece->filtered, piece->filtered_size, piece->compressed,
                                              capacity - IPNG_STREAM_PAD);
    piece->failure = NULL;
    if (size == 0) piece->failure = "compression failed";
    else if (!piece->final && !ipng_stream_unfinish(piece->compressed, &size)) piece->failure = "compression could not be joined";
    piece->compressed_size = size;
}

typedef struct ipng_compressor_start {
    ipng_stream_writer *writer;
    struct libdeflate_compressor *compressor;
} ipng_compressor_start;

// A compressor thread: takes queued pieces in ring order until the writer stops. It runs a few
// nice levels below the caller's thread (Linux keeps a nice value per thread): with the cores
// busy, the kernel shares out a process's (autogroup's) time among its threads, and at the same
// level the compressors took the decoder's, whose time limit then ran out (100 MP, load 9); the
// compressors take what the decoder leaves, as much as one thread had and more when cores are free.
static void *ipng_compressor_thread(void *argument) {
    ipng_compressor_start *start = argument;
    ipng_stream_writer *writer = start->writer;
    struct libdeflate_compressor *compressor = start->compressor;
    free(start);
    (void)nice(IPNG_COMPRESSOR_NICENESS);
    pthread_mutex_lock(&writer->lock);
    for (;;) {
        ipng_piece *piece = &writer->pieces[writer->next_to_take];
        if (writer->stopping) break;
        if (piece->state != IPNG_PIECE_QUEUED) {
            pthread_cond_wait(&writer->queued, &writer->lock);
            continue;
        }
        piece->state = IPNG_PIECE_COMPRESSING;
        writer->next_to_take = (writer->next_to_take + 1) % writer->piece_count;
        pthread_mutex_unlock(&writer->lock);
        ipng_piece_compress(piece, compressor, writer->compressed_capacity);
        pthread_mutex_lock(&writer->lock);
        piece->state = IPNG_PIECE_DONE;
        pthread_cond_broadcast(&writer->done);
    }
    pthread_mutex_unlock(&writer->lock);
    return NULL;
}

// Hands the piece being filled over to be compressed (the last piece when `final`): to a thread,
// or compressed here when there are none.
static void ipng_stream_submit(ipng_stream_writer *writer, int final) {
    ipng_piece *piece = &writer->pieces[writer->filling];
    piece->final = final;
    if (writer->thread_count == 0) {
        ipng_piece_compress(piece, writer->compressors[0], writer->compressed_capacity);
        piece->state = IPNG_PIECE_DONE;
        return;
    }
    pthread_mutex_lock(&writer->lock);
    piece->state = IPNG_PIECE_QUEUED;
    pthread_cond_signal(&writer->queued);
    pthread_mutex_unlock(&writer->lock);
}

// Waits for `piece` to be compressed, if it was handed over, and writes its output to the file;
// the piece is then free to fill.
static int ipng_stream_collect(ipng_stream_writer *writer, ipng_piece *piece) {
    if (writer->thread_count > 0) {
        pthread_mutex_lock(&writer->lock);
        while (piece->state == IPNG_PIECE_QUEUED || piece->state == IPNG_PIECE_COMPRESSING) {
            pthread_cond_wait(&writer->done, &writer->lock);
        }
        pthread_mutex_unlock(&writer->lock);
    }
    if (piece->state != IPNG_PIECE_DONE) return 1;
    piece->state = IPNG_PIECE_FREE;
    piece->filtered_size = 0;
    if (piece->failure != NULL) return ipng_stream_fail(writer, piece->failure);
    return ipng_stream_emit(writer, piece->compressed, piece->compressed_size);
}

// Hands the full piece over and moves on to the next piece of the ring, once its output is written.
static int ipng_stream_next_piece(ipng_stream_writer *writer) {
    ipng_stream_submit(writer, 0);
    writer->filling = (writer->filling + 1) % writer->piece_count;
    return ipng_stream_collect(writer, &writer->pieces[writer->filling]);
}

static int ipng_stream_writer_start_threads(ipng_stream_writer *writer, int threads) {
    if (pthread_mutex_init(&writer->lock, NULL) != 0) return 0;
    if (pthread_cond_init(&writer->queued, NULL) != 0) {
        pthread_mutex_destroy(&writer->lock);
        return 0;
    }
    if (pthread_cond_init(&writer->done, NULL) != 0) {
        pthread_cond_destroy(&writer->queued);
        pthread_mutex_destroy(&writer->lock);
        return 0;
    }
    writer->locks_made = 1;
    for (int index = 0; index < threads; index++) {
        ipng_compressor_start *start = malloc(sizeof *start);
        if (start == NULL) return 0;
        start->writer = writer;
        start->compressor = writer->compressors[index];
        if (pthread_create(&writer->threads[index], NULL, ipng_compressor_thread, start) != 0) {
            free(start);
            return 0;
        }
        writer->threads_started = index + 1;
    }
    return 1;
}

ipng_stream_writer *ipng_stream_writer_create(int fd, uint32_t width, uint32_t height, int channels, int level,
                                              int threads, char *message, size_t message_size) {
    const char *failure = NULL;
    if (channels < 1 || channels > 4 || width == 0 || height == 0) failure = "invalid image geometry";
    else if (level < 0 || level > 9) failure = "invalid compression level";
    else if (threads < 0 || threads > IPNG_STREAM_MAX_THREADS) failure = "invalid compressor thread count";
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
    writer->thread_count = threads;
    writer->piece_count = (size_t)threads + 1;
    size_t compressor_count = threads > 0 ? (size_t)threads : 1;
    writer->prior = calloc(1, writer->rowbytes);
    writer->scratch = malloc(4 * writer->rowbytes);
    writer->idat = malloc(IPNG_IDAT_MAX + 12);
    writer->pieces = calloc(writer->piece_count, sizeof *writer->pieces);
    writer->compressors = calloc(compressor_count, sizeof *writer->compressors);
    writer->threads = calloc(compressor_count, sizeof *writer->threads);
    int allocated = writer->prior != NULL && writer->scratch != NULL && writer->idat != NULL && writer->pieces != NULL &&
                    writer->compressors != NULL && writer->threads != NULL;
    for (size_t index = 0; allocated && index < compressor_count; index++) {
        writer->compressors[index] = libdeflate_alloc_compressor(level);
        allocated = writer->compressors[index] != NULL;
    }
    if (allocated) {
        writer->compressed_capacity =
            libdeflate_deflate_compress_bound(writer->compressors[0], writer->piece_capacity) + IPNG_STREAM_PAD;
    }
    for (size_t index = 0; allocated && index < writer->piece_count; index++) {
        // Pages of these are touched only as rows and compressed bytes fill them.
        writer->pieces[index].filtered = malloc(writer->piece_capacity);
        writer->pieces[index].compressed = malloc(writer->compressed_capacity);
        allocated = writer->pieces[index].filtered != NULL && writer->pieces[index].compressed != NULL;
    }
    if (!allocated || (threads > 0 && !ipng_stream_writer_start_threads(writer, threads))) {
        if (message != NULL && message_size > 0) snprintf(message, message_size, allocated ? "could not start a compressor thread" : "out of memory");
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
        ipng_piece *piece = &writer->pieces[writer->filling];
        if (writer->piece_capacity - piece->filtered_size < writer->rowbytes + 1) {
            if (!ipng_stream_next_piece(writer)) return 0;
            piece = &writer->pieces[writer->filling];
        }
        const uint8_t *row = rows + (size_t)y * writer->rowbytes;
        uint8_t *out = piece->filtered + piece->filtered_size;
        ipng_filter_best(row, writer->prior, writer->rowbytes, writer->bpp, writer->level, writer->scratch, out);
        writer->adler = libdeflate_adler32(writer->adler, out, writer->rowbytes + 1);
        piece->filtered_size += writer->rowbytes + 1;
        memcpy(writer->prior, row, writer->rowbytes);
        writer->rows_written++;
    }
    return 1;
}

int ipng_stream_writer_finish(ipng_stream_writer *writer) {
    if (writer->rows_written != writer->height) return ipng_stream_fail(writer, "fewer rows than the image has");
    ipng_stream_submit(writer, 1);
    // The pieces still out, oldest first: the ring from the one after the last, round to it.
    for (size_t step = 1; step <= writer->piece_count; step++) {
        ipng_piece *piece = &writer->pieces[(writer->filling + step) % writer->piece_count];
        if (!ipng_stream_collect(writer, piece)) return 0;
    }
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
    if (writer->locks_made) {
        // A thread finishes the piece it holds, takes no other, and is joined.
        pthread_mutex_lock(&writer->lock);
        writer->stopping = 1;
        pthread_cond_broadcast(&writer->queued);
        pthread_mutex_unlock(&writer->lock);
        for (int index = 0; index < writer->threads_started; index++) pthread_join(writer->threads[index], NULL);
        pthread_cond_destroy(&writer->done);
        pthread_cond_destroy(&writer->queued);
        pthread_mutex_destroy(&writer->lock);
    }
    size_t compressor_count = writer->thread_count > 0 ? (size_t)writer->thread_count : 1;
    for (size_t index = 0; writer->compressors != NULL && index < compressor_count; index++) {
        libdeflate_free_compressor(writer->compressors[index]);
    }
    for (size_t index = 0; writer->pieces != NULL && index < writer->piece_count; index++) {
        free(writer->pieces[index].filtered);
        free(writer->pieces[index].compressed);
    }
    free(writer->compressors);
    free(writer->threads);
    free(writer->pieces);
    free(writer->prior);
    free(writer->scratch);
    free(writer->idat);
    free(writer);
}
