"""Topic configs and partitions through each real client's admin API (issue 6).

Behaviour reference, Apache Kafka 4.3.1:
- keys, defaults, validation and messages: storage/src/main/java/org/apache/kafka/
  storage/internals/log/LogConfig.java, clients/.../common/config/ConfigDef.java
- SET / DELETE / APPEND / SUBTRACT: metadata/src/main/java/org/apache/kafka/controller/
  ConfigurationControlManager.java (incrementalAlterConfigResource)
- legacy AlterConfigs replaces the whole override set: same file, legacyAlterConfigs
- sources and synonyms: core/src/main/scala/kafka/server/ConfigHelper.scala
- CreatePartitions: metadata/.../controller/ReplicationControlManager.java (createPartitions)
"""

import base64

import pytest

from conftest import create_topics, eventually

# A valid value other than the default for every topic config Kafka reports,
# all set in one request.
NEW_VALUES = {
    "segment.bytes": "2097152", "segment.ms": "3600000", "segment.jitter.ms": "10",
    "segment.index.bytes": "1048576", "flush.messages": "1000", "flush.ms": "5000",
    "retention.bytes": "104857600", "retention.ms": "7200000", "max.message.bytes": "200000",
    "index.interval.bytes": "8192", "delete.retention.ms": "3600000", "min.compaction.lag.ms": "1000",
    "max.compaction.lag.ms": "86400000", "file.delete.delay.ms": "30000",
    "min.cleanable.dirty.ratio": "0.25", "cleanup.policy": "delete",
    "unclean.leader.election.enable": "true", "min.insync.replicas": "1", "compression.type": "zstd",
    "compression.gzip.level": "5", "compression.lz4.level": "10", "compression.zstd.level": "7",
    "preallocate": "true", "message.timestamp.type": "LogAppendTime",
    "message.timestamp.before.max.ms": "86400000", "message.timestamp.after.max.ms": "60000",
    "leader.replication.throttled.replicas": "*", "follower.replication.throttled.replicas": "0:1,1:1",
    "remote.storage.enable": "false", "local.retention.ms": "3600000", "local.retention.bytes": "1000",
    "remote.log.copy.disable": "false", "remote.log.delete.on.disable": "true",
}


def describe(client, topic, keys=None):
    out = client("describe-configs", {"resource": "topic", "name": topic, "keys": keys})
    assert out["error"] is None, out
    return out["configs"]


UNSUPPORTED = "unsupported"


def alter(client, topic, ops):
    """IncrementalAlterConfigs: the error name (None on success), or UNSUPPORTED
    when the client has no such call."""
    out = client.call("incremental-alter-configs", {"resource": "topic", "name": topic, "ops": ops})
    return UNSUPPORTED if out is None else out["error"]


def test_every_topic_config_round_trips(client, helper, unique_topic):
    topic = unique_topic()
    create_topics(client, helper, {topic: 1})
    defaults = describe(client, topic)
    assert set(NEW_VALUES) <= set(defaults), sorted(set(NEW_VALUES) - set(defaults))
    assert "internal.segment.bytes" not in defaults

    err = alter(client, topic, [{"key": k, "op": "SET", "value": v} for k, v in NEW_VALUES.items()])
    incremental = err != UNSUPPORTED
    if not incremental:  # kafkajs: legacy AlterConfigs only
        err = client("alter-configs", {"resource": "topic", "name": topic, "configs": NEW_VALUES})["error"]
    assert err is None
    def all_set():
        got = describe(client, topic)
        for k, v in NEW_VALUES.items():
            assert (got[k]["value"], got[k]["source"]) == (v, "DYNAMIC_TOPIC_CONFIG"), k
    eventually(all_set)

    if incremental:
        # list configs: APPEND adds absent elements, SUBTRACT removes present ones
        assert alter(client, topic, [
            {"key": "cleanup.policy", "op": "APPEND", "value": "compact"},
            {"key": "follower.replication.throttled.replicas", "op": "SUBTRACT", "value": "0:1"}]) is None
        def appended():
            got = describe(client, topic, ["cleanup.policy", "follower.replication.throttled.replicas"])
            assert got["cleanup.policy"]["value"] == "delete,compact"
            assert got["follower.replication.throttled.replicas"]["value"] == "1:1"
        eventually(appended)

    # unknown topics and keys, invalid values: refused, nothing changes
    missing = client("describe-configs", {"resource": "topic", "name": unique_topic("missing")})
    assert missing["error"] == "UNKNOWN_TOPIC_OR_PARTITION"
    if incremental:
        assert alter(client, topic, [{"key": "no.such.config", "op": "SET", "value": "1"}]) == "INVALID_CONFIG"
    bad = [{"key": "retention.ms", "op": "SET", "value": "abc"}, {"key": "segment.ms", "op": "SET", "value": "1"}]
    if not incremental:
        err = client("alter-configs", {"resource": "topic", "name": topic,
                                       "configs": {"retention.ms": "abc", "segment.ms": "1"}})["error"]
    else:
        err = alter(client, topic, bad)
    assert err == "INVALID_CONFIG"
    got = describe(client, topic, ["retention.ms", "segment.ms"])
    assert got["retention.ms"]["value"] == NEW_VALUES["retention.ms"]
    assert got["segment.ms"]["value"] == NEW_VALUES["segment.ms"]

    # back to the defaults
    if not incremental:
        assert client("alter-configs", {"resource": "topic", "name": topic, "configs": {}})["error"] is None
    else:
        assert alter(client, topic, [{"key": k, "op": "DELETE"} for k in NEW_VALUES]) is None
    def back_to_defaults():
        got = describe(client, topic)
        for k in NEW_VALUES:
            assert got[k]["value"] == defaults[k]["value"], k
            assert got[k]["source"] == defaults[k]["source"] != "DYNAMIC_TOPIC_CONFIG", k
    eventually(back_to_defaults)


# A representative pair (CI time): librdkafka and kafka-python.
@pytest.mark.parametrize("client", ["confluent", "kafka-python"], indirect=True)
def test_created_partitions_are_used_by_producers_and_consumers(client, helper, unique_topic):
    topic = unique_topic()
    create_topics(client, helper, {topic: 1})
    assert client("create-partitions", {"topic": topic, "count": 3})["error"] is None
    assert client("create-partitions", {"topic": topic, "count": 3})["error"] == "INVALID_PARTITIONS"
    assert client("create-partitions", {"topic": topic, "count": 2, "validate_only": True})["error"] == \
        "INVALID_PARTITIONS"

    def grown():
        assert helper("list-topics")["topics"].get(topic) == 3
    eventually(grown)
    value = base64.b64encode(b"on the new partition").decode()
    out = client("produce", {"topic": topic, "acks": "all", "records": [{"key": None, "value": value, "partition": 2}]})
    assert [(r["partition"], r["offset"], r["error"]) for r in out["records"]] == [(2, 0, None)]
    got = client("consume", {"topic": topic, "partitions": [2], "from": "beginning", "max_records": 1,
                             "timeout_ms": 15000})
    assert [(r["partition"], r["offset"], r["value"]) for r in got["records"]] == [(2, 0, value)]


@pytest.mark.parametrize("client", ["confluent"], indirect=True)
def test_altered_configs_act_on_the_live_topic(client, unique_topic):
    """max.message.bytes and message.timestamp.type reach Produce at once
    (LogValidator / UnifiedLog.append read the partition's current LogConfig)."""
    topic = unique_topic()
    create_topics(client, client, {topic: 1})
    big = base64.b64encode(b"x" * 5000).decode()
    produce = {"topic": topic, "acks": "all", "compression": "none", "records": [{"key": None, "value": big}]}
    assert client("produce", produce)["records"][0]["error"] is None
    assert alter(client, topic, [{"key": "max.message.bytes", "op": "SET", "value": "1000"},
                                 {"key": "message.timestamp.type", "op": "SET", "value": "LogAppendTime"}]) is None

    def refused():  # Kafka's brokers apply the change a moment after the controller answers
        assert client("produce", produce)["records"][0]["error"] == "MESSAGE_TOO_LARGE"
    eventually(refused)
    small = dict(produce, records=[{"key": None, "value": base64.b64encode(b"y").decode(), "timestamp": 1000}])
    assert client("produce", small)["records"][0]["error"] is None
    got = client("consume", {"topic": topic, "partitions": [0], "from": "beginning", "max_records": 2,
                             "timeout_ms": 15000})
    assert [r["timestamp_type"] for r in got["records"]] == ["CreateTime", "LogAppendTime"]
    assert got["records"][1]["timestamp"] > 1000


@pytest.mark.parametrize("client", ["confluent"], indirect=True)
def test_dynamic_broker_default_acts_on_topics_without_override(client, broker, unique_topic):
    """message.max.bytes set for the broker is the max.message.bytes of every topic
    without its own (DynamicBrokerConfig, ServerTopicConfigSynonyms); read-only broker
    keys are refused (ConfigAdminManager / ControllerConfigurationValidator)."""
    node = str(client("describe-cluster")["brokers"][0]["id"])
    topic = unique_topic()
    create_topics(client, client, {topic: 1})
    broker_res = {"resource": "broker", "name": node}
    assert client("incremental-alter-configs", dict(broker_res, ops=[
        {"key": "log.dirs", "op": "SET", "value": "/elsewhere"}]))["error"] == "INVALID_REQUEST"
    big = base64.b64encode(b"x" * 5000).decode()
    produce = {"topic": topic, "acks": "all", "compression": "none", "records": [{"key": None, "value": big}]}
    assert client("incremental-alter-configs", dict(broker_res, ops=[
        {"key": "message.max.bytes", "op": "SET", "value": "2000"}]))["error"] is None
    try:
        def described():
            c = describe(client, topic, ["max.message.bytes"])["max.message.bytes"]
            assert (c["value"], c["source"]) == ("2000", "DYNAMIC_BROKER_CONFIG")
        eventually(described)
        assert client("produce", produce)["records"][0]["error"] == "MESSAGE_TOO_LARGE"
    finally:
        assert client("incremental-alter-configs", dict(broker_res, ops=[
            {"key": "message.max.bytes", "op": "DELETE"}]))["error"] is None

    def restored():
        assert client("produce", produce)["records"][0]["error"] is None
    eventually(restored)


@pytest.mark.parametrize("client", ["confluent", "java"], indirect=True)
def test_group_config_overrides_are_validated_described_and_kept_across_a_restart(client, broker):
    """A GROUP config resource (KIP-848): a group's consumer.* override is shown with
    source GROUP_CONFIG over the broker's value, a value outside the broker's
    group.consumer.min/max bounds or an unknown key is INVALID_CONFIG
    (group-coordinator GroupConfig.validate, ControllerConfigurationValidator), and the
    overrides survive a restart. conformance/scenarios/groupconfigs.json pins the wire
    answers; tests/unit/group/group_overrides_test.cc their effect on the group."""
    group = {"resource": "group", "name": "cfg-group"}
    keys = ["consumer.heartbeat.interval.ms", "consumer.session.timeout.ms"]

    def set_ops(ops):
        return client("incremental-alter-configs", dict(group, ops=ops))["error"]

    assert set_ops([{"key": "consumer.heartbeat.interval.ms", "op": "SET", "value": "6000"}]) is None
    assert set_ops([{"key": "consumer.heartbeat.interval.ms", "op": "SET", "value": "1000"}]) == "INVALID_CONFIG"
    assert set_ops([{"key": "no.such.key", "op": "SET", "value": "1"}]) == "INVALID_CONFIG"

    def described():
        got = client("describe-configs", dict(group, keys=keys))
        assert got["error"] is None, got
        c = got["configs"]
        assert (c["consumer.heartbeat.interval.ms"]["value"], c["consumer.heartbeat.interval.ms"]["source"]) == \
            ("6000", "GROUP_CONFIG")
        assert (c["consumer.session.timeout.ms"]["value"], c["consumer.session.timeout.ms"]["source"]) == \
            ("45000", "DEFAULT_CONFIG")
    eventually(described)
    broker.restart()
    described()
    assert set_ops([{"key": "consumer.heartbeat.interval.ms", "op": "DELETE", "value": None}]) is None
