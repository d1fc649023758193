"""Index files read at first use (issue 24): a clean start reads only each index file's
envelope and last entry (docs/design/log.md, "Many partitions"), so damage inside a closed
segment's .index is found by the first search there, not by the start. Then: every record
still reads back by offset and by timestamp (the search falls back to the segment's start),
the damaged file is removed, and the next start rebuilds it from the .log.

Kafka also opens its indexes lazily (storage/src/main/java/org/apache/kafka/storage/internals/
log/LazyIndex.java) and checks them only with sanityCheck, on the active segment at load.
"""

from pathlib import Path

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

pytestmark = pytest.mark.timeout(300)

TOPIC = "lazy"
RECORDS = 4000
TS0 = 1_700_000_000_000


def value(i):
    return (b"%06d-" % i) * 170  # ~1 KiB: 4 MiB over 1 MiB segments


def produce_all(bootstrap):
    prod = Producer({"bootstrap.servers": bootstrap, "acks": "all", "linger.ms": 5, "batch.size": 16384})
    failed = []
    for i in range(RECORDS):
        prod.produce(TOPIC, value(i), partition=0, timestamp=TS0 + 2 * i,
                     on_delivery=lambda err, _m: failed.append(err) if err else None)
        if i % 500 == 0:
            prod.poll(0)
    assert prod.flush(60) == 0
    assert not failed, failed[:3]


def expect_all_back(bootstrap):
    cons = Consumer({"bootstrap.servers": bootstrap, "group.id": "lazy", "enable.auto.commit": False})
    cons.assign([TopicPartition(TOPIC, 0, 0)])
    got = []
    while len(got) < RECORDS:
        m = cons.poll(10.0)
        assert m is not None, "read back stopped at %d of %d" % (len(got), RECORDS)
        assert not m.error(), m.error()
        got.append((m.offset(), m.value()))
    assert got == [(i, value(i)) for i in range(RECORDS)]
    cons.close()
    # By timestamp: the first record at or after each (ListOffsets through the time index), from a
    # consumer with nothing assigned (a fetch waiting at the end would hold up each ListOffsets on
    # its connection, as on Kafka).
    lookup = Consumer({"bootstrap.servers": bootstrap, "group.id": "lazy-times"})
    for i in range(0, RECORDS, 97):
        at = lookup.offsets_for_times([TopicPartition(TOPIC, 0, TS0 + 2 * i - 1)], 10.0)
        assert at[0].offset == i, (i, at[0])
    lookup.close()


def closed_index_files(data_dir):
    files = sorted((Path(data_dir) / "logs" / ("%s-0" % TOPIC)).glob("*.index"))
    assert len(files) >= 3, files  # closed segments, then the active one
    return files[:-1]


def test_damaged_index_found_at_first_use_reads_right_and_is_rebuilt(broker):
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    for f in admin.create_topics([NewTopic(TOPIC, 1, 1, config={"segment.bytes": str(1024 * 1024)})]).values():
        f.result(30)
    produce_all(broker.bootstrap)
    expect_all_back(broker.bootstrap)
    assert broker.stop() == 0  # clean: the start after it opens the index files lazily

    target = closed_index_files(broker.data_dir)[1]
    image = bytearray(target.read_bytes())
    entries = (len(image) - 16 - 8) // 8
    assert entries >= 20, entries
    image[16 + 8 * (entries // 2) + 6] ^= 0x10  # an entry's position, header and trailer intact
    target.write_bytes(bytes(image))

    broker.start(port=broker.port)
    expect_all_back(broker.bootstrap)
    assert not target.exists(), "the damaged index file was not removed"
    assert "does not hold what it held at start-up" in broker.log_text()

    assert broker.stop() == 0
    broker.start(port=broker.port)  # rebuilds the missing index from the .log
    assert target.exists(), "the next start did not rebuild the index file"
    expect_all_back(broker.bootstrap)
