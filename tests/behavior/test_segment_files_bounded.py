"""Open segment files bounded by --log-max-open-files (issue 24): with more partitions
written than the budget, the broker holds at most the budget of segment files open (plus
its baseline and the few a fetch answer or a flush holds for a moment); every record reads
back byte for byte from partitions whose segment was closed and reopened on use, and again
after a kill -9 and a restart with the same budget (crash safety unchanged).

Kafka keeps every segment open (one descriptor per .log plus memory-mapped indexes:
storage/src/main/java/org/apache/kafka/storage/internals/log/LogSegment.java); ketch's
budget is its own (docs/performance.md, "What a partition costs").
"""

import time
from pathlib import Path

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

BUDGET = 8
PARTITIONS = 48
PER_PARTITION = 30
# Beyond the budget: client connections, a fetch answer's held descriptor while it is
# sent, a flush's atomic write of an index or checkpoint file.
SLACK = 12

pytestmark = pytest.mark.timeout(300)


def fd_count(pid):
    return len(list(Path("/proc/%d/fd" % pid).iterdir()))


def value(p, i):
    return ("p%d-r%d-" % (p, i)).encode() * 20


def produce_all(bootstrap):
    prod = Producer({"bootstrap.servers": bootstrap, "acks": "all", "enable.idempotence": False, "linger.ms": 0})
    failed = []
    for i in range(PER_PARTITION):
        for p in range(PARTITIONS):
            prod.produce("bounded", value(p, i), partition=p,
                         on_delivery=lambda err, _m: failed.append(err) if err else None)
        prod.flush(60)
    assert prod.flush(60) == 0
    assert not failed, failed[:3]


def consume_all(bootstrap, pid, max_fds):
    """Every partition read back from offset 0; returns the most descriptors seen meanwhile."""
    cons = Consumer({"bootstrap.servers": bootstrap, "group.id": "g", "enable.auto.commit": False,
                     "fetch.max.bytes": 1000000, "message.max.bytes": 1000000,
                     "max.partition.fetch.bytes": 1024})
    cons.assign([TopicPartition("bounded", p, 0) for p in range(PARTITIONS)])
    got = {p: [] for p in range(PARTITIONS)}
    most = 0
    deadline = time.monotonic() + 120
    while sum(len(v) for v in got.values()) < PARTITIONS * PER_PARTITION:
        assert time.monotonic() < deadline, "not every record read back"
        m = cons.poll(1.0)
        most = max(most, fd_count(pid))
        if m is None or m.error():
            continue
        got[m.partition()].append((m.offset(), m.value()))
    cons.close()
    for p in range(PARTITIONS):
        assert got[p] == [(i, value(p, i)) for i in range(PER_PARTITION)], "partition %d" % p
    # A fetch answer holds a descriptor per partition slice while it is sent (beyond the budget,
    # by design): the bound holds once the answers are out.
    deadline = time.monotonic() + 30
    while fd_count(pid) > max_fds and time.monotonic() < deadline:
        time.sleep(0.05)
    assert fd_count(pid) <= max_fds, "%d descriptors open, budget %d + baseline" % (fd_count(pid), BUDGET)
    return most


@pytest.mark.ketch_args("--log-max-open-files", str(BUDGET), "--default-partitions", "1")
def test_segment_files_within_budget_and_read_back_after_kill(broker):
    pid = broker.proc.pid
    base = fd_count(pid)  # the broker's own (listeners, epoll, threads' files), nothing per partition
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    for f in admin.create_topics([NewTopic("bounded", PARTITIONS, 1)]).values():
        f.result(30)
    produce_all(broker.bootstrap)
    after_produce = fd_count(pid)
    assert after_produce <= base + BUDGET + SLACK, "%d fds after writing %d partitions (base %d)" % (
        after_produce, PARTITIONS, base)
    consume_all(broker.bootstrap, pid, base + BUDGET + SLACK)

    broker.kill()
    broker.start(port=broker.port)
    pid = broker.proc.pid
    consume_all(broker.bootstrap, pid, base + BUDGET + SLACK)
    assert fd_count(pid) <= base + BUDGET + SLACK
