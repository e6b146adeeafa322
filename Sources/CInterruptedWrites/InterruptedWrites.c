#include "CInterruptedWrites.h"
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

// Fixed slots, never freed, so the handler reads no memory that is being released. A slot is
// free (0), being written (2) or holds a path (1); the handler unlinks only full ones.
enum { slot_count = 16 };
static char paths[slot_count][PATH_MAX];
static atomic_int states[slot_count];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t installed = PTHREAD_ONCE_INIT;
static const int caught[] = {SIGINT, SIGTERM, SIGHUP};

static void handle(int signal_number) {
    for (int i = 0; i < slot_count; i++) {
        if (atomic_load(&states[i]) == 1) unlink(paths[i]);
    }
    // The signal's own default action ends the process, so the shell sees how it ended.
    struct sigaction action = {0};
    action.sa_handler = SIG_DFL;
    sigaction(signal_number, &action, NULL);
    raise(signal_number);
}

static void install(void) {
    for (size_t i = 0; i < sizeof caught / sizeof caught[0]; i++) {
        struct sigaction previous;
        if (sigaction(caught[i], NULL, &previous) != 0 || previous.sa_handler == SIG_IGN) continue;
        struct sigaction action = {0};
        action.sa_handler = handle;
        sigemptyset(&action.sa_mask);
        sigaction(caught[i], &action, NULL);
    }
}

_Bool ip_interrupted_writes_watch(const char *path) {
    pthread_once(&installed, install);
    size_t length = strlen(path);
    if (length >= PATH_MAX) return 0;
    _Bool recorded = 0;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < slot_count && !recorded; i++) {
        if (atomic_load(&states[i]) != 0) continue;
        atomic_store(&states[i], 2);
        memcpy(paths[i], path, length + 1);
        atomic_store(&states[i], 1);
        recorded = 1;
    }
    pthread_mutex_unlock(&lock);
    return recorded;
}

void ip_interrupted_writes_unwatch(const char *path) {
    pthread_mutex_lock(&lock);
    for (int i = 0; i < slot_count; i++) {
        if (atomic_load(&states[i]) == 1 && strcmp(paths[i], path) == 0) {
            atomic_store(&states[i], 0);
            break;
        }
    }
    pthread_mutex_unlock(&lock);
}
