// libcurl's declarations (types, option and code values) as a Swift module. The library is not
// linked: CCurlShim opens it on the first download and forwards its `ip_curl_*` functions to it.
#include <curl/curl.h>
