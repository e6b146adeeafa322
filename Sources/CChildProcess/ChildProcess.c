#define _GNU_SOURCE
#include "CChildProcess.h"
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

int ip_child_start(ip_child_work work, void *context, int *read_fd) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return -1;
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        // The parent died before the line above: nobody reads the output.
        if (getppid() != parent) _exit(98);
        int fd = fds[1];
        close(fds[0]);
        if (fd > 3) close_range(3, (unsigned)fd - 1, 0);
        close_range((unsigned)fd + 1, ~0U, 0);
        _exit(work(context, fd));
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

int ip_child_write_all(int fd, const void *bytes, size_t size) {
    for (const uint8_t *from = bytes, *end = (const uint8_t *)bytes + size; from < end;) {
        ssize_t written = write(fd, from, (size_t)(end - from));
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0) return -1;
        from += written;
    }
    return 0;
}

int ip_child_exit_status(int pid) {
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

void ip_child_kill(int pid) {
    kill(pid, SIGKILL);
    // Failing to start a thread, the caller waits.
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
