// libheif's public C header as one Swift module. libheif reports failures through returned
// `heif_error` values, never by jumping, so no C shim is needed.
#include <libheif/heif.h>
