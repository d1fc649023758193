"""Idempotent producers' rows in cluster mode (ketch_producer_batches: the last
5 batches per producer and partition) against retention (docs/cluster.md
"Retention, DeleteRecords and garbage collection"; cluster/retention.h
expire_producers).

Kafka keeps a producer's state when retention removes its batches:
ProducerStateManager.onLogStartOffsetIncremented (storage/src/main/java/org/
apache/kafka/storage/internals/log/ProducerStateManager.java) only drops
unreplicated transactions and moves lastMapOffset; a producer goes when it
expires (removeExpiredProducers: no append for producer.id.expiration.ms and
no open transaction). So a retry of a batch retention removed is still a
duplicate answered with its original offset, and the producer's next sequence
is in order. Once its state expired, the partition knows nothing of it and
ProducerAppendInfo.checkSequence accepts any sequence ("If there is no current
producer epoch (possibly because all producer records have been deleted due to
retention or the DeleteRecords API) accept writes with any sequence number").
Raw Produce v3 requests on the wire (tests/behavior/kafka_wire.py), so the
sequences are the test's."""

import socket
import sys
import time
from pathlib import Path

from conftest import clients
from test_retention import create, earliest, topic_id
from test_shared_produce import FLUSH

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "behavior"))

from kafka_wire import produce, record_batch  # noqa: E402

JANITOR = ["--retention-check-ms", "200"]
PRODUCER = 4_000_000_001  # an id no InitProducerId gave: idempotent produce does not check it (as Kafka)
HOUR_MS = 3600000


def send(b, topic, seq, value, producer_id=PRODUCER):
    """(error, base offset) of one idempotent one-record batch at sequence `seq`, two hours old."""
    host, _, port = b.bootstrap.rpartition(":")
    with socket.create_connection((host, int(port)), timeout=30) as s:
        batch = record_batch([(b"k", value)], producer_id=producer_id, producer_epoch=0, base_sequence=seq,
                             timestamp=int(time.time() * 1000) - 2 * HOUR_MS)
        return produce(s, topic, 0, batch, correlation_id=seq + 10)


def producer_rows(postgres, topic):
    return postgres.psql("SELECT first_seq || ':' || base_offset FROM ketch_producer_batches WHERE topic_id = '%s' "
                         "AND producer_id = %d ORDER BY base_offset" % (topic_id(postgres, topic), PRODUCER))


def test_retention_keeps_the_producers_last_sequences(start_broker, postgres):
    b = start_broker(1, *FLUSH, *JANITOR)
    create(b, "kept", retention_ms=HOUR_MS)
    assert [send(b, "kept", seq, b"v%d" % seq) for seq in range(3)] == [(0, 0), (0, 1), (0, 2)]
    clients.wait_for(lambda: earliest(b, "kept") == 3, timeout=30, what="retention removes the three batches")
    assert postgres.psql("SELECT count(*) FROM ketch_batches WHERE topic_id = '%s'" % topic_id(postgres, "kept")) \
        == ["0"]
    # The batches are gone, the producer's sequences are not.
    assert producer_rows(postgres, "kept") == ["0:0", "1:1", "2:2"]
    assert send(b, "kept", 2, b"v2") == (0, 2), "a retry of a removed batch is a duplicate at its offset"
    assert send(b, "kept", 5, b"gap")[0] == 45, "OUT_OF_ORDER_SEQUENCE_NUMBER: the producer is still known"
    assert send(b, "kept", 3, b"v3") == (0, 3), "the next sequence follows"


def test_idle_producers_expire_and_are_then_unknown(start_broker, postgres):
    b = start_broker(1, *FLUSH, *JANITOR, "--producer-id-expiration-ms", "1000")
    create(b, "expiring", retention_ms=HOUR_MS)
    assert [send(b, "expiring", seq, b"v%d" % seq) for seq in range(2)] == [(0, 0), (0, 1)]
    clients.wait_for(lambda: producer_rows(postgres, "expiring") == [], timeout=60,
                     what="the idle producer's rows expire")
    # Unknown again: any sequence starts it (ProducerAppendInfo.checkSequence), the old one
    # is no longer a duplicate.
    err, offset = send(b, "expiring", 1, b"again")
    assert err == 0 and offset == 2, (err, offset)
    assert producer_rows(postgres, "expiring") == ["1:2"]
