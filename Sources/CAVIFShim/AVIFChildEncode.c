// Encoding in a child process, so that an AVIF encode can be stopped: libavif 0.11 and libaom
// have no hook to stop inside an image, and at libaom's speed 5 a 512-pixel grid cell takes 0.2 to
// 0.5 s. A forked copy of this process (CChildProcess) runs `avifEncoderWrite` for one cell and
// sends its bytes back through a pipe; the caller kills it when the answer is no longer wanted.
#include "../CAVIF/CAVIF.h"
#include <CChildProcess.h>

struct encode_work {
    avifEncoder *encoder;
    const avifImage *image;
};

/// The child: every output byte written to `fd`, then 0; libavif's result + 100 when it fails,
/// 99 when the pipe does.
static int encode(void *context, int fd) {
    struct encode_work *work = context;
    avifRWData output = {0};
    avifResult result = ip_avifEncoderWrite(work->encoder, work->image, &output);
    if (result != AVIF_RESULT_OK) return 100 + (int)result;
    return ip_child_write_all(fd, output.data, output.size) == 0 ? 0 : 99;
}

int ip_avif_encode_in_child(avifEncoder *encoder, const avifImage *image, int *read_fd) {
    struct encode_work work = {encoder, image};
    return ip_child_start(encode, &work, read_fd);
}
