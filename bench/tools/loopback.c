// Raw loopback TCP throughput: the ceiling for any produce/consume figure on this machine.
// Usage: loopback SECONDS [CHUNK_BYTES [DIR]]   prints: MiB/s (one number)
// A forked child receives and discards; the parent sends CHUNK_BYTES writes for SECONDS.
// The rate is measured on the receiver (bytes actually delivered / elapsed).
// With DIR the receiver also appends what it reads to a file in DIR (page cache, no fsync;
// removed at the end): the least any broker does to store what it receives, so the ceiling
// of produce on this machine.
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
    int f = -1;
    if (*path && (f = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600)) < 0) { perror("open"); return 1; }
    unsigned long long total = 0;
    double t0 = 0, t1 = 0;
    for (;;) {
      ssize_t n = read(c, buf, chunk);
      if (n <= 0) break;
      if (f >= 0 && write(f, buf, (size_t)n) != n) { perror("write to file"); return 1; }
      if (total == 0) t0 = now_s();
      total += (unsigned long long)n;
      t1 = now_s();
    }
    double rate = t1 > t0 ? total / (t1 - t0) / (1024.0 * 1024.0) : 0;
    if (f >= 0) { close(f); unlink(path); }
    if (write(pfd[1], &rate, sizeof rate) != sizeof rate) return 1;
    return 0;
  }
  close(pfd[1]);
  int s = socket(AF_INET, SOCK_STREAM, 0);
  if (connect(s, (struct sockaddr *)&a, sizeof a)) { perror("connect"); return 1; }
  char *buf = malloc(chunk);
  memset(buf, 'x', chunk);
  double end = now_s() + secs;
  while (now_s() < end) {
    size_t off = 0;
    while (off < chunk) {
      ssize_t n = write(s, buf + off, chunk - off);
      if (n <= 0) { perror("write"); return 1; }
      off += (size_t)n;
    }
  }
  close(s);
  double rate = 0;
  if (read(pfd[0], &rate, sizeof rate) != sizeof rate) return 1;
  waitpid(pid, NULL, 0);
  printf("%.1f\n", rate);
  return 0;
}
