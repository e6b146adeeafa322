// libavif, opened on first use instead of linked (see CLazyLibrary.h): with its AV1 codecs (aom,
// rav1e, SVT-AV1, libgav1) and their dependencies it costs every start of a program milliseconds,
// most of which never read or write an AVIF. CodersAVIF calls the `ip_avif…` functions declared
// in CAVIF.h, never libavif's own names.
#include "../CAVIF/CAVIF.h"
#include <CLazyLibrary.h>

// The soname of the libavif whose header this is compiled against (its ABI).
#if AVIF_VERSION_MAJOR == 0 && AVIF_VERSION_MINOR == 11
#define AVIF_LIBRARY_FILE "libavif.so.15"
#else
#define AVIF_LIBRARY_FILE "libavif.so.16"
#endif

#define AVIF_FUNCTIONS(X)                                                                            \
    X(avifResultToString) X(avifRWDataFree) X(avifImageCreate) X(avifImageDestroy)                   \
    X(avifImageSetProfileICC) X(avifImageSetMetadataExif) X(avifImageSetMetadataXMP)                 \
    X(avifRGBImageSetDefaults) X(avifImageRGBToYUV) X(avifImageYUVToRGB) X(avifDecoderCreate)        \
    X(avifDecoderDestroy) X(avifDecoderSetIOMemory) X(avifDecoderParse) X(avifDecoderNthImage)       \
    X(avifDecoderNthImageTiming) X(avifEncoderCreate) X(avifEncoderWrite) X(avifEncoderDestroy)      \
    X(avifEncoderAddImage) X(avifEncoderFinish)

#define AVIF_INDEX(name) index_##name,
enum { AVIF_FUNCTIONS(AVIF_INDEX) function_count };
#define AVIF_NAME(name) #name,
static const char *const names[] = {AVIF_FUNCTIONS(AVIF_NAME)};
static void *functions[function_count];
static struct ip_lazy_library library = IP_LAZY_LIBRARY(AVIF_LIBRARY_FILE, names, functions, NULL);

/// libavif's `name`, typed as its header declares it.
#define AVIF(name) ((__typeof__(name) *)functions[index_##name])

const char *ip_avif_open(void) { return ip_lazy_library_open(&library); }

const char *ip_avifResultToString(avifResult result) { return AVIF(avifResultToString)(result); }
void ip_avifRWDataFree(avifRWData *raw) { AVIF(avifRWDataFree)(raw); }
avifImage *ip_avifImageCreate(uint32_t width, uint32_t height, uint32_t depth, avifPixelFormat yuvFormat) {
    return AVIF(avifImageCreate)(width, height, depth, yuvFormat);
}
void ip_avifImageDestroy(avifImage *image) { AVIF(avifImageDestroy)(image); }
void ip_avifImageSetProfileICC(avifImage *image, const uint8_t *icc, size_t iccSize) {
    AVIF(avifImageSetProfileICC)(image, icc, iccSize);
}
void ip_avifImageSetMetadataExif(avifImage *image, const uint8_t *exif, size_t exifSize) {
    AVIF(avifImageSetMetadataExif)(image, exif, exifSize);
}
void ip_avifImageSetMetadataXMP(avifImage *image, const uint8_t *xmp, size_t xmpSize) {
    AVIF(avifImageSetMetadataXMP)(image, xmp, xmpSize);
}
void ip_avifRGBImageSetDefaults(avifRGBImage *rgb, const avifImage *image) { AVIF(avifRGBImageSetDefaults)(rgb, image); }
avifResult ip_avifImageRGBToYUV(avifImage *image, const avifRGBImage *rgb) { return AVIF(avifImageRGBToYUV)(image, rgb); }
avifResult ip_avifImageYUVToRGB(const avifImage *image, avifRGBImage *rgb) { return AVIF(avifImageYUVToRGB)(image, rgb); }
avifDecoder *ip_avifDecoderCreate(void) { return AVIF(avifDecoderCreate)(); }
void ip_avifDecoderDestroy(avifDecoder *decoder) { AVIF(avifDecoderDestroy)(decoder); }
avifResult ip_avifDecoderSetIOMemory(avifDecoder *decoder, const uint8_t *data, size_t size) {
    return AVIF(avifDecoderSetIOMemory)(decoder, data, size);
}
avifResult ip_avifDecoderParse(avifDecoder *decoder) { return AVIF(avifDecoderParse)(decoder); }
avifResult ip_avifDecoderNthImage(avifDecoder *decoder, uint32_t frameIndex) {
    return AVIF(avifDecoderNthImage)(decoder, frameIndex);
}
avifResult ip_avifDecoderNthImageTiming(const avifDecoder *decoder, uint32_t frameIndex, avifImageTiming *outTiming) {
    return AVIF(avifDecoderNthImageTiming)(decoder, frameIndex, outTiming);
}
avifEncoder *ip_avifEncoderCreate(void) { return AVIF(avifEncoderCreate)(); }
avifResult ip_avifEncoderWrite(avifEncoder *encoder, const avifImage *image, avifRWData *output) {
    return AVIF(avifEncoderWrite)(encoder, image, output);
}
void ip_avifEncoderDestroy(avifEncoder *encoder) { AVIF(avifEncoderDestroy)(encoder); }
avifResult ip_avifEncoderAddImage(avifEncoder *encoder, const avifImage *image, uint64_t durationInTimescales,
                                  avifAddImageFlags addImageFlags) {
    return AVIF(avifEncoderAddImage)(encoder, image, durationInTimescales, addImageFlags);
}
avifResult ip_avifEncoderFinish(avifEncoder *encoder, avifRWData *output) { return AVIF(avifEncoderFinish)(encoder, output); }
