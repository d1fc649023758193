"""Share groups across brokers (docs/design/cluster.md, "share groups"): the
leader of a partition serves its share-partitions under a lease in
PostgreSQL, writes every acquisition and acknowledgement there before it
answers, and a broker taking the partition over reads that state. Two Java
KafkaShareConsumers (explicit acknowledgement, tests/cluster/share_kill/
ShareKillCheck.java) consume three partitions of three brokers while the
leader of partition 0 is SIGKILLed:

- no record is acknowledged successfully twice, and none is delivered again
  after a successful acknowledgement (no delivery with a count above the
  acknowledged one);
- every record is eventually acknowledged (each partition's SPSO in
  ketch_share_state reaches its end);
- delivery counts are kept across the move: a record delivered again never
  repeats a count (records the dead leader had handed out come back with
  their count + 1), and no count passes share.delivery.count.limit (5).

Behaviour reference, Apache Kafka 4.3.1: core/src/main/java/kafka/server/share/
SharePartition.java (acquire: delivery count + 1; a record acknowledged is
never acquired again), share-coordinator/.../ShareCoordinatorShard.java (the
durable state a new leader reads)."""

import os
import subprocess
import threading
import time
from collections import defaultdict
from pathlib import Path

from confluent_kafka.admin import AdminClient

from json_lines import JsonLinesProcess
from test_shared_produce import FLUSH, TIMING, create_topic, produce, wait_for_topic

REPO = Path(__file__).resolve().parents[2]
JAVA = REPO / "tests" / "clients" / "java"
PROGRAM = Path(__file__).resolve().parent / "share_kill" / "ShareKillCheck.java"
PARTITIONS = 3
TOTAL = 3000
DELIVERY_LIMIT = 5


def java(*args, **kw):
    subprocess.run([str(JAVA / "build.sh")], check=True)
    return subprocess.Popen([os.environ.get("JAVA", "java"), "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                             "-cp", "%s/*" % (JAVA / "target" / "lib"), str(PROGRAM), *args], **kw)


class ShareConsumer(JsonLinesProcess):
    def __init__(self, bootstrap, group, topic, log):
        super().__init__(java("consume", bootstrap, group, topic, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=log))


def leader_of(broker, topic, partition):
    md = AdminClient({"bootstrap.servers": broker.bootstrap}).list_topics(topic, timeout=10)
    return md.topics[topic].partitions[partition].leader


def history(consumers):
    """{(p, o): [delivery counts]}, {(p, o): [(count, ok)]} over every consumer."""
    delivered, acked = defaultdict(list), defaultdict(list)
    for c in consumers:
        for line in c.snapshot():
            if "d" in line:
                p, o, n = line["d"]
                delivered[(p, o)].append(n)
            elif "a" in line:
                for o, n in line["a"]:
                    acked[(line["p"], o)].append((n, line["ok"]))
    return delivered, acked


def test_share_consumers_lose_and_repeat_nothing_when_the_share_partition_leader_is_killed(
        start_broker, postgres, tmp_path):
    brokers = {n: start_broker(n, *FLUSH, *TIMING) for n in (1, 2, 3)}
    topic, group = "share-failover", "share-failover-group"
    create_topic(brokers[1], topic, PARTITIONS)
    for b in brokers.values():
        wait_for_topic(b, topic, PARTITIONS)
    records = [(b"k%d" % i, b"v%05d" % i) for i in range(TOTAL)]
    acked_produce = produce(brokers[1], topic, records[:TOTAL // 2], PARTITIONS)
    first_on_0 = sum(1 for p, _ in acked_produce if p == 0)
    bootstrap = ",".join(b.bootstrap for b in brokers.values())
    setup = java("setup", bootstrap, group, stdout=subprocess.PIPE)
    assert setup.communicate(timeout=120)[0].strip() == b"ok"

    log = open(tmp_path / "share-consumers.log", "wb")
    consumers = [ShareConsumer(bootstrap, group, topic, log) for _ in range(2)]
    try:
        # The first half is acknowledged on partition 0, then the second half is
        # produced and the kill lands while records of partition 0 are delivered
        # and not yet acknowledged (each poll's records wait 300 ms for their commit).
        victim = leader_of(brokers[1], topic, 0)

        def on_0():
            delivered, acked = history(consumers)
            done = sum(1 for (p, _), v in acked.items() if p == 0 and any(ok for _, ok in v))
            pending = sum(1 for (p, o) in delivered if p == 0 and o >= first_on_0 and (p, o) not in acked)
            return done, pending

        def wait(what, check):
            deadline = time.monotonic() + 120
            while not check():
                assert time.monotonic() < deadline, "%s: not within 120 s (%s, %s)" % (
                    what, postgres.psql("SELECT config, value FROM ketch_resource_configs WHERE kind = 32"),
                    postgres.psql("SELECT partition, start_offset, length(batches) FROM ketch_share_state"))
                time.sleep(0.02)
        wait("the first half of partition 0 acknowledged", lambda: on_0()[0] >= first_on_0)
        other = brokers[next(n for n in brokers if n != victim)]
        second = {}
        producing = threading.Thread(
            target=lambda: second.update(produce(other, topic, records[TOTAL // 2:], PARTITIONS)))
        producing.start()
        wait("records of partition 0 in flight", lambda: on_0()[1] > 0)
        brokers[victim].kill()
        producing.join(120)
        assert len(second) == TOTAL - TOTAL // 2, "the second half produced"
        acked_produce.update(second)

        ends = {p: 1 + max(o for q, o in acked_produce if q == p) for p in range(PARTITIONS)}

        def spso():
            rows = postgres.psql("SELECT partition, start_offset FROM ketch_share_state WHERE group_id = "
                                 "convert_to('%s', 'UTF8') ORDER BY partition" % group)
            return {int(p): int(o) for p, o in (r.split("|") for r in rows)}
        deadline = time.monotonic() + 240
        while spso() != ends:
            assert time.monotonic() < deadline, "not every record acknowledged: SPSO %s, ends %s" % (spso(), ends)
            time.sleep(0.5)
    finally:
        for c in consumers:
            c.close()
        log.close()

    delivered, acked = history(consumers)
    assert set(delivered) == set(acked_produce), "every record delivered"
    for rec, counts in delivered.items():
        assert len(set(counts)) == len(counts), "%s delivered twice with one count: %s" % (rec, counts)
        assert max(counts) <= DELIVERY_LIMIT, (rec, counts)
        successes = [n for n, ok in acked[rec] if ok]
        assert len(successes) <= 1, "%s acknowledged twice: %s" % (rec, acked[rec])
        if successes:
            assert max(counts) <= successes[0], "%s delivered after its acknowledgement: %s" % (rec, counts)
        else:
            # No success seen: its acknowledgement's answer was lost with the broker
            # (the ack was stored; the SPSO check above says it is done).
            assert acked[rec] and not any(ok for _, ok in acked[rec]), (rec, acked[rec])
    again = [rec for rec, counts in delivered.items() if len(counts) > 1]
    print("share failover: %d records, %d delivered again (max count %d), %d acknowledgements in doubt" % (
        len(delivered), len(again), max(max(c) for c in delivered.values()),
        sum(1 for v in acked.values() for _, ok in v if not ok)))
    assert again, "the kill interrupted no delivery: the test checked nothing"
    assert all(min(delivered[rec]) >= 1 for rec in again)
