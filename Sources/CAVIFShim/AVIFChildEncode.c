// Encoding in a child process, so that an AVIF encode can be stopped: libavif 0.11 and libaom
// have no hook to stop inside an image, and at libaom's speed 5 a 512-pixel grid cell takes 0.2 to
// 0.5 s. A forked copy of this process runs `avifEncoderWrite` for one cell and sends its bytes
// back through a pipe; the caller kills it when the answer is no longer wanted. After fork() only
// this thread exists in the child: it runs only libavif (already open, one thread) and the C
// library's async-signal-safe calls, never Swift.
#define _GNU_SOURCE
#include "../CAVIF/CAVIF.h"
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

/// The child: every output byte written to `fd`, then exit 0; libavif's result + 100 when it
/// fails, 99 when the pipe does (the parent gone, or stopped reading).
static void encode_child(avifEncoder *encoder, const avifImage *image, int fd, pid_t parent) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(98);
    // Every other descriptor closed: the child must not keep the server's sockets (a connection
    // the parent closes, the listening port) open while it works.
    if (fd > 3) close_range(3, (unsigned)fd - 1, 0);
    close_range((unsigned)fd + 1, ~0U, 0);
    avifRWData output = {0};
    avifResult result = ip_avifEncoderWrite(encoder, image, &output);
    if (result != AVIF_RESULT_OK) _exit(100 + (int)result);
    for (const uint8_t *from = output.data, *end = output.data + output.size; from < end;) {
        ssize_t written = write(fd, from, (size_t)(end - from));
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0) _exit(99);
        from += written;
    }
    _exit(0);
}

int ip_avif_encode_in_child(avifEncoder *encoder, const avifImage *image, int *read_fd) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return -1;
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        encode_child(encoder, image, fds[1], parent);
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

int ip_avif_child_exit_status(int pid) {
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

void ip_avif_child_kill(int pid) {
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
