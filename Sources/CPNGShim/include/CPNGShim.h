// The part of CodersPNG that must be C: libpng reports errors by longjmp, which must never cross a
// Swift frame. Every reader function here sets its own setjmp point before calling libpng and turns
// an error into a return value of 0 plus a message; Swift never sees a longjmp. The writer uses
// libdeflate, not libpng (see PNGWriter.c).
#ifndef CPNGSHIM_H
#define CPNGSHIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The image as the reader hands it out, after the shim's transforms (8 bits a channel, palette
/// expanded, tRNS turned into alpha, 16-bit scaled to 8, 1/2/4-bit gray widened).
typedef struct ipng_header {
    uint32_t width;
    uint32_t height;
    /// 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA.
    int channels;
    /// 1 when Adam7-interlaced.
    int interlaced;
    /// Passes to read the image in: 7 when interlaced, else 1. Each pass reads all `height` rows.
    int passes;
    /// Bytes of one output row.
    size_t rowbytes;
} ipng_header;

/// A sequential reader over bytes in memory. The bytes must outlive the reader.
typedef struct ipng_reader ipng_reader;

/// `max_chunk_bytes` caps what libpng inflates for one chunk (an ICC profile). A chunk other than IDAT
/// whose declared length is more than the bytes left fails as truncated before anything is
/// allocated for it.
ipng_reader *ipng_reader_create(const uint8_t *data, size_t size, size_t max_chunk_bytes);
/// Reads image data in pieces of `size` bytes (libpng's default is 8 KiB). A piece the file cannot
/// fill is lost whole, so a file cut short is read again in small pieces to keep the rows before
/// the cut. Call before reading.
void ipng_reader_set_read_size(ipng_reader *reader, size_t size);
void ipng_reader_destroy(ipng_reader *reader);
/// Reads the chunks up to the first IDAT and sets up the transforms. 1 on success.
int ipng_reader_read_header(ipng_reader *reader, ipng_header *header);
/// The eXIf chunk read with the header (`*bytes` stays valid until the reader is destroyed), or 0
/// bytes when the file has none before its image data.
size_t ipng_reader_exif(const ipng_reader *reader, const uint8_t **bytes);
/// The colour chunks read with the header. `icc` points into the reader (valid until it is
/// destroyed) at libpng's inflated iCCP profile, `icc_size` 0 without one. `gamma` is gAMA times
/// 100000 (0 without one); `chrm` holds cHRM's white x, y, red x, y, green x, y, blue x, y, each
/// times 100000, when `has_chrm`. libpng fills gAMA and cHRM in from an sRGB chunk too, so
/// `has_srgb` comes first.
typedef struct ipng_color {
    const uint8_t *icc;
    size_t icc_size;
    int has_srgb;
    int32_t gamma;
    int has_chrm;
    int32_t chrm[8];
} ipng_color;
void ipng_reader_color(const ipng_reader *reader, ipng_color *color);
/// Reads the next `count` rows of the current pass into `rows` (one pointer per row; for an
/// interlaced image every pass reads all rows, and libpng combines them). 1 on success.
int ipng_reader_read_rows(ipng_reader *reader, uint8_t **rows, uint32_t count);
/// Reads the chunks after the image data up to IEND, checking their CRCs. 1 on success.
int ipng_reader_finish(ipng_reader *reader);
/// 1 when reading stopped at surplus compressed data after the last row (the image is complete;
/// the rest of the file was not read).
int ipng_reader_stopped_after_rows(const ipng_reader *reader);
const char *ipng_reader_message(const ipng_reader *reader);
/// 1 when the last failure was the bytes running out (a truncated file) rather than bad data.
int ipng_reader_truncated(const ipng_reader *reader);
/// Rows of a non-interlaced image read in full so far (after a truncation: the rows that stand).
uint32_t ipng_reader_rows_read(const ipng_reader *reader);

/// The most distinct warning texts a reader keeps; later ones are dropped.
#define IPNG_MAX_WARNINGS 4
/// Distinct libpng warnings kept so far (0 ... IPNG_MAX_WARNINGS).
int ipng_reader_warning_count(const ipng_reader *reader);
/// Kept warning `index`: its text, and in `*repeats` how often it came. NULL past the end.
const char *ipng_reader_warning(const ipng_reader *reader, int index, int *repeats);

/// A progressive (push) reader: bytes arrive in pieces and rows are written into a canvas the shim
/// allocates once the header is known and its pixel count is within `max_pixels`.
typedef struct ipng_stream ipng_stream;

ipng_stream *ipng_stream_create(uint64_t max_pixels, size_t max_chunk_bytes);
void ipng_stream_destroy(ipng_stream *stream);
/// Pushes more bytes. 1 on success (including "needs more bytes"), 0 on error.
int ipng_stream_feed(ipng_stream *stream, const uint8_t *data, size_t size);
/// 1 once the header has been read (then `header` is filled in).
int ipng_stream_header(const ipng_stream *stream, ipng_header *header);
/// The canvas (height * rowbytes bytes) or NULL before the header.
const uint8_t *ipng_stream_canvas(const ipng_stream *stream);
/// Rows reached in the current pass, and the pass number (0-based; always 0 without interlacing).
uint32_t ipng_stream_rows(const ipng_stream *stream);
int ipng_stream_pass(const ipng_stream *stream);
/// 1 once IEND has been read.
int ipng_stream_finished(const ipng_stream *stream);
/// 1 when the failure was the pixel limit rather than corrupt data.
int ipng_stream_over_limit(const ipng_stream *stream);
/// The header's pixel count when it was over the limit.
uint64_t ipng_stream_claimed_pixels(const ipng_stream *stream);
const char *ipng_stream_message(const ipng_stream *stream);

/// A PNG file written into memory by `ipng_encode`; release it with `ipng_buffer_free` (or `free`
/// the bytes: they come from malloc).
typedef struct ipng_buffer {
    uint8_t *bytes;
    size_t size;
    size_t capacity;
} ipng_buffer;

/// Encodes `height` rows of `width` pixels with `channels` (1-4) 8-bit channels, tightly packed
/// (`pixels` holds width * height * channels bytes). Not libpng: PNGWriter.c frames the file and
/// compresses it with libdeflate, so this never longjmps. `level` is libdeflate's 0-12 (0-9 as
/// zlib's). Sizes are checked before `pixels` is read. 1 on success; on failure `message` (of
/// `message_size`) says why and `out` is empty. `should_stop`, when not NULL, is asked with
/// `stop_context` every 64 rows of filtering and before compressing; once it answers non-zero the
/// encode stops and returns -1 (the caller's work was cancelled). The compression itself, one
/// libdeflate call, is not interrupted.
int ipng_encode(const uint8_t *pixels, uint32_t width, uint32_t height, int channels, int level,
                ipng_buffer *out, int (*should_stop)(void *), void *stop_context, char *message, size_t message_size);
void ipng_buffer_free(ipng_buffer *buffer);

/// A PNG written a few rows at a time to a file descriptor (PNGStreamWriter.c): rows are filtered
/// as `ipng_encode` filters them and compressed by libdeflate at `level` (0-9) a 4 MiB piece at a
/// time, the pieces joined into one zlib stream, so neither the image nor the file is held. The
/// signature and IHDR are written by create, the last IDAT and IEND by finish; no ancillary
/// chunks. Nothing longjmps. With `threads` compressor threads (0 to IPNG_STREAM_MAX_THREADS) the
/// pieces are compressed beside the caller, at most threads + 1 of them held at once (4 MiB of rows
/// and up to about as much compressed output each); 0 compresses on the caller's thread. The file's
/// bytes are the same for every thread count. The writer is used by one thread; only that thread
/// writes to `fd`. Calls return 1 on success, 0 on failure with `ipng_stream_writer_message`
/// saying why.
typedef struct ipng_stream_writer ipng_stream_writer;

#define IPNG_STREAM_MAX_THREADS 16

/// NULL on failure, with `message` (of `message_size`) saying why.
ipng_stream_writer *ipng_stream_writer_create(int fd, uint32_t width, uint32_t height, int channels, int level,
                                              int threads, char *message, size_t message_size);
/// `count` rows of width * channels bytes, tightly packed.
int ipng_stream_writer_write_rows(ipng_stream_writer *writer, const uint8_t *rows, uint32_t count);
int ipng_stream_writer_finish(ipng_stream_writer *writer);
const char *ipng_stream_writer_message(const ipng_stream_writer *writer);
void ipng_stream_writer_destroy(ipng_stream_writer *writer);

#ifdef __cplusplus
}
#endif

#endif
