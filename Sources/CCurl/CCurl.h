// libcurl as a Swift module; found through pkg-config (`libcurl`).
#include <curl/curl.h>
