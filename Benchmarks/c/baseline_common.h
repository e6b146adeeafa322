/* What the C baselines share: reading a file, decoding a PNG from memory through libpng,
 * libjpeg's error manager that longjmps instead of exiting, and the passes of a separable
 * resample. One copy, included by
 * coders_png_jpeg.c and thumbnail_batch.c, so both measure the same decode. */
#ifndef IMAGEPIPE_BASELINE_COMMON_H
#define IMAGEPIPE_BASELINE_COMMON_H

#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>
#include <png.h>

typedef struct { uint8_t *pixels; int width, height, channels; } image;
typedef struct { uint8_t *bytes; size_t size; } blob;

static blob read_file(const char *path) {
    blob b = {0};
    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); exit(1); }
    fseek(f, 0, SEEK_END);
    b.size = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    b.bytes = malloc(b.size);
    if (fread(b.bytes, 1, b.size, f) != b.size) { perror(path); exit(1); }
    fclose(f);
    return b;
}

typedef struct { const uint8_t *bytes; size_t size, offset; } png_source;

static void png_read_mem(png_structp png, png_bytep out, size_t n) {
    png_source *s = png_get_io_ptr(png);
    if (n > s->size - s->offset) png_error(png, "truncated");
    memcpy(out, s->bytes + s->offset, n);
    s->offset += n;
}

/* 8-bit gray, gray+alpha, RGB or RGBA, as libpng's usual expansions give it. */
static image decode_png(const uint8_t *bytes, size_t size) {
    image img = {0};
    png_source src = { bytes, size, 0 };
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    if (setjmp(png_jmpbuf(png))) { fprintf(stderr, "png decode error\n"); exit(1); }
    png_set_read_fn(png, &src, png_read_mem);
    png_read_info(png, info);
    int type = png_get_color_type(png, info), depth = png_get_bit_depth(png, info);
    if (type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
    if (type == PNG_COLOR_TYPE_GRAY && depth < 8) png_set_expand_gray_1_2_4_to_8(png);
    if (png_get_valid(png, info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(png);
    if (depth == 16) png_set_scale_16(png);
    png_set_interlace_handling(png);
    png_read_update_info(png, info);
    img.width = png_get_image_width(png, info);
    img.height = png_get_image_height(png, info);
    img.channels = png_get_channels(png, info);
    size_t stride = png_get_rowbytes(png, info);
    img.pixels = malloc(stride * img.height);
    png_bytep *rows = malloc(sizeof *rows * img.height);
    for (int y = 0; y < img.height; y++) rows[y] = img.pixels + stride * y;
    png_read_image(png, rows);
    png_read_end(png, NULL);
    png_destroy_read_struct(&png, &info, NULL);
    free(rows);
    return img;
}

typedef struct { struct jpeg_error_mgr pub; jmp_buf jump; } jpeg_error;
static void jpeg_fail(j_common_ptr c) { longjmp(((jpeg_error *)c->err)->jump, 1); }

// Starts `info` (header read, scale and colour space chosen by the caller), reads every scanline
// into a new image, and finishes and destroys the decompressor.
static image decode_jpeg_scanlines(struct jpeg_decompress_struct *info) {
    image img;
    jpeg_start_decompress(info);
    img.width = info->output_width;
    img.height = info->output_height;
    img.channels = info->output_components;
    size_t stride = (size_t)img.width * img.channels;
    img.pixels = malloc(stride * img.height);
    while (info->output_scanline < info->output_height) {
        JSAMPROW row = img.pixels + stride * info->output_scanline;
        jpeg_read_scanlines(info, &row, 1);
    }
    jpeg_finish_decompress(info);
    jpeg_destroy_decompress(info);
    return img;
}

/* One pass of a separable resample over `in` (inw x inh, ch channels) into `out`: output index o
 * along the axis is the sum of counts[o] input pixels from firsts[o], weighted by the row of
 * `taps` weights at weights + o * taps. The caller's filter chooses the weights. */
static void resample_pass(const uint8_t *in, int inw, int inh, int ch, uint8_t *out, int outsize, int horizontal,
                          const float *weights, const int *firsts, const int *counts, int taps) {
    if (horizontal) {
        for (int y = 0; y < inh; y++) {
            const uint8_t *line = in + (size_t)y * inw * ch;
            uint8_t *dst = out + (size_t)y * outsize * ch;
            for (int o = 0; o < outsize; o++) {
                const float *w = weights + (size_t)o * taps;
                const uint8_t *src = line + (size_t)firsts[o] * ch;
                for (int c = 0; c < ch; c++) {
                    float sum = 0;
                    for (int t = 0; t < counts[o]; t++) sum += w[t] * src[t * ch + c];
                    dst[o * ch + c] = sum <= 0 ? 0 : sum >= 255 ? 255 : (uint8_t)(sum + 0.5f);
                }
            }
        }
        return;
    }
    /* Whole rows at a time, so the vertical pass streams memory in order. */
    size_t rowlen = (size_t)inw * ch;
    float *acc = malloc(sizeof(float) * rowlen);
    for (int o = 0; o < outsize; o++) {
        const float *w = weights + (size_t)o * taps;
        memset(acc, 0, sizeof(float) * rowlen);
        for (int t = 0; t < counts[o]; t++) {
            const uint8_t *src = in + (size_t)(firsts[o] + t) * rowlen;
            for (size_t i = 0; i < rowlen; i++) acc[i] += w[t] * src[i];
        }
        uint8_t *dst = out + (size_t)o * rowlen;
        for (size_t i = 0; i < rowlen; i++) dst[i] = acc[i] <= 0 ? 0 : acc[i] >= 255 ? 255 : (uint8_t)(acc[i] + 0.5f);
    }
    free(acc);
}

#endif
