// Typed wrappers for libcurl's varargs entry points, which Swift cannot call.
// Plain C types only (no curl.h here) so this module never redeclares libcurl's types:
// handles are `void *` (libcurl's CURL, CURLM and CURLSH are `void` typedefs), options and
// results are the numeric values of libcurl's enums.
#ifndef CCURLSHIM_H
#define CCURLSHIM_H
#include <stddef.h>
#include <stdint.h>

int ip_easy_setopt_long(void *easy, int option, long value);
int ip_easy_setopt_off(void *easy, int option, int64_t value);
int ip_easy_setopt_ptr(void *easy, int option, const void *value);

typedef size_t (*ip_data_callback)(char *buffer, size_t size, size_t count, void *context);
int ip_easy_setopt_data_callback(void *easy, int option, ip_data_callback callback);

typedef int (*ip_prereq_callback)(void *context, char *primary_ip, char *local_ip, int primary_port, int local_port);
int ip_easy_setopt_prereq_callback(void *easy, ip_prereq_callback callback);

// CURLOPT_OPENSOCKETFUNCTION: `purpose` is a curlsocktype, `address` a `struct curl_sockaddr *`;
// returns a socket, or -1 (CURL_SOCKET_BAD) to refuse the address without connecting.
typedef int (*ip_opensocket_callback)(void *context, int purpose, void *address);
int ip_easy_setopt_opensocket_callback(void *easy, ip_opensocket_callback callback);

int ip_easy_getinfo_long(void *easy, int info, long *value);
int ip_easy_getinfo_off(void *easy, int info, int64_t *value);
int ip_easy_getinfo_string(void *easy, int info, const char **value);
int ip_easy_getinfo_ptr(void *easy, int info, void **value);

int ip_multi_setopt_long(void *multi, int option, long value);
int ip_share_setopt_long(void *share, int option, long value);

// libcurl is opened on first use rather than linked (CurlLibrary.c). `ip_curl_open` opens it and
// runs its global initialisation once; it returns NULL when libcurl is ready, else why it is not
// (the same text on every later call). Every other function here needs it to have returned NULL.
const char *ip_curl_open(void);

// libcurl's entry points under our own names (curl_easy_init -> ip_curl_easy_init…). Codes are
// the numeric values of CURLcode, CURLMcode and CURLSHcode; ip_curl_multi_info_read returns a
// `CURLMsg *`, ip_curl_slist_append a `struct curl_slist *`.
void *ip_curl_easy_init(void);
void ip_curl_easy_reset(void *easy);
void ip_curl_easy_cleanup(void *easy);
const char *ip_curl_easy_strerror(int code);
// curl_easy_pause(easy, CURLPAUSE_CONT): a transfer a write callback paused goes on.
int ip_curl_easy_resume(void *easy);
// What a write callback returns to pause its transfer (CURL_WRITEFUNC_PAUSE).
static const size_t ip_curl_write_pause = 0x10000001;
void *ip_curl_multi_init(void);
int ip_curl_multi_cleanup(void *multi);
int ip_curl_multi_add_handle(void *multi, void *easy);
int ip_curl_multi_remove_handle(void *multi, void *easy);
int ip_curl_multi_perform(void *multi, int *running);
// curl_multi_poll with no extra descriptors.
int ip_curl_multi_poll(void *multi, int timeout_ms);
int ip_curl_multi_wakeup(void *multi);
void *ip_curl_multi_info_read(void *multi, int *queued);
void *ip_curl_share_init(void);
int ip_curl_share_cleanup(void *share);
void *ip_curl_slist_append(void *list, const char *line);
void ip_curl_slist_free_all(void *list);

#endif
