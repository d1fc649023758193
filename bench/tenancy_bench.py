#!/usr/bin/env python3
"""Tenancy benchmark (not a test), issue 25's performance section:

1. produce and fetch throughput with --tenancy off and on (one SASL/PLAIN user, its own
   tenant, no limits), the two modes interleaved round by round, --rounds times, medians;
2. Metadata latency for one tenant's topics with 0 other tenants and with --tenants other
   tenants x --topics-per-tenant topics each (created by the super user under their
   internal names), --metadata-repeats calls each, median and p99.

    .venv/bin/python bench/tenancy_bench.py [--ketch build/ketch] [--rounds 3] [--mib 64]
        [--tenants 1000] [--topics-per-tenant 10] [--metadata-repeats 200]
    (--rounds 0: the Metadata part only)

confluent-kafka is the client (the same for both modes: a difference is the broker's).
Prints one JSON object; the data directories are removed afterwards."""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

HERE = os.path.dirname(os.path.abspath(__file__))
USERS = {"alice": "alice-pw", "root": "root-pw"}


class broker:
    def __init__(self, ketch, tenancy):
        self.dir = tempfile.mkdtemp(prefix="ketch-tbench-")
        toml = os.path.join(self.dir, "ketch.toml")
        with open(toml, "w") as f:
            f.write("".join('[[users]]\nname = "%s"\npassword = "%s"\n' % kv for kv in USERS.items()))
        data, ready = os.path.join(self.dir, "data"), os.path.join(self.dir, "ready")
        args = [ketch, "--listen", "127.0.0.1:0", "--data-dir", data, "--ready-file", ready, "--config", toml,
                "--schema-registry=false", "--console=false", "--super-users", "User:root",
                "--listener", "SASL_PLAINTEXT=SASL_PLAINTEXT://127.0.0.1:0"] + (["--tenancy"] if tenancy else [])
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        while not os.path.exists(ready) or not open(ready).read().strip():
            if self.proc.poll() is not None:
                raise RuntimeError("ketch exited")
            time.sleep(0.02)
        listeners = json.load(open(os.path.join(data, "listeners.json")))["listeners"]
        self.bootstrap = listeners["SASL_PLAINTEXT"]["address"]

    def conf(self, user):
        return {"bootstrap.servers": self.bootstrap, "security.protocol": "SASL_PLAINTEXT",
                "sasl.mechanisms": "PLAIN", "sasl.username": user, "sasl.password": USERS[user]}

    def close(self):
        self.proc.terminate()
        self.proc.wait(30)
        shutil.rmtree(self.dir, ignore_errors=True)


def create(b, user, names):
    a = AdminClient(b.conf(user))
    for i in range(0, len(names), 500):
        fs = a.create_topics([NewTopic(n, 1, 1) for n in names[i:i + 500]], request_timeout=120)
        for f in fs.values():
            f.result(120)


def produce_fetch(b, mib):
    topic = "t%d" % time.monotonic_ns()
    create(b, "alice", [topic])
    p = Producer({**b.conf("alice"), "acks": "1", "linger.ms": 5, "batch.size": 262144})
    value, n = b"x" * 1024, mib * 1024
    t0 = time.monotonic()
    for _ in range(n):
        while True:
            try:
                p.produce(topic, value, partition=0)
                break
            except BufferError:
                p.poll(0.001)
        p.poll(0)
    p.flush(120)
    produce_s = time.monotonic() - t0
    c = Consumer({**b.conf("alice"), "group.id": "g", "enable.auto.commit": False, "fetch.max.bytes": 52428800})
    c.assign([TopicPartition(topic, 0, 0)])
    got, t0 = 0, time.monotonic()
    while got < n:
        for m in c.consume(min(10000, n - got), 5.0):
            got += m.error() is None
    fetch_s = time.monotonic() - t0
    c.close()
    return mib / produce_s, mib / fetch_s


def metadata_latency(b, repeats):
    a = AdminClient(b.conf("alice"))
    a.list_topics(timeout=30)
    times = []
    for _ in range(repeats):
        t0 = time.monotonic()
        a.list_topics(timeout=30)
        times.append((time.monotonic() - t0) * 1000)
    times.sort()
    return {"median_ms": round(statistics.median(times), 3), "p99_ms": round(times[int(len(times) * 0.99) - 1], 3)}


def list_groups_latency(b, repeats):
    """ListGroups for alice: the other tenants have no groups here, so this shows the
    cost of the listing itself (the topics' cost is Metadata's)."""
    a = AdminClient(b.conf("alice"))
    times = []
    for _ in range(repeats):
        t0 = time.monotonic()
        a.list_consumer_groups(request_timeout=30).result(30)
        times.append((time.monotonic() - t0) * 1000)
    times.sort()
    return {"median_ms": round(statistics.median(times), 3), "p99_ms": round(times[int(len(times) * 0.99) - 1], 3)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ketch", default=os.path.join(HERE, "..", "build", "ketch"))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--mib", type=int, default=64)
    ap.add_argument("--tenants", type=int, default=1000)
    ap.add_argument("--topics-per-tenant", type=int, default=10)
    ap.add_argument("--metadata-repeats", type=int, default=200)
    o = ap.parse_args()
    runs = {"off": [], "on": []}
    for _ in range(o.rounds):
        for mode in ("off", "on"):
            b = broker(o.ketch, mode == "on")
            try:
                runs[mode].append(produce_fetch(b, o.mib))
            finally:
                b.close()
    out = {mode: {"produce_mib_s": round(statistics.median(r[0] for r in rs), 1),
                  "fetch_mib_s": round(statistics.median(r[1] for r in rs), 1)} for mode, rs in runs.items() if rs}
    b = broker(o.ketch, True)
    try:
        create(b, "alice", ["own-%d" % i for i in range(o.topics_per_tenant)])
        out["metadata_alone"] = metadata_latency(b, o.metadata_repeats)
        t0 = time.monotonic()
        create(b, "root", ["t%04d~topic-%d" % (t, i) for t in range(o.tenants) for i in range(o.topics_per_tenant)])
        out["create_others_s"] = round(time.monotonic() - t0, 1)
        out["metadata_beside_%d_tenants" % o.tenants] = metadata_latency(b, o.metadata_repeats)
        out["list_groups_beside_%d_tenants" % o.tenants] = list_groups_latency(b, o.metadata_repeats)
    finally:
        b.close()
    out["load_end"] = float(open("/proc/loadavg").read().split()[0])
    json.dump(out, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
