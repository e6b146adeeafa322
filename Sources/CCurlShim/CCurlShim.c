#include "CCurlShim.h"
#include "CurlLibrary.h"

int ip_easy_setopt_long(void *easy, int option, long value) {
    return (int)IP_CURL(easy_setopt)(easy, (CURLoption)option, value);
}

int ip_easy_setopt_off(void *easy, int option, int64_t value) {
    return (int)IP_CURL(easy_setopt)(easy, (CURLoption)option, (curl_off_t)value);
}

int ip_easy_setopt_ptr(void *easy, int option, const void *value) {
    return (int)IP_CURL(easy_setopt)(easy, (CURLoption)option, value);
}

int ip_easy_setopt_data_callback(void *easy, int option, ip_data_callback callback) {
    return (int)IP_CURL(easy_setopt)(easy, (CURLoption)option, callback);
}

int ip_easy_setopt_prereq_callback(void *easy, ip_prereq_callback callback) {
    return (int)IP_CURL(easy_setopt)(easy, CURLOPT_PREREQFUNCTION, callback);
}

int ip_easy_setopt_opensocket_callback(void *easy, ip_opensocket_callback callback) {
    return (int)IP_CURL(easy_setopt)(easy, CURLOPT_OPENSOCKETFUNCTION, callback);
}

int ip_easy_getinfo_long(void *easy, int info, long *value) {
    return (int)IP_CURL(easy_getinfo)(easy, (CURLINFO)info, value);
}

int ip_easy_getinfo_off(void *easy, int info, int64_t *value) {
    curl_off_t v = 0;
    CURLcode rc = IP_CURL(easy_getinfo)(easy, (CURLINFO)info, &v);
    *value = (int64_t)v;
    return (int)rc;
}

int ip_easy_getinfo_string(void *easy, int info, const char **value) {
    char *v = NULL;
    CURLcode rc = IP_CURL(easy_getinfo)(easy, (CURLINFO)info, &v);
    *value = v;
    return (int)rc;
}

int ip_easy_getinfo_ptr(void *easy, int info, void **value) {
    return (int)IP_CURL(easy_getinfo)(easy, (CURLINFO)info, value);
}

int ip_multi_setopt_long(void *multi, int option, long value) {
    return (int)IP_CURL(multi_setopt)(multi, (CURLMoption)option, value);
}

int ip_share_setopt_long(void *share, int option, long value) {
    return (int)IP_CURL(share_setopt)(share, (CURLSHoption)option, value);
}
