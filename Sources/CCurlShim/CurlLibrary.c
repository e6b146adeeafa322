// libcurl, opened on the first download instead of linked (see CLazyLibrary.h): it brings some
// thirty libraries (TLS, Kerberos, LDAP, SSH, IDN…) and initialises OpenSSL, which every start of
// a program that only reads local files would pay for. LoaderHTTP calls the `ip_curl_*`
// functions below, never libcurl's own names.
#include "CCurlShim.h"
#include "CurlLibrary.h"
#include <CLazyLibrary.h>

#define IP_CURL_NAME(name) "curl_" #name,
static const char *const names[] = {IP_CURL_FUNCTIONS(IP_CURL_NAME)};

void *ip_curl_functions[ip_curl_function_count];

// libcurl wants one global initialisation before any other call, from one thread: here, once,
// under the library's lock.
static const char *initialise(void) {
    return IP_CURL(global_init)(CURL_GLOBAL_ALL) == CURLE_OK ? NULL : "curl_global_init failed";
}

static struct ip_lazy_library library = IP_LAZY_LIBRARY("libcurl.so.4", names, ip_curl_functions, initialise);

const char *ip_curl_open(void) { return ip_lazy_library_open(&library); }

void *ip_curl_easy_init(void) { return IP_CURL(easy_init)(); }
void ip_curl_easy_reset(void *easy) { IP_CURL(easy_reset)(easy); }
void ip_curl_easy_cleanup(void *easy) { IP_CURL(easy_cleanup)(easy); }
const char *ip_curl_easy_strerror(int code) { return IP_CURL(easy_strerror)((CURLcode)code); }
int ip_curl_easy_resume(void *easy) { return (int)IP_CURL(easy_pause)(easy, CURLPAUSE_CONT); }

void *ip_curl_multi_init(void) { return IP_CURL(multi_init)(); }
int ip_curl_multi_cleanup(void *multi) { return (int)IP_CURL(multi_cleanup)(multi); }
int ip_curl_multi_add_handle(void *multi, void *easy) { return (int)IP_CURL(multi_add_handle)(multi, easy); }
int ip_curl_multi_remove_handle(void *multi, void *easy) { return (int)IP_CURL(multi_remove_handle)(multi, easy); }
int ip_curl_multi_perform(void *multi, int *running) { return (int)IP_CURL(multi_perform)(multi, running); }
int ip_curl_multi_poll(void *multi, int timeout_ms) { return (int)IP_CURL(multi_poll)(multi, NULL, 0, timeout_ms, NULL); }
int ip_curl_multi_wakeup(void *multi) { return (int)IP_CURL(multi_wakeup)(multi); }
void *ip_curl_multi_info_read(void *multi, int *queued) { return IP_CURL(multi_info_read)(multi, queued); }

void *ip_curl_share_init(void) { return IP_CURL(share_init)(); }
int ip_curl_share_cleanup(void *share) { return (int)IP_CURL(share_cleanup)(share); }

void *ip_curl_slist_append(void *list, const char *line) { return IP_CURL(slist_append)(list, line); }
void ip_curl_slist_free_all(void *list) { IP_CURL(slist_free_all)(list); }
