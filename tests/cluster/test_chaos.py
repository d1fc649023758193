"""Three brokers, one killed and restarted again and again, and the engines
failing in between (issue 26's "three brokers, one killed" and "a history
checker ... with faults injected at random points"), checked by the history
checker (history.py).

Three ketch processes share the engines; they reach the object store through
a fault-injecting proxy (faulty_s3.py). While idempotent acks=all producers
(confluent-kafka in a thread; the Java kafka-clients and franz-go drivers,
each one process for the whole run: produce-stream) write to twelve
partitions and a consumer group of three (confluent-kafka, committing by
hand) reads, the faults of chaos_faults.plan run one after another: KILLS
broker SIGKILLs and ENGINE_FAULTS engine faults (PostgreSQL restarts, object
store error bursts, outages and hangs) in an order, with victims and lengths,
drawn from a seed. The seed is printed; KETCH_CHAOS_SEED=N replays its plan.
After each fault the run waits until every producer had a record
acknowledged again (a fault the cluster does not recover from fails there),
then a pacing gap. No client is restarted.

Afterwards the group reads on until it has every record and has committed
every partition's end (the members commit on: one refused, as a member leaves
or the coordinator moves, is covered by the next), and every partition is read
back: every acknowledged record exactly once at its
offset, offsets contiguous, produce order kept, nothing read that was never
sent, every acknowledged record delivered to the group, no commit past
records the group never got, no redelivery below a committed offset, and the
group's committed offsets at the end of every partition."""

import os
import random
import threading
import time
from pathlib import Path

import pytest
from confluent_kafka import Consumer, KafkaException, TopicPartition

from chaos_clients import ConfluentProducer, GroupConsumer, Recorder, StreamProducer
from chaos_faults import Chaos, describe, plan
from conftest import clients
from faulty_s3 import FaultyS3
from history import History
from test_shared_produce import FLUSH, create_topic, wait_for_topic

pytestmark = pytest.mark.timeout(420)

PARTITIONS = 12
CONSUMERS = 3
KILLS = 20
ENGINE_FAULTS = 12
SESSION_MS = 3000
RECOVERY_S = 90  # after a fault, every producer has a record acknowledged within this
TIMING = ["--cluster-heartbeat-ms", "250", "--cluster-session-timeout-ms", str(SESSION_MS)]
CLIENTS = Path(__file__).resolve().parents[1] / "clients"
FRANZ = [str(CLIENTS / "go" / "driver")]
JAVA = [str(CLIENTS / "java" / "driver")]
JAVA_CONFIG = {"max.block.ms": "120000", "request.timeout.ms": "10000"}


def chaos_seed():
    env = os.environ.get("KETCH_CHAOS_SEED")
    return int(env) if env else random.SystemRandom().randrange(1 << 31)


def read_back(h, bootstrap, topic):
    """Every partition read from its start to its end into the history (one deadline for all:
    what was not read by then is missing there)."""
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "chaos-check", "enable.auto.commit": False})
    deadline = time.monotonic() + 120
    for p in range(PARTITIONS):
        low, high = c.get_watermark_offsets(TopicPartition(topic, p), timeout=20)
        recs = []
        c.assign([TopicPartition(topic, p, low)])
        while (recs[-1][0] + 1 if recs else low) < high and time.monotonic() < deadline:
            m = c.poll(0.5)
            if m is not None and not m.error():
                recs.append((m.offset(), m.key(), m.value()))
        h.read_back(topic, p, recs)
    c.close()


def ends_and_commits(bootstrap, topic, group):
    """{partition: high watermark} and {partition: the group's committed offset}."""
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": group, "enable.auto.commit": False})
    ends = {p: c.get_watermark_offsets(TopicPartition(topic, p), timeout=20)[1] for p in range(PARTITIONS)}
    committed = {tp.partition: tp.offset
                 for tp in c.committed([TopicPartition(topic, p) for p in range(PARTITIONS)], timeout=20)}
    c.close()
    return ends, committed


def wait_for_commits(bootstrap, topic, group, ends, timeout=90):
    """Until the group's committed offsets are `ends` (by the deadline: the assertion after
    says by how much they fell short). The members commit on while this waits: a commit
    refused or unanswered (the group rebalancing as a member closes, its coordinator moving)
    is covered by the next one, and a partition whose records one member got before a
    rebalance is read again by the member it went to before that one commits it; a commit
    acknowledged but not stored is not covered (librdkafka commits only positions past
    what it had acknowledged)."""
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": group, "enable.auto.commit": False})
    tps = [TopicPartition(topic, p) for p in range(PARTITIONS)]
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            try:
                if {tp.partition: tp.offset for tp in c.committed(tps, timeout=20)} == ends:
                    return
            except KafkaException:
                pass  # the coordinator moving: asked again
            time.sleep(0.5)  # the polling interval
    finally:
        c.close()


def short_of(ends, committed, acked):
    """Per partition that differs: its end, the offset the group has committed, and the
    highest commit a member had acknowledged."""
    return ", ".join("%d: end %d, committed %s, acknowledged %s" % (p, ends[p], committed.get(p), acked.get(p))
                     for p in sorted(ends) if committed.get(p) != ends[p])


def test_three_brokers_killed_and_engines_failing_lose_nothing(start_broker, postgres, s3, tmp_path):
    for argv in (FRANZ, JAVA):
        if not Path(argv[0]).exists():
            pytest.skip("%s not built (scripts/install-test-deps.sh)" % argv[0])
    seed = chaos_seed()
    faults = plan(seed, KILLS, ENGINE_FAULTS)
    print("chaos seed %d (replay: KETCH_CHAOS_SEED=%d)" % (seed, seed), flush=True)
    proxy = FaultyS3(s3.port)
    try:
        run_chaos(start_broker, postgres, proxy, s3, faults, seed, tmp_path)
    finally:
        proxy.close()


def run_chaos(start_broker, postgres, proxy, s3, faults, seed, tmp_path):
    store = proxy.url(s3.bucket)
    brokers = [start_broker(n, *FLUSH, *TIMING, object_store=store) for n in (1, 2, 3)]
    create_topic(brokers[0], "chaos", PARTITIONS)
    for b in brokers[1:]:
        wait_for_topic(b, "chaos", PARTITIONS)
    bootstrap = ",".join(b.bootstrap for b in brokers)
    rec = Recorder(History())
    stop, done = threading.Event(), threading.Event()
    producers = [ConfluentProducer(rec, bootstrap, "chaos", PARTITIONS, stop),
                 StreamProducer(rec, "java", JAVA, bootstrap, "chaos", PARTITIONS, stop, b"j", JAVA_CONFIG),
                 StreamProducer(rec, "franz", FRANZ, bootstrap, "chaos", PARTITIONS, stop, b"f")]
    group = [GroupConsumer(rec, "consumer-%d" % i, bootstrap, "chaos", "chaos-group", done) for i in range(CONSUMERS)]
    for c in producers + group:
        (c.start if isinstance(c, StreamProducer) else c.thread.start)()
    pace = stop.wait  # pacing gaps; stop is set only once the faults are over
    chaos = Chaos(brokers, postgres, proxy, pace)
    log = []
    started = time.monotonic()
    finish_s = 20  # the producers' end (all of them) when the fault phase failed: that is reported
    try:
        wait_for_progress(rec, producers, "the start")
        for f in faults:
            t0 = time.monotonic()
            chaos.run(f)
            wait_for_progress(rec, producers, "seed %d, fault %s" % (seed, describe(f)))
            log.append("%5.1f s %s (recovered in %.1f s)" % (t0 - started, describe(f), time.monotonic() - t0))
            phase(log[-1])
            pace(f["gap_s"])
        finish_s = 150
    finally:
        stop.set()
        end = time.monotonic() + finish_s
        problems = [p.finish(end - time.monotonic()) for p in producers]
    run_s = time.monotonic() - started
    assert [p for p in problems if p] == [], problems

    # The group reads on until it has every record and its committed offsets are the ends
    # (its members commit every COMMIT_EVERY_S), then leaves.
    phase("faults over after %.0f s; producers finished" % run_s)
    ends, _ = ends_and_commits(brokers[0].bootstrap, "chaos", "chaos-group")
    clients.wait_for(lambda: rec.group_has(ends), timeout=90, what="the group got every record")
    phase("the group got every record")
    wait_for_commits(brokers[0].bootstrap, "chaos", "chaos-group", ends)
    done.set()
    for c in group:
        c.thread.join(30)
    open_members = [c.name for c in group if c.thread.is_alive()]  # named in the summary: close() hung
    _, committed = ends_and_commits(brokers[0].bootstrap, "chaos", "chaos-group")
    phase("the group left; reading every partition back")
    read_back(rec.h, brokers[0].bootstrap, "chaos")

    h = rec.h
    h.dump(tmp_path / "history.jsonl")
    problems = h.check()
    summary = "seed %d: %s; %d faults in %.0f s; %d produce errors (retried or unacknowledged): %s; proxy: %s" % (
        seed, h.summary(), len(faults), run_s, len(rec.errors), rec.errors[:5], proxy.injected)
    if open_members:
        summary += "; members not closed after 30 s: %s" % open_members
    print(summary)
    print("\n".join(log))
    for c in group:
        print("%s: %d consumer errors: %s" % (c.name, len(c.errors), sorted(set(c.errors))[:10]))
    assert problems == [], "\n".join([summary] + problems)
    acked = {p: o for (t, p), o in h.final_commits().items() if t == "chaos"}
    assert committed == ends, "%s: the group's committed offsets are not the partitions' ends (%s)" % (
        summary, short_of(ends, committed, acked))
    assert len(h.acks) > 5000, summary


def phase(text):
    """Printed as it happens (the test runs with -s): a run cut short shows how far it got."""
    print("chaos: %s" % text, flush=True)


def wait_for_progress(rec, producers, after):
    """Every producer has a record acknowledged in every partition after this call began
    (the partitions of a killed broker too: served again)."""
    before = rec.acks()
    want = [(p.client, q) for p in producers for q in range(PARTITIONS)]

    def stuck():
        now = rec.acks()
        return [w for w in want if now.get(w, 0) <= before.get(w, 0)]

    try:
        clients.wait_for(lambda: not stuck(), timeout=RECOVERY_S,
                         what="every producer had a record acknowledged in every partition after %s" % after)
    except AssertionError as e:
        raise AssertionError("%s (no progress: %s; errors: %s)" % (e, stuck(), rec.errors[-5:]))
