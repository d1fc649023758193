#!/usr/bin/env python3
"""bench/txn_verify_cost.py: what verifying a transactional produce costs in cluster mode.

Two brokers on PostgreSQL and moto (tests/cluster/engines.py), default flags. A transactional id, its
coordinator found by InitProducerId, one partition added with AddPartitionsToTxn v0. Measured:
  - the call a broker that is not the coordinator makes for each transactional Produce below v12
    (and once per partition and transaction at v12+): AddPartitionsToTxn v5 verify_only to the
    coordinator over a kept connection, BENCH_CALLS times in a row: p50/p99 in microseconds;
  - transactional Produce v3 (acks=all, one 100-byte record) sent BENCH_PRODUCES times in a row to
    the coordinator's broker and to the other one: p50/p99 in milliseconds (the flush and the
    PostgreSQL commit dominate both; the difference is the verification).
Prints the numbers and writes bench/results/txn-verify-<date>.json. Not a test: numbers vary with the host.
"""

import json
import os
import socket
import statistics
import struct
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "cluster"))
sys.path.insert(0, str(ROOT / "tests" / "behavior"))

import engines  # noqa: E402
from benchlib import clients_conftest  # noqa: E402
import kafka_wire as w  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

CALLS = int(os.environ.get("BENCH_CALLS", "2000"))
PRODUCES = int(os.environ.get("BENCH_PRODUCES", "200"))
TOPIC, TXN = "verify-bench", "verify-bench-txn"


clients = clients_conftest()


def call(sock, api_key, version, corr, body, flexible=False):
    sock.sendall(w.frame(w.request_header(api_key, version, corr, flexible, "verify-bench") + body))
    r = w.Reader(w.read_frame(sock))
    assert r.take(">i") == corr
    if flexible:
        r.take(">b")  # the response header's tagged fields (none)
    return r


def verify_only_v5(pid, epoch):
    """AddPartitionsToTxn v5: one transaction, verify_only, TOPIC partition 0 (flexible encoding)."""
    t = w.compact_string(TOPIC)
    topic = t + w.uvarint(2) + struct.pack(">i", 0) + b"\x00"
    txn = w.compact_string(TXN) + struct.pack(">qhb", pid, epoch, 1) + w.uvarint(2) + topic + b"\x00"
    return w.uvarint(2) + txn + b"\x00"


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(len(xs) * p))]


def main():
    work = Path(tempfile.mkdtemp(prefix="ketch-verify-bench-"))
    pg, s3 = engines.Postgres(), engines.MotoS3()
    os.environ.update(engines.CREDENTIALS)
    brokers = []
    try:
        for node in (1, 2):
            run = work / ("node-%d" % node)
            (run / "data").mkdir(parents=True, exist_ok=True)
            args = ["--schema-registry=false", "--console=false", "--node-id", str(node), "--cluster", pg.url(),
                    "--object-store", s3.url()]
            brokers.append(clients.BrokerProcess(clients._ketch_binary(), run / "data", run, args).start())
        admin = AdminClient({"bootstrap.servers": brokers[0].bootstrap})
        admin.create_topics([NewTopic(TOPIC, 1, 1)])[TOPIC].result(timeout=30)
        coordinator = pid = epoch = None
        deadline = time.monotonic() + 60
        while coordinator is None and time.monotonic() < deadline:
            for b in brokers:
                with socket.create_connection((b.host, b.port), timeout=15) as s:
                    r = call(s, 22, 0, 1, w.nullable_string(TXN) + struct.pack(">i", 600000))
                    r.take(">i")
                    err, p, e = r.take(">h"), r.take(">q"), r.take(">h")
                    if err == 0:
                        coordinator, pid, epoch = b, p, e
                        break
            time.sleep(0.2)  # the brokers see each other (membership); set-up only
        other = next(b for b in brokers if b is not coordinator)
        t = TOPIC.encode()
        body = (w.nullable_string(TXN) + struct.pack(">qhi", pid, epoch, 1) + struct.pack(">h", len(t)) + t
                + struct.pack(">ii", 1, 0))
        with socket.create_connection((coordinator.host, coordinator.port), timeout=15) as s:
            call(s, 24, 0, 2, body)
            calls = []
            for i in range(CALLS):
                start = time.perf_counter()
                r = call(s, 24, 5, 10 + i, verify_only_v5(pid, epoch), flexible=True)
                calls.append((time.perf_counter() - start) * 1e6)
                r.take(">i")
                assert r.take(">h") == 0
        produce = {}
        seq = 0
        for name, b in (("coordinator", coordinator), ("other broker", other)):
            lat = []
            with socket.create_connection((b.host, b.port), timeout=30) as s:
                for i in range(PRODUCES):
                    batch = w.record_batch([(b"k", b"x" * 100)], pid, epoch, seq, attributes=0x10)
                    seq += 1
                    for attempt in range(100):  # the broker may not list the new topic yet (set-up)
                        start = time.perf_counter()
                        s.sendall(w.produce_request(TOPIC, 0, batch, 100 + i, transactional_id=TXN))
                        err, _ = w.parse_produce_response(w.read_frame(s))
                        if err != 3 or i > 0:
                            break
                        time.sleep(0.2)
                    lat.append((time.perf_counter() - start) * 1e3)
                    assert err == 0, err
            produce[name] = lat
        out = {
            "verify_call_us": {"p50": round(statistics.median(calls)), "p99": round(pct(calls, 0.99)), "n": CALLS},
            "produce_ms": {k: {"p50": round(statistics.median(v), 2), "p99": round(pct(v, 0.99), 2), "n": PRODUCES}
                           for k, v in produce.items()},
        }
        print(json.dumps(out, indent=2))
        results = ROOT / "bench" / "results"
        results.mkdir(exist_ok=True)
        (results / ("txn-verify-%s.json" % time.strftime("%Y%m%d-%H%M%S"))).write_text(json.dumps(out, indent=2))
    finally:
        for b in brokers:
            b.stop()
        s3.close()
        pg.close()


if __name__ == "__main__":
    main()
