// Broker ceiling with a client that costs about what bench/tools/loopback.c costs: Kafka wire
// requests built once and written again and again (produce), or fetched and discarded (fetch).
// It shows what a broker can take on this machine when the client is not the limit, so the
// ratio to raw loopback TCP says something about the broker (the JVM and franz-go clients need
// more CPU per MiB than either broker, and on 2 cores they share the CPU with it).
//
// Usage:
//   rawwire [-c CONNECTIONS] produce|fetch ...
//     With -c, CONNECTIONS processes run the command at once, each on its own connection
//     (each writes or reads MIB); the figure is all their bytes over the span from the first
//     start to the last end. One connection cannot show a broker's ceiling on its own: it
//     waits for each fetch answer (a stop-and-wait round trip) and is itself a busy process.
//   rawwire produce HOST PORT TOPIC PARTITIONS MIB [RECORD_BYTES BATCH_RECORDS INFLIGHT]
//     Produce v7, acks=1, one connection. Each request carries one v2 batch of BATCH_RECORDS
//     records of RECORD_BYTES (uncompressed, producer id -1) for every partition; INFLIGHT
//     requests are kept on the wire. Writes MIB MiB of batches after one untimed request
//     (retried while the topic is not yet served). Any other error code fails the run.
//   rawwire batch-bytes RECORD_BYTES BATCH_RECORDS
//     Prints the size in bytes of the record batch `produce` sends (bench/run.sh's store limit
//     appends batches of that size).
//   rawwire fetch HOST PORT TOPIC PARTITIONS MIB [MAX_BYTES PARTITION_MAX_BYTES]
//     Fetch v4 (read_uncommitted), one connection, one fetch at a time, every partition from
//     offset 0, until MIB MiB of record batches were received; the next offset of a partition
//     is the one after the last whole batch received.
//   rawwire latency HOST PORT TOPIC PARTITIONS SECONDS [RATE_MIB RECORD_BYTES BATCH_RECORDS
//                   WARMUP_S ACKS]
//     Produce-to-consume latency at a fixed rate, one process, two connections: a producer
//     (Produce v7, one batch of BATCH_RECORDS records per request, partitions in turn, sent on
//     schedule without waiting for answers) and a consumer (Fetch v4 long polls, max wait
//     500 ms, min bytes 1, every partition from offset 0 of a fresh topic). Each batch carries
//     its send time (CLOCK_MONOTONIC ns) in its first record's value; a record's latency is
//     its fetch answer's arrival minus its batch's send time, an ack's is the produce answer's
//     arrival minus the request's send time. Records sent in the first WARMUP_S are not
//     counted. Defaults: 10 MiB/s, 1024-byte records, 4 per batch, 2 s warm-up, acks 1.
//     Prints one JSON object (the bench driver's latency keys).
// Prints (produce, fetch): "<MiB/s> <bytes>" — record-batch bytes over the time from the first
// request written to the last response read. Defaults: 1024-byte records, 16 per batch (Kafka's default
// batch.size), 4 requests in flight; fetch max 50 MiB, 1 MiB per partition (the Java
// consumer's defaults).
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netdb.h>
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

#include "spans.h"

static void die(const char *what) { fprintf(stderr, "rawwire: %s\n", what); exit(1); }


// ---- big-endian writer into a growing buffer
typedef struct { unsigned char *p; size_t n, cap; } buf_t;
static void put(buf_t *b, const void *src, size_t n) {
  if (b->n + n > b->cap) {
    b->cap = (b->n + n) * 2;
    if (!(b->p = realloc(b->p, b->cap))) die("out of memory");
  }
  memcpy(b->p + b->n, src, n);
  b->n += n;
}
static void put8(buf_t *b, uint8_t v) { put(b, &v, 1); }
static void put16(buf_t *b, uint16_t v) { v = htons(v); put(b, &v, 2); }
static void put32(buf_t *b, uint32_t v) { v = htonl(v); put(b, &v, 4); }
static void put64(buf_t *b, uint64_t v) { put32(b, (uint32_t)(v >> 32)); put32(b, (uint32_t)v); }
static void put_str(buf_t *b, const char *s) { put16(b, (uint16_t)strlen(s)); put(b, s, strlen(s)); }
static void put_varint(buf_t *b, int64_t v) {  // zig-zag
  uint64_t u = ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
  while (u >= 0x80) { put8(b, (uint8_t)(u | 0x80)); u >>= 7; }
  put8(b, (uint8_t)u);
}
static void set32(unsigned char *p, uint32_t v) { v = htonl(v); memcpy(p, &v, 4); }
static uint16_t get16(const unsigned char *p) { uint16_t v; memcpy(&v, p, 2); return ntohs(v); }
static uint32_t get32(const unsigned char *p) { uint32_t v; memcpy(&v, p, 4); return ntohl(v); }
static uint64_t get64(const unsigned char *p) { return (uint64_t)get32(p) << 32 | get32(p + 4); }

static uint32_t crc32c(const unsigned char *p, size_t n) {
  static uint32_t table[256];
  if (!table[1])
    for (uint32_t i = 0; i < 256; i++) {
      uint32_t c = i;
      for (int k = 0; k < 8; k++) c = c & 1 ? (c >> 1) ^ 0x82F63B78u : c >> 1;
      table[i] = c;
    }
  uint32_t c = ~0u;
  while (n--) c = table[(c ^ *p++) & 0xff] ^ (c >> 8);
  return ~c;
}

// One v2 record batch: `count` records of `size` value bytes, no key, no headers.
static void put_batch(buf_t *b, int count, int size) {
  size_t start = b->n;
  int64_t ts = (int64_t)time(NULL) * 1000;
  put64(b, 0);                       // base offset (the broker assigns)
  put32(b, 0);                       // batch length, set below
  put32(b, 0xffffffffu);             // partition leader epoch
  put8(b, 2);                        // magic
  put32(b, 0);                       // crc, set below
  put16(b, 0);                       // attributes: no compression, CreateTime
  put32(b, (uint32_t)(count - 1));   // last offset delta
  put64(b, (uint64_t)ts);            // base timestamp
  put64(b, (uint64_t)ts);            // max timestamp
  put64(b, UINT64_MAX);              // producer id -1
  put16(b, 0xffff);                  // producer epoch -1
  put32(b, 0xffffffffu);             // base sequence -1
  put32(b, (uint32_t)count);
  char *value = malloc((size_t)size);
  for (int i = 0; i < size; i++) value[i] = (char)('a' + i % 26);
  for (int i = 0; i < count; i++) {
    buf_t r = {0};
    put8(&r, 0);           // attributes
    put_varint(&r, 0);     // timestamp delta
    put_varint(&r, i);     // offset delta
    put_varint(&r, -1);    // null key
    put_varint(&r, size);
    put(&r, value, (size_t)size);
    put_varint(&r, 0);     // no headers
    put_varint(b, (int64_t)r.n);
    put(b, r.p, r.n);
    free(r.p);
  }
  free(value);
  set32(b->p + start + 8, (uint32_t)(b->n - start - 12));
  set32(b->p + start + 17, crc32c(b->p + start + 21, b->n - start - 21));
}

static int connect_to(const char *host, const char *port) {
  struct addrinfo hints = {.ai_family = AF_INET, .ai_socktype = SOCK_STREAM}, *ai;
  if (getaddrinfo(host, port, &hints, &ai)) die("cannot resolve the broker address");
  int s = socket(AF_INET, SOCK_STREAM, 0);
  if (connect(s, ai->ai_addr, ai->ai_addrlen)) die("cannot connect");
  freeaddrinfo(ai);
  int one = 1;
  setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return s;
}

static void write_all(int s, const unsigned char *p, size_t n) {
  while (n) {
    ssize_t k = write(s, p, n);
    if (k <= 0) die("write failed");
    p += k; n -= (size_t)k;
  }
}
static void read_all(int s, unsigned char *p, size_t n) {
  while (n) {
    ssize_t k = read(s, p, n);
    if (k <= 0) die("the broker closed the connection");
    p += k; n -= (size_t)k;
  }
}
// Reads one response frame into *rb (grown as needed); returns its size.
static size_t read_frame(int s, buf_t *rb) {
  unsigned char sz[4];
  read_all(s, sz, 4);
  size_t n = get32(sz);
  if (n > rb->cap) { rb->cap = n; if (!(rb->p = realloc(rb->p, n))) die("out of memory"); }
  read_all(s, rb->p, n);
  return n;
}
static void put_header(buf_t *b, int16_t api, int16_t ver, int32_t corr) {
  put32(b, 0);  // size, set by finish()
  put16(b, (uint16_t)api); put16(b, (uint16_t)ver); put32(b, (uint32_t)corr);
  put_str(b, "rawwire");
}
static void finish(buf_t *b) { set32(b->p, (uint32_t)(b->n - 4)); }

// The first non-zero partition error code of a Produce v7 response (0: none).
static int16_t produce_error(const buf_t *rb, size_t n) {
  // v7 response: correlation id, [topic: name, [partition: index, error_code, base offset,
  // log append time, log start offset]], throttle
  const unsigned char *p = rb->p + 4, *end = rb->p + n;
  uint32_t topics = get32(p); p += 4;
  for (uint32_t t = 0; t < topics && p < end; t++) {
    p += 2 + get16(p);
    uint32_t np = get32(p); p += 4;
    for (uint32_t i = 0; i < np; i++, p += 4 + 2 + 8 + 8 + 8)
      if (get16(p + 4) != 0) return (int16_t)get16(p + 4);
  }
  return 0;
}
// UNKNOWN_TOPIC_OR_PARTITION, LEADER_NOT_AVAILABLE, NOT_LEADER_OR_FOLLOWER
static int retriable(int16_t e) { return e == 3 || e == 5 || e == 6; }

// Sends the Produce request req and reads its answer, again while a partition is not yet served
// (a freshly created topic on Kafka answers NOT_LEADER_OR_FOLLOWER for a moment): up to 10 s.
// Returns 1 on any other error code.
static int produce_until_served(int s, const buf_t *req, buf_t *rb) {
  for (int tries = 0;; tries++) {
    write_all(s, req->p, req->n);
    int16_t e = produce_error(rb, read_frame(s, rb));
    if (e == 0) return 0;
    if (!retriable(e) || tries == 100) { fprintf(stderr, "rawwire: produce error %d\n", e); return 1; }
    usleep(100000);
  }
}

static int produce(int s, const char *topic, int parts, double mib, int rsize, int per_batch, int inflight,
                   span_t *out) {
  buf_t batch = {0};
  put_batch(&batch, per_batch, rsize);
  buf_t req = {0};
  put_header(&req, 0, 7, 0);
  put16(&req, 0xffff);      // transactional id null
  put16(&req, 1);           // acks
  put32(&req, 30000);       // timeout
  put32(&req, 1);
  put_str(&req, topic);
  put32(&req, (uint32_t)parts);
  for (int p = 0; p < parts; p++) {
    put32(&req, (uint32_t)p);
    put32(&req, (uint32_t)batch.n);
    put(&req, batch.p, batch.n);
  }
  finish(&req);
  size_t per_req = batch.n * (size_t)parts;
  long total = (long)(mib * 1048576 / (double)per_req) + 1;
  buf_t rb = {0};
  if (produce_until_served(s, &req, &rb)) return 1;  // untimed
  long sent = 0, acked = 0;
  double t0 = now_s();
  while (acked < total) {
    while (sent < total && sent - acked < inflight) { write_all(s, req.p, req.n); sent++; }
    int16_t e = produce_error(&rb, read_frame(s, &rb));
    if (e != 0) { fprintf(stderr, "rawwire: produce error %d\n", e); return 1; }
    acked++;
  }
  *out = (span_t){t0, now_s(), (double)per_req * (double)total};
  return 0;
}

// A Fetch v4 request (read_uncommitted, max wait 500 ms, min bytes 1) into *req, replacing what
// it held: every partition of `topic` from next[partition].
static void put_fetch(buf_t *req, const char *topic, int parts, const int64_t *next, int max_bytes, int part_max) {
  req->n = 0;
  put_header(req, 1, 4, 0);
  put32(req, 0xffffffffu);  // replica id -1
  put32(req, 500);          // max wait
  put32(req, 1);            // min bytes
  put32(req, (uint32_t)max_bytes);
  put8(req, 0);             // read_uncommitted
  put32(req, 1);
  put_str(req, topic);
  put32(req, (uint32_t)parts);
  for (int p = 0; p < parts; p++) { put32(req, (uint32_t)p); put64(req, (uint64_t)next[p]); put32(req, (uint32_t)part_max); }
  finish(req);
}

// Walks a Fetch v4 response of n bytes in rb: calls on_batch for every whole record batch (a
// trailing partial one is fetched again) and moves next[partition] past it. A partition not yet
// served (a fresh topic on Kafka) is skipped; any other error code fails the run (returns 1).
// v4 response: correlation id, throttle, [topic: name, [partition: index, error, hw, lso,
// aborted (nullable array), records (nullable bytes)]]
typedef void (*batch_fn)(void *ctx, const unsigned char *batch, size_t len);
static int each_batch(const buf_t *rb, size_t n, int parts, int64_t *next, batch_fn on_batch, void *ctx) {
  const unsigned char *p = rb->p + 8, *end = rb->p + n;
  uint32_t topics = get32(p); p += 4;
  for (uint32_t t = 0; t < topics; t++) {
    p += 2 + get16(p);
    uint32_t np = get32(p); p += 4;
    for (uint32_t i = 0; i < np; i++) {
      uint32_t idx = get32(p);
      int16_t e = (int16_t)get16(p + 4);
      if (e != 0 && !retriable(e)) { fprintf(stderr, "rawwire: fetch error %d\n", e); return 1; }
      p += 4 + 2 + 8 + 8;
      int32_t aborted = (int32_t)get32(p); p += 4;
      if (aborted > 0) p += (size_t)aborted * 16;
      int32_t len = (int32_t)get32(p); p += 4;
      if (len <= 0) continue;
      const unsigned char *r = p, *rend = p + len;
      p = rend;
      if (rend > end || idx >= (uint32_t)parts) die("malformed fetch response");
      while (rend - r >= 61) {  // a v2 batch header is 61 bytes
        uint32_t blen = get32(r + 8);
        if ((size_t)(rend - r) < 12 + (size_t)blen) break;
        on_batch(ctx, r, 12 + (size_t)blen);
        next[idx] = (int64_t)get64(r) + get32(r + 23) + 1;
        r += 12 + blen;
      }
    }
  }
  return 0;
}

static void count_bytes(void *got, const unsigned char *batch, size_t len) {
  (void)batch;
  *(double *)got += (double)len;
}

static int fetch(int s, const char *topic, int parts, double mib, int max_bytes, int part_max, span_t *out) {
  int64_t *next = calloc((size_t)parts, sizeof *next);
  double want = mib * 1048576, got = 0;
  buf_t rb = {0}, req = {0};
  double t0 = now_s();
  while (got < want) {
    put_fetch(&req, topic, parts, next, max_bytes, part_max);
    write_all(s, req.p, req.n);
    if (each_batch(&rb, read_frame(s, &rb), parts, next, count_bytes, &got)) return 1;
  }
  *out = (span_t){t0, now_s(), got};
  return 0;
}

// ---- latency: fixed-rate producer and long-polling consumer on one thread

static int64_t mono_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}
static int64_t get_varint(const unsigned char **p, const unsigned char *end) {  // zig-zag
  uint64_t u = 0;
  for (int shift = 0; *p < end && shift < 64; shift += 7) {
    unsigned char c = *(*p)++;
    u |= (uint64_t)(c & 0x7f) << shift;
    if (!(c & 0x80)) return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
  }
  die("malformed varint");
  return 0;
}
// Where a batch's first record's value starts (after the 61-byte v2 batch header: the record's
// length, attributes, timestamp delta, offset delta, key), if it has at least 8 bytes.
static const unsigned char *first_value(const unsigned char *b, const unsigned char *end) {
  const unsigned char *r = b + 61;
  get_varint(&r, end);  // record length
  r++;                  // attributes
  get_varint(&r, end);  // timestamp delta
  get_varint(&r, end);  // offset delta
  int64_t klen = get_varint(&r, end);
  if (klen > 0) r += klen;
  if (get_varint(&r, end) < 8 || end - r < 8) die("a record without a send time");
  return r;
}
// The send time a batch carries: the first 8 value bytes of its first record.
static int64_t batch_sent_ns(const unsigned char *b, const unsigned char *end) {
  return (int64_t)get64(first_value(b, end));
}

typedef struct { int64_t *v; size_t n, cap; } samples_t;
static void add_sample(samples_t *s, int64_t v) {
  if (s->n == s->cap) {
    s->cap = s->cap ? s->cap * 2 : 4096;
    if (!(s->v = realloc(s->v, s->cap * sizeof *s->v))) die("out of memory");
  }
  s->v[s->n++] = v;
}
static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}
// The p-quantile in ms, as the bench driver takes it (the element at p * (n - 1)).
static double quantile_ms(const samples_t *s, double p) {
  return s->n ? (double)s->v[(size_t)(p * (double)(s->n - 1))] / 1e6 : -1;
}

// What the latency consumer keeps: every record's latency from the answer that brought it.
struct fetched { int64_t arrived, warm_end; long batches; samples_t lat; };
static void sample_batch(void *ctx, const unsigned char *batch, size_t len) {
  struct fetched *f = ctx;
  int64_t sent_ns = batch_sent_ns(batch, batch + len);
  if (sent_ns >= f->warm_end)
    for (uint32_t k = 0; k < get32(batch + 57); k++) add_sample(&f->lat, f->arrived - sent_ns);
  f->batches++;
}

static int latency(const char *host, const char *port, const char *topic, int parts, double seconds,
                   double rate_mib, int rsize, int per_batch, double warmup_s, int acks) {
  int ps = connect_to(host, port), cs = connect_to(host, port);
  buf_t batch = {0};
  put_batch(&batch, per_batch, rsize);
  size_t value_at = (size_t)(first_value(batch.p, batch.p + batch.n) - batch.p), batch_at;
  memset(batch.p + value_at, 0, 8);  // send time 0 until a timed send sets it
  set32(batch.p + 17, crc32c(batch.p + 21, batch.n - 21));
  buf_t req = {0};
  put_header(&req, 0, 7, 0);
  put16(&req, 0xffff);  // transactional id null
  put16(&req, (uint16_t)acks);
  put32(&req, 30000);
  put32(&req, 1);
  put_str(&req, topic);
  put32(&req, 1);
  size_t part_at = req.n;
  put32(&req, 0);
  put32(&req, (uint32_t)batch.n);
  batch_at = req.n;
  put(&req, batch.p, batch.n);
  finish(&req);

  buf_t rb = {0}, fetch_req = {0};
  // An untimed first batch on every partition (its send time 0 is never counted); the consumer
  // fetches these too.
  for (int p = 0; p < parts; p++) {
    set32(req.p + part_at, (uint32_t)p);
    if (produce_until_served(ps, &req, &rb)) return 1;
  }
  int64_t *next = calloc((size_t)parts, sizeof *next);
  double batches_per_s = rate_mib * 1048576 / ((double)rsize * per_batch);
  int64_t start = mono_ns(), warm_end = start + (int64_t)(warmup_s * 1e9);
  int64_t end = warm_end + (int64_t)(seconds * 1e9);
  long total = (long)(batches_per_s * (double)(end - start) / 1e9), sent = 0, acked = 0;
  // batches fetched (the untimed first ones included, so counted from -parts) and latencies
  struct fetched fetched = {.arrived = 0, .warm_end = warm_end, .batches = -parts, .lat = {0}};
  int64_t *ack_due = calloc((size_t)total + 1, sizeof *ack_due);  // send time per request
  samples_t ack = {0};
  int fetching = 0;
  int64_t give_up = 0;
  while (fetched.batches < total) {
    int64_t now = mono_ns();
    for (long due = (long)(batches_per_s * (double)(now - start) / 1e9); sent < total && sent < due; sent++) {
      set32(req.p + part_at, (uint32_t)(sent % parts));
      int64_t t = mono_ns();
      unsigned char *b = req.p + batch_at;
      set32(b + value_at, (uint32_t)((uint64_t)t >> 32));
      set32(b + value_at + 4, (uint32_t)t);
      set32(b + 17, crc32c(b + 21, batch.n - 21));
      write_all(ps, req.p, req.n);
      ack_due[sent] = t;
    }
    if (sent == total && !give_up) give_up = mono_ns() + 15000000000LL;
    if (give_up && mono_ns() > give_up) die("records sent were not all fetched within 15 s");
    if (!fetching) {
      put_fetch(&fetch_req, topic, parts, next, 50 << 20, 1 << 20);
      write_all(cs, fetch_req.p, fetch_req.n);
      fetching = 1;
    }
    int64_t next_due = start + (int64_t)((double)(sent + 1) * 1e9 / batches_per_s);
    int64_t wait = sent < total ? next_due - mono_ns() : 100000000;
    if (wait < 0) wait = 0;
    struct timespec to = {wait / 1000000000, wait % 1000000000};
    struct pollfd fds[2] = {{ps, POLLIN, 0}, {cs, POLLIN, 0}};
    if (ppoll(fds, 2, &to, NULL) < 0) die("poll");
    if (fds[0].revents) {
      int16_t e = produce_error(&rb, read_frame(ps, &rb));
      if (e != 0) { fprintf(stderr, "rawwire: produce error %d\n", e); return 1; }
      if (ack_due[acked] >= warm_end) add_sample(&ack, mono_ns() - ack_due[acked]);
      acked++;
    }
    if (fds[1].revents) {
      size_t n = read_frame(cs, &rb);
      fetched.arrived = mono_ns();
      fetching = 0;
      if (each_batch(&rb, n, parts, next, sample_batch, &fetched)) return 1;
    }
  }
  double produce_s = (double)(ack_due[total - 1] - start) / 1e9;
  samples_t lat = fetched.lat;
  qsort(lat.v, lat.n, sizeof *lat.v, cmp_i64);
  qsort(ack.v, ack.n, sizeof *ack.v, cmp_i64);
  printf("{\"records_sent\":%ld,\"measured\":%zu,\"achieved_mib_s\":%.3f,\"p50_ms\":%.6f,\"p99_ms\":%.6f,"
         "\"p999_ms\":%.6f,\"max_ms\":%.6f,\"ack_p50_ms\":%.6f,\"ack_p99_ms\":%.6f}\n",
         total * per_batch, lat.n, (double)total * per_batch * rsize / produce_s / 1048576, quantile_ms(&lat, 0.5),
         quantile_ms(&lat, 0.99), quantile_ms(&lat, 0.999), quantile_ms(&lat, 1), quantile_ms(&ack, 0.5),
         quantile_ms(&ack, 0.99));
  return 0;
}

static int run(char **argv, int argc, span_t *out) {
  int s = connect_to(argv[2], argv[3]);
  int parts = atoi(argv[5]);
  double mib = atof(argv[6]);
  if (!strcmp(argv[1], "produce"))
    return produce(s, argv[4], parts, mib, argc > 7 ? atoi(argv[7]) : 1024, argc > 8 ? atoi(argv[8]) : 16,
                   argc > 9 ? atoi(argv[9]) : 4, out);
  if (!strcmp(argv[1], "fetch"))
    return fetch(s, argv[4], parts, mib, argc > 7 ? atoi(argv[7]) : 50 << 20, argc > 8 ? atoi(argv[8]) : 1 << 20, out);
  die("unknown command (produce or fetch)");
  return 2;
}

int main(int argc, char **argv) {
  if (argc == 4 && !strcmp(argv[1], "batch-bytes")) {
    buf_t b = {0};
    put_batch(&b, atoi(argv[3]), atoi(argv[2]));
    printf("%zu\n", b.n);
    return 0;
  }
  if (argc >= 7 && !strcmp(argv[1], "latency"))
    return latency(argv[2], argv[3], argv[4], atoi(argv[5]), atof(argv[6]), argc > 7 ? atof(argv[7]) : 10,
                   argc > 8 ? atoi(argv[8]) : 1024, argc > 9 ? atoi(argv[9]) : 4, argc > 10 ? atof(argv[10]) : 2,
                   argc > 11 ? atoi(argv[11]) : 1);
  int conns = take_connections(&argc, &argv);
  if (argc < 7 || conns < 1) die("usage: rawwire [-c N] produce|fetch HOST PORT TOPIC PARTITIONS MIB [...]");
  int pfd[2];
  if (pipe(pfd)) die("pipe");
  for (int i = 0; i < conns; i++) {
    pid_t pid = fork();
    if (pid < 0) die("fork");
    if (pid == 0) {
      span_t sp;
      int rc = run(argv, argc, &sp);
      if (rc == 0 && write(pfd[1], &sp, sizeof sp) != sizeof sp) rc = 1;
      _exit(rc);
    }
  }
  close(pfd[1]);
  double bytes, rate = collect_spans(pfd[0], conns, &bytes);
  if (rate < 0) die("a connection failed");
  printf("%.1f %.0f\n", rate, bytes);
  return 0;
}
