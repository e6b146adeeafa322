// A C library opened on first use instead of linked. Loading a library with its dependencies
// costs every start of a program milliseconds of CPU (mapping, relocations, their constructors);
// libcurl, libavif and libheif bring dozens, which a command that reads and writes a JPEG never
// needs. Each shim keeps one `ip_lazy_library` and forwards its own prefixed functions
// (`ip_curl_easy_init`…) through the resolved table; a shim never defines a function under the
// library's own name, so whatever else in the process links the library keeps reaching it.
#ifndef CLAZYLIBRARY_H
#define CLAZYLIBRARY_H
#include <pthread.h>
#include <stddef.h>

struct ip_lazy_library {
    /// As `dlopen` takes it, with the soname's major version: "libcurl.so.4".
    const char *file;
    /// The functions to resolve, one per slot of `functions`.
    const char *const *symbols;
    void **functions;
    size_t count;
    /// Run once after every function resolved (a global initialisation); NULL, or why it failed.
    const char *(*initialise)(void);
    // Private: set by ip_lazy_library_open.
    pthread_mutex_t lock;
    int state;  // 0 not tried, 1 open, 2 failed
    char error[512];
};

#define IP_LAZY_LIBRARY(file_name, symbol_names, slots, initialiser)                                 \
    {                                                                                                \
        .file = (file_name), .symbols = (symbol_names), .functions = (slots),                        \
        .count = sizeof(symbol_names) / sizeof((symbol_names)[0]), .initialise = (initialiser),      \
        .lock = PTHREAD_MUTEX_INITIALIZER, .state = 0, .error = {0}                                  \
    }

/// Opens the library and resolves its functions the first time; NULL once it is usable, else why
/// not, naming the library ("libcurl.so.4: cannot open shared object file…"). A failure is final
/// for the process: every later call returns the same text.
const char *ip_lazy_library_open(struct ip_lazy_library *library);

#endif
