// libdeflate, found through pkg-config (`libdeflate`); Debian package libdeflate-dev.
#include <libdeflate.h>
