// Start-up time: from exec of a broker command to the first ApiVersions answered on its port.
// Usage: startprobe [--port P] [--timeout-s S] -- CMD ARGS...
//   Every "{PORT}" in ARGS is replaced by the port (P, or a free port picked here when P is 0
//   or absent). The command is forked and exec'd; the probe then connects to 127.0.0.1:PORT
//   every 0.5 ms and sends ApiVersions v3 until a response with error_code 0 arrives.
// Prints: "<ms> <port> <child_pid>" on success; exits 1 on timeout or if the child fails.
// The command's stdout goes to stderr. The child is left running (the caller stops it); a child that exits 0 (e.g. a launcher
// script that daemonises the broker) is reaped and probing continues.
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int free_port(void) {
  int s = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = 0};
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t al = sizeof a;
  if (bind(s, (struct sockaddr *)&a, sizeof a) || getsockname(s, (struct sockaddr *)&a, &al)) return -1;
  close(s);
  return ntohs(a.sin_port);
}

static int read_full(int fd, unsigned char *p, size_t n, double deadline) {
  size_t off = 0;
  while (off < n) {
    struct pollfd pf = {.fd = fd, .events = POLLIN};
    int left = (int)(deadline - now_ms());
    if (left <= 0 || poll(&pf, 1, left) <= 0) return -1;
    ssize_t r = read(fd, p + off, n - off);
    if (r <= 0) return -1;
    off += (size_t)r;
  }
  return 0;
}

// One attempt: 1 when the broker answered ApiVersions with error_code 0.
static int try_api_versions(int port) {
  int s = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(s, (struct sockaddr *)&a, sizeof a)) { close(s); return 0; }
  int one = 1;
  setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  // Request header v2 (api_key 18, version 3, correlation id 7, client_id "probe", no tags),
  // body: compact strings client_software_name "probe", client_software_version "1", no tags.
  static const unsigned char req[] = {
      0, 0, 0, 25,  0, 18, 0, 3,  0, 0, 0, 7,  0, 5, 'p', 'r', 'o', 'b', 'e',  0,
      6, 'p', 'r', 'o', 'b', 'e',  2, '1',  0};
  int ok = 0;
  if (write(s, req, sizeof req) == (ssize_t)sizeof req) {
    unsigned char hdr[10];
    double deadline = now_ms() + 2000;
    // response header v0 (correlation id), then error_code
    if (read_full(s, hdr, sizeof hdr, deadline) == 0) {
      uint32_t corr = (uint32_t)hdr[4] << 24 | (uint32_t)hdr[5] << 16 | (uint32_t)hdr[6] << 8 | hdr[7];
      ok = corr == 7 && hdr[8] == 0 && hdr[9] == 0;
    }
  }
  close(s);
  return ok;
}

int main(int argc, char **argv) {
  int port = 0, i = 1;
  double timeout_s = 120;
  for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
    if (!strcmp(argv[i], "--port") && i + 1 < argc) port = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--timeout-s") && i + 1 < argc) timeout_s = atof(argv[++i]);
  }
  if (i + 1 >= argc) { fprintf(stderr, "usage: startprobe [--port P] [--timeout-s S] -- CMD...\n"); return 2; }
  if (port == 0 && (port = free_port()) <= 0) { perror("free port"); return 1; }
  char portstr[16];
  snprintf(portstr, sizeof portstr, "%d", port);
  char **cmd = &argv[i + 1];
  for (char **p = cmd; *p; p++) {
    char *at = strstr(*p, "{PORT}");
    if (!at) continue;
    char *s = malloc(strlen(*p) + 16);
    snprintf(s, strlen(*p) + 16, "%.*s%s%s", (int)(at - *p), *p, portstr, at + 6);
    *p = s;
  }
  double t0 = now_ms();
  pid_t pid = fork();
  if (pid == 0) {
    dup2(2, 1);  // the command's own output must not mix with ours
    execvp(cmd[0], cmd);
    perror("exec");
    _exit(127);
  }
  int child_done = 0;
  double deadline = t0 + timeout_s * 1e3;
  while (now_ms() < deadline) {
    if (try_api_versions(port)) {
      printf("%.2f %d %d\n", now_ms() - t0, port, (int)pid);
      return 0;
    }
    if (!child_done) {
      int st;
      if (waitpid(pid, &st, WNOHANG) == pid) {
        child_done = 1;
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) { fprintf(stderr, "startprobe: command failed\n"); return 1; }
      }
    }
    struct timespec ts = {0, 500000};
    nanosleep(&ts, NULL);
  }
  fprintf(stderr, "startprobe: no ApiVersions answer on port %d within %.0fs\n", port, timeout_s);
  return 1;
}
