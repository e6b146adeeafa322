#include "CLazyLibrary.h"
#include <dlfcn.h>
#include <stdio.h>

static void fail(struct ip_lazy_library *library, const char *reason) {
    snprintf(library->error, sizeof library->error, "%s", reason);
    library->state = 2;
}

static void open_now(struct ip_lazy_library *library) {
    // RTLD_LOCAL: the library's names stay out of the process's global scope, so they never
    // satisfy another object's lookups.
    void *handle = dlopen(library->file, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char *reason = dlerror();
        char text[sizeof library->error];
        snprintf(text, sizeof text, "%s could not be opened: %s", library->file, reason ? reason : "unknown reason");
        fail(library, text);
        return;
    }
    for (size_t i = 0; i < library->count; i++) {
        library->functions[i] = dlsym(handle, library->symbols[i]);
        if (!library->functions[i]) {
            char text[sizeof library->error];
            snprintf(text, sizeof text, "%s has no function %s (too old a version?)", library->file, library->symbols[i]);
            fail(library, text);
            return;
        }
    }
    if (library->initialise) {
        const char *reason = library->initialise();
        if (reason) {
            char text[sizeof library->error];
            snprintf(text, sizeof text, "%s could not be initialised: %s", library->file, reason);
            fail(library, text);
            return;
        }
    }
    library->state = 1;
}

const char *ip_lazy_library_open(struct ip_lazy_library *library) {
    // After the first call the state never changes again; the lock makes the first one happen once
    // and publishes the table to every thread that takes it.
    pthread_mutex_lock(&library->lock);
    if (library->state == 0) open_now(library);
    int state = library->state;
    pthread_mutex_unlock(&library->lock);
    return state == 1 ? NULL : library->error;
}
