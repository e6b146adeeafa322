// PNG's framing, shared by the one-shot writer (PNGWriter.c) and the row-streaming writer
// (PNGStreamWriter.c): the limits, big-endian numbers, chunks and the IHDR they both write.
#ifndef IPNG_CHUNK_H
#define IPNG_CHUNK_H

#include <libdeflate.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

// PNG caps a side (and a chunk's length) at 2^31-1.
#define IPNG_MAX_SIDE 0x7fffffffU
// A reader that checks a chunk's CRC before using it holds the whole chunk, so IDATs stay small.
#define IPNG_IDAT_MAX ((size_t)1 << 20)
#define IPNG_CHUNK_OVERHEAD ((size_t)12)
// Signature plus the whole IHDR chunk.
#define IPNG_HEAD_SIZE ((size_t)(8 + 12 + 13))

static inline void ipng_put32(uint8_t *at, uint32_t value) {
    at[0] = (uint8_t)(value >> 24);
    at[1] = (uint8_t)(value >> 16);
    at[2] = (uint8_t)(value >> 8);
    at[3] = (uint8_t)value;
}

// Writes a chunk's length and type; its data goes after. Returns where the data starts.
static inline uint8_t *ipng_chunk_begin(uint8_t *at, uint32_t length, const char type[4]) {
    ipng_put32(at, length);
    memcpy(at + 4, type, 4);
    return at + 8;
}

// Writes the CRC of the chunk that starts at `chunk` (its type and data). Returns the chunk's end.
static inline uint8_t *ipng_chunk_end(uint8_t *chunk, size_t length) {
    // libdeflate_crc32 from 0 is the plain CRC-32 PNG specifies.
    ipng_put32(chunk + 8 + length, libdeflate_crc32(0, chunk + 4, 4 + length));
    return chunk + 8 + length + 4;
}

// Writes the signature and IHDR of an 8-bit, non-interlaced image of `channels` (1 gray, 2 gray
// and alpha, 3 RGB, 4 RGBA) into `head` (IPNG_HEAD_SIZE bytes).
static inline void ipng_write_head(uint8_t *head, uint32_t width, uint32_t height, int channels) {
    static const uint8_t color_types[] = {0, 4, 2, 6};
    memcpy(head, "\x89PNG\r\n\x1a\n", 8);
    uint8_t *data = ipng_chunk_begin(head + 8, 13, "IHDR");
    ipng_put32(data, width);
    ipng_put32(data + 4, height);
    data[8] = 8;
    data[9] = color_types[channels - 1];
    data[10] = 0;  // compression: deflate
    data[11] = 0;  // filter method: adaptive
    data[12] = 0;  // no interlace
    ipng_chunk_end(head + 8, 13);
}

#endif
