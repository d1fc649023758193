"""Exactly-once consume-transform-produce through broker crashes (issue 5).

A confluent-kafka transformer reads `in` as a member of a group (read_committed, no
auto commit) and, per poll, writes each record to `out` and commits the group's
offsets in the same transaction (send_offsets_to_transaction). Meanwhile the test
SIGKILLs the broker at random moments (at least 20 times) and restarts it on the
same port. Whenever the transformer's client fails, it is rebuilt with the same
transactional.id — which fences the old producer and aborts its open transaction,
as a real application does. Afterwards:

- a read_committed consumer of `out` sees every input record exactly once (by
  content), and nothing else;
- the group's committed offsets are the ends of `in`.

What makes it hold on the broker: transaction state is durable before it is
acknowledged; a transaction found PrepareCommit/PrepareAbort after a restart is
completed (its markers written) and an Ongoing one is aborted by the next
InitProducerId; pending transactional offsets survive and become visible only
with the commit. Behaviour reference, Apache Kafka 4.3.1:
core/src/main/scala/kafka/coordinator/transaction/TransactionStateManager.scala
(loadTransactionsForTxnTopicPartition) and TransactionCoordinator.scala
(handleInitProducerId, endTransactionWithTV1).

Needs the log side of transactions (read_committed, served with DescribeProducers);
skipped before.
"""

import random
import signal
import threading
import time

import pytest
from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition

import eos_checks
from kafka_wire import api_versions

PARTITIONS = 2
RECORDS = 600
KILLS = 20
DESCRIBE_PRODUCERS = 61


def client_conf(bootstrap):
    # metadata.recovery.strategy=none: when every known broker is down at once (a
    # one-node cluster killed), librdkafka >= 2.10 re-bootstraps and decommissions
    # broker 1; a group coordinator cached as that decommissioned broker is never
    # looked up again and send_offsets_to_transaction() hangs past its timeout
    # (librdkafka issues #5511 and #5456, open; the same happens with a one-node
    # Kafka). Without re-bootstrap the client reconnects to broker 1 as before.
    return {"bootstrap.servers": bootstrap, "reconnect.backoff.ms": 20, "reconnect.backoff.max.ms": 200,
            "socket.connection.setup.timeout.ms": 3000, "metadata.recovery.strategy": "none"}


class Transformer(threading.Thread):
    """Runs the consume-transform-produce loop, rebuilding its clients after any failure."""

    def __init__(self, bootstrap, group, txn_id):
        super().__init__(daemon=True)
        self.bootstrap, self.group, self.txn_id = bootstrap, group, txn_id
        self.stop = threading.Event()
        self.commits = 0
        self.rebuilds = 0

    def run(self):
        while not self.stop.is_set():
            consumer = producer = None
            try:
                consumer = Consumer({**client_conf(self.bootstrap), "group.id": self.group,
                                     "enable.auto.commit": False, "auto.offset.reset": "earliest",
                                     "isolation.level": "read_committed", "session.timeout.ms": 6000,
                                     "heartbeat.interval.ms": 500})
                producer = Producer({**client_conf(self.bootstrap), "transactional.id": self.txn_id,
                                     "transaction.timeout.ms": 10000})
                producer.init_transactions(20)
                consumer.subscribe(["in"])
                while not self.stop.is_set():
                    msgs = [m for m in consumer.consume(num_messages=10, timeout=0.3) if m.error() is None]
                    if not msgs:
                        continue
                    producer.begin_transaction()
                    for m in msgs:
                        producer.produce("out", key=m.key(), value=m.value(), partition=m.partition())
                    ends = {}
                    for m in msgs:
                        ends[m.partition()] = m.offset() + 1
                    producer.send_offsets_to_transaction([TopicPartition("in", p, o) for p, o in ends.items()],
                                                         consumer.consumer_group_metadata(), 20)
                    time.sleep(0.05)  # "work": keeps transactions open across kills
                    producer.commit_transaction(20)
                    self.commits += 1
            except KafkaException:
                self.rebuilds += 1
            finally:
                for c in (consumer,):
                    if c is not None:
                        try:
                            c.close()
                        except Exception:
                            pass
                if producer is not None:
                    producer.flush(0)


def committed(bootstrap, group):
    return eos_checks.committed(client_conf(bootstrap), group, PARTITIONS)


@pytest.mark.ketch_args("--transaction-abort-check-ms", "1000")
@pytest.mark.timeout(300)
def test_consume_transform_produce_is_exactly_once_across_kills(broker):
    if DESCRIBE_PRODUCERS not in api_versions(broker.host, broker.port)[2]:
        pytest.skip("read_committed (the log side of transactions) is not served yet")
    bootstrap = broker.bootstrap
    eos_checks.create_and_fill_input(bootstrap, PARTITIONS, RECORDS)

    t = Transformer(bootstrap, "eos", "eos-txn")
    t.start()
    rng = random.Random(5)
    for _ in range(KILLS):
        time.sleep(rng.uniform(0.2, 0.9))
        broker.restart(sig=signal.SIGKILL)
    deadline = time.monotonic() + 120
    while committed(bootstrap, "eos") != {p: RECORDS // PARTITIONS for p in range(PARTITIONS)}:
        assert time.monotonic() < deadline, "transformer did not finish: %s" % committed(bootstrap, "eos")
        time.sleep(0.5)
    t.stop.set()
    t.join(60)

    values = eos_checks.read_committed_out(bootstrap, PARTITIONS)
    assert sorted(values) == eos_checks.expected_values(RECORDS), (
        "duplicates: %d, missing: %d" % (len(values) - len(set(values)), RECORDS - len(set(values))))
    assert t.commits > 0 and broker.starts >= KILLS + 1
