"""Cold reads (issue 24): a consumer reading data that is no longer in the page cache
gets every record intact, and the broker reads those file chunks into the cache off its
network threads (net/page_in.h) — the metric ketch_fetch_cold_chunks_paged_in_total
counts them. The segment files' pages are evicted with POSIX_FADV_DONTNEED after a sync
(no root needed); where the kernel cannot evict or tell (no RWF_NOWAIT), the test skips.
The throughput and the tail latency during a catch-up read are `make bench-cold-reads`'s.
"""

import json
import os
import urllib.request

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition

pytestmark = pytest.mark.timeout(120)

RECORDS = 6000
SIZE = 1024


def value(i):
    return (b"%08d" % i) * (SIZE // 8)


def cold_metric(broker):
    url = json.loads((broker.data_dir / "listeners.json").read_text())["metrics"]
    with urllib.request.urlopen(url, timeout=5) as r:
        for line in r.read().decode().splitlines():
            if line.startswith("ketch_fetch_cold_chunks_paged_in_total "):
                return float(line.split()[1])
    pytest.fail("no ketch_fetch_cold_chunks_paged_in_total on the metrics page")


def segments(broker, topic):
    found = sorted(p for p in broker.data_dir.rglob("*.log") if p.parent.name == topic + "-0")
    assert found, "no segment of %s-0 under %s" % (topic, broker.data_dir)
    return found


def evict(paths):
    """Syncs and evicts each file's pages; False when a page stays resident."""
    for p in paths:
        fd = os.open(p, os.O_RDONLY)
        try:
            os.fsync(fd)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            try:
                os.preadv(fd, [bytearray(1)], 0, os.RWF_NOWAIT)
                return False
            except BlockingIOError:
                pass
            except OSError:
                return False  # no RWF_NOWAIT here: cannot tell
        finally:
            os.close(fd)
    return True


@pytest.mark.ketch_args("--metrics-listen", "127.0.0.1:0")
def test_a_consumer_reading_evicted_segments_gets_every_record(broker):
    p = Producer({"bootstrap.servers": broker.bootstrap, "linger.ms": 5, "compression.type": "none"})
    for i in range(RECORDS):
        p.produce("cold", value(i), key=b"k%d" % i)
        if i % 1000 == 0:
            p.poll(0)
    assert p.flush(30) == 0
    if not evict(segments(broker, "cold")):
        pytest.skip("the segment pages cannot be evicted or probed here (POSIX_FADV_DONTNEED, RWF_NOWAIT)")
    before = cold_metric(broker)

    c = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": "cold-reader", "enable.auto.commit": False,
                  "max.partition.fetch.bytes": 1 << 20, "fetch.max.bytes": 4 << 20})
    c.assign([TopicPartition("cold", 0, 0)])
    got = 0
    try:
        while got < RECORDS:
            for m in c.consume(500, timeout=10):
                assert m.error() is None, m.error()
                assert (m.offset(), m.key(), m.value()) == (got, b"k%d" % got, value(got))
                got += 1
    finally:
        c.close()
    assert got == RECORDS
    assert cold_metric(broker) > before, "no chunk was paged in off the network threads"
