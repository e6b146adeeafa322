// giflib has no pkg-config file on Debian; its header lives in /usr/include and the library is -lgif.
// No C shim is needed: giflib reports errors by return value (no longjmp), and its read/write
// callbacks are plain C function pointers that Swift @convention(c) closures satisfy.
#include <gif_lib.h>
