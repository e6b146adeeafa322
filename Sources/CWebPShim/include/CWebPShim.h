// CWebPShim defines what CWebP.h declares beyond libwebp's own headers (a still's encoding in a
// child process); Swift calls those through the CWebP module, so this header declares nothing.
#ifndef CWEBPSHIM_H
#define CWEBPSHIM_H
#endif
