"""The shape of a broker's Fetch answers for one topic, read from the start to the end.

    python3 bench/fetch_shape.py HOST:PORT TOPIC [--partition-bytes N] [--name NAME]

Reads every partition of TOPIC (partition count from Metadata v0) from offset 0 with Fetch v4
requests built as franz-go's consume of bench/consume_rows.sh builds them (N bytes per partition,
1 MiB by default, the sum of them per answer, min_bytes 1), each next request at the offset after
the last whole batch, until every partition's high watermark; prints one JSON line: answers,
answer bytes, batches, records, records per batch (the most common counts), batch bytes
(min / median / max), batch magic and attributes (compression: attributes & 7), partial batches
(a batch cut at the partition's byte budget: the client drops it and asks again from its start)
and their bytes, partitions answered without records, and error codes. Two brokers holding the
same produce answer alike when these figures match (docs/performance.md: where the consume time
went).
"""

import argparse
import collections
import json
import socket
import statistics
import struct


class Conn:
    def __init__(self, hostport):
        host, port = hostport.rsplit(":", 1)
        self.sock = socket.create_connection((host, int(port)), timeout=30)
        self.corr = 0

    def _exactly(self, n):
        buf = bytearray()
        while len(buf) < n:
            chunk = self.sock.recv(n - len(buf))
            if not chunk:
                raise EOFError("broker closed the connection")
            buf += chunk
        return bytes(buf)

    def call(self, key, version, body):
        """Sends one request (header v1), returns the answer's body after the correlation id."""
        self.corr += 1
        msg = struct.pack(">hhih", key, version, self.corr, 11) + b"fetch-shape" + body
        self.sock.sendall(struct.pack(">i", len(msg)) + msg)
        size = struct.unpack(">i", self._exactly(4))[0]
        answer = self._exactly(size)
        return size, answer[4:]


def string(s):
    b = s.encode()
    return struct.pack(">h", len(b)) + b


def partitions_of(conn, topic):
    """Partition ids of `topic` (Metadata v0)."""
    _, d = conn.call(3, 0, struct.pack(">i", 1) + string(topic))
    pos = 0
    (nb,) = struct.unpack_from(">i", d, pos)
    pos += 4
    for _ in range(nb):
        pos += 4
        (hl,) = struct.unpack_from(">h", d, pos)
        pos += 2 + hl + 4
    (nt,) = struct.unpack_from(">i", d, pos)
    pos += 4
    for _ in range(nt):
        err, tl = struct.unpack_from(">hh", d, pos)
        pos += 4
        name = d[pos : pos + tl].decode()
        pos += tl
        (np_,) = struct.unpack_from(">i", d, pos)
        pos += 4
        ids = []
        for _ in range(np_):
            _, pid, _ = struct.unpack_from(">hii", d, pos)
            pos += 10
            for _ in range(2):  # replicas, isr
                (n,) = struct.unpack_from(">i", d, pos)
                pos += 4 + 4 * n
            ids.append(pid)
        if name == topic:
            if err:
                raise SystemExit(f"metadata of {topic}: error {err}")
            return sorted(ids)
    raise SystemExit(f"no topic {topic}")


def fetch(conn, topic, offsets, part_bytes):
    """One Fetch v4; returns (answer size, {partition: (error, high watermark, records)})."""
    body = struct.pack(">iiiib", -1, 500, 1, part_bytes * len(offsets), 0)
    body += struct.pack(">i", 1) + string(topic) + struct.pack(">i", len(offsets))
    for p, o in offsets.items():
        body += struct.pack(">iqi", p, o, part_bytes)
    size, d = conn.call(1, 4, body)
    pos = 4  # throttle_time_ms
    out = {}
    (nt,) = struct.unpack_from(">i", d, pos)
    pos += 4
    for _ in range(nt):
        (tl,) = struct.unpack_from(">h", d, pos)
        pos += 2 + tl
        (np_,) = struct.unpack_from(">i", d, pos)
        pos += 4
        for _ in range(np_):
            p, err, hw, _lso, naborted = struct.unpack_from(">ihqqi", d, pos)
            pos += 26 + max(naborted, 0) * 16
            (rl,) = struct.unpack_from(">i", d, pos)
            pos += 4
            out[p] = (err, hw, d[pos : pos + max(rl, 0)])
            pos += max(rl, 0)
    return size, out


def walk(records, shape):
    """Counts the whole batches of one partition's records; returns the next offset or None."""
    i, nxt = 0, None
    while i + 61 <= len(records):
        base, blen, _epoch, magic, _crc, attr, last_delta = struct.unpack_from(">qiibIhi", records, i)
        if i + 12 + blen > len(records):
            break
        (count,) = struct.unpack_from(">i", records, i + 57)
        shape["batches"] += 1
        shape["records"] += count
        shape["per_batch"][count] += 1
        shape["sizes"].append(12 + blen)
        shape["attrs"][f"magic {magic} attributes {attr}"] += 1
        nxt = base + last_delta + 1
        i += 12 + blen
    if i < len(records):
        shape["partial"] += 1
        shape["partial_bytes"] += len(records) - i
    return nxt


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bootstrap")
    ap.add_argument("topic")
    ap.add_argument("--partition-bytes", type=int, default=1 << 20)
    ap.add_argument("--name", default="")
    a = ap.parse_args()
    conn = Conn(a.bootstrap)
    offsets = {p: 0 for p in partitions_of(conn, a.topic)}
    hw = {}
    shape = dict(batches=0, records=0, partial=0, partial_bytes=0, empty=0, per_batch=collections.Counter(),
                 sizes=[], attrs=collections.Counter(), errors=collections.Counter())
    answers = []
    while True:
        live = {p: o for p, o in offsets.items() if p not in hw or o < hw[p]}
        if not live:
            break
        size, parts = fetch(conn, a.topic, live, a.partition_bytes)
        answers.append(size)
        progressed = False
        for p, (err, high, records) in parts.items():
            if err:
                shape["errors"][err] += 1
            hw[p] = high
            shape["empty"] += not records
            nxt = walk(records, shape)
            if nxt is not None and nxt > offsets[p]:
                offsets[p], progressed = nxt, True
        if not progressed:
            raise SystemExit(f"no progress at {live} (a batch larger than --partition-bytes?)")
    sizes = shape["sizes"] or [0]
    print(json.dumps({
        "fetch_shape": a.name or a.bootstrap, "topic": a.topic, "partitions": len(offsets),
        "answers": len(answers), "answer_bytes": sum(answers),
        "answer_bytes_median": statistics.median(answers) if answers else 0,
        "batches": shape["batches"], "records": shape["records"],
        "records_per_batch_top": shape["per_batch"].most_common(4),
        "batch_bytes_min_median_max": [min(sizes), statistics.median(sizes), max(sizes)],
        "batch_attributes": dict(shape["attrs"]), "partial_batches": shape["partial"],
        "partial_bytes": shape["partial_bytes"], "partitions_without_records": shape["empty"],
        "errors": dict(shape["errors"]), "high_watermarks": [hw[p] for p in sorted(hw)],
    }))


if __name__ == "__main__":
    main()
