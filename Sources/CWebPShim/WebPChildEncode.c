// A still's WebP encoding in a child process (declared in CWebP.h, which says why). After fork() only this thread
// exists in the child: it runs only libwebp and the C library's async-signal-safe calls, never
// Swift (the progress hook, a Swift closure, is cleared).
#define _GNU_SOURCE
#include "../CWebP/CWebP.h"
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

/// libwebp's writer in the child: the bytes straight into the pipe, 0 (abort) when it fails.
static int write_to_pipe(const uint8_t *data, size_t size, const WebPPicture *picture) {
    int fd = (int)(intptr_t)picture->custom_ptr;
    for (const uint8_t *from = data, *end = data + size; from < end;) {
        ssize_t written = write(fd, from, (size_t)(end - from));
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0) return 0;
        from += written;
    }
    return 1;
}

static void encode_child(const WebPConfig *config, WebPPicture *picture, int fd, pid_t parent) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(98);
    // Every other descriptor closed: the child must not keep the server's sockets (a connection
    // the parent closes, the listening port) open while it works.
    if (fd > 3) close_range(3, (unsigned)fd - 1, 0);
    close_range((unsigned)fd + 1, ~0U, 0);
    picture->progress_hook = NULL;
    picture->user_data = NULL;
    picture->writer = write_to_pipe;
    picture->custom_ptr = (void *)(intptr_t)fd;
    if (WebPEncode(config, picture)) _exit(0);
    _exit(picture->error_code == VP8_ENC_ERROR_BAD_WRITE ? 99 : 100 + (int)picture->error_code);
}

int ip_webp_encode_in_child(const WebPConfig *config, WebPPicture *picture, int *read_fd) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return -1;
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        encode_child(config, picture, fds[1], parent);
    }
    int saved = errno;
    close(fds[1]);
    if (pid < 0) {
        close(fds[0]);
        errno = saved;
        return -1;
    }
    *read_fd = fds[0];
    return pid;
}

int ip_webp_child_exit_status(int pid) {
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) return -1;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void *reap(void *pid) {
    while (waitpid((pid_t)(intptr_t)pid, NULL, 0) < 0 && errno == EINTR) {}
    return NULL;
}

void ip_webp_child_kill(int pid) {
    kill(pid, SIGKILL);
    // The kernel takes a while to tear down a forked copy of a large process; a detached thread
    // waits for that, not the caller. Failing to start one, the caller waits.
    pthread_attr_t attributes;
    pthread_t thread;
    if (pthread_attr_init(&attributes) == 0) {
        pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
        int started = pthread_create(&thread, &attributes, reap, (void *)(intptr_t)pid);
        pthread_attr_destroy(&attributes);
        if (started == 0) return;
    }
    reap((void *)(intptr_t)pid);
}
