// Shared by the bench tools that run several connections in forked processes: each process
// reports what it moved as a span, and the parent adds them up over the whole time.
#pragma once
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

// What one process moved: bytes between t0 and t1 (CLOCK_MONOTONIC, which all processes share).
typedef struct { double t0, t1, bytes; } span_t;

// A leading "-c N" (taken off the arguments): how many connections; 1 without it.
static int take_connections(int *argc, char ***argv) {
  if (*argc <= 2 || strcmp((*argv)[1], "-c")) return 1;
  int n = atoi((*argv)[2]);
  (*argv)[2] = (*argv)[0];
  *argv += 2;
  *argc -= 2;
  return n;
}

// Reads the spans written to `rfd` until every writer has closed it, then waits for every
// child. Returns all bytes over the span from the earliest start to the latest end, in MiB/s,
// and their sum in *bytes; -1 if a child failed or fewer than `want` spans arrived.
static double collect_spans(int rfd, int want, double *bytes) {
  span_t all = {0, 0, 0}, sp;
  int got = 0;
  while (read(rfd, &sp, sizeof sp) == sizeof sp) {
    if (!got || sp.t0 < all.t0) all.t0 = sp.t0;
    if (!got || sp.t1 > all.t1) all.t1 = sp.t1;
    all.bytes += sp.bytes;
    got++;
  }
  int failed = 0, st;
  while (wait(&st) > 0) failed |= !WIFEXITED(st) || WEXITSTATUS(st) != 0;
  if (failed || got != want) return -1;
  *bytes = all.bytes;
  return all.t1 > all.t0 ? all.bytes / (all.t1 - all.t0) / 1048576 : 0;
}
