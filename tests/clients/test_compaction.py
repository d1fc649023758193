"""Compaction and retention as clients see them (issue 6).

- A compacted topic keeps the latest record per key at its original offset; a consumer
  from the beginning reads exactly that (offsets in between are gaps). Tombstones stay
  through one cleaning with a delete horizon and are gone once delete.retention.ms has
  passed (KIP-534).
- Retention deletes whole segments and moves the log start; a consumer asking for an
  offset below it gets OFFSET_OUT_OF_RANGE and resets per auto.offset.reset.

Behaviour reference, Apache Kafka 4.3.1: storage/src/main/java/org/apache/kafka/storage/
internals/log/Cleaner.java, LogCleanerManager.java, CleanedTransactionMetadata.java,
clients/src/main/java/org/apache/kafka/common/record/internal/MemoryRecords.java
(filterTo), UnifiedLog.java (deleteOldSegments, logStartOffset), and the consumers'
OFFSET_OUT_OF_RANGE handling (Fetcher / SubscriptionState.resetPolicy).

The bulk load uses the franz-go driver's produce-generated (DRIVERS.md); reads go
through franz-go and confluent-kafka.
"""

import base64
import time

import pytest

from conftest import Driver, DriverError, _missing, eventually

KEYS = 1000
COUNT = 100_000
VALUE_SIZE = 60
TOMBSTONE_MODULO = 10
TOMBSTONE_ROUNDS = [40, 99]   # keys k%10==0 deleted in round 40 (then set again) and in the last round
SEGMENT_MS = 10_000
DELETE_RETENTION_MS = 2_000


def d64(s):
    return None if s is None else base64.b64decode(s).decode()


def e64(s):
    return base64.b64encode(s.encode()).decode()


def expected_survivors():
    """key -> (offset, value or None) of its last record; record i is at offset i."""
    last = {}
    for i in range(COUNT - KEYS, COUNT):  # the last round holds every key's last record
        k = i % KEYS
        tomb = (i // KEYS) in TOMBSTONE_ROUNDS and k % TOMBSTONE_MODULO == 0
        value = None if tomb else ("v%d" % i).ljust(VALUE_SIZE, "x")
        last["k%d" % k] = (i, value)
    return last


def bulk_load(broker, helper, args):
    """produce-generated with franz-go (fastest), else with confluent-kafka (a franz-go
    driver built before the command existed fails on it)."""
    if _missing("franz-go") is None:
        try:
            return Driver("franz-go", broker)("produce-generated", args)
        except DriverError:
            pass
    return helper("produce-generated", args)


def read_everything(driver, topic, count):
    out = driver("consume", {"topic": topic, "partitions": [0], "from": "beginning",
                             "max_records": count, "timeout_ms": 20_000})
    return [(r["offset"], d64(r["key"]), d64(r["value"])) for r in out["records"]]


def roll(helper, topic, step, pad=0):
    """One record with key "end" stamped `step` segment.ms ahead: the active segment
    rolls (segment.ms is judged by record timestamps), so what came before is closed
    and cleanable. `pad` bytes of value make the next closed segment dirty enough
    for min.cleanable.dirty.ratio. Returns its offset."""
    ts = int(time.time() * 1000) + step * (SEGMENT_MS + 1000)
    out = helper("produce", {"topic": topic, "acks": "all",
                             "records": [{"key": e64("end"), "value": e64("roll-%d" % step + "x" * pad),
                                          "timestamp": ts, "partition": 0}]})
    assert out["records"][0]["error"] is None, out
    return out["records"][0]["offset"]


@pytest.mark.ketch_args("--log-cleaner-backoff-ms", "100")
def test_compacted_topic_keeps_the_latest_value_per_key_at_its_offset(broker, helper, unique_topic):
    readers = [helper] + ([Driver("franz-go", broker)] if _missing("franz-go") is None else [])
    topic = unique_topic()
    out = helper("create-topics", {"topics": [{"name": topic, "partitions": 1, "replication_factor": 1, "configs": {
        "cleanup.policy": "compact", "segment.bytes": str(1024 * 1024), "segment.ms": str(SEGMENT_MS),
        "min.cleanable.dirty.ratio": "0.01", "delete.retention.ms": str(DELETE_RETENTION_MS)}}]})
    assert out["results"][0]["error"] is None, out

    started = time.monotonic()
    loaded = bulk_load(broker, helper, {"topic": topic, "partition": 0, "count": COUNT, "key_count": KEYS,
                                        "value_size": VALUE_SIZE, "tombstone_rounds": TOMBSTONE_ROUNDS,
                                        "tombstone_modulo": TOMBSTONE_MODULO})
    assert loaded["errors"] == {} and loaded["dense"] and loaded["first_offset"] == 0, loaded
    print("produced %d records in %.1f s" % (COUNT, time.monotonic() - started))
    end_offset = roll(helper, topic, 1)
    assert end_offset == COUNT

    survivors = expected_survivors()
    with_tombstones = sorted((off, k, v) for k, (off, v) in survivors.items()) + [(end_offset, "end", "roll-1")]
    live = [r for r in with_tombstones if r[2] is not None]

    # First cleaning: the latest record per key, tombstones still there (horizon set).
    def cleaned_once():
        for reader in readers:
            got = read_everything(reader, topic, len(with_tombstones))
            assert got == with_tombstones, (reader.name, len(got), got[:3])
    eventually(cleaned_once, timeout=60)

    # Once delete.retention.ms has passed, a later cleaning (it needs new dirty data:
    # each attempt rolls once more) drops the tombstones; survivors keep their offsets.
    step = [1]

    def tombstones_gone():
        step[0] += 1
        roll(helper, topic, step[0], pad=4000)  # > 1% of the ~70 KB clean section
        got = read_everything(helper, topic, len(live))
        assert [r for r in got if r[1] != "end"] == [r for r in live if r[1] != "end"], (len(got), got[:3])
    eventually(tombstones_gone, timeout=60, interval=0.5)
    for reader in readers:
        got = [r for r in read_everything(reader, topic, len(live)) if r[1] != "end"]
        assert got == [r for r in live if r[1] != "end"], reader.name


def test_compacted_topic_refuses_a_record_without_key(helper, unique_topic):
    """LogValidator.validateRecord: INVALID_RECORD ("Compacted topic cannot accept
    message without key in topic partition ...")."""
    topic = unique_topic()
    out = helper("create-topics", {"topics": [{"name": topic, "partitions": 1, "replication_factor": 1,
                                               "configs": {"cleanup.policy": "compact"}}]})
    assert out["results"][0]["error"] is None, out
    out = helper("produce", {"topic": topic, "acks": "all", "records": [{"key": None, "value": e64("v"),
                                                                       "partition": 0}]})
    assert out["records"][0]["error"] == "INVALID_RECORD", out


@pytest.mark.ketch_args("--retention-check-ms", "100")
def test_consumer_below_the_log_start_resets_per_auto_offset_reset(client, broker, helper, unique_topic):
    if client.name not in ("java", "confluent", "kafkajs"):
        pytest.skip("representative subset: Java, librdkafka, and a client without auto.offset.reset")
    topic = unique_topic()
    out = helper("create-topics", {"topics": [{"name": topic, "partitions": 1, "replication_factor": 1, "configs": {
        "segment.bytes": str(1024 * 1024), "retention.bytes": str(1024 * 1024)}}]})
    assert out["results"][0]["error"] is None, out
    loaded = bulk_load(broker, helper, {"topic": topic, "partition": 0, "count": 3000, "key_count": 3000,
                                        "value_size": 1000})
    assert loaded["errors"] == {} and loaded["dense"], loaded

    # Retention deletes whole closed segments: the log start moves to a segment base. It runs
    # every 100 ms, also while the load is still writing, so it may take more than one pass: it is
    # done once deleting the oldest segment would leave less than retention.bytes (one segment's
    # worth here), i.e. fewer than two segments' records remain. The first segment deleted gives
    # a segment's count of records.
    def earliest():
        return helper("list-offsets", {"topic": topic, "partitions": [0], "spec": "earliest"})["offsets"]["0"]

    def start_moved():
        start = earliest()
        assert start > 0
        return start
    per_segment = eventually(start_moved, timeout=30)
    end = helper("list-offsets", {"topic": topic, "partitions": [0], "spec": "latest"})["offsets"]["0"]
    assert end == 3000

    def retention_done():
        start = earliest()
        assert end - start < 2 * per_segment, (start, per_segment)
        return start
    start = eventually(retention_done, timeout=30)
    assert 0 < start < end

    out = client("consume", {"topic": topic, "partitions": [0], "from": {"offset": 0}, "max_records": 1,
                             "timeout_ms": 10_000, "config": {"auto.offset.reset": "earliest"}})
    if client.name == "kafkajs":
        # kafkajs has no auto.offset.reset; the error reaches the application.
        assert out.get("error") == "OFFSET_OUT_OF_RANGE" or [r["offset"] for r in out["records"]] == [start], out
    else:
        assert [r["offset"] for r in out["records"]] == [start], out
