"""--log-cleaner-io-max-bytes-per-second in cluster mode (docs/cluster.md
"Compaction", docs/design/cluster.md "compaction"): Kafka's
log.cleaner.io.max.bytes.per.second bounds the cleaner's reads and writes
(storage/src/main/java/org/apache/kafka/storage/internals/log/LogCleaner.java:
one Throttler, `new Throttler(config.maxIoBytesPerSecond, 300, "cleaner-io",
...)`, which every cleaner thread charges with what it read and wrote); the shared log's compaction
charges every GET and PUT of a partition's compaction to one throttle
started with it (base/io_throttle.h: after each charge, the bytes since the
start are at most the rate times the time since).

A topic holds D bytes in the index (ketch_partitions.stored_bytes) before
compaction is turned on for it at t0; its one partition is all dirty, so the
compaction reads all D bytes to build its map and all D again to rewrite
them: at least 2 D bytes, at RATE bytes per second at least 2 D / RATE
seconds after t0 (about 6 s here).
The broker's log line for it names its IO (at least 2 D) and the time it
slept. Nothing here waits a fixed time: the test polls for the log line and
compares the clock."""

import re
import time

from confluent_kafka.admin import AdminClient, AlterConfigOpType, ConfigEntry, ConfigResource

from conftest import clients
from test_shared_compaction import COMPACT, JANITOR, create, last_per_key, produce, read_all, rounds
from test_shared_produce import FLUSH

RATE = 40_000  # bytes per second
VALUE = b"v" * 1000


def stored_bytes(postgres, topic):
    return int(postgres.psql("SELECT coalesce(sum(p.stored_bytes), 0) FROM ketch_partitions p JOIN ketch_topics t ON "
                             "t.topic_id = p.topic_id WHERE t.name = '%s'" % topic)[0])


def compaction_line(brokers, topic):
    """(IO bytes, throttled ms) of the broker's log line for the topic's compaction; None before it."""
    pattern = r"cluster: compacted %s-0: .* IO (\d+) bytes, throttled (\d+) ms" % re.escape(topic)
    for b in brokers:
        m = re.search(pattern, b.log_text())
        if m:
            return int(m.group(1)), int(m.group(2))
    return None


def test_compaction_reads_and_writes_within_the_cleaners_io_bound(start_broker, postgres):
    brokers = [start_broker(n, *FLUSH, *JANITOR, "--log-cleaner-io-max-bytes-per-second", str(RATE)) for n in (1, 2)]
    create(brokers, "slow", {**COMPACT, "cleanup.policy": "delete"})  # compacted from t0 on
    acked = {}
    for r in range(6):  # a round per produce: objects of about 20 KB, each one GET
        acked.update(produce(brokers[r % 2], "slow", [(k, VALUE) for k, _ in rounds(20, 1)]))
    assert sorted(acked) == list(range(120))
    clients.wait_for(lambda: stored_bytes(postgres, "slow") >= 120 * len(VALUE), what="the records committed")
    d = stored_bytes(postgres, "slow")

    t0 = time.monotonic()
    compact = ConfigEntry("cleanup.policy", "compact", incremental_operation=AlterConfigOpType.SET)
    admin = AdminClient({"bootstrap.servers": brokers[0].bootstrap})
    for f in admin.incremental_alter_configs([ConfigResource("topic", "slow", incremental_configs=[compact])]).values():
        f.result(timeout=30)
    io, throttled_ms = clients.wait_for(lambda: compaction_line(brokers, "slow"), timeout=120, interval=0.1,
                                        what="the compaction of slow-0 logged")
    elapsed = time.monotonic() - t0
    print("compaction of %d stored bytes: IO %d bytes, %.2f s after t0, slept %d ms" % (d, io, elapsed, throttled_ms))

    assert io >= 2 * d, (io, d)  # the map's reads and the rewrite's reads, at least
    assert elapsed >= 2 * d / RATE, "%.2f s for %d bytes of IO at %d bytes/s" % (elapsed, io, RATE)
    assert elapsed >= io / RATE, (elapsed, io)  # the bound on all of it, as the broker counted it
    assert throttled_ms > 0
    # And it compacted: the last record of each key, at its offset.
    assert read_all(brokers[1], "slow") == last_per_key(acked)
