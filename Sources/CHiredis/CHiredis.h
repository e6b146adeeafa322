// hiredis as a Swift module; linked as -lhiredis. Only the blocking API is used.
#include <hiredis/hiredis.h>
