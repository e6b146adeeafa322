// The part of CodersJPEG that must be C: libjpeg reports errors through error_exit, which must not
// return, so the shim longjmps back to a setjmp point in the same C function that called libjpeg.
// No longjmp ever crosses a Swift frame. libjpeg's messages (warnings, traces) never reach stderr:
// the first warning of each kind is kept, with how often it came, for the decoded image.
#ifndef CJPEGSHIM_H
#define CJPEGSHIM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <jpeglib.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Results of the calls below.
enum {
    IJPEG_ERROR = -1,
    IJPEG_SUSPENDED = 0,
    IJPEG_OK = 1,
};

/// A decompressor with its own error manager and source. The source is either caller-owned
/// bytes (`ijpeg_decoder_use_bytes`, for one-shot decodes) or a growing copy (`ijpeg_decoder_append`,
/// for progressive loads), where reading past the end suspends until more bytes arrive.
typedef struct ijpeg_decoder ijpeg_decoder;

ijpeg_decoder *ijpeg_decoder_create(void);
void ijpeg_decoder_destroy(ijpeg_decoder *decoder);

/// Asked between pieces of work; nonzero stops the decode (cancelled, or out of time).
typedef int (*ijpeg_should_stop)(void *context);
/// Why a call failed when it was not libjpeg's own error.
enum {
    IJPEG_STOP_NONE = 0,
    /// The file reached a scan past `max_scans`.
    IJPEG_STOP_SCANS = 1,
    /// `should_stop` said so.
    IJPEG_STOP_REQUESTED = 2,
};
/// Limits for the next calls: libjpeg's `max_memory_to_use` (its big arrays fail with
/// "Backing store not supported" past it), the scan number past which a decode stops (0 for
/// none), and a check libjpeg's progress monitor makes (NULL for none). `stop_context` must
/// outlive the decoder.
void ijpeg_decoder_set_limits(ijpeg_decoder *decoder, long max_memory, int max_scans,
                              ijpeg_should_stop should_stop, void *stop_context);
/// IJPEG_STOP_SCANS or IJPEG_STOP_REQUESTED when the last failure was a stop, else 0.
int ijpeg_decoder_stop_reason(const ijpeg_decoder *decoder);
/// The libjpeg object, for reading header fields and setting decode parameters from Swift.
struct jpeg_decompress_struct *ijpeg_decoder_info(ijpeg_decoder *decoder);

/// Reads from `bytes`, which must outlive the decoder; the end of the bytes is the end of the file.
void ijpeg_decoder_use_bytes(ijpeg_decoder *decoder, const uint8_t *bytes, size_t size);
/// Appends a copy of `bytes`; `is_complete` says no more will come. 0 when out of memory.
int ijpeg_decoder_append(ijpeg_decoder *decoder, const uint8_t *bytes, size_t size, int is_complete);

int ijpeg_read_header(ijpeg_decoder *decoder);
int ijpeg_calc_output_dimensions(ijpeg_decoder *decoder);
int ijpeg_start_decompress(ijpeg_decoder *decoder);
/// Reads up to `max_rows` rows; `rows_read` says how many (0 with IJPEG_SUSPENDED).
int ijpeg_read_scanlines(ijpeg_decoder *decoder, uint8_t **rows, uint32_t max_rows, uint32_t *rows_read);
int ijpeg_finish_decompress(ijpeg_decoder *decoder);
/// Bytes of the input libjpeg has not read: after a finished decompress, what follows EOI.
size_t ijpeg_decoder_bytes_left(const ijpeg_decoder *decoder);
/// Buffered-image mode: `event` gets jpeg_consume_input's result (JPEG_REACHED_SOS, ...).
int ijpeg_consume_input(ijpeg_decoder *decoder, int *event);
int ijpeg_start_output(ijpeg_decoder *decoder, int scan_number);
int ijpeg_finish_output(ijpeg_decoder *decoder);

const char *ijpeg_decoder_message(const ijpeg_decoder *decoder);
/// 1 when the error was a JPEG process libjpeg's 8-bit API does not implement (12-bit, lossless).
int ijpeg_decoder_error_is_unsupported(const ijpeg_decoder *decoder);
/// 1 when the error was libjpeg's arrays exceeding `max_memory_to_use`.
int ijpeg_decoder_error_is_memory_limit(const ijpeg_decoder *decoder);
/// The most distinct warnings (libjpeg message codes) a decoder keeps; later kinds are dropped.
#define IJPEG_MAX_WARNINGS 4
/// Distinct warnings kept so far (0 ... IJPEG_MAX_WARNINGS).
int ijpeg_decoder_warning_count(const ijpeg_decoder *decoder);
/// Kept warning `index`: its text (the first time it came), `*repeats` how often it came, and
/// `*is_truncation` 1 when it is libjpeg's "Premature end of JPEG file". NULL past the end.
const char *ijpeg_decoder_warning(const ijpeg_decoder *decoder, int index, int *repeats, int *is_truncation);

/// Encodes `height` rows of `width` pixels with `components` (1 gray, 3 RGB or 4 CMYK, written as
/// libjpeg does with an Adobe APP14 marker) 8-bit channels.
/// On success `*out` is a malloc'd JPEG of `*out_size` bytes (release with `ijpeg_free`) and the
/// result is 1; a failure is 0 with `message`. `should_stop`, when not NULL, is asked with
/// `stop_context` every 16 rows; once it answers non-zero the encode stops, frees what it made and
/// returns -1 (the caller's work was cancelled).
int ijpeg_encode(const uint8_t *pixels, uint32_t width, uint32_t height, int components, int quality,
                 int progressive, int chroma_444, uint8_t **out, size_t *out_size,
                 int (*should_stop)(void *), void *stop_context,
                 char *message, size_t message_size);
void ijpeg_free(void *pointer);

/// A JPEG written a few rows at a time to a file descriptor through a 64 KiB buffer, with the
/// settings `ijpeg_encode` takes (1 gray or 3 RGB components), so the file is never held; no
/// markers beyond libjpeg's own. Calls return 1 on success, 0 on failure (a libjpeg
/// error or a failed write) with `ijpeg_stream_encoder_message` saying why; after a failure only
/// destroy is left to call.
typedef struct ijpeg_stream_encoder ijpeg_stream_encoder;

/// NULL on failure, with `message` (of `message_size`) saying why.
ijpeg_stream_encoder *ijpeg_stream_encoder_create(int fd, uint32_t width, uint32_t height, int components,
                                                  int quality, int progressive, int chroma_444,
                                                  char *message, size_t message_size);
/// `count` rows of width * components bytes, tightly packed.
int ijpeg_stream_encoder_write_rows(ijpeg_stream_encoder *encoder, const uint8_t *rows, uint32_t count);
int ijpeg_stream_encoder_finish(ijpeg_stream_encoder *encoder);
const char *ijpeg_stream_encoder_message(const ijpeg_stream_encoder *encoder);
void ijpeg_stream_encoder_destroy(ijpeg_stream_encoder *encoder);

#ifdef __cplusplus
}
#endif

#endif
