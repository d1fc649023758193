"""Partitions never written (issue 24): reads of them answer as an empty log and
create nothing on disk; the first write creates the partition, and what it wrote
with acks=all survives a kill -9. At a small size; the times at 10,000 partitions
are measured by bench/first_reads.sh.

Behaviour reference, Apache Kafka 4.3.1: a partition's log is created when the
broker becomes its leader (ReplicaManager.applyLocalLeadersDelta ->
Partition.createLogIfNotExists), so ListOffsets and Fetch of a never-written
partition answer an empty log: earliest = latest = 0 (UnifiedLog.fetchOffsetByTimestamp),
a fetch at 0 gets no records and high watermark 0
(core/src/main/scala/kafka/server/ReplicaManager.scala, readFromLog). ketch answers the
same without a log on disk; it creates one at the first write.
"""

import base64
import signal

import pytest

from conftest import create_topics

PARTITIONS = 200


def partition_dirs(broker):
    """The partition directories of the broker's log directory."""
    logs = broker.data_dir / "logs"
    return sorted(p.name for p in logs.iterdir() if p.is_dir()) if logs.exists() else []


def test_reads_of_never_written_partitions_create_nothing_and_a_write_survives_kill(broker, helper, unique_topic):
    if broker.external:
        pytest.skip("needs the data directory of a ketch the tests started")
    topic = unique_topic()
    create_topics(helper, helper, {topic: PARTITIONS})
    before = partition_dirs(broker)
    parts = list(range(PARTITIONS))
    for spec in ("earliest", "latest"):
        got = helper("list-offsets", {"topic": topic, "partitions": parts, "spec": spec})["offsets"]
        assert got == {str(p): 0 for p in parts}, (spec, got)
    # A fetch of every partition from the beginning: nothing, and no error.
    out = helper("consume", {"topic": topic, "partitions": parts, "from": "beginning", "max_records": 1,
                             "timeout_ms": 1500})
    assert out["records"] == []
    assert partition_dirs(broker) == before, "reads created partition directories"

    value = base64.b64encode(b"kept through kill -9").decode()
    sent = helper("produce", {"topic": topic, "acks": "all",
                              "records": [{"key": None, "value": value, "headers": [], "partition": 7}]})
    assert [(r["partition"], r["offset"], r["error"]) for r in sent["records"]] == [(7, 0, None)]
    created = sorted(set(partition_dirs(broker)) - set(before))
    assert len(created) == 1, created

    broker.restart(signal.SIGKILL)
    assert sorted(set(partition_dirs(broker)) - set(before)) == created
    ends = helper("list-offsets", {"topic": topic, "partitions": parts, "spec": "latest"})["offsets"]
    assert ends == {str(p): 1 if p == 7 else 0 for p in parts}
    got = helper("consume", {"topic": topic, "partitions": [7], "from": "beginning", "max_records": 1,
                             "timeout_ms": 15000})["records"]
    assert [(r["partition"], r["offset"], r["value"]) for r in got] == [(7, 0, value)]
    assert sorted(set(partition_dirs(broker)) - set(before)) == created, "the reads after the restart created none"
