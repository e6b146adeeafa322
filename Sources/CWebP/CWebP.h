// libwebp's public headers as one Swift module: still decode/encode, the demuxer (frames of an
// animation) and the mux/anim encoder. System library via pkg-config (libwebp, libwebpdemux, libwebpmux).
#include <webp/decode.h>
#include <webp/encode.h>
#include <webp/demux.h>
#include <webp/mux.h>

// A still's `WebPEncode` run in a forked child process, so that a cancelled encode ends at once:
// libwebp asks its progress hook only when the percentage changes (1 % of a 49-megapixel encode is
// about 190 ms of CPU) and not while it writes the tokens out (VP8EmitTokens, about 26 ms a
// megapixel); the child can be killed anywhere. Defined by CWebPShim (WebPChildEncode.c).

/// Forks a child process that runs `WebPEncode(config, picture)` on its copy of both, its progress
/// hook cleared and its output written to a pipe, and exits: 0 when done, 100 + libwebp's error
/// code when libwebp failed, 99 when the pipe did. Returns the child's process ID with the pipe's
/// read end in `read_fd` (close-on-exec; the caller closes it), or -1 with errno. The parent's
/// picture is left as it was.
int ip_webp_encode_in_child(const WebPConfig *config, WebPPicture *picture, int *read_fd);
