"""Records in and out through each real client (issue 3): what a producer sends
comes back byte for byte, with its key, headers, timestamp and offset.

Behaviour reference, Apache Kafka 4.3.1:
- offsets are assigned per partition from 0 in append order; a CreateTime topic keeps
  the producer's timestamps: storage/src/main/java/org/apache/kafka/storage/internals/log/LogValidator.java
- ListOffsets by timestamp is the earliest offset whose timestamp >= the target, none
  past the last; -1 / -2 / -3 are latest / earliest / max timestamp (KIP-734):
  storage/src/main/java/org/apache/kafka/storage/internals/log/UnifiedLog.java (fetchOffsetByTimestamp)
- producer timestamps more than log.message.timestamp.after.max.ms (1 h) in the
  future are refused, so the tests use timestamps from the recent past.
"""

import base64
import json
import random
import re
import shutil
import subprocess
import time

import pytest

from conftest import create_topics

CODECS = ["none", "gzip", "snappy", "lz4", "zstd"]


def b64(b):
    return None if b is None else base64.b64encode(b).decode()


def recent_ms():
    """A timestamp a minute ago: inside every retention and timestamp-skew limit."""
    return int(time.time() * 1000) - 60_000


def wire(records):
    """Test records (bytes) -> the driver's JSON form (base64)."""
    return [{"key": b64(r["key"]), "value": b64(r["value"]),
             "headers": [[k, b64(v)] for k, v in r.get("headers", [])],
             "timestamp": r.get("timestamp"), "partition": r.get("partition")} for r in records]


def sample_records(base_ts):
    """Keyed records over 3 partitions: binary and empty bytes, a null value (a tombstone),
    repeated header names, an empty header value, timestamps out of order."""
    return [
        {"key": b"k0", "value": b"v0", "headers": [("h1", b"a"), ("h2", b"")], "timestamp": base_ts, "partition": 0},
        {"key": b"\x00\xff\xfe binary", "value": bytes(range(256)), "headers": [("dup", b"1"), ("dup", b"2")],
         "timestamp": base_ts + 10, "partition": 1},
        {"key": b"tombstone", "value": None, "headers": [], "timestamp": base_ts + 20, "partition": 2},
        {"key": b"", "value": b"", "headers": [("unicode-\u00e9", "\u00fc\n".encode())],
         "timestamp": base_ts + 30, "partition": 0},
        {"key": b"k4", "value": bytes(random.Random(4).randrange(256) for _ in range(20000)), "headers": [],
         "timestamp": base_ts - 5000, "partition": 1},
        {"key": b"k5", "value": b"v5\n\r\t\"\\", "headers": [("h", b"\x00\x01")], "timestamp": base_ts + 50,
         "partition": 0},
    ]


def expected_offsets(records):
    """(partition, offset) of each record: per partition from 0, in send order."""
    next_off, out = {}, []
    for r in records:
        p = r["partition"]
        out.append((p, next_off.get(p, 0)))
        next_off[p] = next_off.get(p, 0) + 1
    return out


def as_consumed(records):
    """What consuming the records must give back, keyed by (partition, offset)."""
    return {po: {"partition": po[0], "offset": po[1], "key": b64(r["key"]), "value": b64(r["value"]),
                 "headers": [[k, b64(v)] for k, v in r.get("headers", [])],
                 "timestamp": r["timestamp"], "timestamp_type": "CreateTime"}
            for r, po in zip(records, expected_offsets(records))}


def consume_all(client, topic, count, **extra):
    out = client("consume", {"topic": topic, "from": "beginning", "max_records": count,
                             "timeout_ms": 30000, **extra})["records"]
    return {(m["partition"], m["offset"]): m for m in out}


def produce_checked(client, topic, records, **extra):
    """Produces through client; asserts each record landed where and when it was sent."""
    out = client("produce", {"topic": topic, "acks": "all", "compression": "none", "idempotent": False,
                             "records": wire(records), **extra})["records"]
    assert len(out) == len(records)
    for r, got, (p, off) in zip(records, out, expected_offsets(records)):
        assert got["error"] is None, got
        assert (got["partition"], got["offset"]) == (p, off), got
        assert got["timestamp"] in (r["timestamp"], -1), got
    return out


def test_records_round_trip_byte_for_byte(client, helper, unique_topic):
    topic = unique_topic()
    create_topics(client, helper, {topic: 3})
    records = sample_records(recent_ms())
    produce_checked(client, topic, records)
    assert consume_all(client, topic, len(records)) == as_consumed(records)


def test_null_header_value_round_trips(client, helper, unique_topic):
    topic = unique_topic()
    create_topics(client, helper, {topic: 1})
    records = [{"key": b"k", "value": b"v", "headers": [("null", None), ("empty", b""), ("x", b"y")],
                "timestamp": recent_ms(), "partition": 0}]
    produce_checked(client, topic, records)
    assert consume_all(client, topic, 1) == as_consumed(records)


def test_every_client_reads_what_another_wrote(client, helper, unique_topic):
    """The helper (confluent-kafka) writes; the client under test reads: this covers
    consumers that cannot produce such records themselves (kcat)."""
    topic = unique_topic()
    create_topics(helper, helper, {topic: 3})
    records = sample_records(recent_ms())
    records.append({"key": b"nullhdr", "value": b"v", "headers": [("n", None)], "timestamp": records[0]["timestamp"],
                    "partition": 2})
    produce_checked(helper, topic, records)
    expected = as_consumed(records)
    assert consume_all(client, topic, len(records)) == expected
    # a subset of partitions, from an offset
    got = client("consume", {"topic": topic, "partitions": [1], "from": {"offset": 1}, "max_records": 1,
                             "timeout_ms": 30000})["records"]
    assert [(m["partition"], m["offset"]) for m in got] == [(1, 1)]
    assert got[0] == expected[(1, 1)]


def test_consume_from_timestamp_starts_at_first_record_at_or_after_it(client, helper, unique_topic):
    topic = unique_topic()
    create_topics(helper, helper, {topic: 1})
    base = recent_ms()
    records = [{"key": b"k%d" % i, "value": b"v%d" % i, "timestamp": base + ts, "partition": 0}
               for i, ts in enumerate([100, 300, 200, 400])]
    produce_checked(helper, topic, records)
    got = client("consume", {"topic": topic, "partitions": [0], "from": {"timestamp": base + 150},
                             "max_records": 3, "timeout_ms": 30000})["records"]
    assert [m["offset"] for m in got] == [1, 2, 3]


def test_offsets_for_times_returns_exact_offsets(client, helper, unique_topic):
    """Every target is asked in one call: partition i holds the same four records and is
    asked for target i; the last partition is empty."""
    base = recent_ms()
    stamps = [100, 300, 200, 400]  # out of order on purpose
    # target -> (offset, timestamp of that record) or None
    cases = [(0, (0, 100)), (100, (0, 100)), (101, (1, 300)), (250, (1, 300)), (300, (1, 300)),
             (301, (3, 400)), (400, (3, 400)), (401, None)]
    empty = str(len(cases))
    topic = unique_topic()
    create_topics(helper, helper, {topic: len(cases) + 1})
    produce_checked(helper, topic, [{"key": b"k%d" % i, "value": b"v", "timestamp": base + ts, "partition": p}
                                    for p in range(len(cases)) for i, ts in enumerate(stamps)])
    asked = {str(p): base + target for p, (target, _) in enumerate(cases)}
    got = client("offsets-for-times", {"topic": topic, "timestamps": {**asked, empty: base}})["offsets"]
    assert got[empty] is None, got  # empty partition
    for p, (target, want) in enumerate(cases):
        answer = got[str(p)]
        if want is None:
            assert answer is None, (target, got)
        else:
            assert answer["offset"] == want[0], (target, got)
            if answer["timestamp"] is not None:  # kcat does not report it
                assert answer["timestamp"] == base + want[1], (target, got)


def test_list_offsets_earliest_latest_and_max_timestamp(client, helper, unique_topic):
    topic = unique_topic()
    create_topics(helper, helper, {topic: 2})
    base = recent_ms()
    records = [{"key": b"k%d" % i, "value": b"v", "timestamp": base + ts, "partition": 0}
               for i, ts in enumerate([10, 40, 20, 30, 5])]
    produce_checked(helper, topic, records)

    def offsets(spec):
        return client("list-offsets", {"topic": topic, "partitions": [0, 1], "spec": spec})["offsets"]
    assert offsets("earliest") == {"0": 0, "1": 0}
    assert offsets("latest") == {"0": len(records), "1": 0}
    assert offsets("max_timestamp") == {"0": 1, "1": -1}


@pytest.mark.parametrize("codec", CODECS)
def test_compressed_batches_round_trip(client, helper, unique_topic, codec):
    topic = unique_topic()
    create_topics(client, helper, {topic: 1})
    rnd = random.Random(codec)
    records = [{"key": b"key-%04d" % i,
                "value": b"%s-%04d-" % (codec.encode(), i) + bytes(rnd.randrange(97, 101) for _ in range(rnd.randrange(0, 120))),
                "partition": 0} for i in range(200)]
    out = client("produce", {"topic": topic, "acks": "all", "compression": codec, "idempotent": False,
                             "records": wire(records)})["records"]
    assert [r["error"] for r in out] == [None] * len(records)
    got = client("consume", {"topic": topic, "partitions": [0], "from": "beginning", "max_records": len(records),
                             "timeout_ms": 30000})["records"]
    assert [m["offset"] for m in got] == list(range(len(records)))
    assert [(m["key"], m["value"]) for m in got] == [(b64(r["key"]), b64(r["value"])) for r in records]


@pytest.mark.parametrize("codec", CODECS)
def test_kcat_100k_records_round_trip(broker, helper, unique_topic, codec):
    """kcat -P -z <codec> then kcat -C: 100,000 records, in order, nothing lost or changed."""
    kcat = shutil.which("kcat") or shutil.which("kafkacat")
    if kcat is None:
        pytest.skip("kcat is not installed")
    topic = unique_topic()
    create_topics(helper, helper, {topic: 1})
    n = 100_000
    rnd = random.Random(n)
    letters = bytes(rnd.randrange(97, 123) for _ in range(4096))  # payloads: random slices of it
    lines = []
    for i in range(n):
        start, size = rnd.randrange(0, 3896), rnd.randrange(0, 200)
        lines.append(b"k%05d\t%s-%05d-%s" % (i, codec.encode(), i, letters[start:start + size]))
    p = subprocess.run([kcat, "-P", "-b", broker.bootstrap, "-t", topic, "-p", "0", "-z", codec, "-K", "\t",
                        "-X", "acks=all", "-m", "30"], input=b"\n".join(lines) + b"\n", capture_output=True, timeout=300)
    assert p.returncode == 0, p.stderr
    p = subprocess.run([kcat, "-C", "-J", "-b", broker.bootstrap, "-t", topic, "-p", "0", "-o", "beginning",
                        "-c", str(n), "-e", "-q", "-m", "30"], capture_output=True, timeout=300)
    assert p.returncode == 0, p.stderr
    got = [json.loads(line) for line in p.stdout.decode().splitlines() if line.strip()]
    assert [m["offset"] for m in got] == list(range(n))
    assert [(m["key"].encode(), m["payload"].encode()) for m in got] == [tuple(line.split(b"\t", 1)) for line in lines]


def test_kcat_offset_specs_and_tailing(broker, helper, unique_topic):
    """`kcat -C -o -10`, `-o s@<ts>` and `-o end` as a person runs them. The tailing kcat
    long-polls with fetch.wait.max.ms=20000: it can only see the new record within seconds
    if the broker wakes its parked Fetch when the record is appended (a broker that
    answered at max wait would take 20 s). Its first Fetch request, seen in kcat's fetch
    debug log, tells the test the tail is parked before it produces."""
    kcat = shutil.which("kcat") or shutil.which("kafkacat")
    if kcat is None:
        pytest.skip("kcat is not installed")
    topic = unique_topic()
    create_topics(helper, helper, {topic: 1})
    base = recent_ms()
    records = [{"key": b"k%03d" % i, "value": b"v%03d" % i, "timestamp": base + i, "partition": 0} for i in range(100)]
    produce_checked(helper, topic, records)
    common = ["-b", broker.bootstrap, "-t", topic, "-p", "0", "-J", "-q", "-m", "30"]

    def consume(offset_spec):
        p = subprocess.run([kcat, "-C", *common, "-o", offset_spec, "-e"], capture_output=True, timeout=60)
        assert p.returncode == 0, p.stderr
        return [json.loads(line)["offset"] for line in p.stdout.decode().splitlines() if line.strip()]
    assert consume("-10") == list(range(90, 100))
    assert consume("s@%d" % (base + 42)) == list(range(42, 100))
    assert consume("beginning") == list(range(100))

    tail = subprocess.Popen([kcat, "-C", *common, "-o", "end", "-c", "1", "-d", "fetch",
                             "-X", "fetch.wait.max.ms=20000"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        for line in tail.stderr:  # wait for the tail's first Fetch at the end offset
            if re.search(rb"Fetch topic .* at offset 100\b", line):
                break
        else:
            pytest.fail("kcat never fetched at offset 100")
        produced = time.monotonic()
        out = helper("produce", {"topic": topic, "acks": "1", "compression": "none", "idempotent": False,
                                 "records": wire([{"key": b"new", "value": b"tail", "timestamp": base + 200,
                                                   "partition": 0}])})["records"]
        assert (out[0]["error"], out[0]["offset"]) == (None, 100), out
        line = tail.stdout.readline()
        seen = time.monotonic()
        assert json.loads(line)["offset"] == 100, line
        print("kcat tail saw the record %.1f ms after the produce call started" % ((seen - produced) * 1000))
        assert seen - produced < 10.0, "the parked fetch was not woken by the append"
        assert tail.wait(timeout=30) == 0
    finally:
        if tail.poll() is None:
            tail.kill()
        tail.wait()
