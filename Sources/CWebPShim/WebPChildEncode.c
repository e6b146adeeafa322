// A still's WebP encoding in a child process (declared in CWebP.h, which says why); the child is
// CChildProcess's. The progress hook, a Swift closure, is cleared: the child never runs Swift.
#include "../CWebP/CWebP.h"
#include <CChildProcess.h>
#include <stdint.h>

/// libwebp's writer in the child: the bytes straight into the pipe, 0 (abort) when it fails.
static int write_to_pipe(const uint8_t *data, size_t size, const WebPPicture *picture) {
    return ip_child_write_all((int)(intptr_t)picture->custom_ptr, data, size) == 0;
}

struct encode_work {
    const WebPConfig *config;
    WebPPicture *picture;
};

static int encode(void *context, int fd) {
    struct encode_work *work = context;
    WebPPicture *picture = work->picture;
    picture->progress_hook = NULL;
    picture->user_data = NULL;
    picture->writer = write_to_pipe;
    picture->custom_ptr = (void *)(intptr_t)fd;
    if (WebPEncode(work->config, picture)) return 0;
    return picture->error_code == VP8_ENC_ERROR_BAD_WRITE ? 99 : 100 + (int)picture->error_code;
}

int ip_webp_encode_in_child(const WebPConfig *config, WebPPicture *picture, int *read_fd) {
    struct encode_work work = {config, picture};
    return ip_child_start(encode, &work, read_fd);
}
