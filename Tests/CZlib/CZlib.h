// zlib for the tests' reference-PNG reader (Foundation on Linux has no inflate API).
#include <zlib.h>
