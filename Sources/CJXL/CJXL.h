// libjxl's public C headers as one Swift module, for its types and constants. The library is not
// linked: CJXLShim opens it on first use (JXLLibrary.c) and defines the `ip_Jxl…` functions below,
// each forwarding to libjxl's function of the same name without the `ip_` prefix. libjxl reports
// failures through returned statuses, never by jumping. (Its .pc file's -DHWY_SHARED_DEFINE is a
// flag SwiftPM refuses, so the module names no pkgConfig; the headers are in /usr/include/jxl.)
#include <jxl/decode.h>
#include <jxl/encode.h>

/// Opens libjxl the first time; NULL once it is usable, else why not (naming the library). Every
/// other function below needs it to have returned NULL.
const char *ip_jxl_open(void);

JxlSignature ip_JxlSignatureCheck(const uint8_t* buf, size_t len);
JxlDecoder* ip_JxlDecoderCreate(const JxlMemoryManager* memory_manager);
void ip_JxlDecoderDestroy(JxlDecoder* dec);
void ip_JxlDecoderRewind(JxlDecoder* dec);
void ip_JxlDecoderSkipFrames(JxlDecoder* dec, size_t amount);
JxlDecoderStatus ip_JxlDecoderSubscribeEvents(JxlDecoder* dec, int events_wanted);
JxlDecoderStatus ip_JxlDecoderSetKeepOrientation(JxlDecoder* dec, JXL_BOOL skip_reorientation);
JxlDecoderStatus ip_JxlDecoderSetParallelRunner(JxlDecoder* dec, JxlParallelRunner parallel_runner, void* parallel_runner_opaque);
JxlDecoderStatus ip_JxlDecoderProcessInput(JxlDecoder* dec);
JxlDecoderStatus ip_JxlDecoderSetInput(JxlDecoder* dec, const uint8_t* data, size_t size);
size_t ip_JxlDecoderReleaseInput(JxlDecoder* dec);
void ip_JxlDecoderCloseInput(JxlDecoder* dec);
JxlDecoderStatus ip_JxlDecoderGetBasicInfo(const JxlDecoder* dec, JxlBasicInfo* info);
JxlDecoderStatus ip_JxlDecoderGetColorAsEncodedProfile(const JxlDecoder* dec, const JxlPixelFormat* unused_format, JxlColorProfileTarget target, JxlColorEncoding* color_encoding);
JxlDecoderStatus ip_JxlDecoderGetICCProfileSize(const JxlDecoder* dec, const JxlPixelFormat* unused_format, JxlColorProfileTarget target, size_t* size);
JxlDecoderStatus ip_JxlDecoderGetColorAsICCProfile(const JxlDecoder* dec, const JxlPixelFormat* unused_format, JxlColorProfileTarget target, uint8_t* icc_profile, size_t size);
JxlDecoderStatus ip_JxlDecoderGetFrameHeader(const JxlDecoder* dec, JxlFrameHeader* header);
JxlDecoderStatus ip_JxlDecoderImageOutBufferSize(const JxlDecoder* dec, const JxlPixelFormat* format, size_t* size);
JxlDecoderStatus ip_JxlDecoderSetImageOutBuffer(JxlDecoder* dec, const JxlPixelFormat* format, void* buffer, size_t size);
JxlDecoderStatus ip_JxlDecoderSetBoxBuffer(JxlDecoder* dec, uint8_t* data, size_t size);
size_t ip_JxlDecoderReleaseBoxBuffer(JxlDecoder* dec);
JxlDecoderStatus ip_JxlDecoderSetDecompressBoxes(JxlDecoder* dec, JXL_BOOL decompress);
JxlDecoderStatus ip_JxlDecoderGetBoxType(JxlDecoder* dec, JxlBoxType type, JXL_BOOL decompressed);
JxlDecoderStatus ip_JxlDecoderFlushImage(JxlDecoder* dec);
JxlDecoderStatus ip_JxlDecoderSetProgressiveDetail(JxlDecoder* dec, JxlProgressiveDetail detail);
JxlDecoderStatus ip_JxlDecoderSkipCurrentFrame(JxlDecoder* dec);
JxlDecoderStatus ip_JxlDecoderSetUnpremultiplyAlpha(JxlDecoder* dec, JXL_BOOL unpremul_alpha);
JxlEncoder* ip_JxlEncoderCreate(const JxlMemoryManager* memory_manager);
void ip_JxlEncoderDestroy(JxlEncoder* enc);
JxlEncoderStatus ip_JxlEncoderSetParallelRunner(JxlEncoder* enc, JxlParallelRunner parallel_runner, void* parallel_runner_opaque);
void ip_JxlEncoderInitBasicInfo(JxlBasicInfo* info);
JxlEncoderStatus ip_JxlEncoderSetBasicInfo(JxlEncoder* enc, const JxlBasicInfo* info);
void ip_JxlColorEncodingSetToSRGB(JxlColorEncoding* color_encoding, JXL_BOOL is_gray);
JxlEncoderStatus ip_JxlEncoderSetColorEncoding(JxlEncoder* enc, const JxlColorEncoding* color);
JxlEncoderStatus ip_JxlEncoderSetICCProfile(JxlEncoder* enc, const uint8_t* icc_profile, size_t size);
JxlEncoderFrameSettings* ip_JxlEncoderFrameSettingsCreate(JxlEncoder* enc, const JxlEncoderFrameSettings* source);
JxlEncoderStatus ip_JxlEncoderFrameSettingsSetOption(JxlEncoderFrameSettings* frame_settings, JxlEncoderFrameSettingId option, int64_t value);
JxlEncoderStatus ip_JxlEncoderSetFrameDistance(JxlEncoderFrameSettings* frame_settings, float distance);
JxlEncoderStatus ip_JxlEncoderSetFrameLossless(JxlEncoderFrameSettings* frame_settings, JXL_BOOL lossless);
void ip_JxlEncoderInitFrameHeader(JxlFrameHeader* frame_header);
JxlEncoderStatus ip_JxlEncoderSetFrameHeader(JxlEncoderFrameSettings* frame_settings, const JxlFrameHeader* frame_header);
JxlEncoderStatus ip_JxlEncoderAddImageFrame(const JxlEncoderFrameSettings* frame_settings, const JxlPixelFormat* pixel_format, const void* buffer, size_t size);
void ip_JxlEncoderCloseInput(JxlEncoder* enc);
void ip_JxlEncoderCloseFrames(JxlEncoder* enc);
JxlEncoderStatus ip_JxlEncoderProcessOutput(JxlEncoder* enc, uint8_t** next_out, size_t* avail_out);
JxlEncoderError ip_JxlEncoderGetError(JxlEncoder* enc);
JxlEncoderStatus ip_JxlEncoderUseContainer(JxlEncoder* enc, JXL_BOOL use_container);
JxlEncoderStatus ip_JxlEncoderUseBoxes(JxlEncoder* enc);
JxlEncoderStatus ip_JxlEncoderAddBox(JxlEncoder* enc, const JxlBoxType type, const uint8_t* contents, size_t size, JXL_BOOL compress_box);
void ip_JxlEncoderCloseBoxes(JxlEncoder* enc);

/// libjxl's parallel runner, run sequentially on the calling thread: every job, in order.
JxlParallelRetCode ip_jxl_sequential_runner(void *runner_opaque, void *jpegxl_opaque, JxlParallelRunInit init,
                                            JxlParallelRunFunction run, uint32_t start, uint32_t end);

/// Forks a child process that runs `JxlEncoderProcessOutput` on (its copy of) `encoder` to the end,
/// writing every byte to a pipe, and exits: 0 when done, 100 + libjxl's error code when libjxl
/// failed, 99 when the pipe did. The encoder must use `ip_jxl_sequential_runner` (the child has
/// one thread and runs no Swift). Returns the child's process ID with the pipe's read end in
/// `read_fd` (close-on-exec; the caller closes it), or -1 with errno. The parent's encoder is left
/// as it was: destroy it without processing it.
int ip_jxl_encode_in_child(JxlEncoder *encoder, int *read_fd);
