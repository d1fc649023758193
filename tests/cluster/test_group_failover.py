"""Consumer groups across brokers (docs/cluster.md, "consumer groups"): the
group coordinator keeps committed offsets in PostgreSQL, so a group whose
coordinator is SIGKILLed resumes on the broker that owns it next from what it
committed — nothing committed is read again, nothing is skipped.

Both brokers run from the start, so the survivor's coordinator loaded the
(empty) groups before any commit: it must read the group again when the group
moves to it (app/cluster_groups.cc), not serve what it loaded at start-up."""

import time

from confluent_kafka import Consumer
from confluent_kafka.admin import AdminClient

from test_shared_produce import FLUSH, TIMING, create_topic, produce, wait_for_topic

PARTITIONS = 4
TOTAL = 400


def poll_records(consumer, n, timeout_s=60):
    """Polls until n records arrived; [(partition, offset, value)]."""
    out = []
    deadline = time.monotonic() + timeout_s
    while len(out) < n:
        assert time.monotonic() < deadline, "only %d of %d records within %d s" % (len(out), n, timeout_s)
        m = consumer.poll(0.5)
        if m is None or m.error():
            continue
        out.append((m.partition(), m.offset(), m.value()))
    return out


def coordinator_of(broker, group):
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    return admin.describe_consumer_groups([group])[group].result(timeout=20).coordinator.id


def test_a_group_resumes_from_its_committed_offsets_after_its_coordinator_is_killed(start_broker, postgres):
    b1 = start_broker(1, *FLUSH, *TIMING)
    b2 = start_broker(2, *FLUSH, *TIMING)
    brokers = {1: b1, 2: b2}
    create_topic(b1, "failover", PARTITIONS)
    wait_for_topic(b2, "failover", PARTITIONS)
    records = [(b"k%d" % i, b"v%04d" % i) for i in range(TOTAL)]
    acked = produce(b1, "failover", records, PARTITIONS)
    assert len(acked) == TOTAL

    group = "failover-group"
    conf = {"bootstrap.servers": "%s,%s" % (b1.bootstrap, b2.bootstrap), "group.id": group,
            "enable.auto.commit": False, "auto.offset.reset": "earliest", "session.timeout.ms": 6000}
    first = Consumer(conf)
    first.subscribe(["failover"])
    committed_part = poll_records(first, 200)
    first.commit(asynchronous=False)  # everything read so far, per partition
    committed = {}
    for p, o, _ in committed_part:
        committed[p] = max(committed.get(p, 0), o + 1)
    uncommitted = poll_records(first, 20)  # read, never committed: may be read again
    first.close()  # leaves the group (Empty, with its offsets)
    rows = postgres.psql("SELECT partition, committed_offset FROM ketch_group_offsets "
                         "WHERE group_id = convert_to('%s', 'UTF8') ORDER BY partition" % group)
    assert {int(p): int(o) for p, o in (r.split("|") for r in rows)} == committed

    victim_id = coordinator_of(b1, group)
    victim = brokers[victim_id]
    survivor = brokers[3 - victim_id]
    victim.kill()

    second = Consumer({**conf, "bootstrap.servers": survivor.bootstrap})
    second.subscribe(["failover"])
    want = TOTAL - sum(committed.values())
    resumed = poll_records(second, want, timeout_s=90)
    assert coordinator_of(survivor, group) == 3 - victim_id
    # Each partition resumes exactly at its committed offset and reads on.
    for p in range(PARTITIONS):
        offs = [o for q, o, _ in resumed if q == p]
        end = sum(1 for (q, _) in acked if q == p)
        assert offs == list(range(committed.get(p, 0), end)), "partition %d" % p
    # Nothing lost: what was committed plus what was resumed is every record,
    # and what was read twice is only what was never committed.
    seen_first = {(p, o) for p, o, _ in committed_part}
    seen_second = {(p, o) for p, o, _ in resumed}
    assert seen_first | seen_second == set(acked)
    assert seen_first & seen_second == set()
    # Read but not committed: read again (at-least-once), every one of them.
    assert {(p, o) for p, o, _ in uncommitted} <= seen_second
    # A commit on the new coordinator goes to PostgreSQL too.
    second.commit(asynchronous=False)
    second.close()
    rows = postgres.psql("SELECT sum(committed_offset) FROM ketch_group_offsets "
                         "WHERE group_id = convert_to('%s', 'UTF8')" % group)
    assert rows == [str(TOTAL)]
    assert "group(s) moved to this broker" in survivor.log_text()
    # The survivor holds the group's lease, taken after the victim's.
    lease = postgres.psql("SELECT node_id, epoch FROM ketch_group_leases WHERE group_id = convert_to('%s', 'UTF8')"
                          % group)
    assert len(lease) == 1 and int(lease[0].split("|")[0]) == 3 - victim_id and int(lease[0].split("|")[1]) >= 2
