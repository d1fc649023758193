"""Cold reads (issue 24): a consumer reading data that is no longer in the page cache
gets every record intact, and the broker reads those file chunks into the cache off its
network threads (net/page_in.h) — the metric ketch_fetch_cold_chunks_paged_in_total
counts them — and reads ahead the range after each large answer chunk (the metric
ketch_fetch_look_aheads_total), with the records still intact. The segment files' pages are evicted with POSIX_FADV_DONTNEED after a sync
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


def cold_metrics(broker):
    """(chunks paged in, look-aheads asked for) from the metrics page."""
    url = json.loads((broker.data_dir / "listeners.json").read_text())["metrics"]
    names = ("ketch_fetch_cold_chunks_paged_in_total", "ketch_fetch_look_aheads_total")
    found = {}
    with urllib.request.urlopen(url, timeout=5) as r:
        for line in r.read().decode().splitlines():
            parts = line.split()
            if len(parts) == 2 and parts[0] in names:
                found[parts[0]] = float(parts[1])
    missing = [n for n in names if n not in found]
    assert not missing, "not on the metrics page: %s" % missing
    return tuple(found[n] for n in names)


def segments(broker, topic):
    found = sorted(p for p in broker.data_dir.rglob("*.log") if p.parent.name == topic + "-0")
    assert found, "no segment of %s-0 under %s" % (topic, broker.data_dir)
    return found


def resident_pages(fd, size):
    """Offsets, one every 256 KiB and the last byte, whose page is cached (RWF_NOWAIT reads);
    None when the kernel or file system cannot tell."""
    found = []
    for at in sorted(set(range(0, size, 256 * 1024)) | {max(size - 1, 0)}):
        try:
            os.preadv(fd, [bytearray(1)], at, os.RWF_NOWAIT)
            found.append(at)
        except BlockingIOError:
            pass
        except OSError:
            return None
    return found


def evict(paths):
    """Syncs and evicts each file's pages, checked across the file and not only at its first
    page (a page busy at that moment stays cached: asked again, up to 5 times); False when a
    page stays resident or residency cannot be told."""
    for p in paths:
        fd = os.open(p, os.O_RDONLY)
        try:
            os.fsync(fd)
            size = os.fstat(fd).st_size
            for _ in range(5):
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
                left = resident_pages(fd, size)
                if not left:
                    break
            if left is None or left:
                return False
        finally:
            os.close(fd)
    return True


def produce_evict_read_back(broker, topic, consumer_config):
    """Writes RECORDS records, evicts the topic's segment pages, reads every record back
    with a consumer of `consumer_config` and checks the broker paged chunks in."""
    p = Producer({"bootstrap.servers": broker.bootstrap, "linger.ms": 5, "compression.type": "none"})
    for i in range(RECORDS):
        p.produce(topic, value(i), key=b"k%d" % i)
        if i % 1000 == 0:
            p.poll(0)
    assert p.flush(30) == 0
    if not evict(segments(broker, topic)):
        pytest.skip("the segment pages cannot be evicted or probed here (POSIX_FADV_DONTNEED, RWF_NOWAIT)")
    paged_in, looked_ahead = cold_metrics(broker)
    c = Consumer({"group.id": topic + "-reader", "enable.auto.commit": False, "max.partition.fetch.bytes": 1 << 20,
                  "fetch.max.bytes": 4 << 20, **consumer_config})
    c.assign([TopicPartition(topic, 0, 0)])
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
    paged_in_after, looked_ahead_after = cold_metrics(broker)
    assert paged_in_after > paged_in, "no chunk was paged in off the network threads"
    assert looked_ahead_after > looked_ahead, "nothing was read ahead for a consumer reading in order"


@pytest.mark.ketch_args("--metrics-listen", "127.0.0.1:0")
def test_a_consumer_reading_evicted_segments_gets_every_record(broker):
    produce_evict_read_back(broker, "cold", {"bootstrap.servers": broker.bootstrap})


@pytest.mark.ketch_args("--metrics-listen", "127.0.0.1:0", "--listener", "SSL=SSL://127.0.0.1:0")
def test_a_tls_consumer_reading_evicted_segments_gets_every_record(broker):
    """On TLS the answer's file chunks are read and sent through the TLS stream in
    pieces (connection.cc send_chunk), cold ones paged in first, as on plain TCP."""
    listeners = json.loads((broker.data_dir / "listeners.json").read_text())["listeners"]
    produce_evict_read_back(broker, "cold-tls", {"bootstrap.servers": listeners["SSL"]["address"],
                                                 "security.protocol": "SSL",
                                                 "enable.ssl.certificate.verification": False})
