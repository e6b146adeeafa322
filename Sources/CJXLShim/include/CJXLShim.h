// Declared in CJXL.h (the libjxl module), defined in JXLLibrary.c.
