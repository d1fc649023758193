"""Fetch's reads off the reactor (docs/design/cluster.md, "threads"): in
cluster mode a fetch's PostgreSQL queries and object GETs run on a pool of
their own, so a slow object store holds up only the fetches that need it,
never the other connections of the reactor that serves them.

The object store is frozen (SIGSTOP of moto) while consumers fetch from a
broker that leads every partition and has none of the objects cached (another
broker wrote them, then stopped): their GETs hang (until the
client's 10 s deadline). The broker runs one reactor, so a read on the
reactor would stall every connection; Metadata from new connections is
answered meanwhile. Thawed, the consumers read every record.

ListOffsets by timestamp (an index query and a GET of the batch) and
DeleteRecords run there too: a ListOffsets waiting on the frozen store
holds up nothing else either."""

import os
import signal
import threading
import time

from confluent_kafka import Consumer, TopicPartition
from confluent_kafka.admin import AdminClient

from conftest import clients
from test_shared_produce import FLUSH, TIMING, create_topic, produce, wait_for_topic

PARTITIONS = 4
TOTAL = 200


def connections_to(pid, port):
    """The established TCP connections of process `pid` to 127.0.0.1:port."""
    inodes = set()
    for fd in os.listdir("/proc/%d/fd" % pid):
        try:
            target = os.readlink("/proc/%d/fd/%s" % (pid, fd))
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    n = 0
    with open("/proc/%d/net/tcp" % pid) as f:
        next(f)
        for line in f:
            cols = line.split()
            remote, state, inode = cols[2], cols[3], cols[9]
            if state == "01" and int(remote.split(":")[1], 16) == port and inode in inodes:
                n += 1
    return n


def consume_until(broker, assignments, got, lock, stop, total=None):
    """Reads `assignments` ((topic, partition) pairs) from offset 0 into got[(partition, offset)] = value,
    under `lock`, until `stop` is set or, with `total`, got holds that many records."""
    c = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": "unused", "enable.auto.commit": False})
    c.assign([TopicPartition(topic, p, 0) for topic, p in assignments])
    try:
        while not stop.is_set():
            m = c.poll(0.2)
            if m is not None and not m.error():
                with lock:
                    got[(m.partition(), m.offset())] = m.value()
                    if total is not None and len(got) >= total:
                        return
    finally:
        c.close()


def metadata_answered_meanwhile(broker, topic, waiting):
    """Metadata from five new connections, each answered within 3 s while `waiting` (what waits) waits."""
    for _ in range(5):
        t0 = time.monotonic()
        md = AdminClient({"bootstrap.servers": broker.bootstrap}).list_topics(timeout=8)
        took = time.monotonic() - t0
        assert topic in md.topics
        assert took < 3, "Metadata took %.1f s while %s waited" % (took, waiting)


def test_a_hanging_object_store_does_not_stall_other_connections(start_broker, s3):
    # Broker 1 alone writes every object, then leaves: broker 2 leads every
    # partition and has none of their objects cached.
    b1 = start_broker(1, *FLUSH, *TIMING)
    create_topic(b1, "slow-reads", PARTITIONS)
    acked = produce(b1, "slow-reads", [(b"k%d" % i, b"v%04d" % i) for i in range(TOTAL)], PARTITIONS)
    assert len(acked) == TOTAL
    b2 = start_broker(2, *FLUSH, *TIMING, "--reactors", "1")
    b1.stop()  # SIGTERM: deregistered at once
    deadline = time.monotonic() + 20
    while set(wait_for_topic(b2, "slow-reads", PARTITIONS).values()) != {2}:
        assert time.monotonic() < deadline, "broker 2 does not lead every partition"
        time.sleep(0.1)

    got, lock, stop = {}, threading.Lock(), threading.Event()
    everything = [("slow-reads", p) for p in range(PARTITIONS)]
    by_time = {}

    def list_offsets_by_time():  # timestamp 0: the first batch, read from its object
        c = Consumer({"bootstrap.servers": b2.bootstrap, "group.id": "unused"})
        try:
            by_time["answer"] = c.offsets_for_times([TopicPartition("slow-reads", 1, 0)], timeout=60)
        finally:
            c.close()

    clients.sigstop(s3.proc)
    try:
        readers = [threading.Thread(target=consume_until, args=(b2, everything, got, lock, stop, TOTAL))
                   for _ in range(3)] + [threading.Thread(target=list_offsets_by_time)]
        for t in readers:
            t.start()
        deadline = time.monotonic() + 20
        while connections_to(b2.proc.pid, s3.port) == 0:  # a GET waits on the frozen store
            assert time.monotonic() < deadline, "broker 2 never asked the object store"
            time.sleep(0.02)
        metadata_answered_meanwhile(b2, "slow-reads", "a fetch on the object store")  # while the GETs hang
        assert connections_to(b2.proc.pid, s3.port) > 0, "the GETs were still waiting"
        with lock:
            assert got == {}, "nothing could be read while the store was frozen"
    finally:
        os.kill(s3.proc.pid, signal.SIGCONT)
    for t in readers:
        t.join(60)
    stop.set()
    assert got == acked
    assert [(tp.partition, tp.offset) for tp in by_time["answer"]] == [(1, 0)]
