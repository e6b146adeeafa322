// The baseline ImagePipe's PNG and JPEG coders are measured against: the same libraries called
// directly, the way a small C program would, with the same output layouts (8-bit RGB/RGBA/gray).
//
//   coders_png_jpeg decode png|jpeg SECONDS FILE...   full decodes per second
//   coders_png_jpeg thumb png|jpeg SIZE SECONDS FILE... SIZExSIZE-fit thumbnails per second
//                                                  (JPEG: libjpeg DCT scaling, then a triangle resample)
//   coders_png_jpeg peak full|thumb SIZE FILE        decode once, print peak RSS in KiB
//   coders_png_jpeg makepng WIDTH HEIGHT FILE          write a large RGB test PNG (zlib level 1)
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>
#include <png.h>
#include "baseline_common.h"
#include <sys/resource.h>
#include <time.h>

// CPU time of this process, not wall time: on a shared machine, time spent descheduled while
// others run would otherwise count against whichever program was unlucky.
static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

// MARK: JPEG

static void jpeg_quiet(j_common_ptr c, int level) { (void)c; (void)level; }

static image decode_jpeg(blob b, int denominator) {
    struct jpeg_decompress_struct info;
    jpeg_error err;
    info.err = jpeg_std_error(&err.pub);
    err.pub.error_exit = jpeg_fail;
    err.pub.emit_message = jpeg_quiet;
    if (setjmp(err.jump)) { fprintf(stderr, "jpeg error\n"); exit(1); }
    jpeg_create_decompress(&info);
    jpeg_mem_src(&info, b.bytes, b.size);
    jpeg_read_header(&info, TRUE);
    info.out_color_space = info.jpeg_color_space == JCS_GRAYSCALE ? JCS_GRAYSCALE : JCS_RGB;
    info.scale_num = 1;
    info.scale_denom = denominator;
    return decode_jpeg_scanlines(&info);
}

// libvips' rule: the largest of 1/8, 1/4, 1/2 that leaves at least 2x for the resample.
static int jpeg_denominator(int width, int height, int box) {
    double sx = (double)width / box, sy = (double)height / box;
    double shrink = sx > sy ? sx : sy;  // fit: the larger ratio decides the thumbnail size
    for (int d = 8; d >= 2; d /= 2) if (shrink >= 2.0 * d) return d;
    return 1;
}

static void jpeg_size(blob b, int *width, int *height) {
    struct jpeg_decompress_struct info;
    jpeg_error err;
    info.err = jpeg_std_error(&err.pub);
    err.pub.error_exit = jpeg_fail;
    if (setjmp(err.jump)) exit(1);
    jpeg_create_decompress(&info);
    jpeg_mem_src(&info, b.bytes, b.size);
    jpeg_read_header(&info, TRUE);
    *width = info.image_width;
    *height = info.image_height;
    jpeg_destroy_decompress(&info);
}

// MARK: resample (separable triangle filter, widened by the scale when shrinking)

static uint8_t *resample_axis(const uint8_t *in, int inw, int inh, int ch, int outw, int outh, int horizontal) {
    int insize = horizontal ? inw : inh, outsize = horizontal ? outw : outh;
    uint8_t *out = malloc((size_t)outw * outh * ch);
    double scale = (double)insize / outsize, support = scale > 1 ? scale : 1;
    int taps = (int)(support * 2) + 2;
    // Weights for every output index first, so the passes below only stream pixels.
    float *weights = calloc((size_t)outsize * taps, sizeof(float));
    int *firsts = malloc(sizeof(int) * outsize), *counts = malloc(sizeof(int) * outsize);
    for (int o = 0; o < outsize; o++) {
        double center = (o + 0.5) * scale;
        int first = (int)(center - support + 0.5); if (first < 0) first = 0;
        int last = (int)(center + support + 0.5); if (last > insize) last = insize;
        int count = last - first; if (count > taps) count = taps;
        float *w = weights + (size_t)o * taps;
        double total = 0;
        for (int t = 0; t < count; t++) {
            double x = ((first + t) - center + 0.5) / support;
            double v = x < 0 ? 1 + x : 1 - x;
            w[t] = v > 0 ? (float)v : 0;
            total += w[t];
        }
        for (int t = 0; t < count; t++) w[t] = total > 0 ? (float)(w[t] / total) : 0;
        firsts[o] = first;
        counts[o] = count;
    }
    resample_pass(in, inw, inh, ch, out, outsize, horizontal, weights, firsts, counts, taps);
    free(weights);
    free(firsts);
    free(counts);
    return out;
}

static image resample(image in, int box) {
    int w = in.width, h = in.height;
    if (w >= h) { h = (int)((long)box * in.height / in.width); w = box; } else { w = (int)((long)box * in.width / in.height); h = box; }
    if (w < 1) w = 1;
    if (h < 1) h = 1;
    if (w >= in.width || h >= in.height) return in;
    uint8_t *horizontal = resample_axis(in.pixels, in.width, in.height, in.channels, w, in.height, 1);
    uint8_t *both = resample_axis(horizontal, w, in.height, in.channels, w, h, 0);
    free(horizontal);
    free(in.pixels);
    return (image){ both, w, h, in.channels };
}

static image thumbnail(blob b, int is_png, int box) {
    if (is_png) return resample(decode_png(b.bytes, b.size), box);
    int width, height;
    jpeg_size(b, &width, &height);
    return resample(decode_jpeg(b, jpeg_denominator(width, height, box)), box);
}

static void make_png(int width, int height, const char *path) {
    FILE *f = fopen(path, "wb");
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    if (setjmp(png_jmpbuf(png))) exit(1);
    png_init_io(png, f);
    png_set_IHDR(png, info, width, height, 8, PNG_COLOR_TYPE_RGB, 0, 0, 0);
    png_set_compression_level(png, 1);
    png_write_info(png, info);
    uint8_t *row = malloc((size_t)width * 3);
    for (int y = 0; y < height; y++) {
        for (int x = 0; x < width; x++) {
            row[x * 3] = (uint8_t)(x * 255 / width);
            row[x * 3 + 1] = (uint8_t)(y * 255 / height);
            row[x * 3 + 2] = (uint8_t)((x ^ y) & 0xFF);
        }
        png_write_row(png, row);
    }
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    fclose(f);
    free(row);
}

int main(int argc, char **argv) {
    if (argc >= 5 && strcmp(argv[1], "makepng") == 0) {
        make_png(atoi(argv[2]), atoi(argv[3]), argv[4]);
        return 0;
    }
    if (argc >= 5 && strcmp(argv[1], "peak") == 0) {
        blob b = read_file(argv[4]);
        int is_png = b.bytes[0] == 0x89;
        image img = strcmp(argv[2], "thumb") == 0 ? thumbnail(b, is_png, atoi(argv[3]))
                  : is_png ? decode_png(b.bytes, b.size) : decode_jpeg(b, 1);
        struct rusage usage;
        getrusage(RUSAGE_SELF, &usage);
        printf("%dx%d peak_kib %ld\n", img.width, img.height, usage.ru_maxrss);
        return 0;
    }
    int thumb = argc >= 6 && strcmp(argv[1], "thumb") == 0;
    if (!thumb && !(argc >= 5 && strcmp(argv[1], "decode") == 0)) {
        fprintf(stderr, "usage: see the comment at the top of coders_png_jpeg.c\n");
        return 2;
    }
    int is_png = strcmp(argv[2], "png") == 0;
    int box = thumb ? atoi(argv[3]) : 0;
    double seconds = atof(argv[thumb ? 4 : 3]);
    int first = thumb ? 5 : 4, count = argc - first;
    blob *files = malloc(sizeof *files * count);
    for (int i = 0; i < count; i++) files[i] = read_file(argv[first + i]);
    long done = 0;
    double start = now(), elapsed = 0;
    do {
        for (int i = 0; i < count; i++) {
            image img = thumb ? thumbnail(files[i], is_png, box) : is_png ? decode_png(files[i].bytes, files[i].size) : decode_jpeg(files[i], 1);
            free(img.pixels);
            done++;
        }
        elapsed = now() - start;
    } while (elapsed < seconds);
    printf("%.2f\n", done / elapsed);
    return 0;
}
