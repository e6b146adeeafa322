// The libcurl functions CurlLibrary.c resolves in the opened library; private to the shim (not
// under include/). `IP_CURL(name)` is libcurl's `curl_name`, typed as libcurl declares it.
#ifndef CURLLIBRARY_H
#define CURLLIBRARY_H
#include <curl/curl.h>

#define IP_CURL_FUNCTIONS(X)                                                                         \
    X(global_init) X(easy_init) X(easy_reset) X(easy_cleanup) X(easy_setopt) X(easy_getinfo)         \
    X(easy_strerror) X(easy_pause) X(multi_init) X(multi_cleanup) X(multi_setopt) X(multi_add_handle)              \
    X(multi_remove_handle) X(multi_perform) X(multi_poll) X(multi_wakeup) X(multi_info_read)         \
    X(share_init) X(share_cleanup) X(share_setopt) X(slist_append) X(slist_free_all)

#define IP_CURL_INDEX(name) ip_curl_index_##name,
enum { IP_CURL_FUNCTIONS(IP_CURL_INDEX) ip_curl_function_count };

/// Filled by `ip_curl_open`; read only after it returned NULL.
extern void *ip_curl_functions[ip_curl_function_count];

#define IP_CURL(name) ((__typeof__(curl_##name) *)ip_curl_functions[ip_curl_index_##name])

#endif
