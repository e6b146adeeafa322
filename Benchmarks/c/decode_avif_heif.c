/* Baseline for scripts/bench/coders-avif-heif.sh: decodes each AVIF (libavif) or HEIF/HEIC
 * (libheif) file to 8-bit RGB, or RGBA when it has alpha, as a C program calling the libraries
 * directly would, on one thread, and prints images per CPU second.
 *   AVIF: avifDecoderReadMemory (dav1d), then avifImageYUVToRGB at depth 8.
 *   HEIF: heif_context_read_from_memory_without_copy, the primary image, heif_decode_image to
 *         interleaved RGB(A), tiles on the calling thread.
 * usage: decode_avif_heif ROUNDS FILE... */
#include <avif/avif.h>
#include <libheif/heif.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "decode_rounds.h"

static volatile unsigned sink;

static int decode_avif(const unsigned char *data, size_t size) {
  avifDecoder *decoder = avifDecoderCreate();
  decoder->maxThreads = 1;
  avifImage *image = avifImageCreateEmpty();
  int ok = avifDecoderReadMemory(decoder, image, data, size) == AVIF_RESULT_OK;
  if (ok) {
    avifRGBImage rgb;
    avifRGBImageSetDefaults(&rgb, image);
    rgb.depth = 8;
    rgb.format = image->alphaPlane ? AVIF_RGB_FORMAT_RGBA : AVIF_RGB_FORMAT_RGB;
    avifRGBImageAllocatePixels(&rgb);
    ok = avifImageYUVToRGB(image, &rgb) == AVIF_RESULT_OK;
    if (ok) sink += rgb.pixels[0];
    avifRGBImageFreePixels(&rgb);
  }
  avifImageDestroy(image);
  avifDecoderDestroy(decoder);
  return ok;
}

static int decode_heif(const unsigned char *data, size_t size) {
  struct heif_context *context = heif_context_alloc();
  heif_context_set_max_decoding_threads(context, 0);
  struct heif_image_handle *handle = NULL;
  struct heif_image *image = NULL;
  int ok = heif_context_read_from_memory_without_copy(context, data, size, NULL).code == heif_error_Ok &&
           heif_context_get_primary_image_handle(context, &handle).code == heif_error_Ok;
  if (ok) {
    enum heif_chroma chroma = heif_image_handle_has_alpha_channel(handle) ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB;
    ok = heif_decode_image(handle, &image, heif_colorspace_RGB, chroma, NULL).code == heif_error_Ok;
    if (ok) {
      int stride;
      sink += heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride)[0];
      heif_image_release(image);
    }
  }
  if (handle) heif_image_handle_release(handle);
  heif_context_free(context);
  return ok;
}

/* AVIF by its ftyp brand, anything else through libheif. */
static int decode_one(const unsigned char *data, size_t size) {
  int avif = size > 12 && (memcmp(data + 8, "avif", 4) == 0 || memcmp(data + 8, "avis", 4) == 0);
  return avif ? decode_avif(data, size) : decode_heif(data, size);
}

int main(int argc, char **argv) {
  heif_init(NULL);
  return decode_rounds(argc, argv, decode_one) < 0 ? 2 : 0;
}
