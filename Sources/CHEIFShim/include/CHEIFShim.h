// Declared in CHEIF.h (the libheif module), defined in HEIFLibrary.c.
