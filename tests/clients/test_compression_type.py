"""compression.type acts (issue 6): `producer` stores batches as sent; a codec
recompresses every batch sent in another codec, and the records read back are the same.

Behaviour reference, Apache Kafka 4.3.1: storage/src/main/java/org/apache/kafka/storage/
internals/log/LogValidator.java (validateMessagesAndAssignOffsetsCompressed, rebuilt when
the source codec differs from the target), clients/.../record/BrokerCompressionType.java.
The stored codec is read from the segment file (ketch's layout, docs/design/log_format.md).
"""

import base64
import struct

import pytest

CODEC_IDS = {"uncompressed": 0, "gzip": 1, "snappy": 2, "lz4": 3, "zstd": 4}


def e64(s):
    return base64.b64encode(s).decode()


def stored_codecs(broker, topic):
    """The codec id of every batch in the partition's first segment."""
    seg = broker.data_dir / "logs" / (topic + "-0") / ("%020d.log" % 0)
    data = seg.read_bytes()
    out, at = [], 0
    while at + 61 <= len(data):
        (length,) = struct.unpack_from(">i", data, at + 8)
        (attrs,) = struct.unpack_from(">h", data, at + 21)
        out.append(attrs & 7)
        at += 12 + length
    return out


@pytest.mark.parametrize("topic_codec,sent,stored", [
    ("producer", "lz4", "lz4"),
    ("gzip", "none", "gzip"),
    ("zstd", "snappy", "zstd"),
    ("uncompressed", "lz4", "uncompressed"),
])  # every codec pair: tests/unit/record/recompress_test.cc
def test_topic_codec_recompresses_batches_in_another_codec(broker, helper, unique_topic, topic_codec, sent, stored):
    if broker.external:
        pytest.skip("reads the segment files of the broker under test")
    topic = unique_topic()
    out = helper("create-topics", {"topics": [{"name": topic, "partitions": 1, "replication_factor": 1,
                                               "configs": {"compression.type": topic_codec}}]})
    assert out["results"][0]["error"] is None, out
    records = [{"key": e64(b"k%d" % i), "value": e64((b"value %d " % i) * 20), "partition": 0,
                "headers": [["h", e64(b"x")]], "timestamp": 1_700_000_000_000 + i} for i in range(50)]
    out = helper("produce", {"topic": topic, "acks": "all", "compression": sent, "records": records})
    assert [r["error"] for r in out["records"]] == [None] * 50, out
    got = helper("consume", {"topic": topic, "partitions": [0], "from": "beginning", "max_records": 50,
                             "timeout_ms": 20_000})["records"]
    assert [(r["offset"], r["key"], r["value"], r["headers"], r["timestamp"]) for r in got] == \
        [(i, r["key"], r["value"], r["headers"], r["timestamp"]) for i, r in enumerate(records)]
    codecs = stored_codecs(broker, topic)
    assert codecs and set(codecs) == {CODEC_IDS[stored]}, codecs
