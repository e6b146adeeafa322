// libwebp's public headers as one Swift module: still decode/encode, the demuxer (frames of an
// animation) and the mux/anim encoder. System library via pkg-config (libwebp, libwebpdemux, libwebpmux).
#include <webp/decode.h>
#include <webp/encode.h>
#include <webp/demux.h>
#include <webp/mux.h>
