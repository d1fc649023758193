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

Prints the rounds and fetches it made and the bytes fetched. Its requests come from
tests/behavior/kafka_wire.py (run it with the test venv's Python: .venv/bin/python)."""

import argparse
import socket
import struct
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests" / "behavior"))
from kafka_wire import (Reader, frame, metadata, parse_produce_response, produce_request,  # noqa: E402
                        read_frame, record_batch, request_header)

FETCH = 1


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
    # One record; the broker sets the offset, which the CRC does not cover, so the same
    # bytes serve every round.
    batch = record_batch([(b"", b"t" * (a.kib << 10))])
    fetched = 0
    if a.warm:
        metadata(a.host, a.port, [a.topic])  # Metadata v1 creates the topic (auto.create.topics.enable)
    with socket.create_connection((a.host, a.port), timeout=30) as sock:
        rounds = 1 if a.warm else a.rounds
        for i in range(rounds):
            for _ in range(50):  # the first produce may find the topic being created
                sock.sendall(produce_request(a.topic, 0, batch, 2 * i, acks=1))
                err, base = parse_produce_response(read_frame(sock))
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
