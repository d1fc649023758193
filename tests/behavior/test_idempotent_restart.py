"""Idempotence survives a crash: a batch acknowledged before SIGKILL and resent after the
restart is answered as a duplicate with its original offset (and not written twice), and
the producer's sequence state is what it was (a gap is still OUT_OF_ORDER_SEQUENCE_NUMBER).

Raw wire (kafka_wire.py), so the test controls the exact batches a client would retry.
Behaviour reference, Apache Kafka 4.3.1: producer state is rebuilt at load from the last
snapshot plus the log tail (storage/internals/log/LogLoader.java, UnifiedLog
rebuildProducerState, ProducerStateManager); duplicates are found by
ProducerStateEntry.findDuplicateBatch and answered with the original offsets
(UnifiedLog.append).
"""

import signal
import socket

from confluent_kafka.admin import AdminClient, NewTopic

import kafka_wire as kw

PID = 4242
OUT_OF_ORDER_SEQUENCE_NUMBER = 45


def connect(broker):
    return socket.create_connection((broker.host, broker.port), timeout=30)


def create_topic(broker, name):
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    admin.create_topics([NewTopic(name, 1, 1)])[name].result(30)


def batch(seq, n, tag):
    return kw.record_batch([(b"k%d" % (seq + i), b"%s-%d" % (tag, seq + i)) for i in range(n)],
                           producer_id=PID, producer_epoch=0, base_sequence=seq)


def test_a_batch_resent_after_sigkill_is_a_duplicate_with_its_original_offset(broker):
    create_topic(broker, "idem")
    first, second = batch(0, 3, b"a"), batch(3, 2, b"b")
    with connect(broker) as s:
        assert kw.produce(s, "idem", 0, first, 1) == (0, 0)
        assert kw.produce(s, "idem", 0, second, 2) == (0, 3)
    broker.restart(signal.SIGKILL)
    with connect(broker) as s:
        # The retry of either acknowledged batch: no error, the original base offset.
        assert kw.produce(s, "idem", 0, second, 3) == (0, 3)
        assert kw.produce(s, "idem", 0, first, 4) == (0, 0)
        # The sequence continues where it was, and a gap is still refused.
        assert kw.produce(s, "idem", 0, batch(7, 1, b"c"), 5)[0] == OUT_OF_ORDER_SEQUENCE_NUMBER
        assert kw.produce(s, "idem", 0, batch(5, 1, b"c"), 6) == (0, 5)
    # Twice in a row: the state written by the first recovery is right too.
    broker.restart(signal.SIGKILL)
    with connect(broker) as s:
        assert kw.produce(s, "idem", 0, batch(5, 1, b"c"), 7) == (0, 5)
        assert kw.produce(s, "idem", 0, batch(6, 1, b"d"), 8) == (0, 6)
    # After a clean restart (snapshot at the log end) as well.
    broker.restart(signal.SIGTERM)
    with connect(broker) as s:
        assert kw.produce(s, "idem", 0, batch(6, 1, b"d"), 9) == (0, 6)
