// dav1d, the AV1 decoder libavif prefers, prints what it finds wrong in a corrupt file on stderr
// through its default logger, and libavif 0.11 gives no way to replace that logger. A server must
// not write library text on stderr for every bad upload, so this file defines
// dav1d_default_settings: libavif's call resolves to this definition first (the program's own
// symbols come before its libraries', also for the libavif AVIFLibrary.c opens later: the program
// links libdav1d, so the linker exports this definition), which calls dav1d's and then turns
// logging off (a NULL callback, as dav1d documents). Errors still reach libavif through return codes.
#define _GNU_SOURCE
#include <dav1d/dav1d.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>

#include "CAVIFShim.h"

typedef void (*default_settings_fn)(Dav1dSettings *);

static default_settings_fn dav1d_own_default_settings;
static pthread_once_t lookup_once = PTHREAD_ONCE_INIT;

static void look_up_dav1d(void) {
    dav1d_own_default_settings = (default_settings_fn)dlsym(RTLD_NEXT, "dav1d_default_settings");
}

DAV1D_API void dav1d_default_settings(Dav1dSettings *settings) {
    pthread_once(&lookup_once, look_up_dav1d);
    if (dav1d_own_default_settings != NULL && dav1d_own_default_settings != dav1d_default_settings) {
        dav1d_own_default_settings(settings);
    }
    settings->logger.callback = NULL;
}

int imagepipe_dav1d_logging_silenced(void) {
    Dav1dSettings settings;
    settings.logger.callback = (void (*)(void *, const char *, va_list))1;
    dav1d_default_settings(&settings);
    return settings.logger.callback == NULL && dav1d_own_default_settings != NULL;
}
