#!/usr/bin/env python3
"""bench/cluster_bench.py (make bench-cluster): cluster mode beside single-node ketch, in one run.

For single-node ketch, and cluster mode with 1 and with 3 brokers (PostgreSQL via initdb/pg_ctl as
tests/cluster/engines.py starts it, and an object store on loopback: MinIO, or moto with BENCH_OBJECT_STORE=moto,
bench/object_stores.py; default --cluster-flush-ms):
  - the machine limit: the object store's raw PUT rate (1 MiB objects, one client with a broker's 4 PUTs in
    flight), before the setups and after (BENCH_PUT_RATE=0: not measured); cluster produce is given as % of
    single-node and of that rate, with the brokers' and the store's CPU ms per MiB produced;
  - produce MiB/s: confluent-kafka, idempotent, acks=all, BENCH_MIB MiB of 1 KiB records to 6
    partitions (BENCH_PARTITIONS), bootstrapped at every broker; consume MiB/s: one consumer reading it all back;
    then the same MiB, idempotent with acks=all, to a topic of its own with as many partitions, from one franz-go
    client (bench/driver produce, as bench/produce_rows.sh runs it) and from Kafka's ProducerPerformance
    (conformance/reference/kafka.sh tools; its defaults otherwise, or BENCH_JAVA_PROPS): each client's ratio to
    single-node is taken against the same client (BENCH_CLIENTS=librdkafka: the first row only);
  - produce-to-consume latency p50/p99 at a fixed rate (BENCH_LAT_RATE_MIB for BENCH_LAT_SECONDS);
  - fail-over: three brokers with default flags, the leader of a partition SIGKILLed and restarted
    BENCH_FAILOVER_ROUNDS times: seconds from the kill to the first acknowledgement of a record a
    producer with default settings produced after the kill to a partition the killed broker led (p50/p99);
  - cluster mode: object-store PUTs and GETs (counted in moto's request log, or MinIO's counters) and bytes written
    (ketch_objects) per MiB produced, PUTs per second per broker at the fixed rate;
  - cold reads (BENCH_SETUPS=cold): one broker writes BENCH_MIB MiB and stops; a fresh broker (none of
    the objects in its caches) reads everything (or BENCH_COLD_PARTITIONS of the 6 partitions): consume MiB/s, GETs per MiB consumed and MiB fetched
    (the store's counts; the objects' bytes GET, through a counting proxy) per MiB consumed. BENCH_KETCH_ARGS
    picks the reader's policy (e.g. --cluster-read-whole-bytes 0: every read by ranges).
  - small-object merging (BENCH_SETUPS=merge): three brokers, a trickle at BENCH_LAT_RATE_MIB for
    BENCH_TRICKLE_SECONDS, the janitor left to merge (--cluster-merge-bytes BENCH_MERGE_BYTES, and 0:
    off), the brokers restarted (empty caches), everything read back: GETs per MiB consumed, and what
    merging cost (its PUTs and GETs per MiB merged); always on moto (merged PUTs are counted by key in its log).
Prints a table and writes bench/results/cluster-<date>.json. Not a test: numbers vary with the host.
The cost model built on these numbers is in docs/cluster.md ("what it costs").
"""

import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "cluster"))

import engines  # noqa: E402
import object_stores  # noqa: E402
from benchlib import clients_conftest  # noqa: E402
from confluent_kafka import Consumer, Producer, TopicPartition  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

MIB = int(os.environ.get("BENCH_MIB", "64"))
LAT_RATE_MIB = float(os.environ.get("BENCH_LAT_RATE_MIB", "2"))
LAT_SECONDS = float(os.environ.get("BENCH_LAT_SECONDS", "8"))
FLUSH_MS = os.environ.get("BENCH_FLUSH_MS")  # --cluster-flush-ms; unset: the broker's default
RECORD = 1024
# The bench topic's partitions. librdkafka sends one partition per ProduceRequest; with 2 partitions per connection
# (6 over 3 brokers) its broker threads poll without sleeping while requests wait, and on this VM that CPU is the
# brokers' and moto's (docs/cluster.md "latest run"). 18 gives every setup at least 6 per connection.
PARTITIONS = int(os.environ.get("BENCH_PARTITIONS", "6"))


clients = clients_conftest()


def start_brokers(work, n, pg=None, s3=None, extra=()):
    out = []
    for node in range(1, n + 1):
        run = work / ("node-%d" % node)
        (run / "data").mkdir(parents=True, exist_ok=True)
        args = ["--schema-registry=false", "--console=false", *extra] + os.environ.get("BENCH_KETCH_ARGS", "").split()
        if pg:
            args += ["--node-id", str(node), "--cluster", pg.url(), "--object-store", s3.url()]
            if FLUSH_MS:
                args += ["--cluster-flush-ms", FLUSH_MS]
        out.append(clients.BrokerProcess(clients._ketch_binary(), run / "data", run, args).start())
    return out


def create_topic(bootstrap, topic="bench"):
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(topic, PARTITIONS, 1)])[topic].result(timeout=30)
    time.sleep(1)  # every broker's Metadata lists it (topics reload on a NOTIFY); not a measurement


def leaders_per_broker(bootstrap):
    """How many of the bench topic's partitions each broker leads (Metadata): a producer to every partition goes
    at the pace of the broker leading the most."""
    md = AdminClient({"bootstrap.servers": bootstrap}).list_topics("bench", timeout=20).topics["bench"].partitions
    counts = {}
    for part in md.values():
        counts[part.leader] = counts.get(part.leader, 0) + 1
    return dict(sorted(counts.items()))


def produce(bootstrap, mib):
    p = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True, "acks": "all", "linger.ms": 20,
                  "batch.size": 1 << 20, "queue.buffering.max.kbytes": 256 << 10})
    value = b"x" * RECORD
    n = mib * 1024
    start = time.monotonic()
    for i in range(n):
        while True:
            try:
                p.produce("bench", value=value, partition=i % PARTITIONS)
                break
            except BufferError:
                p.poll(0.01)
        p.poll(0)
    assert p.flush(120) == 0
    return mib / (time.monotonic() - start), n


CLIENTS = os.environ.get("BENCH_CLIENTS", "librdkafka,franz-go,java").split(",")
KAFKA_SH = ROOT / "conformance" / "reference" / "kafka.sh"
# More producer properties for ProducerPerformance (e.g. "batch.size=1048576 linger.ms=20", the librdkafka row's):
# unset, Kafka's defaults (batch.size 16 KiB: at most 5 x 16 KiB per partition in flight per flush interval).
JAVA_PROPS = os.environ.get("BENCH_JAVA_PROPS", "").split()
_driver = []


def driver():
    """bench/driver (franz-go), built once per run into a temporary directory."""
    if not _driver:
        out = Path(tempfile.mkdtemp(prefix="ketch-cbench-drv-")) / "bench-driver"
        subprocess.run(["go", "build", "-o", str(out), "."], cwd=ROOT / "bench" / "driver", check=True)
        _driver.append(str(out))
    return _driver[0]


def produce_franz(bootstrap, mib):
    """One franz-go client (its defaults: idempotent, no linger), acks=all, until mib MiB are sent: MiB/s acked."""
    create_topic(bootstrap, "bench-franz")
    res = subprocess.run([driver(), "produce", bootstrap, "bench-franz", "--clients", "1", "--acks", "all",
                          "--record-size", str(RECORD), "--bytes", str(mib << 20), "--seconds", "600"],
                         check=True, capture_output=True, text=True)
    return json.loads(res.stdout.strip().splitlines()[-1])["mib_s"]


def produce_java(bootstrap, mib):
    """Kafka's ProducerPerformance (kafka-clients 4.3.1, its defaults otherwise), idempotent, acks=all, mib MiB:
    MiB/s from its summary line (its clock starts after the JVM and the producer are up, as the others')."""
    create_topic(bootstrap, "bench-java")
    res = subprocess.run([str(KAFKA_SH), "tools", "org.apache.kafka.tools.ProducerPerformance", "--bootstrap-server",
                          bootstrap, "--topic", "bench-java", "--num-records", str(mib * 1024), "--record-size",
                          str(RECORD), "--throughput", "-1", "--command-property", "acks=all",
                          "enable.idempotence=true", *JAVA_PROPS], check=True, capture_output=True, text=True)
    sent = re.findall(r"^(\d+) records sent, ([\d.]+) records/sec", res.stdout, re.M)  # the last: the summary
    assert sent and int(sent[-1][0]) == mib * 1024, res.stdout[-500:]
    return float(sent[-1][1]) * RECORD / (1 << 20)


def consume(bootstrap, n, partitions=PARTITIONS):
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "bench-%d" % time.monotonic_ns(),
                  "enable.auto.commit": False, "fetch.max.bytes": 8 << 20, "max.partition.fetch.bytes": 4 << 20})
    c.assign([TopicPartition("bench", p, 0) for p in range(partitions)])
    got, nbytes, start = 0, 0, time.monotonic()
    deadline = start + 300
    while got < n and time.monotonic() < deadline:
        for m in c.consume(1000, 1.0):
            if not m.error():
                got += 1
                nbytes += len(m.value())
    c.close()
    return nbytes / (1 << 20) / (time.monotonic() - start)


def latency(bootstrap):
    """Records carrying their send time, produced at LAT_RATE_MIB; a consumer from the end: ms percentiles."""
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "lat-%d" % time.monotonic_ns(),
                  "enable.auto.commit": False, "fetch.wait.max.ms": 100})
    ends = [c.get_watermark_offsets(TopicPartition("bench", p), timeout=20)[1] for p in range(PARTITIONS)]
    c.assign([TopicPartition("bench", p, ends[p]) for p in range(PARTITIONS)])
    samples, stop = [], threading.Event()

    def reader():
        while not stop.is_set():
            for m in c.consume(500, 0.2):
                if not m.error():
                    samples.append((time.time_ns() - int.from_bytes(m.value()[:8], "big")) / 1e6)

    t = threading.Thread(target=reader)
    t.start()
    time.sleep(1)
    p = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True, "acks": "all", "linger.ms": 5})
    per_tick, tick = max(1, int(LAT_RATE_MIB * 1024 / 100)), 0.01
    start = time.monotonic()
    i = 0
    while time.monotonic() - start < LAT_SECONDS:
        for _ in range(per_tick):
            p.produce("bench", value=time.time_ns().to_bytes(8, "big") + b"y" * (RECORD - 8), partition=i % PARTITIONS)
            i += 1
        p.poll(0)
        time.sleep(max(0.0, start + (i / per_tick) * tick - time.monotonic()))
    p.flush(60)
    time.sleep(2)
    stop.set()
    t.join()
    c.close()
    samples.sort()
    pct = lambda q: samples[min(len(samples) - 1, int(q * len(samples)))] if samples else None  # noqa: E731
    return {"p50_ms": pct(0.5), "p99_ms": pct(0.99), "records": len(samples), "produced": i,
            "mib": i * RECORD / (1 << 20)}


def store_counts(s3, pg):
    puts = s3.requests("PUT") if s3 else 0
    gets = s3.requests("GET") if s3 else 0
    written = int(pg.psql("SELECT coalesce(sum(size_bytes), 0) FROM ketch_objects")[0]) if pg else 0
    return puts, gets, written


def wait_all_live(brokers):
    """Every broker lists every broker: otherwise the first one, alone in its view at start, leads every
    partition in the Metadata the producer reads once, and "3 brokers" would measure one."""
    want = list(range(1, len(brokers) + 1))
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and any(live_nodes(b) != want for b in brokers):
        time.sleep(0.2)


def cold_read():
    """Broker 1 writes BENCH_MIB MiB and stops; broker 2, which never held the objects, reads them all through
    a counting proxy (faulty_s3.py in "pass" mode, which adds about a copy per request: the same for every
    policy) in front of the object store."""
    from faulty_s3 import FaultyS3

    work = Path(tempfile.mkdtemp(prefix="ketch-cbench-cold-"))
    pg, s3 = engines.Postgres(), object_stores.open_store()
    os.environ.update(engines.CREDENTIALS)
    proxy = FaultyS3(s3.port)
    writer = start_brokers(work, 1, pg, s3)[0]
    reader = None
    try:
        create_topic(writer.bootstrap)
        produce_mib_s, n = produce(writer.bootstrap, MIB)
        writer.stop()
        run = work / "node-2"
        (run / "data").mkdir(parents=True, exist_ok=True)
        args = ["--schema-registry=false", "--console=false", "--node-id", "2", "--cluster", pg.url(),
                "--object-store", proxy.url(s3.bucket)] + os.environ.get("BENCH_KETCH_ARGS", "").split()
        reader = clients.BrokerProcess(clients._ketch_binary(), run / "data", run, args).start()
        wait_all_live([reader])
        time.sleep(1)  # the topics are loaded; not a measurement
        first = len(proxy.requests)
        parts = int(os.environ.get("BENCH_COLD_PARTITIONS", PARTITIONS))  # a reader of some partitions only
        consume_mib_s = consume(reader.bootstrap, n * parts // PARTITIONS, parts)
        gets = [(p, r) for m, p, r in proxy.requests[first:] if m == "GET" and "/data/" in p]
        sizes = dict(row.split("|") for row in pg.psql("SELECT object_key, size_bytes FROM ketch_objects"))
        fetched = 0
        for path, rng in gets:
            if rng:
                lo, hi = rng[len("bytes="):].split("-")
                fetched += int(hi) - int(lo) + 1
            else:
                fetched += int(sizes.get(urllib.parse.unquote(path.split("/", 2)[2]), 0))
        consumed = MIB * parts / PARTITIONS
        return {"setup": "cold-read", "args": os.environ.get("BENCH_KETCH_ARGS", ""), "partitions_read": parts,
                "produce_mib_s": produce_mib_s, "consume_mib_s": consume_mib_s,
                "objects": len(sizes), "gets": len(gets), "gets_per_mib_consumed": len(gets) / consumed,
                "ranged_gets": sum(1 for _, r in gets if r),
                "mib_fetched_per_mib_consumed": fetched / (1 << 20) / consumed}
    finally:
        if reader:
            reader.stop()
        proxy.close()
        pg.close()
        s3.close()


def run_setup(name, brokers_n, cluster):
    work = Path(tempfile.mkdtemp(prefix="ketch-cbench-"))
    pg = s3 = None
    if cluster:
        pg, s3 = engines.Postgres(), object_stores.open_store()
        os.environ.update(engines.CREDENTIALS)
    load_at_start = os.getloadavg()[0]
    brokers = start_brokers(work, brokers_n, pg, s3)
    try:
        bootstrap = ",".join(b.bootstrap for b in brokers)
        if cluster:
            wait_all_live(brokers)
        create_topic(bootstrap)
        leaders = leaders_per_broker(bootstrap)
        before = store_counts(s3, pg)
        cpu_before = [object_stores.cpu_s([s3.proc] if s3 else []), object_stores.cpu_s([b.proc for b in brokers])]
        produce_mib_s, n = produce(bootstrap, MIB)
        cpu_after = [object_stores.cpu_s([s3.proc] if s3 else []), object_stores.cpu_s([b.proc for b in brokers])]
        after_produce = store_counts(s3, pg)
        consume_mib_s = consume(bootstrap, n)
        lat_before = store_counts(s3, pg)
        lat = latency(bootstrap)
        lat_after = store_counts(s3, pg)
        clients_mib_s = {"librdkafka": produce_mib_s}
        if "franz-go" in CLIENTS:
            clients_mib_s["franz-go"] = produce_franz(bootstrap, MIB)
        if "java" in CLIENTS:
            clients_mib_s["java"] = produce_java(bootstrap, MIB)
        row = {"setup": name, "brokers": brokers_n, "produce_mib_s": produce_mib_s, "consume_mib_s": consume_mib_s,
               "latency": lat, "leaders": leaders, "produce_by_client_mib_s": clients_mib_s,
               "loadavg_1m": [load_at_start, os.getloadavg()[0]],
               "cpu_ms_per_mib_produced": {"object_store": 1000 * (cpu_after[0] - cpu_before[0]) / MIB,
                                           "brokers": 1000 * (cpu_after[1] - cpu_before[1]) / MIB}}
        if cluster:
            row["puts_per_mib"] = (after_produce[0] - before[0]) / MIB
            row["object_bytes_per_mib"] = (after_produce[2] - before[2]) / MIB
            row["gets_per_mib_consumed"] = (lat_before[1] - after_produce[1]) / MIB
            row["puts_per_s_per_broker_at_rate"] = (lat_after[0] - lat_before[0]) / LAT_SECONDS / brokers_n
            row["puts_per_mib_at_rate"] = (lat_after[0] - lat_before[0]) / max(lat["mib"], 1e-9)
        return row
    finally:
        for b in brokers:
            b.stop()
        if pg:
            pg.close()
        if s3:
            s3.close()


TRICKLE_SECONDS = float(os.environ.get("BENCH_TRICKLE_SECONDS", "10"))
MERGE_BYTES = int(os.environ.get("BENCH_MERGE_BYTES", str(1 << 20)))


def trickle(bootstrap, seconds, rate_mib):
    """1 KiB records at rate_mib for `seconds` (each flush a small object: what merging is for); the count."""
    p = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True, "acks": "all", "linger.ms": 5})
    per_tick, start, i = max(1, int(rate_mib * 1024 / 100)), time.monotonic(), 0
    while time.monotonic() - start < seconds:
        for _ in range(per_tick):
            p.produce("bench", value=b"z" * RECORD, partition=i % PARTITIONS)
            i += 1
        p.poll(0)
        time.sleep(max(0.0, start + (i / per_tick) * 0.01 - time.monotonic()))
    assert p.flush(60) == 0
    return i


def merge_run(merge_bytes):
    work = Path(tempfile.mkdtemp(prefix="ketch-mbench-"))
    pg, s3 = engines.Postgres(), object_stores.open_store("moto")  # counts merged PUTs by key: moto's log
    os.environ.update(engines.CREDENTIALS)
    objects = lambda: int(pg.psql("SELECT count(DISTINCT object_key) FROM ketch_batches")[0])  # noqa: E731
    brokers = start_brokers(work, 3, pg, s3, ["--cluster-merge-bytes", str(merge_bytes), "--retention-check-ms",
                                              "1000"])
    try:
        bootstrap = ",".join(b.bootstrap for b in brokers)
        wait_all_live(brokers)
        create_topic(bootstrap)
        start = store_counts(s3, pg)  # every GET before the consumer's is the merger's (it merges meanwhile too)
        n = trickle(bootstrap, TRICKLE_SECONDS, LAT_RATE_MIB)
        mib = n * RECORD / (1 << 20)
        before, objects_before = store_counts(s3, pg), objects()  # merging may have begun
        last, stable_since = objects_before, time.monotonic()
        while time.monotonic() - stable_since < 4 and time.monotonic() - stable_since < 120:
            time.sleep(0.5)  # the janitor merges every second; settled when the count stops moving
            now = objects()
            if now != last:
                last, stable_since = now, time.monotonic()
        merged = store_counts(s3, pg)
        merge_puts = s3.requests("PUT", "data/merged-")
        for b in brokers:
            b.restart()
        wait_all_live(brokers)
        consume_mib_s = consume(bootstrap, n)
        after = store_counts(s3, pg)
        return {"setup": "merge", "merge_bytes": merge_bytes, "mib": mib, "objects_before": objects_before,
                "objects_after": last, "merge_puts_per_mib": merge_puts / mib,
                "merge_gets_per_mib": (merged[1] - start[1]) / mib, "flush_puts_per_mib": (before[0] - start[0]) / mib,
                "gets_per_mib_consumed": (after[1] - merged[1]) / mib, "consume_mib_s": consume_mib_s}
    finally:
        for b in brokers:
            b.stop()
        pg.close()
        s3.close()


FAILOVER_ROUNDS = int(os.environ.get("BENCH_FAILOVER_ROUNDS", "12"))


def live_nodes(broker):
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    return sorted(n.id for n in admin.describe_cluster(request_timeout=10).result().nodes)


class Prober:
    """A producer with default settings (bootstrap at every broker) writing a record every 10 ms to each
    partition; the monotonic time each record was produced and acknowledged."""

    def __init__(self, bootstrap, topic, partitions):
        self.p = Producer({"bootstrap.servers": bootstrap})
        self.topic, self.partitions = topic, partitions
        self.acked, self.lock, self.stop = [], threading.Lock(), threading.Event()
        self.thread = threading.Thread(target=self.run)
        self.thread.start()

    def run(self):
        while not self.stop.is_set():
            for part in range(self.partitions):
                sent = time.monotonic()
                self.p.produce(self.topic, value=b"f", partition=part,
                               on_delivery=lambda err, m, sent=sent: err or self.record(m.partition(), sent))
            self.p.poll(0.01)
        self.p.flush(30)

    def record(self, part, sent):
        with self.lock:
            self.acked.append((part, sent, time.monotonic()))

    def first_ack_after(self, t, parts):
        """The first acknowledgement of a record produced after t to one of parts."""
        with self.lock:
            times = [ack for part, sent, ack in self.acked if sent >= t and part in parts]
        return min(times) if times else None

    def leaders(self):
        md = self.p.list_topics(self.topic, timeout=10).topics[self.topic].partitions
        return {part: md[part].leader for part in md}


def failover():
    """Three brokers with default flags; each round SIGKILLs the leader of partition 0 (as the prober's
    metadata names it): seconds from the kill to the first acknowledgement of a record produced after it
    to a partition the killed broker led. The broker is restarted and every broker lists all three
    before the next round."""
    work = Path(tempfile.mkdtemp(prefix="ketch-cbench-fo-"))
    pg, s3 = engines.Postgres(), object_stores.open_store()
    os.environ.update(engines.CREDENTIALS)
    brokers = start_brokers(work, 3, pg, s3)
    prober = None
    try:
        bootstrap = ",".join(b.bootstrap for b in brokers)
        create_topic(bootstrap)
        prober = Prober(bootstrap, "bench", PARTITIONS)
        samples = []
        for _ in range(FAILOVER_ROUNDS):
            leaders = prober.leaders()
            victim = leaders[0]
            led = {part for part, node in leaders.items() if node == victim}
            t_kill = time.monotonic()
            brokers[victim - 1].kill()
            while prober.first_ack_after(t_kill, led) is None and time.monotonic() - t_kill < 120:
                time.sleep(0.01)
            ack = prober.first_ack_after(t_kill, led)
            samples.append(None if ack is None else ack - t_kill)
            brokers[victim - 1].start(port=brokers[victim - 1].port)
            wait_all_live(brokers)
            time.sleep(3)  # clients' metadata names the restarted broker again; not a measurement
        got = sorted(x for x in samples if x is not None)
        pct = lambda q: got[min(len(got) - 1, int(q * len(got)))] if got else None  # noqa: E731
        return {"rounds": len(samples), "recovered": len(got), "p50_s": pct(0.5), "p99_s": pct(0.99),
                "max_s": got[-1] if got else None, "samples_s": samples}
    finally:
        if prober:
            prober.stop.set()
            prober.thread.join()
        for b in brokers:
            b.stop()
        pg.close()
        s3.close()


def print_clients(rows, limit_mib_s):
    """Produce MiB/s per client and setup, the ratio to single-node with the same client, and a cluster's to the
    object store's raw PUT rate from one client with a broker's PUTs in flight (the machine limit: one broker's flushes
    cannot pass it; three brokers have three times the PUTs in flight)."""
    single = next((r["produce_by_client_mib_s"] for r in rows if r["setup"] == "single-node"), {})
    print("produce by client (%% of single-node with the same client%s), load average 1 min at start/end" %
          ("; cluster: / %% of the %.1f MiB/s PUT limit" % limit_mib_s if limit_mib_s else ""))
    for r in rows:
        cells = ["%s %.1f%s%s" % (c, v, " (%.0f%%)" % (100 * v / single[c]) if single.get(c) else "",
                                  " / %.0f%%" % (100 * v / limit_mib_s) if limit_mib_s and
                                  r["setup"] == "cluster" else "")
                 for c, v in r["produce_by_client_mib_s"].items()]
        cpu = r["cpu_ms_per_mib_produced"]
        print("  %-12s %d broker(s): %s; load %.1f/%.1f; CPU ms per MiB (librdkafka): brokers %.1f, store %.1f" % (
            r["setup"], r["brokers"], ", ".join(cells), *r["loadavg_1m"], cpu["brokers"], cpu["object_store"]))


SETUPS = {"single": ("single-node", 1, False), "c1": ("cluster", 1, True), "c3": ("cluster", 3, True)}


def machine_limit(chosen):
    """The object store's raw PUT rate, before the setups and after (the host's load moves): [] without a cluster
    setup or with BENCH_PUT_RATE=0."""
    if os.environ.get("BENCH_PUT_RATE", "1") == "0" or not {"c1", "c3", "failover", "cold"} & set(chosen):
        return []
    return [object_stores.put_rate(driver())]


def main():
    chosen = os.environ.get("BENCH_SETUPS", "single,c1,c3,failover").split(",")  # a subset, e.g. BENCH_SETUPS=c1
    store = object_stores.kind()
    print("object store:", store)
    limits = machine_limit(chosen)
    rows = [run_setup(*SETUPS[name]) for name in chosen if name in SETUPS]
    limits += machine_limit(chosen)
    limit_mib_s = max((x["mib_s"] for x in limits), default=None)
    fail_over = failover() if "failover" in chosen else None
    cold = cold_read() if "cold" in chosen else None
    if cold:
        print("cold read (%s, %d of 6 partitions read): consume %.1f MiB/s, %d objects, %.2f GETs per MiB "
              "consumed (%d ranged), %.2f MiB fetched per MiB consumed" % (
                  cold["args"] or "default flags", cold["partitions_read"], cold["consume_mib_s"], cold["objects"],
                  cold["gets_per_mib_consumed"], cold["ranged_gets"], cold["mib_fetched_per_mib_consumed"]))
    merging = [merge_run(m) for m in (0, MERGE_BYTES)] if "merge" in chosen else []
    for r in merging:
        print("merge-bytes %8d: %.1f MiB in %d objects -> %d; merging %.2f PUTs/MiB, %.2f GETs/MiB; consume "
              "%.2f GETs/MiB, %.1f MiB/s" % (r["merge_bytes"], r["mib"], r["objects_before"], r["objects_after"],
                                             r["merge_puts_per_mib"], r["merge_gets_per_mib"],
                                             r["gets_per_mib_consumed"], r["consume_mib_s"]))
    print("%-12s %7s %12s %12s %8s %8s %9s %11s %12s %8s" % ("setup", "brokers", "produce MiB/s", "consume MiB/s",
                                                             "p50 ms", "p99 ms", "PUTs/MiB", "PUT/s/brk", "obj B/MiB",
                                                             "leaders"))
    for r in rows:
        lat = r["latency"]
        print("%-12s %7d %12.1f %12.1f %8.1f %8.1f %9s %11s %12s %8s" % (
            r["setup"], r["brokers"], r["produce_mib_s"], r["consume_mib_s"], lat["p50_ms"] or -1,
            lat["p99_ms"] or -1, "%.2f" % r["puts_per_mib"] if "puts_per_mib" in r else "-",
            "%.2f" % r["puts_per_s_per_broker_at_rate"] if "puts_per_mib" in r else "-",
            "%.0f" % r["object_bytes_per_mib"] if "puts_per_mib" in r else "-",
            "/".join(str(v) for v in r["leaders"].values())))
    for x in limits:
        print("machine limit (%s, one client, %d PUTs of %d KiB in flight): %.1f MiB/s, %.1f PUTs/s, p50 %.1f ms, "
              "store CPU %.1f ms per MiB; load %.1f/%.1f" % (x["store"], x["conns"], x["size"] >> 10, x["mib_s"],
                                                            x["puts_s"], x["p50_ms"], x["store_cpu_ms_per_mib"],
                                                            *x["loadavg_1m"]))
    print_clients(rows, limit_mib_s)
    if fail_over:
        print("fail-over (3 brokers, kill to the first acknowledged produce): p50 %s s, p99 %s s, max %s s, "
              "%d/%d rounds" % (fail_over["p50_s"], fail_over["p99_s"], fail_over["max_s"], fail_over["recovered"],
                                fail_over["rounds"]))
    out = ROOT / "bench" / "results" / ("cluster-%s.json" % time.strftime("%Y-%m-%dT%H%M%SZ", time.gmtime()))
    out.write_text(json.dumps({"mib": MIB, "partitions": PARTITIONS, "lat_rate_mib": LAT_RATE_MIB,
                               "java_props": JAVA_PROPS, "clients": CLIENTS,
                               "lat_seconds": LAT_SECONDS, "object_store": store, "put_limit": limits,
                               "rows": rows, "failover": fail_over, "cold_read": cold, "merging": merging,
                               "statistics": statistics.__name__}, indent=2))
    print("written", out)


if __name__ == "__main__":
    main()
