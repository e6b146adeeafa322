// librsvg, cairo and GLib reached through librsvg-2.so.2, opened on first use (see CLazyLibrary.h).
// The few types and functions used are declared here rather than taken from their headers:
// these are the stable C ABIs of librsvg 2.x, cairo 1.x and GLib 2.x.
#include "CSVGShim.h"
#include <CLazyLibrary.h>
#include <stdio.h>

typedef struct {
    uint32_t domain;
    int code;
    char *message;
} GError;
typedef struct {
    double length;
    int unit;
} RsvgLength;
typedef struct {
    double x, y, width, height;
} RsvgRectangle;
typedef void (*GLogFunc)(const char *domain, int level, const char *message, void *user_data);

#define SVG_FUNCTIONS(X) \
    X(rsvg_handle_new_from_stream_sync, void *, (void *stream, void *base_file, int flags, void *cancellable, GError **error)) \
    X(rsvg_handle_set_dpi, void, (void *handle, double dpi)) \
    X(rsvg_handle_get_intrinsic_size_in_pixels, int, (void *handle, double *width, double *height)) \
    X(rsvg_handle_get_intrinsic_dimensions, void, (void *handle, int *has_width, RsvgLength *width, int *has_height, RsvgLength *height, int *has_viewbox, RsvgRectangle *viewbox)) \
    X(rsvg_handle_render_document, int, (void *handle, void *cr, const RsvgRectangle *viewport, GError **error)) \
    X(g_memory_input_stream_new_from_data, void *, (const void *data, long size, void (*destroy)(void *))) \
    X(g_object_unref, void, (void *object)) \
    X(g_error_free, void, (GError *error)) \
    X(g_log_set_default_handler, GLogFunc, (GLogFunc handler, void *user_data)) \
    X(cairo_image_surface_create_for_data, void *, (unsigned char *data, int format, int width, int height, int stride)) \
    X(cairo_surface_status, int, (void *surface)) \
    X(cairo_surface_flush, void, (void *surface)) \
    X(cairo_surface_destroy, void, (void *surface)) \
    X(cairo_create, void *, (void *surface)) \
    X(cairo_scale, void, (void *cr, double x, double y)) \
    X(cairo_translate, void, (void *cr, double x, double y)) \
    X(cairo_status, int, (void *cr)) \
    X(cairo_destroy, void, (void *cr))

#define SVG_INDEX(name, result, parameters) index_##name,
enum { SVG_FUNCTIONS(SVG_INDEX) function_count };
#define SVG_NAME(name, result, parameters) #name,
static const char *const names[] = {SVG_FUNCTIONS(SVG_NAME)};
static void *functions[function_count];
#define SVG_TYPE(name, result, parameters) typedef result(*type_##name) parameters;
SVG_FUNCTIONS(SVG_TYPE)

/// The library's `name`, typed as declared above.
#define CALL(name) ((type_##name)functions[index_##name])

enum { CAIRO_FORMAT_ARGB32 = 0, CAIRO_STATUS_SUCCESS = 0 };

// GLib's messages (librsvg's warnings, GIO's criticals) would go to stderr; nothing of a library
// may print there. librsvg reports what matters through GError, which the callers turn into errors.
static void discard_log(const char *domain, int level, const char *message, void *user_data) {
    (void)domain, (void)level, (void)message, (void)user_data;
}

static const char *initialise(void) {
    CALL(g_log_set_default_handler)(discard_log, NULL);
    return NULL;
}

static struct ip_lazy_library library = IP_LAZY_LIBRARY("librsvg-2.so.2", names, functions, initialise);

const char *ip_svg_open(void) { return ip_lazy_library_open(&library); }

static void take_error(GError *failure, const char *fallback, char *error, size_t error_size) {
    snprintf(error, error_size, "%s", failure && failure->message ? failure->message : fallback);
    if (failure) CALL(g_error_free)(failure);
}

ip_svg_document *ip_svg_load(const uint8_t *data, size_t size, char *error, size_t error_size) {
    void *stream = CALL(g_memory_input_stream_new_from_data)(data, (long)size, NULL);
    if (!stream) {
        snprintf(error, error_size, "GIO could not make a stream of the document");
        return NULL;
    }
    GError *failure = NULL;
    // No base file and no flags: external references refused, libxml2's safety limits on.
    void *handle = CALL(rsvg_handle_new_from_stream_sync)(stream, NULL, 0, NULL, &failure);
    CALL(g_object_unref)(stream);
    if (!handle) {
        take_error(failure, "librsvg could not parse the document", error, error_size);
        return NULL;
    }
    CALL(rsvg_handle_set_dpi)(handle, 96);
    return (ip_svg_document *)handle;
}

int ip_svg_size(ip_svg_document *document, double *width, double *height) {
    if (CALL(rsvg_handle_get_intrinsic_size_in_pixels)(document, width, height)) return 1;
    int has_width = 0, has_height = 0, has_viewbox = 0;
    RsvgLength w, h;
    RsvgRectangle viewbox = {0, 0, 0, 0};
    CALL(rsvg_handle_get_intrinsic_dimensions)(document, &has_width, &w, &has_height, &h, &has_viewbox, &viewbox);
    if (!has_viewbox) return 0;
    *width = viewbox.width;
    *height = viewbox.height;
    return 1;
}

int ip_svg_render_rows(ip_svg_document *document, uint8_t *pixels, int width, int height, int first_row, int row_count, char *error,
                      size_t error_size) {
    double natural_width = 0, natural_height = 0;
    if (!ip_svg_size(document, &natural_width, &natural_height) || natural_width <= 0 || natural_height <= 0) {
        snprintf(error, error_size, "the document has no size");
        return -1;
    }
    if (first_row < 0 || row_count <= 0 || first_row > height - row_count) {
        snprintf(error, error_size, "rows %d to %d are not inside an image %d high", first_row, first_row + row_count, height);
        return -1;
    }
    // A surface over the rows alone: cairo draws nothing outside it.
    uint8_t *rows = pixels + (size_t)first_row * (size_t)width * 4;
    void *surface = CALL(cairo_image_surface_create_for_data)(rows, CAIRO_FORMAT_ARGB32, width, row_count, width * 4);
    if (CALL(cairo_surface_status)(surface) != CAIRO_STATUS_SUCCESS) {
        CALL(cairo_surface_destroy)(surface);
        snprintf(error, error_size, "cairo refused a surface of %d x %d", width, row_count);
        return -1;
    }
    void *cr = CALL(cairo_create)(surface);
    CALL(cairo_translate)(cr, 0, -(double)first_row);
    // As rsvg-convert draws at a given size: scaled from the natural size, not fitted into it.
    CALL(cairo_scale)(cr, width / natural_width, height / natural_height);
    RsvgRectangle viewport = {0, 0, natural_width, natural_height};
    GError *failure = NULL;
    int drawn = CALL(rsvg_handle_render_document)(document, cr, &viewport, &failure);
    int status = CALL(cairo_status)(cr);
    CALL(cairo_destroy)(cr);
    CALL(cairo_surface_flush)(surface);
    CALL(cairo_surface_destroy)(surface);
    if (!drawn) {
        take_error(failure, "librsvg could not draw the document", error, error_size);
        return -1;
    }
    if (failure) CALL(g_error_free)(failure);
    if (status != CAIRO_STATUS_SUCCESS) {
        snprintf(error, error_size, "cairo failed drawing the document (status %d)", status);
        return -1;
    }
    return 0;
}

void ip_svg_free(ip_svg_document *document) {
    if (document) CALL(g_object_unref)(document);
}
