// libheif, opened on first use instead of linked (see CLazyLibrary.h): with its HEVC and AV1
// codecs (libde265, x265, dav1d, aom) and their C++ runtimes it costs every start of a program
// milliseconds, most of which never read a HEIC. CodersHEIF calls the `ip_heif_…` functions
// declared in CHEIF.h, never libheif's own names.
#include "../CHEIF/CHEIF.h"
#include <CLazyLibrary.h>

#define HEIF_FUNCTIONS(X) \
    X(heif_init) \
    X(heif_context_alloc) \
    X(heif_context_free) \
    X(heif_context_get_primary_image_handle) \
    X(heif_context_read_from_memory_without_copy) \
    X(heif_context_set_max_decoding_threads) \
    X(heif_context_set_maximum_image_size_limit) \
    X(heif_decode_image) \
    X(heif_decoding_options_alloc) \
    X(heif_decoding_options_free) \
    X(heif_image_get_height) \
    X(heif_image_get_plane_readonly) \
    X(heif_image_get_width) \
    X(heif_image_handle_get_height) \
    X(heif_image_handle_get_metadata) \
    X(heif_image_handle_get_metadata_content_type) \
    X(heif_image_handle_get_metadata_size) \
    X(heif_image_handle_get_metadata_type) \
    X(heif_image_handle_get_number_of_metadata_blocks) \
    X(heif_image_handle_get_number_of_thumbnails) \
    X(heif_image_handle_get_raw_color_profile) \
    X(heif_image_handle_get_raw_color_profile_size) \
    X(heif_image_handle_get_thumbnail) \
    X(heif_image_handle_get_width) \
    X(heif_image_handle_has_alpha_channel) \
    X(heif_image_handle_release) \
    X(heif_image_release) \
    X(heif_image_handle_get_list_of_thumbnail_IDs) \
    X(heif_image_handle_get_list_of_metadata_block_IDs)

#define HEIF_INDEX(name) index_##name,
enum { HEIF_FUNCTIONS(HEIF_INDEX) function_count };
#define HEIF_NAME(name) #name,
static const char *const names[] = {HEIF_FUNCTIONS(HEIF_NAME)};
static void *functions[function_count];

/// libheif's `name`, typed as its header declares it.
#define HEIF(name) ((__typeof__(name) *)functions[index_##name])

// heif_init registers libheif's built-in and plugin decoders; once per process. A plugin that
// fails to load leaves the built-in decoders working, so its error is not fatal.
static const char *initialise(void) {
    (void)HEIF(heif_init)(NULL);
    return NULL;
}

static struct ip_lazy_library library = IP_LAZY_LIBRARY("libheif.so.1", names, functions, initialise);

const char *ip_heif_open(void) { return ip_lazy_library_open(&library); }

struct heif_context *ip_heif_context_alloc(void) { return HEIF(heif_context_alloc)(); }
void ip_heif_context_free(struct heif_context *context) { HEIF(heif_context_free)(context); }
struct heif_error ip_heif_context_get_primary_image_handle(struct heif_context *context, struct heif_image_handle **handle) { return HEIF(heif_context_get_primary_image_handle)(context, handle); }
struct heif_error ip_heif_context_read_from_memory_without_copy(struct heif_context *context, const void *mem, size_t size, const struct heif_reading_options *reading_options) { return HEIF(heif_context_read_from_memory_without_copy)(context, mem, size, reading_options); }
void ip_heif_context_set_max_decoding_threads(struct heif_context *context, int max_threads) { HEIF(heif_context_set_max_decoding_threads)(context, max_threads); }
void ip_heif_context_set_maximum_image_size_limit(struct heif_context *context, int maximum_width) { HEIF(heif_context_set_maximum_image_size_limit)(context, maximum_width); }
struct heif_error ip_heif_decode_image(const struct heif_image_handle *in_handle, struct heif_image **out_img, enum heif_colorspace colorspace, enum heif_chroma chroma, const struct heif_decoding_options *options) { return HEIF(heif_decode_image)(in_handle, out_img, colorspace, chroma, options); }
struct heif_decoding_options *ip_heif_decoding_options_alloc(void) { return HEIF(heif_decoding_options_alloc)(); }
void ip_heif_decoding_options_free(struct heif_decoding_options *context) { HEIF(heif_decoding_options_free)(context); }
int ip_heif_image_get_height(const struct heif_image *image, enum heif_channel channel) { return HEIF(heif_image_get_height)(image, channel); }
const uint8_t *ip_heif_image_get_plane_readonly(const struct heif_image *image, enum heif_channel channel, int *out_stride) { return HEIF(heif_image_get_plane_readonly)(image, channel, out_stride); }
int ip_heif_image_get_width(const struct heif_image *image, enum heif_channel channel) { return HEIF(heif_image_get_width)(image, channel); }
int ip_heif_image_handle_get_height(const struct heif_image_handle *handle) { return HEIF(heif_image_handle_get_height)(handle); }
struct heif_error ip_heif_image_handle_get_metadata(const struct heif_image_handle *handle, heif_item_id metadata_id, void *out_data) { return HEIF(heif_image_handle_get_metadata)(handle, metadata_id, out_data); }
const char *ip_heif_image_handle_get_metadata_content_type(const struct heif_image_handle *handle, heif_item_id metadata_id) { return HEIF(heif_image_handle_get_metadata_content_type)(handle, metadata_id); }
size_t ip_heif_image_handle_get_metadata_size(const struct heif_image_handle *handle, heif_item_id metadata_id) { return HEIF(heif_image_handle_get_metadata_size)(handle, metadata_id); }
const char *ip_heif_image_handle_get_metadata_type(const struct heif_image_handle *handle, heif_item_id metadata_id) { return HEIF(heif_image_handle_get_metadata_type)(handle, metadata_id); }
int ip_heif_image_handle_get_number_of_metadata_blocks(const struct heif_image_handle *handle, const char *type_filter) { return HEIF(heif_image_handle_get_number_of_metadata_blocks)(handle, type_filter); }
int ip_heif_image_handle_get_number_of_thumbnails(const struct heif_image_handle *handle) { return HEIF(heif_image_handle_get_number_of_thumbnails)(handle); }
struct heif_error ip_heif_image_handle_get_raw_color_profile(const struct heif_image_handle *handle, void *out_data) { return HEIF(heif_image_handle_get_raw_color_profile)(handle, out_data); }
size_t ip_heif_image_handle_get_raw_color_profile_size(const struct heif_image_handle *handle) { return HEIF(heif_image_handle_get_raw_color_profile_size)(handle); }
struct heif_error ip_heif_image_handle_get_thumbnail(const struct heif_image_handle *main_image_handle, heif_item_id thumbnail_id, struct heif_image_handle* *out_thumbnail_handle) { return HEIF(heif_image_handle_get_thumbnail)(main_image_handle, thumbnail_id, out_thumbnail_handle); }
int ip_heif_image_handle_get_width(const struct heif_image_handle *handle) { return HEIF(heif_image_handle_get_width)(handle); }
int ip_heif_image_handle_has_alpha_channel(const struct heif_image_handle *context) { return HEIF(heif_image_handle_has_alpha_channel)(context); }
void ip_heif_image_handle_release(const struct heif_image_handle *context) { HEIF(heif_image_handle_release)(context); }
void ip_heif_image_release(const struct heif_image *context) { HEIF(heif_image_release)(context); }
int ip_heif_image_handle_get_list_of_thumbnail_IDs(const struct heif_image_handle *handle, heif_item_id *ids, int count) { return HEIF(heif_image_handle_get_list_of_thumbnail_IDs)(handle, ids, count); }
int ip_heif_image_handle_get_list_of_metadata_block_IDs(const struct heif_image_handle *handle, const char *type_filter, heif_item_id *ids, int count) { return HEIF(heif_image_handle_get_list_of_metadata_block_IDs)(handle, type_filter, ids, count); }
