// libtiff called directly: each round opens the file from memory and decodes every strip or tile
// into one buffer (TIFFReadEncodedStrip / TIFFReadEncodedTile), as CodersTIFF's native path
// does, without its 16-to-8-bit and colour conversion. Images per CPU second, one thread.
//   decode_tiff ROUNDS FILE...
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
    if (argc < 3) { fprintf(stderr, "usage: decode_tiff ROUNDS FILE...\n"); return 2; }
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
            for (uint32_t i = 0; i < count; i++) {
                tmsize_t n = tiled ? TIFFReadEncodedTile(tiff, i, buffer + piece * i, piece) : TIFFReadEncodedStrip(tiff, i, buffer + piece * i, piece);
                if (n < 0) return 1;
            }
            checksum += buffer[piece * count / 2];
            free(buffer);
            TIFFClose(tiff);
        }
        double seconds = cpu() - start;
        const char *name = strrchr(argv[f], '/');
        printf("libtiff %s %.2f images/cpu-s (checksum %ld)\n", name ? name + 1 : argv[f], rounds / seconds, checksum);
        free(bytes);
    }
    return 0;
}
