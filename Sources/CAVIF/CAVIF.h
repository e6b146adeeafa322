// libavif's public header as one Swift module, for its types and constants. The library is not
// linked: CAVIFShim opens it on first use (AVIFLibrary.c) and defines the `ip_avif…` functions
// below, each forwarding to libavif's function of the same name without the prefix. libavif
// reports every failure through its return codes and `avifDiagnostics`, never by jumping.
#include <avif/avif.h>

/// Opens libavif the first time; NULL once it is usable, else why not (naming the library).
/// Every other function below needs it to have returned NULL.
const char *ip_avif_open(void);

const char *ip_avifResultToString(avifResult result);
void ip_avifRWDataFree(avifRWData *raw);
avifImage *ip_avifImageCreate(uint32_t width, uint32_t height, uint32_t depth, avifPixelFormat yuvFormat);
void ip_avifImageDestroy(avifImage *image);
void ip_avifImageSetProfileICC(avifImage *image, const uint8_t *icc, size_t iccSize);
void ip_avifImageSetMetadataExif(avifImage *image, const uint8_t *exif, size_t exifSize);
void ip_avifImageSetMetadataXMP(avifImage *image, const uint8_t *xmp, size_t xmpSize);
void ip_avifRGBImageSetDefaults(avifRGBImage *rgb, const avifImage *image);
avifResult ip_avifImageRGBToYUV(avifImage *image, const avifRGBImage *rgb);
avifResult ip_avifImageYUVToRGB(const avifImage *image, avifRGBImage *rgb);
avifDecoder *ip_avifDecoderCreate(void);
void ip_avifDecoderDestroy(avifDecoder *decoder);
avifResult ip_avifDecoderSetIOMemory(avifDecoder *decoder, const uint8_t *data, size_t size);
avifResult ip_avifDecoderParse(avifDecoder *decoder);
avifResult ip_avifDecoderNthImage(avifDecoder *decoder, uint32_t frameIndex);
avifResult ip_avifDecoderNthImageTiming(const avifDecoder *decoder, uint32_t frameIndex, avifImageTiming *outTiming);
avifEncoder *ip_avifEncoderCreate(void);
avifResult ip_avifEncoderWrite(avifEncoder *encoder, const avifImage *image, avifRWData *output);
void ip_avifEncoderDestroy(avifEncoder *encoder);
avifResult ip_avifEncoderAddImage(avifEncoder *encoder, const avifImage *image, uint64_t durationInTimescales,
                                  avifAddImageFlags addImageFlags);
avifResult ip_avifEncoderFinish(avifEncoder *encoder, avifRWData *output);

/// Forks a child process that runs `avifEncoderWrite` on (its copy of) `encoder` and `image`,
/// writing the file's bytes to a pipe, and exits: 0 when done, 100 + libavif's result when libavif
/// failed, 99 when the pipe did. The encoder must use one thread (the child has one and runs no
/// Swift). Returns the child's process ID with the pipe's read end in `read_fd` (close-on-exec; the
/// caller closes it), or -1 with errno. The parent's encoder and image are left as they were.
int ip_avif_encode_in_child(avifEncoder *encoder, const avifImage *image, int *read_fd);
