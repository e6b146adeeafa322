#ifndef CAVIFSHIM_H
#define CAVIFSHIM_H

/// 1 when dav1d's default settings, as libavif gets them in this process, log nowhere.
int imagepipe_dav1d_logging_silenced(void);

#endif
