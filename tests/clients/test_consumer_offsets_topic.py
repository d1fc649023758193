"""__consumer_offsets as Kafka shows it (issue 23): an internal topic of 50 partitions
that a client can consume, holding each committed offset and each classic group's
metadata as records in Kafka's formats, exact across broker restarts; a client cannot
produce to it. Design: docs/design/internal_topics.md.

Behaviour reference, Apache Kafka 4.3.1:
- record formats: group-coordinator/src/main/resources/common/message/OffsetCommitKey.json,
  OffsetCommitValue.json, GroupMetadataKey.json, GroupMetadataValue.json; versions from
  group-coordinator/.../GroupCoordinatorRecordHelpers.java (newOffsetCommitRecord: v4, or v1
  with an expire timestamp; newGroupMetadataRecord: v3), as the 4.3.1 jar has them;
- partition: GroupCoordinatorService.partitionFor, abs(groupId.hashCode()) % 50;
- topic configs: GroupCoordinatorService.groupMetadataTopicConfigs;
- produce refused: core/.../ReplicaManager.scala appendToLocalLog, "Cannot append to
  internal topic" (INVALID_TOPIC_EXCEPTION).
"""

import signal
import sys
import time
from pathlib import Path

import pytest

from conftest import eventually

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "behavior"))
import kafka_wire  # noqa: E402

OFFSETS = "__consumer_offsets"


def java_hash(s):
    h = 0
    for unit in s.encode("utf-16-be").hex(" ", 2).split():
        h = (h * 31 + int(unit, 16)) & 0xFFFFFFFF
    return h - (1 << 32) if h >= 1 << 31 else h


def partition_for(group):
    h = java_hash(group)
    return 0 if h == -(1 << 31) else abs(h) % 50


class Reader(kafka_wire.Reader):
    """kafka_wire's reader, with the record fields of __consumer_offsets' values."""

    def blob(self):
        n = self.take(">i")
        b = self.data[self.pos:self.pos + n]
        self.pos += n
        return b

    def compact_string(self):
        n = self.uvarint()
        s = self.data[self.pos:self.pos + n - 1].decode()
        self.pos += n - 1
        return s

    def tagged_fields(self):
        out = {}
        for _ in range(self.uvarint()):
            tag, size = self.uvarint(), self.uvarint()
            out[tag] = self.data[self.pos:self.pos + size]
            self.pos += size
        return out

    def done(self):
        assert self.pos == len(self.data), "bytes left over"


def decode_key(key):
    r = Reader(key)
    version = r.take(">h")
    if version in (0, 1):
        out = ("offset", r.string(), r.string(), r.take(">i"))
    else:
        assert version == 2, version
        out = ("group", r.string())
    r.done()
    return out


def decode_offset_value(value):
    r = Reader(value)
    version = r.take(">h")
    assert version == 4, "Kafka 4.3.1 writes OffsetCommitValue v4 (v1 only with an expire timestamp)"
    out = {"offset": r.take(">q"), "leader_epoch": r.take(">i"), "metadata": r.compact_string(),
           "commit_ts": r.take(">q"), "tags": r.tagged_fields()}
    r.done()
    return out


def decode_group_value(value):
    r = Reader(value)
    assert r.take(">h") == 3, "Kafka 4.x writes GroupMetadataValue v3"
    out = {"protocol_type": r.string(), "generation": r.take(">i"), "protocol": r.string(),
           "leader": r.string(), "state_ts": r.take(">q"), "members": []}
    for _ in range(r.take(">i")):
        out["members"].append({"member_id": r.string(), "instance_id": r.string(), "client_id": r.string(),
                               "client_host": r.string(), "rebalance_timeout": r.take(">i"),
                               "session_timeout": r.take(">i"), "subscription": r.blob(), "assignment": r.blob()})
    r.done()
    return out


def read_offsets_partition(bootstrap, partition):
    """Every record of one partition of __consumer_offsets: [(offset, key, value)]."""
    from kafka import KafkaConsumer, TopicPartition
    tp = TopicPartition(OFFSETS, partition)
    c = KafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False, exclude_internal_topics=False)
    try:
        c.assign([tp])
        c.seek_to_beginning(tp)
        end = c.end_offsets([tp])[tp]
        out = []
        deadline = time.monotonic() + 30
        while c.position(tp) < end and time.monotonic() < deadline:
            for records in c.poll(timeout_ms=500).values():
                out.extend((m.offset, m.key, m.value) for m in records)
        assert c.position(tp) >= end, "could not read %s-%d up to %d" % (OFFSETS, partition, end)
        return out, end
    finally:
        c.close()


def latest(records):
    """Key -> its last value (None: deleted), as a compacted topic keeps it."""
    state = {}
    for _, key, value in records:
        state[decode_key(key)] = value
    return state


def commit_with_a_member(bootstrap, topic, group, offset):
    from kafka import KafkaConsumer, TopicPartition
    from kafka.structs import OffsetAndMetadata
    c = KafkaConsumer(topic, bootstrap_servers=bootstrap, group_id=group, client_id="offsets-topic-test",
                      enable_auto_commit=False, auto_offset_reset="earliest",
                      metadata_max_age_ms=500)  # kafka-python can lose its first subscription's metadata
    try:
        deadline = time.monotonic() + 60
        while not c.assignment() and time.monotonic() < deadline:
            c.poll(timeout_ms=200)
        assert c.assignment(), "the member got no assignment"
        c.commit({TopicPartition(topic, 0): OffsetAndMetadata(offset, "from-test", -1)})
    finally:
        c.close(autocommit=False)


def test_metadata_shows_an_internal_topic_of_50_partitions_with_kafkas_configs(broker):
    from kafka import KafkaAdminClient
    from kafka.admin import ConfigResource, ConfigResourceType
    admin = KafkaAdminClient(bootstrap_servers=broker.bootstrap)
    try:
        # FindCoordinator for a group creates it, as on Kafka.
        admin.describe_groups(["offsets-topic-probe"])

        def described():
            (t,) = admin.describe_topics([OFFSETS])
            assert t["error_code"] == 0, t
            return t
        t = eventually(described, timeout=30)
        assert t["is_internal"] is True
        assert len(t["partitions"]) == 50
        (dtp,) = admin.describe_topic_partitions([OFFSETS])["topics"]
        assert dtp["is_internal"] is True and len(dtp["partitions"]) == 50
        assert OFFSETS in admin.list_config_resources()["topic"]
        res = admin.describe_configs([ConfigResource(ConfigResourceType.TOPIC, OFFSETS)])
        configs = {k: v["value"] for k, v in res["topic"][OFFSETS].items()}
        assert configs == {"cleanup.policy": "compact", "compression.type": "producer",
                           "segment.bytes": str(100 * 1024 * 1024)}
    finally:
        admin.close()


def test_producing_to_it_is_refused(broker):
    from confluent_kafka import KafkaError, Producer
    from kafka import KafkaAdminClient
    admin = KafkaAdminClient(bootstrap_servers=broker.bootstrap)
    admin.describe_groups(["offsets-topic-probe"])
    admin.close()
    p = Producer({"bootstrap.servers": broker.bootstrap, "message.send.max.retries": 0})
    errors = []
    p.produce(OFFSETS, key=b"k", value=b"v", partition=0, on_delivery=lambda err, msg: errors.append(err))
    assert p.flush(30) == 0
    assert len(errors) == 1 and errors[0] is not None
    assert errors[0].code() == KafkaError.TOPIC_EXCEPTION, errors[0]


def test_committed_offsets_are_records_in_kafkas_formats_and_survive_restarts(broker, unique_topic):
    from kafka import KafkaAdminClient
    from kafka.admin import NewTopic
    topic = unique_topic()
    group = topic + "-g"
    admin = KafkaAdminClient(bootstrap_servers=broker.bootstrap)
    admin.create_topics([NewTopic(topic, 1, 1)])
    admin.close()
    commit_with_a_member(broker.bootstrap, topic, group, 5)
    p = partition_for(group)

    def check(expected_offset):
        records, end = read_offsets_partition(broker.bootstrap, p)
        state = latest(records)
        value = state.get(("offset", group, topic, 0))
        assert value is not None, "no OffsetCommit record for %s in %s-%d" % (group, OFFSETS, p)
        v = decode_offset_value(value)
        assert (v["offset"], v["metadata"]) == (expected_offset, "from-test")
        assert v["commit_ts"] > 0
        g = decode_group_value(state[("group", group)])
        assert g["protocol_type"] == "consumer"
        assert g["generation"] >= 1
        return end, g

    end, g = eventually(lambda: check(5), timeout=30)
    keys = [decode_key(k) for _, k, _ in read_offsets_partition(broker.bootstrap, p)[0]]
    assert keys.count(("offset", group, topic, 0)) == 1, "one commit, one record"
    # The member left when it closed: the last record is the Empty group.
    assert g["members"] == [] and g["protocol"] is None and g["leader"] is None
    members_seen = [decode_group_value(v) for _, k, v in read_offsets_partition(broker.bootstrap, p)[0]
                    if decode_key(k) == ("group", group) and v is not None]
    stable = [x for x in members_seen if x["members"]]
    assert stable, "no GroupMetadata record with the member"
    m = stable[-1]["members"][0]
    assert m["client_id"] == "offsets-topic-test" and m["assignment"] and m["subscription"]
    assert stable[-1]["leader"] == m["member_id"]
    assert stable[-1]["state_ts"] > 0 and g["state_ts"] >= stable[-1]["state_ts"]

    # A restart appends nothing (the log already matches the store) and loses nothing.
    broker.restart(signal.SIGTERM)
    end_after, _ = check(5)
    assert end_after == end
    broker.restart(signal.SIGKILL)
    end_after, _ = check(5)
    assert end_after == end

    # Commits after the restart land after what was there.
    commit_with_a_member(broker.bootstrap, topic, group, 9)
    end_later, _ = eventually(lambda: check(9), timeout=30)
    assert end_later > end

    # Deleting the group leaves tombstones for its offsets and its metadata.
    admin = KafkaAdminClient(bootstrap_servers=broker.bootstrap)
    admin.delete_groups([group])
    admin.close()

    def deleted():
        state = latest(read_offsets_partition(broker.bootstrap, p)[0])
        assert state[("offset", group, topic, 0)] is None
        assert state[("group", group)] is None
    eventually(deleted, timeout=30)
    broker.restart(signal.SIGKILL)
    deleted()
