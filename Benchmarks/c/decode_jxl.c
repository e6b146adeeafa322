/* libjxl called directly: each file decoded whole to 8-bit RGB (RGBA when it has alpha), its
 * first frame, without a parallel runner (one thread, as CodersJXL decodes). Images per CPU second.
 *   decode_jxl ROUNDS FILE...                                  (Benchmarks/scripts/coders-jxl.sh) */
#include "decode_rounds.h"
#include <jxl/decode.h>

static int decode(const unsigned char *bytes, size_t size) {
  JxlDecoder *decoder = JxlDecoderCreate(NULL);
  if (!decoder) return 0;
  int ok = 0;
  unsigned char *pixels = NULL;
  JxlPixelFormat format = {3, JXL_TYPE_UINT8, JXL_NATIVE_ENDIAN, 0};
  if (JxlDecoderSubscribeEvents(decoder, JXL_DEC_BASIC_INFO | JXL_DEC_FULL_IMAGE) != JXL_DEC_SUCCESS) goto done;
  JxlDecoderSetInput(decoder, bytes, size);
  JxlDecoderCloseInput(decoder);
  for (;;) {
    JxlDecoderStatus status = JxlDecoderProcessInput(decoder);
    if (status == JXL_DEC_BASIC_INFO) {
      JxlBasicInfo info;
      if (JxlDecoderGetBasicInfo(decoder, &info) != JXL_DEC_SUCCESS) goto done;
      format.num_channels = info.alpha_bits ? 4 : (info.num_color_channels == 1 ? 1 : 3);
    } else if (status == JXL_DEC_NEED_IMAGE_OUT_BUFFER) {
      size_t needed;
      if (JxlDecoderImageOutBufferSize(decoder, &format, &needed) != JXL_DEC_SUCCESS) goto done;
      free(pixels);
      pixels = malloc(needed);
      if (!pixels || JxlDecoderSetImageOutBuffer(decoder, &format, pixels, needed) != JXL_DEC_SUCCESS) goto done;
    } else if (status == JXL_DEC_FULL_IMAGE) {
      ok = 1; /* the first frame: an animation's others are not asked for */
      goto done;
    } else {
      goto done;
    }
  }
done:
  free(pixels);
  JxlDecoderDestroy(decoder);
  return ok;
}

int main(int argc, char **argv) { return decode_rounds(argc, argv, decode) < 0 ? 1 : 0; }
