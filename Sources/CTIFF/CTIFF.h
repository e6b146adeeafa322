// libtiff's public C header as one Swift module. libtiff returns failures (0 or -1) and reports
// why through error handlers, which CTIFFShim routes to the reader they belong to.
#include <tiffio.h>
