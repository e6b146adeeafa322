// Temporary files removed when SIGINT, SIGTERM or SIGHUP ends the process (ToolSupport's
// InterruptedWrites): a signal handler must be C, and may only call async-signal-safe functions.
#ifndef CINTERRUPTEDWRITES_H
#define CINTERRUPTEDWRITES_H

// Catches the three signals (once; a signal the process was started ignoring stays ignored) and
// records `path`. False when every slot is taken or the path is too long: it is then not removed.
_Bool ip_interrupted_writes_watch(const char *path);
// Forgets `path`.
void ip_interrupted_writes_unwatch(const char *path);

#endif
