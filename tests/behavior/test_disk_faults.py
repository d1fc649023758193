"""A disk that fails under a running ketch (faultfs, an LD_PRELOAD shim on the
segment files' pwritev/fdatasync): every acknowledged record survives, the
broker keeps serving, and it says KAFKA_STORAGE_ERROR where the disk failed.

- Disk full (ENOSPC on a segment write): the produce is answered
  KAFKA_STORAGE_ERROR and nothing of it is stored; reads go on; once space
  returns the next produce takes the next offset (no hole, no duplicate).
- fsync failure (EIO from fdatasync): the acks=all produce whose sync failed is
  answered KAFKA_STORAGE_ERROR, and that partition refuses writes until the
  broker restarts (Linux may have dropped the dirty pages, so no later fsync can
  prove them durable — src/log/local_log.h); other partitions keep working.
  After the restart recovery reads what is really on disk and the partition
  takes writes again.

Kafka's ReplicaManager also answers KAFKA_STORAGE_ERROR, but marks the log
directory offline (LogDirFailureChannel) and a broker whose every log directory
failed shuts down; ketch keeps serving what did not fail (docs/compatibility.md).
"""

import os
import signal
import socket
from pathlib import Path

import pytest
from confluent_kafka import Consumer, KafkaError, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from kafka_wire import produce, record_batch

pytestmark = pytest.mark.timeout(120)

KAFKA_STORAGE_ERROR = 56
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def faulty_broker(request, tmp_path, monkeypatch):
    shim = Path(os.environ.get("KETCH_FAULTFS", REPO / "build" / "tests" / "libketch_faultfs.so"))
    if not shim.exists():
        pytest.fail("faultfs shim %s missing (build target ketch_faultfs)" % shim)
    ctl = tmp_path / "faultfs.ctl"
    monkeypatch.setenv("LD_PRELOAD", str(shim))
    monkeypatch.setenv("KETCH_FAULTFS_CTL", str(ctl))
    from conftest import _clients  # the behaviour conftest's BrokerProcess

    (tmp_path / "data").mkdir()
    b = _clients.BrokerProcess(_clients._ketch_binary(), tmp_path / "data", tmp_path, ["--flush-ms", "600000"])
    request.node.ketch_brokers = [b]
    b.fault = lambda mode: set_fault(ctl, mode)
    b.fault("ok")
    b.start()
    yield b
    b.kill()


def set_fault(ctl, mode):
    tmp = ctl.with_suffix(".tmp")
    tmp.write_text(mode + "\n")
    os.replace(tmp, ctl)  # the shim sees the whole word or the old file


def create_topic(bootstrap, topic, partitions):
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(topic, partitions, 1)], operation_timeout=30)[topic].result(30)


def records(bootstrap, topic, partition):
    """[(offset, value)] of the whole partition."""
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "disk-faults", "enable.auto.commit": False,
                  "enable.partition.eof": True})
    try:
        _, high = c.get_watermark_offsets(TopicPartition(topic, partition), timeout=30)
        c.assign([TopicPartition(topic, partition, 0)])
        out = []
        while len(out) < high:
            m = c.poll(30.0)  # returns as soon as a record (or EOF) is there
            assert m is not None, "partition %d: %d of %d records read" % (partition, len(out), high)
            if m.error():
                assert m.error().code() == KafkaError._PARTITION_EOF, m.error()
                continue
            out.append((m.offset(), m.value()))
        return out
    finally:
        c.close()


class Wire:
    """One connection producing single-record batches with acks=all."""

    def __init__(self, broker):
        self.sock = socket.create_connection((broker.host, broker.port), timeout=30)
        self.corr = 0

    def send(self, topic, partition, value):
        self.corr += 1
        return produce(self.sock, topic, partition, record_batch([(b"k", value)]), self.corr)

    def close(self):
        self.sock.close()


def test_disk_full_refuses_the_write_and_loses_nothing(faulty_broker):
    b = faulty_broker
    create_topic(b.bootstrap, "full", 1)
    w = Wire(b)
    for i in range(3):
        assert w.send("full", 0, b"v%d" % i) == (0, i)

    b.fault("enospc")
    for _ in range(2):
        err, base = w.send("full", 0, b"lost")
        assert (err, base) == (KAFKA_STORAGE_ERROR, -1)
    assert records(b.bootstrap, "full", 0) == [(i, b"v%d" % i) for i in range(3)]  # reads go on

    b.fault("ok")  # space returns
    assert w.send("full", 0, b"v3") == (0, 3)
    w.close()

    b.kill()
    b.start(port=b.port)
    assert records(b.bootstrap, "full", 0) == [(i, b"v%d" % i) for i in range(4)]
    w = Wire(b)
    assert w.send("full", 0, b"v4") == (0, 4)
    w.close()


def test_fsync_failure_fails_that_partition_until_restart(faulty_broker):
    b = faulty_broker
    create_topic(b.bootstrap, "sync", 2)
    w = Wire(b)
    for i in range(3):
        assert w.send("sync", 0, b"v%d" % i) == (0, i)
    assert w.send("sync", 1, b"other0") == (0, 0)

    b.fault("eio-sync")
    assert w.send("sync", 0, b"unsure")[0] == KAFKA_STORAGE_ERROR
    b.fault("ok")
    # The partition whose fsync failed stays refused (no later fsync proves the
    # lost pages durable); the other partition never failed and takes writes.
    assert w.send("sync", 0, b"refused")[0] == KAFKA_STORAGE_ERROR
    assert w.send("sync", 1, b"other1") == (0, 1)
    w.close()

    b.kill()
    b.start(port=b.port)
    got = records(b.bootstrap, "sync", 0)
    # Every acknowledged record is there; the unacknowledged one may or may not be
    # (its bytes may have reached the disk), never the refused one.
    assert got[:3] == [(i, b"v%d" % i) for i in range(3)]
    assert [v for _, v in got[3:]] in ([], [b"unsure"])
    assert records(b.bootstrap, "sync", 1) == [(0, b"other0"), (1, b"other1")]
    w = Wire(b)
    assert w.send("sync", 0, b"again") == (0, len(got))
    w.close()
