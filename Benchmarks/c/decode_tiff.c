// libtiff called directly: each round opens the file from memory and decodes every strip or tile
// into one buffer (TIFFReadEncodedStrip / TIFFReadEncodedTile), as CodersTIFF's native path
// does, without its 16-to-8-bit and colour conversion. Images per CPU second, one thread.
// With --assemble, a tiled file's tiles are decoded into a tile buffer and their rows copied into
// an image of rows (what any program that wants the picture, CodersTIFF included, has to do);
// without, the tiles stay in tile order, which is no image yet. Strips are rows either way.
//   decode_tiff [--assemble] ROUNDS FILE...
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <tiffio.h>

typedef struct { const unsigned char *bytes; toff_t size, at; } source;
static tmsize_t rd(thandle_t h, void *b, tmsize_t n) {
    source *s = h;
    if (s->at >= s->size) return 0;
    if ((toff_t)n > s->size - s->at) n = (tmsize_t)(s->size - s->at);
    memcpy(b, s->bytes + s->at, (size_t)n);
    s->at += (toff_t)n;
    return n;
}
static tmsize_t wr(thandle_t h, void *b, tmsize_t n) { (void)h; (void)b; (void)n; return -1; }
static toff_t sk(thandle_t h, toff_t o, int w) {
    source *s = h;
    s->at = w == SEEK_SET ? o : w == SEEK_CUR ? s->at + o : s->size + o;
    return s->at;
}
static int cl(thandle_t h) { (void)h; return 0; }
static toff_t sz(thandle_t h) { return ((source *)h)->size; }
static int mp(thandle_t h, void **b, toff_t *n) { *b = (void *)((source *)h)->bytes; *n = ((source *)h)->size; return 1; }
static void um(thandle_t h, void *b, toff_t n) { (void)h; (void)b; (void)n; }
static double cpu(void) { struct timespec t; clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t); return t.tv_sec + t.tv_nsec / 1e9; }

int main(int argc, char **argv) {
    int assemble = argc > 1 && strcmp(argv[1], "--assemble") == 0;
    if (assemble) { argc--; argv++; }
    if (argc < 3) { fprintf(stderr, "usage: decode_tiff [--assemble] ROUNDS FILE...\n"); return 2; }
    int rounds = atoi(argv[1]);
    TIFFSetErrorHandler(NULL);
    TIFFSetWarningHandler(NULL);
    for (int f = 2; f < argc; f++) {
        FILE *file = fopen(argv[f], "rb");
        if (!file) return 1;
        fseek(file, 0, SEEK_END);
        long size = ftell(file);
        fseek(file, 0, SEEK_SET);
        unsigned char *bytes = malloc((size_t)size);
        if (fread(bytes, 1, (size_t)size, file) != (size_t)size) return 1;
        fclose(file);
        long checksum = 0;
        double start = cpu();
        for (int r = 0; r < rounds; r++) {
            source s = {bytes, (toff_t)size, 0};
            TIFF *tiff = TIFFClientOpen("bench", "r", &s, rd, wr, sk, cl, sz, mp, um);
            if (!tiff) return 1;
            int tiled = TIFFIsTiled(tiff);
            tmsize_t piece = tiled ? TIFFTileSize(tiff) : TIFFStripSize(tiff);
            uint32_t count = tiled ? TIFFNumberOfTiles(tiff) : TIFFNumberOfStrips(tiff);
            unsigned char *buffer = malloc((size_t)piece * count);
            if (tiled && assemble) {
                uint32_t width, height, tw, th;
                uint16_t spp = 1, bits = 8;
                TIFFGetField(tiff, TIFFTAG_IMAGEWIDTH, &width);
                TIFFGetField(tiff, TIFFTAG_IMAGELENGTH, &height);
                TIFFGetField(tiff, TIFFTAG_TILEWIDTH, &tw);
                TIFFGetField(tiff, TIFFTAG_TILELENGTH, &th);
                TIFFGetFieldDefaulted(tiff, TIFFTAG_SAMPLESPERPIXEL, &spp);
                TIFFGetFieldDefaulted(tiff, TIFFTAG_BITSPERSAMPLE, &bits);
                size_t pixel = (size_t)spp * bits / 8, row = (size_t)width * pixel, tileRow = (size_t)tw * pixel;
                unsigned char *tile = malloc((size_t)piece);
                for (uint32_t y = 0; y < height; y += th)
                    for (uint32_t x = 0; x < width; x += tw) {
                        if (TIFFReadEncodedTile(tiff, TIFFComputeTile(tiff, x, y, 0, 0), tile, piece) < 0) return 1;
                        size_t columns = (width - x < tw ? width - x : tw) * pixel;
                        for (uint32_t r = 0; r < th && y + r < height; r++) memcpy(buffer + (y + r) * row + x * pixel, tile + r * tileRow, columns);
                    }
                free(tile);
            } else {
                for (uint32_t i = 0; i < count; i++) {
                    tmsize_t n = tiled ? TIFFReadEncodedTile(tiff, i, buffer + piece * i, piece) : TIFFReadEncodedStrip(tiff, i, buffer + piece * i, piece);
                    if (n < 0) return 1;
                }
            }
            checksum += buffer[piece * count / 2];
            free(buffer);
            TIFFClose(tiff);
        }
        double seconds = cpu() - start;
        const char *name = strrchr(argv[f], '/');
        printf("libtiff%s %s %.2f images/cpu-s (checksum %ld)\n", assemble ? "+assemble" : "", name ? name + 1 : argv[f], rounds / seconds, checksum);
        free(bytes);
    }
    return 0;
}
