// libjpeg's error handling and data source for CodersJPEG; see CJPEGShim.h for why this is C.
#include "CJPEGShim.h"

#include <errno.h>
#include <jerror.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct ijpeg_warning {
    int code;
    int repeats;
    char text[JMSG_LENGTH_MAX];
} ijpeg_warning;

typedef struct ijpeg_error {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
    ijpeg_warning kept[IJPEG_MAX_WARNINGS];
    int kept_count;
    int unsupported;
    int out_of_memory_limit;
} ijpeg_error;

static void ijpeg_on_error_exit(j_common_ptr cinfo) {
    ijpeg_error *error = (ijpeg_error *)cinfo->err;
    (*cinfo->err->format_message)(cinfo, error->message);
    int code = cinfo->err->msg_code;
    error->unsupported = code == JERR_BAD_PRECISION || code == JERR_SOF_UNSUPPORTED
        || code == JERR_ARITH_NOTIMPL;
    // Without a backing store, libjpeg fails this way when its arrays exceed max_memory_to_use.
    error->out_of_memory_limit = code == JERR_NO_BACKING_STORE;
    longjmp(error->jump, 1);
}

// libjpeg's default prints the first warning to stderr. Warnings (corrupt entropy data, a missing
// EOI) are diagnostics for the caller: counted, the first of each message kept, never printed.
// Traces are dropped.
static void ijpeg_on_emit_message(j_common_ptr cinfo, int level) {
    ijpeg_error *error = (ijpeg_error *)cinfo->err;
    if (level >= 0) return;
    cinfo->err->num_warnings += 1;
    int code = cinfo->err->msg_code;
    for (int index = 0; index < error->kept_count; index++) {
        if (error->kept[index].code == code) {
            error->kept[index].repeats += 1;
            return;
        }
    }
    if (error->kept_count == IJPEG_MAX_WARNINGS) return;
    ijpeg_warning *warning = &error->kept[error->kept_count++];
    warning->code = code;
    warning->repeats = 1;
    (*cinfo->err->format_message)(cinfo, warning->text);
}

static void ijpeg_on_output_message(j_common_ptr cinfo) { (void)cinfo; }

static void ijpeg_error_setup(ijpeg_error *error) {
    jpeg_std_error(&error->pub);
    error->pub.error_exit = ijpeg_on_error_exit;
    error->pub.emit_message = ijpeg_on_emit_message;
    error->pub.output_message = ijpeg_on_output_message;
}

// MARK: source

typedef struct ijpeg_source {
    struct jpeg_source_mgr pub;
    const uint8_t *bytes;
    size_t size;
    uint8_t *owned;
    size_t capacity;
    size_t skip_pending;
    int complete;
} ijpeg_source;

static const JOCTET ijpeg_fake_eoi[2] = { 0xFF, JPEG_EOI };

static void ijpeg_source_init(j_decompress_ptr cinfo) { (void)cinfo; }

// At the real end of the file a fake EOI ends the image with a warning, as libjpeg's own sources
// do, so a truncated file shows what it has. Before that end, FALSE suspends the decoder.
static boolean ijpeg_source_fill(j_decompress_ptr cinfo) {
    ijpeg_source *source = (ijpeg_source *)cinfo->src;
    if (!source->complete) return FALSE;
    WARNMS(cinfo, JWRN_JPEG_EOF);
    source->pub.next_input_byte = ijpeg_fake_eoi;
    source->pub.bytes_in_buffer = 2;
    return TRUE;
}

static void ijpeg_source_skip(j_decompress_ptr cinfo, long count) {
    ijpeg_source *source = (ijpeg_source *)cinfo->src;
    if (count <= 0) return;
    size_t skip = (size_t)count;
    if (skip <= source->pub.bytes_in_buffer) {
        source->pub.next_input_byte += skip;
        source->pub.bytes_in_buffer -= skip;
        return;
    }
    // Skipping past what has arrived: the rest is skipped as it comes.
    source->skip_pending = skip - source->pub.bytes_in_buffer;
    source->pub.next_input_byte += source->pub.bytes_in_buffer;
    source->pub.bytes_in_buffer = 0;
}

static void ijpeg_source_term(j_decompress_ptr cinfo) { (void)cinfo; }

// MARK: decoder

struct ijpeg_decoder {
    // First, so the progress monitor can get from libjpeg's object to the decoder.
    struct jpeg_decompress_struct info;
    ijpeg_error error;
    ijpeg_source source;
    struct jpeg_progress_mgr progress;
    int max_scans;
    ijpeg_should_stop should_stop;
    void *stop_context;
    int stop_reason;
    int failed;
};

static void ijpeg_stop(ijpeg_decoder *decoder, int reason, const char *message) {
    decoder->stop_reason = reason;
    strncpy(decoder->error.message, message, sizeof decoder->error.message - 1);
    longjmp(decoder->error.jump, 1);
}

// libjpeg calls this before each piece of input it consumes while reading all scans ahead of the
// output (progressive and multi-scan files) and before each output row group: the place to
// stop a file with endless scans, a cancelled decode, or one past its time budget.
static void ijpeg_on_progress(j_common_ptr cinfo) {
    ijpeg_decoder *decoder = (ijpeg_decoder *)(void *)cinfo;
    if (decoder->max_scans > 0 && decoder->info.input_scan_number > decoder->max_scans) {
        ijpeg_stop(decoder, IJPEG_STOP_SCANS, "too many progressive scans");
    }
    if (decoder->should_stop != NULL && decoder->should_stop(decoder->stop_context)) {
        ijpeg_stop(decoder, IJPEG_STOP_REQUESTED, "stopped by the caller");
    }
}

ijpeg_decoder *ijpeg_decoder_create(void) {
    ijpeg_decoder *decoder = calloc(1, sizeof *decoder);
    if (decoder == NULL) return NULL;
    ijpeg_error_setup(&decoder->error);
    decoder->info.err = &decoder->error.pub;
    if (setjmp(decoder->error.jump)) {
        free(decoder);
        return NULL;
    }
    jpeg_create_decompress(&decoder->info);
    decoder->source.pub.init_source = ijpeg_source_init;
    decoder->source.pub.fill_input_buffer = ijpeg_source_fill;
    decoder->source.pub.skip_input_data = ijpeg_source_skip;
    decoder->source.pub.resync_to_restart = jpeg_resync_to_restart;
    decoder->source.pub.term_source = ijpeg_source_term;
    decoder->info.src = &decoder->source.pub;
    decoder->progress.progress_monitor = ijpeg_on_progress;
    decoder->info.progress = &decoder->progress;
    return decoder;
}

void ijpeg_decoder_set_limits(ijpeg_decoder *decoder, long max_memory, int max_scans,
                              ijpeg_should_stop should_stop, void *stop_context) {
    decoder->info.mem->max_memory_to_use = max_memory;
    decoder->max_scans = max_scans;
    decoder->should_stop = should_stop;
    decoder->stop_context = stop_context;
}

void ijpeg_decoder_destroy(ijpeg_decoder *decoder) {
    if (decoder == NULL) return;
    jpeg_destroy_decompress(&decoder->info);
    free(decoder->source.owned);
    free(decoder);
}

struct jpeg_decompress_struct *ijpeg_decoder_info(ijpeg_decoder *decoder) { return &decoder->info; }

void ijpeg_decoder_use_bytes(ijpeg_decoder *decoder, const uint8_t *bytes, size_t size) {
    ijpeg_source *source = &decoder->source;
    source->bytes = bytes;
    source->size = size;
    source->complete = 1;
    source->pub.next_input_byte = bytes;
    source->pub.bytes_in_buffer = size;
}

int ijpeg_decoder_append(ijpeg_decoder *decoder, const uint8_t *bytes, size_t size, int is_complete) {
    ijpeg_source *source = &decoder->source;
    if (size > SIZE_MAX - source->size) return 0;
    size_t needed = source->size + size;
    if (needed > source->capacity) {
        size_t capacity = source->capacity < 65536 ? 65536 : source->capacity;
        while (capacity < needed) {
            if (capacity > SIZE_MAX / 2) return 0;
            capacity *= 2;
        }
        size_t position = (size_t)(source->pub.next_input_byte - (const JOCTET *)source->owned);
        if (source->owned == NULL) position = 0;
        uint8_t *grown = realloc(source->owned, capacity);
        if (grown == NULL) return 0;
        source->owned = grown;
        source->capacity = capacity;
        source->pub.next_input_byte = grown + position;
    }
    if (size > 0) memcpy(source->owned + source->size, bytes, size);
    source->bytes = source->owned;
    source->size = needed;
    source->complete = is_complete;
    size_t position = (size_t)(source->pub.next_input_byte - (const JOCTET *)source->owned);
    size_t skip = source->skip_pending < needed - position ? source->skip_pending : needed - position;
    position += skip;
    source->skip_pending -= skip;
    source->pub.next_input_byte = source->owned + position;
    source->pub.bytes_in_buffer = needed - position;
    return 1;
}

// Each call below sets its own setjmp point; after an error the object is unusable and every later
// call fails at once.
#define IJPEG_GUARD(decoder) \
    if ((decoder)->failed) return IJPEG_ERROR; \
    if (setjmp((decoder)->error.jump)) { (decoder)->failed = 1; return IJPEG_ERROR; }

int ijpeg_read_header(ijpeg_decoder *decoder) {
    IJPEG_GUARD(decoder)
    int result = jpeg_read_header(&decoder->info, TRUE);
    if (result == JPEG_SUSPENDED) return IJPEG_SUSPENDED;
    if (result != JPEG_HEADER_OK) {
        decoder->failed = 1;
        strncpy(decoder->error.message, "JPEG datastream contains no image", sizeof decoder->error.message - 1);
        return IJPEG_ERROR;
    }
    return IJPEG_OK;
}

int ijpeg_calc_output_dimensions(ijpeg_decoder *decoder) {
    IJPEG_GUARD(decoder)
    jpeg_calc_output_dimensions(&decoder->info);
    return IJPEG_OK;
}

int ijpeg_start_decompress(ijpeg_decoder *decoder) {
    IJPEG_GUARD(decoder)
    return jpeg_start_decompress(&decoder->info) ? IJPEG_OK : IJPEG_SUSPENDED;
}

int ijpeg_read_scanlines(ijpeg_decoder *decoder, uint8_t **rows, uint32_t max_rows, uint32_t *rows_read) {
    *rows_read = 0;
    IJPEG_GUARD(decoder)
    JDIMENSION count = jpeg_read_scanlines(&decoder->info, rows, max_rows);
    *rows_read = count;
    return count > 0 ? IJPEG_OK : IJPEG_SUSPENDED;
}

int ijpeg_finish_decompress(ijpeg_decoder *decoder) {
    IJPEG_GUARD(decoder)
    return jpeg_finish_decompress(&decoder->info) ? IJPEG_OK : IJPEG_SUSPENDED;
}

size_t ijpeg_decoder_bytes_left(const ijpeg_decoder *decoder) {
    return decoder->source.pub.bytes_in_buffer;
}

int ijpeg_consume_input(ijpeg_decoder *decoder, int *event) {
    IJPEG_GUARD(decoder)
    *event = jpeg_consume_input(&decoder->info);
    return *event == JPEG_SUSPENDED ? IJPEG_SUSPENDED : IJPEG_OK;
}

int ijpeg_start_output(ijpeg_decoder *decoder, int scan_number) {
    IJPEG_GUARD(decoder)
    return jpeg_start_output(&decoder->info, scan_number) ? IJPEG_OK : IJPEG_SUSPENDED;
}

int ijpeg_finish_output(ijpeg_decoder *decoder) {
    IJPEG_GUARD(decoder)
    return jpeg_finish_output(&decoder->info) ? IJPEG_OK : IJPEG_SUSPENDED;
}

const char *ijpeg_decoder_message(const ijpeg_decoder *decoder) { return decoder->error.message; }
int ijpeg_decoder_error_is_unsupported(const ijpeg_decoder *decoder) { return decoder->error.unsupported; }
int ijpeg_decoder_warning_count(const ijpeg_decoder *decoder) { return decoder->error.kept_count; }

const char *ijpeg_decoder_warning(const ijpeg_decoder *decoder, int index, int *repeats, int *is_truncation) {
    if (index < 0 || index >= decoder->error.kept_count) return NULL;
    const ijpeg_warning *warning = &decoder->error.kept[index];
    *repeats = warning->repeats;
    *is_truncation = warning->code == JWRN_JPEG_EOF;
    return warning->text;
}
int ijpeg_decoder_error_is_memory_limit(const ijpeg_decoder *decoder) { return decoder->error.out_of_memory_limit; }
int ijpeg_decoder_stop_reason(const ijpeg_decoder *decoder) { return decoder->stop_reason; }

// MARK: encoder

// A growing output buffer that this file owns, so the error path always knows what to free
// (jpeg_mem_dest frees and replaces its buffer as it grows, leaving the caller's pointer stale).
typedef struct ijpeg_destination {
    struct jpeg_destination_mgr pub;
    JOCTET *bytes;
    size_t capacity;
} ijpeg_destination;

static void ijpeg_destination_init(j_compress_ptr cinfo) {
    ijpeg_destination *destination = (ijpeg_destination *)cinfo->dest;
    destination->capacity = 65536;
    destination->bytes = malloc(destination->capacity);
    if (destination->bytes == NULL) ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 0);
    destination->pub.next_output_byte = destination->bytes;
    destination->pub.free_in_buffer = destination->capacity;
}

static boolean ijpeg_destination_empty(j_compress_ptr cinfo) {
    ijpeg_destination *destination = (ijpeg_destination *)cinfo->dest;
    size_t used = destination->capacity;
    if (used > SIZE_MAX / 2) ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 1);
    JOCTET *grown = realloc(destination->bytes, used * 2);
    if (grown == NULL) ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 1);
    destination->bytes = grown;
    destination->capacity = used * 2;
    destination->pub.next_output_byte = grown + used;
    destination->pub.free_in_buffer = used;
    return TRUE;
}

static void ijpeg_destination_term(j_compress_ptr cinfo) { (void)cinfo; }

int ijpeg_encode(const uint8_t *pixels, uint32_t width, uint32_t height, int components, int quality,
                 int progressive, int chroma_444, uint8_t **out, size_t *out_size,
                 int (*should_stop)(void *), void *stop_context,
                 char *message, size_t message_size) {
    struct jpeg_compress_struct info;
    ijpeg_error error;
    ijpeg_destination destination;
    memset(&destination, 0, sizeof destination);
    destination.pub.init_destination = ijpeg_destination_init;
    destination.pub.empty_output_buffer = ijpeg_destination_empty;
    destination.pub.term_destination = ijpeg_destination_term;
    *out = NULL;
    *out_size = 0;
    if ((components != 1 && components != 3 && components != 4) || width == 0 || height == 0) {
        snprintf(message, message_size, "invalid image geometry");
        return 0;
    }
    memset(&info, 0, sizeof info);
    ijpeg_error_setup(&error);
    info.err = &error.pub;
    if (setjmp(error.jump)) {
        jpeg_destroy_compress(&info);
        free(destination.bytes);
        snprintf(message, message_size, "%s", error.message);
        return 0;
    }
    jpeg_create_compress(&info);
    info.dest = &destination.pub;
    info.image_width = width;
    info.image_height = height;
    info.input_components = components;
    info.in_color_space = components == 1 ? JCS_GRAYSCALE : components == 3 ? JCS_RGB : JCS_CMYK;
    jpeg_set_defaults(&info);
    jpeg_set_quality(&info, quality, TRUE);
    if (components == 3 && chroma_444) {
        for (int c = 0; c < info.num_components; c++) {
            info.comp_info[c].h_samp_factor = 1;
            info.comp_info[c].v_samp_factor = 1;
        }
    }
    if (progressive) jpeg_simple_progression(&info);
    jpeg_start_compress(&info, TRUE);
    size_t rowbytes = (size_t)width * (size_t)components;
    while (info.next_scanline < info.image_height) {
        if (should_stop != NULL && (info.next_scanline & 15) == 0 && should_stop(stop_context)) {
            jpeg_destroy_compress(&info);
            free(destination.bytes);
            return -1;
        }
        JSAMPROW row = (JSAMPROW)(pixels + (size_t)info.next_scanline * rowbytes);
        jpeg_write_scanlines(&info, &row, 1);
    }
    jpeg_finish_compress(&info);
    jpeg_destroy_compress(&info);
    *out = destination.bytes;
    *out_size = destination.capacity - destination.pub.free_in_buffer;
    return 1;
}

void ijpeg_free(void *pointer) { free(pointer); }

// A compressor whose output goes to a file descriptor a buffer at a time, so rows can be fed in
// several calls (each with its own setjmp) and the file is never held.
struct ijpeg_stream_encoder {
    struct jpeg_compress_struct info;
    ijpeg_error error;
    struct jpeg_destination_mgr destination;
    int fd;
    int started;
    int failed;
    JOCTET buffer[65536];
};

static int ijpeg_stream_flush(ijpeg_stream_encoder *encoder, size_t size) {
    const JOCTET *at = encoder->buffer;
    while (size > 0) {
        ssize_t n = write(encoder->fd, at, size);
        if (n < 0) {
            if (errno == EINTR) continue;
            snprintf(encoder->error.message, sizeof encoder->error.message, "writing the file: %s", strerror(errno));
            return 0;
        }
        at += n;
        size -= (size_t)n;
    }
    return 1;
}

static void ijpeg_stream_destination_init(j_compress_ptr cinfo) {
    ijpeg_stream_encoder *encoder = (ijpeg_stream_encoder *)cinfo;
    encoder->destination.next_output_byte = encoder->buffer;
    encoder->destination.free_in_buffer = sizeof encoder->buffer;
}

// A failed write ends the encode as libjpeg's errors do: a longjmp to the setjmp of the shim call
// that is running (never across a Swift frame), with ijpeg_stream_flush's message.
static boolean ijpeg_stream_destination_empty(j_compress_ptr cinfo) {
    ijpeg_stream_encoder *encoder = (ijpeg_stream_encoder *)cinfo;
    if (!ijpeg_stream_flush(encoder, sizeof encoder->buffer)) longjmp(encoder->error.jump, 2);
    ijpeg_stream_destination_init(cinfo);
    return TRUE;
}

static void ijpeg_stream_destination_term(j_compress_ptr cinfo) {
    ijpeg_stream_encoder *encoder = (ijpeg_stream_encoder *)cinfo;
    if (!ijpeg_stream_flush(encoder, sizeof encoder->buffer - encoder->destination.free_in_buffer)) {
        longjmp(encoder->error.jump, 2);
    }
}

ijpeg_stream_encoder *ijpeg_stream_encoder_create(int fd, uint32_t width, uint32_t height, int components,
                                                  int quality, int progressive, int chroma_444,
                                                  char *message, size_t message_size) {
    if ((components != 1 && components != 3) || width == 0 || height == 0 || width > 65500 || height > 65500) {
        snprintf(message, message_size, "invalid image geometry");
        return NULL;
    }
    ijpeg_stream_encoder *encoder = calloc(1, sizeof *encoder);
    if (encoder == NULL) {
        snprintf(message, message_size, "out of memory");
        return NULL;
    }
    encoder->fd = fd;
    ijpeg_error_setup(&encoder->error);
    encoder->info.err = &encoder->error.pub;
    if (setjmp(encoder->error.jump)) {
        snprintf(message, message_size, "%s", encoder->error.message);
        jpeg_destroy_compress(&encoder->info);
        free(encoder);
        return NULL;
    }
    jpeg_create_compress(&encoder->info);
    encoder->destination.init_destination = ijpeg_stream_destination_init;
    encoder->destination.empty_output_buffer = ijpeg_stream_destination_empty;
    encoder->destination.term_destination = ijpeg_stream_destination_term;
    encoder->info.dest = &encoder->destination;
    encoder->info.image_width = width;
    encoder->info.image_height = height;
    encoder->info.input_components = components;
    encoder->info.in_color_space = components == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(&encoder->info);
    jpeg_set_quality(&encoder->info, quality, TRUE);
    if (components == 3 && chroma_444) {
        for (int c = 0; c < encoder->info.num_components; c++) {
            encoder->info.comp_info[c].h_samp_factor = 1;
            encoder->info.comp_info[c].v_samp_factor = 1;
        }
    }
    if (progressive) jpeg_simple_progression(&encoder->info);
    return encoder;
}

#define IJPEG_STREAM_GUARD(encoder) \
    if ((encoder)->failed) return 0; \
    if (setjmp((encoder)->error.jump)) { (encoder)->failed = 1; return 0; }

int ijpeg_stream_encoder_write_rows(ijpeg_stream_encoder *encoder, const uint8_t *rows, uint32_t count) {
    IJPEG_STREAM_GUARD(encoder)
    if (!encoder->started) {
        jpeg_start_compress(&encoder->info, TRUE);
        encoder->started = 1;
    }
    size_t rowbytes = (size_t)encoder->info.image_width * (size_t)encoder->info.input_components;
    if (count > encoder->info.image_height - encoder->info.next_scanline) {
        snprintf(encoder->error.message, sizeof encoder->error.message, "more rows than the image has");
        encoder->failed = 1;
        return 0;
    }
    for (uint32_t y = 0; y < count; y++) {
        JSAMPROW row = (JSAMPROW)(rows + (size_t)y * rowbytes);
        jpeg_write_scanlines(&encoder->info, &row, 1);
    }
    return 1;
}

int ijpeg_stream_encoder_finish(ijpeg_stream_encoder *encoder) {
    IJPEG_STREAM_GUARD(encoder)
    if (!encoder->started || encoder->info.next_scanline != encoder->info.image_height) {
        snprintf(encoder->error.message, sizeof encoder->error.message, "fewer rows than the image has");
        encoder->failed = 1;
        return 0;
    }
    jpeg_finish_compress(&encoder->info);
    return 1;
}

const char *ijpeg_stream_encoder_message(const ijpeg_stream_encoder *encoder) { return encoder->error.message; }

void ijpeg_stream_encoder_destroy(ijpeg_stream_encoder *encoder) {
    if (encoder == NULL) return;
    jpeg_destroy_compress(&encoder->info);
    free(encoder);
}
