// Raw loopback TCP throughput: the ceiling for any produce/consume figure on this machine.
// Usage: loopback [-c CONNECTIONS] [-w DIR [-p FILES:BATCH:FLUSH_MS] | -s DIR] SECONDS [CHUNK_BYTES]
// prints: MiB/s
// Per connection, a forked receiver reads and discards and a forked sender sends CHUNK_BYTES
// writes for SECONDS. The rate is measured on the receivers: all bytes delivered over the span
// from the first byte received to the last (1 connection unless -c).
// With -w, each receiver also writes what it reads to a new file in DIR (removed at the end),
// without fsync: the least work any broker does for a produce (receive, then store in the page
// cache), so its rate is this machine's ceiling for a produce figure.
// With -w and -p FILES:BATCH:FLUSH_MS, each receiver stores as a Kafka-layout broker stores a
// produce: what it reads is cut into appends of BATCH bytes (one record batch) that go to FILES
// files in turn (one per partition), and every FLUSH_MS each file is fdatasynced (ketch's
// --flush-ms; 0: never). Small appends spread over files cost the page cache more per byte than
// 256 KiB writes into one file, so this is the produce ceiling for a broker with that layout.
// With -s, each sender first writes a 64 MiB file in DIR (so it is in the page cache; removed
// at once), then sends it with sendfile, CHUNK_BYTES per call, from its start again at its end:
// the least work any broker does for a fetch (page cache to socket without a copy through user
// space), so its rate is this machine's ceiling for a consume figure.
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
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

// How a receiver stores what it reads (-w, -p): files in dir, appends of `batch` bytes to
// them in turn (0: each read whole to one file), fdatasync of each every flush_ms (0: never).
typedef struct { const char *dir; int files; size_t batch; long flush_ms; } store_t;

static int open_unlinked(const char *dir, int i) {
  char path[4096];
  snprintf(path, sizeof path, "%s/loopback-store.%d.%d", dir, (int)getpid(), i);
  int f = open(path, O_CREAT | O_EXCL | O_WRONLY, 0600);
  if (f < 0 || unlink(path)) { perror("open"); exit(1); }
  return f;
}

static void put(int f, const char *p, size_t n) {
  if (write(f, p, n) != (ssize_t)n) { perror("write"); exit(1); }
}

// Syncs the receiver's files every flush_ms, beside the receive loop (a broker's flush does not
// stop it from receiving), until the receiver process exits.
typedef struct { long flush_ms; const int *files; int nfiles; } flusher_t;

static void *flush_loop(void *arg) {
  const flusher_t *f = arg;
  struct timespec pause = {f->flush_ms / 1000, f->flush_ms % 1000 * 1000000};
  for (;;) {
    nanosleep(&pause, NULL);
    for (int i = 0; i < f->nfiles; i++) fdatasync(f->files[i]);
  }
  return NULL;
}

static void receive(int ls, size_t chunk, int out, const store_t *st) {
  int c = accept(ls, NULL, NULL);
  size_t batch = st->batch;  // 0 unless -p (which needs -w: main checks)
  char *buf = malloc(chunk + batch);
  int nfiles = st->dir ? st->files : 0, next = 0;  // files <= 256 (main checks)
  int files[256];
  for (int i = 0; i < nfiles; i++) files[i] = open_unlinked(st->dir, i);
  size_t held = 0;  // bytes of a batch not yet complete, at the start of buf
  flusher_t fl = {st->flush_ms, files, nfiles};
  pthread_t flush_thread;
  if (nfiles && st->flush_ms > 0 && pthread_create(&flush_thread, NULL, flush_loop, &fl)) {
    perror("pthread_create");
    exit(1);
  }
  span_t sp = {0, 0, 0};
  for (;;) {
    ssize_t n = read(c, buf + held, chunk);
    if (n <= 0) break;
    if (!batch) {
      if (nfiles) put(files[0], buf, (size_t)n);
    } else {
      size_t have = held + (size_t)n, at = 0;
      for (; have - at >= batch; at += batch, next = (next + 1) % nfiles) put(files[next], buf + at, batch);
      held = have - at;
      memmove(buf, buf + at, held);
    }
    if (sp.bytes == 0) sp.t0 = now_s();
    sp.bytes += (double)n;
    sp.t1 = now_s();
  }
  if (write(out, &sp, sizeof sp) != sizeof sp) exit(1);
  exit(0);  // ends the flush thread too
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
  const char *sendfile_dir = NULL;
  store_t st = {NULL, 1, 0, 0};
  while (argc > 2 && (!strcmp(argv[1], "-w") || !strcmp(argv[1], "-s") || !strcmp(argv[1], "-p"))) {
    if (argv[1][1] == 'w') st.dir = argv[2];
    if (argv[1][1] == 's') sendfile_dir = argv[2];
    if (argv[1][1] == 'p' && (sscanf(argv[2], "%d:%zu:%ld", &st.files, &st.batch, &st.flush_ms) != 3 ||
                              st.files < 1 || st.files > 256 || st.batch < 1)) {
      fprintf(stderr, "loopback: -p FILES:BATCH:FLUSH_MS (1..256 files, batch >= 1 byte)\n");
      return 2;
    }
    argv[2] = argv[0];
    argv += 2;
    argc -= 2;
  }
  if (st.batch && !st.dir) { fprintf(stderr, "loopback: -p needs -w DIR\n"); return 2; }
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
    if (fork() == 0) { close(pfd[0]); receive(ls, chunk, pfd[1], &st); }
  for (int i = 0; i < conns; i++)
    if (fork() == 0) send_for(&a, secs, chunk, sendfile_dir);
  close(pfd[1]);
  double bytes, rate = collect_spans(pfd[0], conns, &bytes);
  if (rate < 0) { fprintf(stderr, "loopback: a connection failed\n"); return 1; }
  printf("%.1f\n", rate);
  return 0;
}
