// Work done by a forked child process that the caller can kill, for encoders that cannot stop
// inside an image (libaom, libwebp's last step, libjxl 0.7). After fork() only the calling thread
// exists in the child: `work` must run only C (the coder's library, already open) and the C
// library's async-signal-safe calls, never Swift.
#ifndef CCHILDPROCESS_H
#define CCHILDPROCESS_H
#include <stddef.h>

/// The child's work: its output written to `fd` (with `ip_child_write_all`), its exit status
/// returned (0 when done; each coder numbers its failures).
typedef int (*ip_child_work)(void *context, int fd);

/// Forks a child that runs `work(context, fd)` and exits with its result: killed when this process
/// dies, every descriptor but standard input, output, error and the pipe's write end closed (the
/// child must not hold the server's sockets). Returns the child's process ID with the pipe's read
/// end in `read_fd` (close-on-exec; the caller closes it), or -1 with errno.
int ip_child_start(ip_child_work work, void *context, int *read_fd);

/// Writes all `size` bytes to `fd`: 0, or -1 when the pipe failed (the parent gone, or stopped
/// reading). Exit status 99 is the coders' for that.
int ip_child_write_all(int fd, const void *bytes, size_t size);

/// Waits for the child `pid` and returns its exit status, or -1 when it did not exit by itself.
int ip_child_exit_status(int pid);

/// Kills the child `pid` and reaps it on a detached thread (the kernel takes tens of
/// milliseconds to tear down a forked copy of a large process): the caller does not wait.
void ip_child_kill(int pid);

#endif
