// Raw loopback TCP throughput: the ceiling for any produce/consume figure on this machine.
// Usage: loopback [-c CONNECTIONS] [-w DIR | -s DIR] SECONDS [CHUNK_BYTES]   prints: MiB/s
// Per connection, a forked receiver reads and discards and a forked sender sends CHUNK_BYTES
// writes for SECONDS. The rate is measured on the receivers: all bytes delivered over the span
// from the first byte received to the last (1 connection unless -c).
// With -w, each receiver also writes what it reads to a new file in DIR (removed at the end),
// without fsync: the least work any broker does for a produce (receive, then store in the page
// cache), so its rate is this machine's ceiling for a produce figure.
// With -s, each sender first writes a 64 MiB file in DIR (so it is in the page cache; removed
// at once), then sends it with sendfile, CHUNK_BYTES per call, from its start again at its end:
// the least work any broker does for a fetch (page cache to socket without a copy through user
// space), so its rate is this machine's ceiling for a consume figure.
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "spans.h"

static void receive(int ls, size_t chunk, int out, const char *dir) {
  int c = accept(ls, NULL, NULL);
  char *buf = malloc(chunk);
  int file = -1;
  if (dir) {
    char path[4096];
    snprintf(path, sizeof path, "%s/loopback-store.%d", dir, (int)getpid());
    if ((file = open(path, O_CREAT | O_EXCL | O_WRONLY, 0600)) < 0 || unlink(path)) {
      perror("open");
      exit(1);
    }
  }
  span_t sp = {0, 0, 0};
  for (;;) {
    ssize_t n = read(c, buf, chunk);
    if (n <= 0) break;
    if (file >= 0 && write(file, buf, (size_t)n) != n) { perror("write"); exit(1); }
    if (sp.bytes == 0) sp.t0 = now_s();
    sp.bytes += (double)n;
    sp.t1 = now_s();
  }
  if (write(out, &sp, sizeof sp) != sizeof sp) exit(1);
  exit(0);
}

enum { k_file_bytes = 64 << 20 };

// A k_file_bytes file of 'x' in dir, unlinked at once, for sendfile.
static int cached_file(const char *dir, const char *buf, size_t chunk) {
  char path[4096];
  snprintf(path, sizeof path, "%s/loopback-send.%d", dir, (int)getpid());
  int f = open(path, O_CREAT | O_EXCL | O_RDWR, 0600);
  if (f < 0 || unlink(path)) { perror("open"); exit(1); }
  for (size_t done = 0; done < k_file_bytes; done += chunk)
    if (write(f, buf, chunk) != (ssize_t)chunk) { perror("write"); exit(1); }
  return f;
}

static void send_for(const struct sockaddr_in *a, double secs, size_t chunk, const char *sendfile_dir) {
  char *buf = malloc(chunk);
  memset(buf, 'x', chunk);
  int file = sendfile_dir ? cached_file(sendfile_dir, buf, chunk) : -1;
  int s = socket(AF_INET, SOCK_STREAM, 0);
  if (connect(s, (const struct sockaddr *)a, sizeof *a)) { perror("connect"); exit(1); }
  double end = now_s() + secs;
  off_t pos = 0;
  while (now_s() < end) {
    size_t off = 0;
    while (off < chunk) {
      if (pos >= k_file_bytes) pos = 0;  // the file again from its start (it has at least that many)
      ssize_t n = file >= 0 ? sendfile(s, file, &pos, chunk - off) : write(s, buf + off, chunk - off);
      if (n <= 0) { perror(file >= 0 ? "sendfile" : "write"); exit(1); }
      off += (size_t)n;
    }
  }
  close(s);
  exit(0);
}

int main(int argc, char **argv) {
  int conns = take_connections(&argc, &argv);
  const char *dir = NULL, *sendfile_dir = NULL;
  if (argc > 2 && (!strcmp(argv[1], "-w") || !strcmp(argv[1], "-s"))) {
    *(argv[1][1] == 'w' ? &dir : &sendfile_dir) = argv[2];
    argv[2] = argv[0];
    argv += 2;
    argc -= 2;
  }
  double secs = argc > 1 ? atof(argv[1]) : 3.0;
  size_t chunk = argc > 2 ? (size_t)atol(argv[2]) : 256 * 1024;
  int ls = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = 0};
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t al = sizeof a;
  if (conns < 1 || bind(ls, (struct sockaddr *)&a, sizeof a) || listen(ls, conns) ||
      getsockname(ls, (struct sockaddr *)&a, &al)) { perror("listen"); return 1; }
  int pfd[2];
  if (pipe(pfd)) { perror("pipe"); return 1; }
  for (int i = 0; i < conns; i++)
    if (fork() == 0) { close(pfd[0]); receive(ls, chunk, pfd[1], dir); }
  for (int i = 0; i < conns; i++)
    if (fork() == 0) send_for(&a, secs, chunk, sendfile_dir);
  close(pfd[1]);
  double bytes, rate = collect_spans(pfd[0], conns, &bytes);
  if (rate < 0) { fprintf(stderr, "loopback: a connection failed\n"); return 1; }
  printf("%.1f\n", rate);
  return 0;
}
