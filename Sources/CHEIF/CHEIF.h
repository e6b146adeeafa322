// libheif's public C header as one Swift module, for its types and constants. The library is not
// linked: CHEIFShim opens it on first use (HEIFLibrary.c) and defines the `ip_heif_…` functions
// below, each forwarding to libheif's function of the same name without the `ip_` prefix.
// libheif reports failures through returned `heif_error` values, never by jumping.
#include <libheif/heif.h>

/// Opens libheif and runs `heif_init` the first time; NULL once it is usable, else why not
/// (naming the library). Every other function below needs it to have returned NULL.
const char *ip_heif_open(void);

struct heif_context *ip_heif_context_alloc(void);
void ip_heif_context_free(struct heif_context *context);
struct heif_error ip_heif_context_get_primary_image_handle(struct heif_context *context, struct heif_image_handle **handle);
struct heif_error ip_heif_context_read_from_memory_without_copy(struct heif_context *context, const void *mem, size_t size, const struct heif_reading_options *reading_options);
void ip_heif_context_set_max_decoding_threads(struct heif_context *context, int max_threads);
void ip_heif_context_set_maximum_image_size_limit(struct heif_context *context, int maximum_width);
struct heif_error ip_heif_decode_image(const struct heif_image_handle *in_handle, struct heif_image **out_img, enum heif_colorspace colorspace, enum heif_chroma chroma, const struct heif_decoding_options *options);
struct heif_decoding_options *ip_heif_decoding_options_alloc(void);
void ip_heif_decoding_options_free(struct heif_decoding_options *context);
int ip_heif_image_get_height(const struct heif_image *image, enum heif_channel channel);
const uint8_t *ip_heif_image_get_plane_readonly(const struct heif_image *image, enum heif_channel channel, int *out_stride);
int ip_heif_image_get_width(const struct heif_image *image, enum heif_channel channel);
int ip_heif_image_handle_get_height(const struct heif_image_handle *handle);
struct heif_error ip_heif_image_handle_get_metadata(const struct heif_image_handle *handle, heif_item_id metadata_id, void *out_data);
const char *ip_heif_image_handle_get_metadata_content_type(const struct heif_image_handle *handle, heif_item_id metadata_id);
size_t ip_heif_image_handle_get_metadata_size(const struct heif_image_handle *handle, heif_item_id metadata_id);
const char *ip_heif_image_handle_get_metadata_type(const struct heif_image_handle *handle, heif_item_id metadata_id);
int ip_heif_image_handle_get_number_of_metadata_blocks(const struct heif_image_handle *handle, const char *type_filter);
int ip_heif_image_handle_get_number_of_thumbnails(const struct heif_image_handle *handle);
struct heif_error ip_heif_image_handle_get_raw_color_profile(const struct heif_image_handle *handle, void *out_data);
size_t ip_heif_image_handle_get_raw_color_profile_size(const struct heif_image_handle *handle);
struct heif_error ip_heif_image_handle_get_thumbnail(const struct heif_image_handle *main_image_handle, heif_item_id thumbnail_id, struct heif_image_handle* *out_thumbnail_handle);
int ip_heif_image_handle_get_width(const struct heif_image_handle *handle);
int ip_heif_image_handle_has_alpha_channel(const struct heif_image_handle *context);
void ip_heif_image_handle_release(const struct heif_image_handle *context);
void ip_heif_image_release(const struct heif_image *context);
int ip_heif_image_handle_get_list_of_thumbnail_IDs(const struct heif_image_handle *handle, heif_item_id *ids, int count);
int ip_heif_image_handle_get_list_of_metadata_block_IDs(const struct heif_image_handle *handle, const char *type_filter, heif_item_id *ids, int count);
