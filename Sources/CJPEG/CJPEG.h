// libjpeg-turbo's libjpeg API, found through pkg-config (`libjpeg`); Debian package libjpeg-dev.
// jpeglib.h needs size_t and FILE declared before it is included.
#include <stddef.h>
#include <stdio.h>
#include <jpeglib.h>
