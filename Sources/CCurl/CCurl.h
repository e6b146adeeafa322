// libcurl's declarations as a Swift module. The library is not linked: CCurlShim opens it on first
// use (CurlLibrary.c) and defines the functions LoaderHTTP calls.
#include <curl/curl.h>
