#!/usr/bin/env python3
"""A tailing reader with large answers, on the raw wire: each round produces one batch of
one --kib KiB record to partition 0 of --topic (acks=1), then fetches it at the tail (Fetch
v11 from its offset, max_wait 0). Each answer is one file chunk that ends where the active
segment's data ends, larger than the 64 KiB under which the broker copies chunks into
memory: the path where net/page_in.h probes the chunk and (before the look-ahead stopped at
the segment's end) probed the range past it too. Count the broker's system calls per fetch
meanwhile (docs/performance.md "Cold reads"):

    bench/tools/tail_fetch.py --port P --warm      # topic, connection, first segment ready
    strace -f -c -e trace=preadv2,sendfile -p BROKER_PID -o counts.txt &
    bench/tools/tail_fetch.py --port P --rounds 500
    kill -INT <strace's pid>                        # then counts.txt holds the totals

Prints the rounds and fetches it made and the bytes fetched. No dependency beyond Python."""

import argparse
import socket
import struct
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests" / "behavior"))
from kafka_wire import (PRODUCE, Reader, frame, metadata, nullable_string, read_frame,  # noqa: E402
                        request_header, uvarint, zigzag_varint)

FETCH = 1


def crc32c(data):
    table = crc32c.table
    if table is None:
        table = crc32c.table = []
        for n in range(256):
            c = n
            for _ in range(8):
                c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
            table.append(c)
    c = 0xFFFFFFFF
    for b in data:
        c = table[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


crc32c.table = None


def one_record_batch(value):
    """A v2 batch of one record (DefaultRecordBatch layout), base offset 0: the broker sets
    the offset, which the CRC does not cover, so the same bytes serve every round."""
    rec = b"\x00" + zigzag_varint(0) + zigzag_varint(0) + zigzag_varint(-1)  # no key
    rec += zigzag_varint(len(value)) + value + uvarint(0)
    body = zigzag_varint(len(rec)) + rec
    ts = int(time.time() * 1000)
    after_crc = struct.pack(">hiqqqhii", 0, 0, ts, ts, -1, -1, -1, 1) + body
    tail = struct.pack(">ibI", 0, 2, crc32c(after_crc)) + after_crc
    return struct.pack(">qi", 0, len(tail)) + tail


def produce(sock, topic, batch, corr):
    t = topic.encode()
    body = nullable_string(None) + struct.pack(">hi", 1, 30000)
    body += struct.pack(">ih", 1, len(t)) + t + struct.pack(">iii", 1, 0, len(batch)) + batch
    sock.sendall(frame(request_header(PRODUCE, 3, corr, False, "tail-fetch") + body))
    r = Reader(read_frame(sock))
    r.take(">i")
    r.take(">i")
    n = r.take(">h")  # topic name
    r.pos += n
    r.take(">i")
    r.take(">i")
    return r.take(">h"), r.take(">q")  # error, base offset


def fetch(sock, topic, offset, corr):
    """A sessionless Fetch v11 of partition 0 from `offset`: (error, records size)."""
    name = topic.encode()
    body = struct.pack(">iiiibii", -1, 0, 1, 4 << 20, 0, 0, -1)
    body += struct.pack(">i", 1) + struct.pack(">h", len(name)) + name
    body += struct.pack(">i", 1) + struct.pack(">iiqqi", 0, -1, offset, -1, 4 << 20)
    body += struct.pack(">i", 0) + struct.pack(">h", 0)
    sock.sendall(frame(request_header(FETCH, 11, corr, False, "tail-fetch") + body))
    r = Reader(read_frame(sock))
    r.take(">i")
    r.take(">i")
    top = r.take(">h")
    r.take(">i")
    r.take(">i")
    n = r.take(">h")  # topic name
    r.pos += n
    r.take(">i")
    r.take(">i")
    err = r.take(">h")
    r.pos += 24  # high watermark, last stable offset, log start offset
    aborted = r.take(">i")
    r.pos += max(aborted, 0) * 16
    r.take(">i")
    return top or err, max(r.take(">i"), 0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--topic", default="tail-fetch")
    ap.add_argument("--kib", type=int, default=96, help="record size (answers over 64 KiB take the sendfile path)")
    ap.add_argument("--rounds", type=int, default=200)
    ap.add_argument("--warm", action="store_true", help="create the topic, then one round (retried until it exists)")
    a = ap.parse_args()
    batch = one_record_batch(b"t" * (a.kib << 10))
    fetched = 0
    if a.warm:
        metadata(a.host, a.port, [a.topic])  # Metadata v1 creates the topic (auto.create.topics.enable)
    with socket.create_connection((a.host, a.port), timeout=30) as sock:
        rounds = 1 if a.warm else a.rounds
        for i in range(rounds):
            for _ in range(50):  # the first produce may find the topic being created
                err, base = produce(sock, a.topic, batch, 2 * i)
                if err == 0:
                    break
                time.sleep(0.1)
            if err != 0:
                sys.exit("produce failed: error %d" % err)
            err, size = fetch(sock, a.topic, base, 2 * i + 1)
            if err != 0 or size < len(batch):
                sys.exit("fetch at %d: error %d, %d bytes" % (base, err, size))
            fetched += size
    print("rounds %d fetches %d bytes %d" % (rounds, rounds, fetched))


if __name__ == "__main__":
    main()
