/* Baseline for Benchmarks/scripts/coders-webp-gif.sh: decodes every frame of each WebP/GIF file with the
 * C libraries directly, as a C program would, and prints images per CPU second.
 *   WebP: WebPDecodeRGB/RGBA for stills (RGB when the file has no alpha, as CodersWebP does),
 *         WebPAnimDecoder (libwebp's compositor) for animations.
 *   GIF:  DGifSlurp, then every frame composited onto an RGBA canvas with disposal 2 and 3.
 * usage: decode_webp_gif ROUNDS FILE... */
#include <gif_lib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <webp/decode.h>
#include <webp/demux.h>

#include "decode_rounds.h"

static volatile unsigned sink;

static int decode_webp(const unsigned char *data, size_t size) {
  WebPBitstreamFeatures features;
  if (WebPGetFeatures(data, size, &features) != VP8_STATUS_OK) return 0;
  if (!features.has_animation) {
    int w, h;
    uint8_t *px = features.has_alpha ? WebPDecodeRGBA(data, size, &w, &h) : WebPDecodeRGB(data, size, &w, &h);
    if (!px) return 0;
    sink += px[0];
    WebPFree(px);
    return 1;
  }
  WebPData wd = {data, size};
  WebPAnimDecoderOptions opts;
  WebPAnimDecoderOptionsInit(&opts);
  opts.color_mode = MODE_RGBA;
  WebPAnimDecoder *dec = WebPAnimDecoderNew(&wd, &opts);
  if (!dec) return 0;
  while (WebPAnimDecoderHasMoreFrames(dec)) {
    uint8_t *buf; int ts;
    if (!WebPAnimDecoderGetNext(dec, &buf, &ts)) break;
    sink += buf[0];
  }
  WebPAnimDecoderDelete(dec);
  return 1;
}

typedef struct { const unsigned char *data; size_t size, pos; } Reader;
static int gif_read(GifFileType *g, GifByteType *buf, int n) {
  Reader *r = g->UserData;
  size_t left = r->size - r->pos, take = (size_t)n < left ? (size_t)n : left;
  memcpy(buf, r->data + r->pos, take);
  r->pos += take;
  return (int)take;
}

static int decode_gif(const unsigned char *data, size_t size) {
  Reader r = {data, size, 0};
  int err;
  GifFileType *g = DGifOpen(&r, gif_read, &err);
  if (!g) return 0;
  if (DGifSlurp(g) != GIF_OK || g->ImageCount < 1) { DGifCloseFile(g, &err); return 0; }
  int W = g->SWidth, H = g->SHeight;
  uint8_t *canvas = calloc((size_t)W * H, 4), *saved = malloc((size_t)W * H * 4);
  for (int i = 0; i < g->ImageCount; i++) {
    SavedImage *im = &g->SavedImages[i];
    GraphicsControlBlock gcb = {0, false, 0, NO_TRANSPARENT_COLOR};
    DGifSavedExtensionToGCB(g, i, &gcb);
    if (gcb.DisposalMode == DISPOSE_PREVIOUS) memcpy(saved, canvas, (size_t)W * H * 4);
    ColorMapObject *map = im->ImageDesc.ColorMap ? im->ImageDesc.ColorMap : g->SColorMap;
    int l = im->ImageDesc.Left, t = im->ImageDesc.Top, w = im->ImageDesc.Width, h = im->ImageDesc.Height;
    for (int y = 0; y < h && t + y < H; y++) {
      for (int x = 0; x < w && l + x < W; x++) {
        int c = im->RasterBits[(size_t)y * w + x];
        if (c == gcb.TransparentColor) continue;
        uint8_t *p = canvas + ((size_t)(t + y) * W + l + x) * 4;
        if (map && c < map->ColorCount) { p[0] = map->Colors[c].Red; p[1] = map->Colors[c].Green; p[2] = map->Colors[c].Blue; }
        else { p[0] = p[1] = p[2] = 0; }
        p[3] = 255;
      }
    }
    sink += canvas[0];
    if (gcb.DisposalMode == DISPOSE_BACKGROUND) {
      for (int y = t; y < t + h && y < H; y++) memset(canvas + ((size_t)y * W + l) * 4, 0, (size_t)((l + w > W ? W : l + w) - l) * 4);
    } else if (gcb.DisposalMode == DISPOSE_PREVIOUS) {
      memcpy(canvas, saved, (size_t)W * H * 4);
    }
  }
  free(canvas); free(saved);
  DGifCloseFile(g, &err);
  return 1;
}

static int decode_one(const unsigned char *data, size_t size) {
  return data[0] == 'G' ? decode_gif(data, size) : decode_webp(data, size);
}

/* Fails unless every decode succeeded. */
int main(int argc, char **argv) {
  int decoded = decode_rounds(argc, argv, decode_one);
  if (decoded < 0) return 2;
  return decoded == atoi(argv[1]) * (argc - 2) ? 0 : 1;
}
