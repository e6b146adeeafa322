// libcurl, opened on first use instead of linked: libcurl brings some thirty libraries (TLS,
// Kerberos, LDAP, SSH, IDN…) whose loading and relocation cost a process that never downloads
// (`imagepipe fetch` of local files) milliseconds at every start. The functions LoaderHTTP calls
// are defined here under libcurl's own names and forward to the opened library; nothing calls
// them before `ip_curl_load` succeeded.
#include "CCurlShim.h"
#include "CurlLibrary.h"
#include <curl/curl.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

static struct curl_functions functions;
static int loaded;
static char load_error[256];
static pthread_once_t once = PTHREAD_ONCE_INIT;

#define RESOLVE(name) \
    if (!(functions.name = dlsym(library, "curl_" #name))) { \
        snprintf(load_error, sizeof load_error, "libcurl has no curl_" #name); \
        return; \
    }

static void open_library(void) {
    void *library = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        const char *reason = dlerror();
        snprintf(load_error, sizeof load_error, "%s", reason ? reason : "libcurl.so.4 could not be opened");
        return;
    }
    RESOLVE(global_init) RESOLVE(easy_init) RESOLVE(easy_reset) RESOLVE(easy_cleanup)
    RESOLVE(easy_setopt) RESOLVE(easy_getinfo) RESOLVE(easy_strerror)
    RESOLVE(multi_init) RESOLVE(multi_cleanup) RESOLVE(multi_setopt) RESOLVE(multi_add_handle)
    RESOLVE(multi_remove_handle) RESOLVE(multi_perform) RESOLVE(multi_poll) RESOLVE(multi_wakeup)
    RESOLVE(multi_info_read)
    RESOLVE(share_init) RESOLVE(share_cleanup) RESOLVE(share_setopt)
    RESOLVE(slist_append) RESOLVE(slist_free_all)
    // libcurl wants one global initialisation before any other call, from a single thread: here,
    // under pthread_once. CURL_GLOBAL_ALL.
    if (functions.global_init(CURL_GLOBAL_ALL) != CURLE_OK) {
        snprintf(load_error, sizeof load_error, "curl_global_init failed");
        return;
    }
    loaded = 1;
}

const char *ip_curl_load(void) {
    pthread_once(&once, open_library);
    return loaded ? NULL : load_error;
}

const struct curl_functions *ip_curl(void) { return &functions; }

CURL *curl_easy_init(void) { return functions.easy_init(); }
void curl_easy_reset(CURL *easy) { functions.easy_reset(easy); }
void curl_easy_cleanup(CURL *easy) { functions.easy_cleanup(easy); }
const char *curl_easy_strerror(CURLcode code) { return functions.easy_strerror(code); }
CURLM *curl_multi_init(void) { return functions.multi_init(); }
CURLMcode curl_multi_cleanup(CURLM *multi) { return functions.multi_cleanup(multi); }
CURLMcode curl_multi_add_handle(CURLM *multi, CURL *easy) { return functions.multi_add_handle(multi, easy); }
CURLMcode curl_multi_remove_handle(CURLM *multi, CURL *easy) { return functions.multi_remove_handle(multi, easy); }
CURLMcode curl_multi_perform(CURLM *multi, int *running) { return functions.multi_perform(multi, running); }
CURLMcode curl_multi_poll(CURLM *multi, struct curl_waitfd *fds, unsigned int count, int timeout, int *ready) {
    return functions.multi_poll(multi, fds, count, timeout, ready);
}
CURLMcode curl_multi_wakeup(CURLM *multi) { return functions.multi_wakeup(multi); }
CURLMsg *curl_multi_info_read(CURLM *multi, int *queued) { return functions.multi_info_read(multi, queued); }
CURLSH *curl_share_init(void) { return functions.share_init(); }
CURLSHcode curl_share_cleanup(CURLSH *share) { return functions.share_cleanup(share); }
struct curl_slist *curl_slist_append(struct curl_slist *list, const char *line) { return functions.slist_append(list, line); }
void curl_slist_free_all(struct curl_slist *list) { functions.slist_free_all(list); }
