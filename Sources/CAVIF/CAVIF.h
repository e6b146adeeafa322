// libavif's public header as one Swift module. libavif reports every failure through its return
// codes and `avifDiagnostics`, never by jumping, so no C shim is needed.
#include <avif/avif.h>
