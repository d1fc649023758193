// Sequential write + fdatasync bandwidth: the ceiling for acks=all (every ack waits for a sync).
// Usage: disksync DIR BLOCK_BYTES SECONDS   prints: MiB/s syncs/s (two numbers)
// Appends BLOCK_BYTES to a fresh file in DIR and fdatasyncs after every write, for SECONDS;
// the file is removed afterwards.
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
  if (argc < 4) { fprintf(stderr, "usage: disksync DIR BLOCK_BYTES SECONDS\n"); return 2; }
  size_t block = (size_t)atol(argv[2]);
  double secs = atof(argv[3]);
  char path[4096];
  snprintf(path, sizeof path, "%s/disksync.%d.tmp", argv[1], (int)getpid());
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) { perror("open"); return 1; }
  char *buf = malloc(block);
  for (size_t i = 0; i < block; i++) buf[i] = (char)(i * 131 + 7);
  unsigned long long total = 0, syncs = 0;
  double t0 = now_s(), end = t0 + secs, t;
  do {
    size_t off = 0;
    while (off < block) {
      ssize_t n = write(fd, buf + off, block - off);
      if (n <= 0) { perror("write"); return 1; }
      off += (size_t)n;
    }
    if (fdatasync(fd)) { perror("fdatasync"); return 1; }
    total += block;
    syncs++;
    t = now_s();
  } while (t < end);
  close(fd);
  unlink(path);
  printf("%.1f %.0f\n", total / (t - t0) / (1024.0 * 1024.0), syncs / (t - t0));
  return 0;
}
