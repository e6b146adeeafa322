// PNG's row filters and libpng's rule for choosing one, shared by the one-shot writer
// (PNGWriter.c) and the row-streaming writer (PNGStreamWriter.c).
#ifndef IPNG_FILTER_H
#define IPNG_FILTER_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { IPNG_FILTER_NONE, IPNG_FILTER_SUB, IPNG_FILTER_UP, IPNG_FILTER_AVERAGE, IPNG_FILTER_PAETH };

static inline uint8_t ipng_paeth(uint8_t a, uint8_t b, uint8_t c) {
    int p = a + b - c;
    int pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
    if (pa <= pb && pa <= pc) return a;
    return pb <= pc ? b : c;
}

// libpng's heuristic weight: a filtered byte read as signed, so small steps either way count little.
static inline uint64_t ipng_weight(uint8_t value) { return value < 128 ? value : 256u - value; }

static inline uint64_t ipng_weigh_row(const uint8_t *row, size_t count) {
    uint64_t sum = 0;
    for (size_t i = 0; i < count; i++) sum += ipng_weight(row[i]);
    return sum;
}

// Filters `row` with `filter` into `out` and returns the filtered bytes' weight. Left of the first
// pixel counts as 0; `prior` is the previous row (zeros above the first).
static inline uint64_t ipng_filter_row(int filter, const uint8_t *row, const uint8_t *prior, size_t bpp, size_t count,
                                uint8_t *out) {
    size_t lead = bpp < count ? bpp : count;
    switch (filter) {
    case IPNG_FILTER_SUB:
        for (size_t i = 0; i < lead; i++) out[i] = row[i];
        for (size_t i = bpp; i < count; i++) out[i] = (uint8_t)(row[i] - row[i - bpp]);
        break;
    case IPNG_FILTER_UP:
        for (size_t i = 0; i < count; i++) out[i] = (uint8_t)(row[i] - prior[i]);
        break;
    case IPNG_FILTER_AVERAGE:
        for (size_t i = 0; i < lead; i++) out[i] = (uint8_t)(row[i] - (prior[i] >> 1));
        for (size_t i = bpp; i < count; i++) out[i] = (uint8_t)(row[i] - ((row[i - bpp] + prior[i]) >> 1));
        break;
    default:  // Paeth; with nothing to the left it predicts the byte above.
        for (size_t i = 0; i < lead; i++) out[i] = (uint8_t)(row[i] - prior[i]);
        for (size_t i = bpp; i < count; i++) {
            out[i] = (uint8_t)(row[i] - ipng_paeth(row[i - bpp], prior[i], prior[i - bpp]));
        }
        break;
    }
    return ipng_weigh_row(out, count);
}

// Filters one row into `out` (its filter byte, then `rowbytes` bytes) as libpng would choose: level
// 0 stores it unfiltered (it asks for speed, not size); otherwise the smallest weight, the earlier
// filter on a tie. `prior` is the previous row (zeros above the first); `scratch` holds 4 rows.
static inline void ipng_filter_best(const uint8_t *row, const uint8_t *prior, size_t rowbytes, size_t bpp, int level,
                                    uint8_t *scratch, uint8_t *out) {
    int best = IPNG_FILTER_NONE;
    const uint8_t *best_bytes = row;
    if (level > 0) {
        uint64_t best_weight = ipng_weigh_row(row, rowbytes);
        for (int filter = IPNG_FILTER_SUB; filter <= IPNG_FILTER_PAETH; filter++) {
            uint8_t *candidate = scratch + (size_t)(filter - 1) * rowbytes;
            uint64_t weight = ipng_filter_row(filter, row, prior, bpp, rowbytes, candidate);
            if (weight < best_weight) {
                best = filter;
                best_weight = weight;
                best_bytes = candidate;
            }
        }
    }
    out[0] = (uint8_t)best;
    memcpy(out + 1, best_bytes, rowbytes);
}

#endif
