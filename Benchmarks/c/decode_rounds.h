/* The driver the decode-every-frame C baselines share (decode_webp_gif.c, decode_avif_heif.c):
 * reads the files named after ROUNDS, decodes each of them ROUNDS times with the baseline's
 * `decode` (1 when it decoded), and prints images per CPU second. CPU time of this one-threaded
 * process, not wall time: on a machine shared with builds, wall time measures the neighbours. */
#ifndef IMAGEPIPE_DECODE_ROUNDS_H
#define IMAGEPIPE_DECODE_ROUNDS_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static unsigned char *read_file(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *buf = malloc((size_t)n);
  if (fread(buf, 1, (size_t)n, f) != (size_t)n) { free(buf); buf = NULL; }
  fclose(f);
  *size = (size_t)n;
  return buf;
}

static double cpu_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* usage: PROGRAM ROUNDS FILE...; returns how many decodes succeeded, or -1 after a usage or read
 * error it has reported. */
static int decode_rounds(int argc, char **argv, int (*decode)(const unsigned char *, size_t)) {
  if (argc < 3) { fprintf(stderr, "usage: %s ROUNDS FILE...\n", argv[0]); return -1; }
  int rounds = atoi(argv[1]), count = argc - 2, decoded = 0;
  unsigned char **files = calloc((size_t)count, sizeof *files);
  size_t *sizes = calloc((size_t)count, sizeof *sizes);
  for (int i = 0; i < count; i++) {
    files[i] = read_file(argv[i + 2], &sizes[i]);
    if (!files[i]) { fprintf(stderr, "cannot read %s\n", argv[i + 2]); return -1; }
  }
  double start = cpu_seconds();
  for (int r = 0; r < rounds; r++)
    for (int i = 0; i < count; i++) decoded += decode(files[i], sizes[i]);
  double seconds = cpu_seconds() - start;
  printf("%.2f images/s (%d decoded in %.3f s)\n", decoded / seconds, decoded, seconds);
  return decoded;
}

#endif
