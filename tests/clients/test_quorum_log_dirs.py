"""The KRaft quorum and log-directory admin calls as the Java Admin 4.3.1 sees them
(issue 23): Admin.describeMetadataQuorum (DescribeQuorum, API 55) and
Admin.alterReplicaLogDirs (AlterReplicaLogDirs, API 34).

Behaviour reference, Apache Kafka 4.3.1:
- DescribeQuorum: raft/src/main/java/org/apache/kafka/raft/KafkaRaftClient.java
  (handleDescribeQuorumRequest), RaftUtil.singletonDescribeQuorumResponse (the leader's
  fetch and caught-up times are "now"); a one-node cluster is its own leader and only voter.
- AlterReplicaLogDirs: core/src/main/scala/kafka/server/ReplicaManager.scala
  (alterReplicaLogDirs: a path that is not a configured log dir is LOG_DIR_NOT_FOUND, an
  unknown partition UNKNOWN_TOPIC_OR_PARTITION, the replica's own dir needs no move: NONE).
"""

import os
import time

import pytest

from conftest import create_topics


@pytest.fixture
def java(drivers):
    if "java" not in drivers:
        pytest.skip("the Java driver is not built")
    return drivers["java"]


def node_id(driver):
    cluster = driver("describe-cluster")
    assert len(cluster["brokers"]) == 1, cluster
    return cluster["brokers"][0]["id"]


def test_describe_metadata_quorum_one_voter(java, broker):
    me = node_id(java)
    before_ms = int(time.time() * 1000)
    q = java("describe-quorum")
    after_ms = int(time.time() * 1000)
    assert q["error"] is None, q
    assert q["leader_id"] == me
    assert q["leader_epoch"] >= 1
    assert q["high_watermark"] >= 0
    assert q["observers"] == []
    assert [v["id"] for v in q["voters"]] == [me]
    leader = q["voters"][0]
    # The leader reports itself caught up with its own high watermark, as of now.
    assert leader["log_end_offset"] == q["high_watermark"]
    assert before_ms - 1000 <= leader["last_fetch_timestamp"] <= after_ms + 1000
    assert before_ms - 1000 <= leader["last_caught_up_timestamp"] <= after_ms + 1000
    # v2: the voter's endpoints; ketch's voter listens where clients connect.
    assert list(q["nodes"]) == [str(me)]
    endpoints = q["nodes"][str(me)]
    assert [(e["host"], e["port"]) for e in endpoints] == [(broker.host, broker.port)]


def test_alter_replica_log_dirs(java, helper, broker, unique_topic):
    if broker.data_dir is None:
        pytest.skip("the log directory of an external broker is unknown")
    log_dir = os.path.normpath(os.path.abspath(broker.data_dir / "logs"))
    me = node_id(java)
    t = unique_topic()
    create_topics(java, helper, {t: 2})
    out = java("alter-replica-log-dirs", {"broker": me, "moves": [
        {"topic": t, "partition": 0, "dir": log_dir},
        {"topic": t, "partition": 1, "dir": log_dir + "-elsewhere"},
        {"topic": t, "partition": 5, "dir": log_dir},
        {"topic": t + "-missing", "partition": 0, "dir": log_dir},
    ]})
    assert out["results"] == [
        {"topic": t, "partition": 0, "error": None},
        {"topic": t, "partition": 1, "error": "LOG_DIR_NOT_FOUND"},
        {"topic": t, "partition": 5, "error": "UNKNOWN_TOPIC_OR_PARTITION"},
        {"topic": t + "-missing", "partition": 0, "error": "UNKNOWN_TOPIC_OR_PARTITION"},
    ]
