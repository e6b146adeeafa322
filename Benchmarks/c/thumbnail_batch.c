/* The C baseline for Benchmarks/scripts/compare.sh: one thread doing what `imagepipe fetch` does to each
 * file, with the same libraries (libjpeg-turbo, libpng, libwebp) called directly, and the same
 * shortcuts ImagePipe's coders take:
 *   JPEG: DCT-scaled decode (the largest 1/2, 1/4, 1/8 that leaves 2x for the resample), libjpeg's
 *         merged (non-fancy) chroma upsampling when shrinking, and a Catmull-Rom resample;
 *   PNG:  full decode, integer box shrink that leaves 2x, then the resample;
 *   WebP: libwebp's own scaler straight to the thumbnail size;
 *   GIF:  the first frame only (what a still output shows), giflib, palette and transparency applied;
 * other resamples are a separable Lanczos-3; the output is encoded in the input's format (JPEG and WebP
 * at QUALITY, PNG at zlib level 6), or, in `jpeg` mode, always as a JPEG at QUALITY (alpha
 * composited over white, as ImagePipe's JPEG encoder does), or, in `png` mode, the full image
 * re-encoded as PNG.
 *
 *   thumbnail_batch thumb SIZE QUALITY OUTDIR FILE...
 *   thumbnail_batch jpeg  SIZE QUALITY OUTDIR FILE...
 *   thumbnail_batch png   0    0       OUTDIR FILE...
 *
 * Prints "images N cpu_s S" (user + system CPU of this process) on stdout. */
#include <math.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>
#include <png.h>
#include "baseline_common.h"
#include <sys/resource.h>
#include <webp/decode.h>
#include <webp/encode.h>
#include <gif_lib.h>

typedef enum { JPEG, PNG, WEBP, GIF } format;

static format sniff(const uint8_t *b, size_t n) {
    if (n > 3 && b[0] == 0xFF && b[1] == 0xD8) return JPEG;
    if (n > 8 && memcmp(b, "\x89PNG", 4) == 0) return PNG;
    if (n > 12 && memcmp(b, "RIFF", 4) == 0 && memcmp(b + 8, "WEBP", 4) == 0) return WEBP;
    if (n > 6 && memcmp(b, "GIF8", 4) == 0) return GIF;
    fprintf(stderr, "unknown format\n");
    exit(1);
}

/* The thumbnail size: fit inside box x box, never upscaled. */
static void fit(int w, int h, int box, int *ow, int *oh) {
    if (w <= box && h <= box) { *ow = w; *oh = h; return; }
    if (w >= h) { *ow = box; *oh = (int)lround((double)h * box / w); }
    else { *oh = box; *ow = (int)lround((double)w * box / h); }
    if (*ow < 1) *ow = 1;
    if (*oh < 1) *oh = 1;
}

/* MARK: JPEG */


static image decode_jpeg(const uint8_t *bytes, size_t size, int box) {
    struct jpeg_decompress_struct info;
    jpeg_error err;
    info.err = jpeg_std_error(&err.pub);
    err.pub.error_exit = jpeg_fail;
    if (setjmp(err.jump)) { fprintf(stderr, "jpeg decode error\n"); exit(1); }
    jpeg_create_decompress(&info);
    jpeg_mem_src(&info, bytes, size);
    jpeg_read_header(&info, TRUE);
    info.out_color_space = info.jpeg_color_space == JCS_GRAYSCALE ? JCS_GRAYSCALE : JCS_RGB;
    if (box > 0) {
        int tw, th;
        fit(info.image_width, info.image_height, box, &tw, &th);
        double shrink = (double)info.image_width / tw;
        info.scale_num = 1;
        info.scale_denom = 1;
        for (int d = 8; d >= 2; d /= 2) if (shrink >= 2.0 * d) { info.scale_denom = d; break; }
        if (tw != (int)info.image_width || th != (int)info.image_height) info.do_fancy_upsampling = FALSE;
    }
    return decode_jpeg_scanlines(&info);
}

static void write_jpeg(const char *path, image img, int quality) {
    FILE *f = fopen(path, "wb");
    if (!f) { perror(path); exit(1); }
    struct jpeg_compress_struct info;
    jpeg_error err;
    info.err = jpeg_std_error(&err.pub);
    err.pub.error_exit = jpeg_fail;
    if (setjmp(err.jump)) { fprintf(stderr, "jpeg encode error\n"); exit(1); }
    jpeg_create_compress(&info);
    jpeg_stdio_dest(&info, f);
    info.image_width = img.width;
    info.image_height = img.height;
    info.input_components = img.channels == 1 ? 1 : 3;
    info.in_color_space = img.channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(&info);
    jpeg_set_quality(&info, quality, TRUE);
    jpeg_start_compress(&info, TRUE);
    size_t stride = (size_t)img.width * img.channels;
    while (info.next_scanline < info.image_height) {
        JSAMPROW row = img.pixels + stride * info.next_scanline;
        jpeg_write_scanlines(&info, &row, 1);
    }
    jpeg_finish_compress(&info);
    jpeg_destroy_compress(&info);
    fclose(f);
}

/* MARK: PNG */

static void write_png(const char *path, image img) {
    FILE *f = fopen(path, "wb");
    if (!f) { perror(path); exit(1); }
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    if (setjmp(png_jmpbuf(png))) { fprintf(stderr, "png encode error\n"); exit(1); }
    png_init_io(png, f);
    static const int types[] = { 0, PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA, PNG_COLOR_TYPE_RGB, PNG_COLOR_TYPE_RGBA };
    png_set_IHDR(png, info, img.width, img.height, 8, types[img.channels], PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_set_compression_level(png, 6);  /* ImagePipe's PNG encoder default */
    png_write_info(png, info);
    size_t stride = (size_t)img.width * img.channels;
    for (int y = 0; y < img.height; y++) png_write_row(png, img.pixels + stride * y);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    fclose(f);
}

/* MARK: WebP */

static image decode_webp(const uint8_t *bytes, size_t size, int box) {
    image img = {0};
    WebPDecoderConfig config;
    if (!WebPInitDecoderConfig(&config) || WebPGetFeatures(bytes, size, &config.input) != VP8_STATUS_OK) {
        fprintf(stderr, "webp header error\n");
        exit(1);
    }
    img.width = config.input.width;
    img.height = config.input.height;
    img.channels = config.input.has_alpha ? 4 : 3;
    if (box > 0) {
        fit(img.width, img.height, box, &img.width, &img.height);
        config.options.use_scaling = 1;
        config.options.scaled_width = img.width;
        config.options.scaled_height = img.height;
    }
    size_t stride = (size_t)img.width * img.channels;
    img.pixels = malloc(stride * img.height);
    config.output.colorspace = img.channels == 4 ? MODE_RGBA : MODE_RGB;
    config.output.is_external_memory = 1;
    config.output.u.RGBA.rgba = img.pixels;
    config.output.u.RGBA.stride = (int)stride;
    config.output.u.RGBA.size = stride * img.height;
    if (WebPDecode(bytes, size, &config) != VP8_STATUS_OK) { fprintf(stderr, "webp decode error\n"); exit(1); }
    return img;
}

static void write_webp(const char *path, image img, int quality) {
    uint8_t *out = NULL;
    size_t n = img.channels == 4
        ? WebPEncodeRGBA(img.pixels, img.width, img.height, img.width * 4, (float)quality, &out)
        : WebPEncodeRGB(img.pixels, img.width, img.height, img.width * 3, (float)quality, &out);
    FILE *f = fopen(path, "wb");
    if (!f || n == 0 || fwrite(out, 1, n, f) != n) { perror(path); exit(1); }
    fclose(f);
    WebPFree(out);
}

/* MARK: GIF */

static int gif_read_mem(GifFileType *gif, GifByteType *out, int n) {
    png_source *s = gif->UserData;
    if ((size_t)n > s->size - s->offset) n = (int)(s->size - s->offset);
    memcpy(out, s->bytes + s->offset, (size_t)n);
    s->offset += (size_t)n;
    return n;
}

/* The first frame on its canvas as RGBA (transparent outside the frame and where the GCE says). */
static image decode_gif_first_frame(const uint8_t *bytes, size_t size) {
    png_source src = { bytes, size, 0 };
    int error = 0;
    GifFileType *gif = DGifOpen(&src, gif_read_mem, &error);
    if (!gif) { fprintf(stderr, "gif header error\n"); exit(1); }
    image img = { NULL, gif->SWidth, gif->SHeight, 4 };
    img.pixels = calloc((size_t)img.width * img.height, 4);
    int transparent = -1;
    GifRecordType record;
    for (;;) {
        if (DGifGetRecordType(gif, &record) == GIF_ERROR) { fprintf(stderr, "gif error\n"); exit(1); }
        if (record == EXTENSION_RECORD_TYPE) {
            int code;
            GifByteType *ext;
            if (DGifGetExtension(gif, &code, &ext) == GIF_ERROR) { fprintf(stderr, "gif error\n"); exit(1); }
            if (code == GRAPHICS_EXT_FUNC_CODE && ext && ext[0] >= 4 && (ext[1] & 1)) transparent = ext[4];
            while (ext) if (DGifGetExtensionNext(gif, &ext) == GIF_ERROR) { fprintf(stderr, "gif error\n"); exit(1); }
        } else if (record == IMAGE_DESC_RECORD_TYPE) {
            if (DGifGetImageDesc(gif) == GIF_ERROR) { fprintf(stderr, "gif error\n"); exit(1); }
            GifImageDesc *d = &gif->Image;
            ColorMapObject *map = d->ColorMap ? d->ColorMap : gif->SColorMap;
            GifPixelType *line = malloc((size_t)d->Width);
            static const int offsets[] = { 0, 4, 2, 1 }, steps[] = { 8, 8, 4, 2 };
            for (int pass = 0; pass < (d->Interlace ? 4 : 1); pass++) {
                for (int y = d->Interlace ? offsets[pass] : 0; y < d->Height; y += d->Interlace ? steps[pass] : 1) {
                    if (DGifGetLine(gif, line, d->Width) == GIF_ERROR) { fprintf(stderr, "gif error\n"); exit(1); }
                    int cy = d->Top + y;
                    if (cy < 0 || cy >= img.height) continue;
                    for (int x = 0; x < d->Width; x++) {
                        int cx = d->Left + x;
                        if (cx < 0 || cx >= img.width || line[x] == transparent || !map || line[x] >= map->ColorCount) continue;
                        uint8_t *p = img.pixels + ((size_t)cy * img.width + cx) * 4;
                        GifColorType c = map->Colors[line[x]];
                        p[0] = c.Red; p[1] = c.Green; p[2] = c.Blue; p[3] = 255;
                    }
                }
            }
            free(line);
            break;
        } else if (record == TERMINATE_RECORD_TYPE) {
            break;
        }
    }
    DGifCloseFile(gif, &error);
    return img;
}

/* Alpha composited over white, for the JPEG output (channels 2 -> 1, 4 -> 3). */
static image flatten_over_white(image in) {
    if (in.channels != 2 && in.channels != 4) return in;
    int color = in.channels - 1;
    size_t count = (size_t)in.width * in.height;
    for (size_t i = 0; i < count; i++) {
        const uint8_t *src = in.pixels + i * in.channels;
        uint8_t *dst = in.pixels + i * color;
        unsigned a = src[color];
        for (int c = 0; c < color; c++) dst[c] = (uint8_t)((src[c] * a + 255 * (255 - a) + 127) / 255);
    }
    in.channels = color;
    return in;
}

/* MARK: resampling */

/* Integer box shrink by `factor` on both axes (the last partial box is averaged over what exists). */
static image box_shrink(image in, int factor) {
    image out = { NULL, (in.width + factor - 1) / factor, (in.height + factor - 1) / factor, in.channels };
    out.pixels = malloc((size_t)out.width * out.height * out.channels);
    for (int oy = 0; oy < out.height; oy++) {
        int y1 = oy * factor + factor < in.height ? oy * factor + factor : in.height;
        for (int ox = 0; ox < out.width; ox++) {
            int x1 = ox * factor + factor < in.width ? ox * factor + factor : in.width;
            for (int c = 0; c < in.channels; c++) {
                unsigned sum = 0, n = 0;
                for (int y = oy * factor; y < y1; y++)
                    for (int x = ox * factor; x < x1; x++, n++) sum += in.pixels[((size_t)y * in.width + x) * in.channels + c];
                out.pixels[((size_t)oy * out.width + ox) * out.channels + c] = (uint8_t)((sum + n / 2) / n);
            }
        }
    }
    return out;
}

static double lanczos3(double x) {
    if (x == 0) return 1;
    if (x <= -3 || x >= 3) return 0;
    double px = M_PI * x;
    return 3 * sin(px) * sin(px / 3) / (px * px);
}

static double catmull_rom(double x) {
    x = fabs(x);
    if (x < 1) return (1.5 * x - 2.5) * x * x + 1;
    if (x < 2) return (((x - 5) * x + 8) * x - 4) * -0.5;
    return 0;
}

/* One axis of a separable resample (Lanczos-3, or Catmull-Rom with `cubic`), the filter widened by
 * the scale when shrinking. */
static image resample_axis(image in, int outsize, int horizontal, int cubic) {
    int insize = horizontal ? in.width : in.height, ch = in.channels;
    image out = { NULL, horizontal ? outsize : in.width, horizontal ? in.height : outsize, ch };
    out.pixels = malloc((size_t)out.width * out.height * ch);
    double scale = (double)insize / outsize, stretch = scale > 1 ? scale : 1, support = (cubic ? 2 : 3) * stretch;
    int taps = (int)ceil(support * 2) + 1;
    float *weights = calloc((size_t)outsize * taps, sizeof(float));
    int *firsts = malloc(sizeof(int) * outsize), *counts = malloc(sizeof(int) * outsize);
    for (int o = 0; o < outsize; o++) {
        double center = (o + 0.5) * scale;
        int first = (int)floor(center - support); if (first < 0) first = 0;
        int last = (int)ceil(center + support); if (last > insize) last = insize;
        int count = last - first; if (count > taps) count = taps;
        double total = 0;
        float *w = weights + (size_t)o * taps;
        for (int t = 0; t < count; t++) {
            double x = (first + t + 0.5 - center) / stretch;
            w[t] = (float)(cubic ? catmull_rom(x) : lanczos3(x));
            total += w[t];
        }
        for (int t = 0; t < count; t++) w[t] = (float)(w[t] / total);
        firsts[o] = first;
        counts[o] = count;
    }
    resample_pass(in.pixels, in.width, in.height, ch, out.pixels, outsize, horizontal, weights, firsts, counts, taps);
    free(weights); free(firsts); free(counts);
    return out;
}

static image thumbnail(image img, int box, int cubic) {
    int tw, th;
    fit(img.width, img.height, box, &tw, &th);
    if (tw == img.width && th == img.height) return img;
    int factor = (int)((double)img.width / tw / 2);
    if (factor >= 2) { image s = box_shrink(img, factor); free(img.pixels); img = s; }
    image h = resample_axis(img, tw, 1, cubic);
    free(img.pixels);
    image v = resample_axis(h, th, 0, cubic);
    free(h.pixels);
    return v;
}

int main(int argc, char **argv) {
    if (argc < 6) { fprintf(stderr, "usage: see the comment at the top of thumbnail_batch.c\n"); return 2; }
    int full = strcmp(argv[1], "png") == 0, all_jpeg = strcmp(argv[1], "jpeg") == 0, box = atoi(argv[2]), quality = atoi(argv[3]);
    const char *outdir = argv[4];
    char path[4096];
    for (int i = 5; i < argc; i++) {
        blob file = read_file(argv[i]);
        uint8_t *bytes = file.bytes;
        size_t size = file.size;
        format fmt = sniff(bytes, size);
        if (fmt == GIF && !all_jpeg) { fprintf(stderr, "GIF input only in jpeg mode\n"); return 2; }
        int reduce = full ? 0 : box;
        image img = fmt == JPEG ? decode_jpeg(bytes, size, reduce)
            : fmt == PNG ? decode_png(bytes, size)
            : fmt == GIF ? decode_gif_first_frame(bytes, size)
            : decode_webp(bytes, size, reduce);
        free(bytes);
        if (!full) img = thumbnail(img, box, fmt == JPEG);
        const char *base = strrchr(argv[i], '/');
        base = base ? base + 1 : argv[i];
        static const char *ext[] = { "jpg", "png", "webp", "gif" };
        snprintf(path, sizeof path, "%s/%s.%s", outdir, base, full ? "png" : all_jpeg ? "jpg" : ext[fmt]);
        if (all_jpeg) write_jpeg(path, img = flatten_over_white(img), quality);
        else if (full || fmt == PNG) write_png(path, img);
        else if (fmt == JPEG) write_jpeg(path, img, quality);
        else write_webp(path, img, quality);
        free(img.pixels);
    }
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    double cpu = usage.ru_utime.tv_sec + usage.ru_stime.tv_sec + (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
    printf("images %d cpu_s %.3f\n", argc - 5, cpu);
    return 0;
}
