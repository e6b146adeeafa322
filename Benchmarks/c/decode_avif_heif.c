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

static unsigned char *read_file(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *buf = malloc((size_t)n);
  if (fread(buf, 1, (size_t)n, f) != (size_t)n) { free(buf); buf = NULL; }
  fclose(f);
  *size = (size_t)n;
  return buf;
}

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

static double cpu_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
  if (argc < 3) { fprintf(stderr, "usage: decode_avif_heif ROUNDS FILE...\n"); return 2; }
  int rounds = atoi(argv[1]), count = argc - 2, decoded = 0;
  unsigned char **files = calloc((size_t)count, sizeof *files);
  size_t *sizes = calloc((size_t)count, sizeof *sizes);
  for (int i = 0; i < count; i++) files[i] = read_file(argv[i + 2], &sizes[i]);
  heif_init(NULL);
  double start = cpu_seconds();
  for (int r = 0; r < rounds; r++) {
    for (int i = 0; i < count; i++) {
      int avif = sizes[i] > 12 && (memcmp(files[i] + 8, "avif", 4) == 0 || memcmp(files[i] + 8, "avis", 4) == 0);
      decoded += avif ? decode_avif(files[i], sizes[i]) : decode_heif(files[i], sizes[i]);
    }
  }
  double seconds = cpu_seconds() - start;
  printf("%.2f images/s (%d decoded in %.3f s)\n", decoded / seconds, decoded, seconds);
  return 0;
}
