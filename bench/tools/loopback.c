// Raw loopback TCP throughput: the ceiling for any produce/consume figure on this machine.
// Usage: loopback SECONDS [CHUNK_BYTES [DIR]]   prints: MiB/s (one number)
// A forked child receives and discards; the parent sends CHUNK_BYTES writes for SECONDS.
// The rate is measured on the receiver (bytes actually delivered / elapsed).
// With DIR the sender instead sends a 512 MiB file in DIR (written and read once before, so
// in the page cache; removed at the end) with sendfile(2), CHUNK_BYTES per call, over and
// over: zero-copy reads of data that is not in the CPU caches, the ceiling of consume from a
// broker that serves fetches with sendfile.
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

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
  double secs = argc > 1 ? atof(argv[1]) : 3.0;
  size_t chunk = argc > 2 ? (size_t)atol(argv[2]) : 256 * 1024;
  char path[4096] = "";
  if (argc > 3) snprintf(path, sizeof path, "%s/loopback.%d", argv[3], (int)getpid());
  const int use_sendfile = argc > 3;
  const off_t file_bytes = (off_t)512 << 20;
  int src = -1;
  if (use_sendfile) {  // the file to send, written and read once so that it is cached
    if ((src = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600)) < 0) { perror("open"); return 1; }
    char *b = malloc(1 << 20);
    memset(b, 'x', 1 << 20);
    for (off_t o = 0; o < file_bytes; o += 1 << 20)
      if (pwrite(src, b, 1 << 20, o) != 1 << 20) { perror("pwrite"); return 1; }
    for (off_t o = 0; o < file_bytes; o += 1 << 20)
      if (pread(src, b, 1 << 20, o) != 1 << 20) { perror("pread"); return 1; }
    free(b);
  }
  int ls = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = 0};
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t al = sizeof a;
  if (bind(ls, (struct sockaddr *)&a, sizeof a) || listen(ls, 1) ||
      getsockname(ls, (struct sockaddr *)&a, &al)) { perror("listen"); return 1; }
  int pfd[2];
  if (pipe(pfd)) { perror("pipe"); return 1; }
  pid_t pid = fork();
  if (pid == 0) {  // receiver
    close(pfd[0]);
    int c = accept(ls, NULL, NULL);
    char *buf = malloc(chunk);
    unsigned long long total = 0;
    double t0 = 0, t1 = 0;
    for (;;) {
      ssize_t n = read(c, buf, chunk);
      if (n <= 0) break;
      if (total == 0) t0 = now_s();
      total += (unsigned long long)n;
      t1 = now_s();
    }
    double rate = t1 > t0 ? total / (t1 - t0) / (1024.0 * 1024.0) : 0;
    if (write(pfd[1], &rate, sizeof rate) != sizeof rate) return 1;
    return 0;
  }
  close(pfd[1]);
  int s = socket(AF_INET, SOCK_STREAM, 0);
  if (connect(s, (struct sockaddr *)&a, sizeof a)) { perror("connect"); return 1; }
  char *buf = malloc(chunk);
  memset(buf, 'x', chunk);
  double end = now_s() + secs;
  off_t at = 0;
  while (use_sendfile && now_s() < end) {
    if (at >= file_bytes) at = 0;
    size_t want = (size_t)(file_bytes - at) < chunk ? (size_t)(file_bytes - at) : chunk;
    ssize_t n = sendfile(s, src, &at, want);
    if (n <= 0) { perror("sendfile"); return 1; }
  }
  while (!use_sendfile && now_s() < end) {
    size_t off = 0;
    while (off < chunk) {
      ssize_t n = write(s, buf + off, chunk - off);
      if (n <= 0) { perror("write"); return 1; }
      off += (size_t)n;
    }
  }
  close(s);
  if (src >= 0) { close(src); unlink(path); }
  double rate = 0;
  if (read(pfd[0], &rate, sizeof rate) != sizeof rate) return 1;
  waitpid(pid, NULL, 0);
  printf("%.1f\n", rate);
  return 0;
}
