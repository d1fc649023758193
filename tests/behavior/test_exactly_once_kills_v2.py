"""Exactly-once consume-transform-produce through broker crashes with
transaction version 2 (KIP-890): the Java KafkaProducer/KafkaConsumer 4.3.1
(tests/clients/java, `txn-transform`) read `in` in a group (read_committed) and
write each poll to `out` with the group's offsets in one transaction. ketch
finalizes transaction.version 2, so the client adds no partitions itself
(Produce v12+ and TxnOffsetCommit v5 add them), and EndTxn v5 bumps the epoch
at every commit. Meanwhile the broker is SIGKILLed at random moments and
restarted on the same port; when the driver's run fails (e.g. a
CommitFailedException when the group lost the member in the kill) it is started
again with the same transactional.id (InitProducerId fences the old producer
and aborts its open transaction). Afterwards a read_committed consumer of `out`
sees every input record exactly once and the group's offsets are the ends of
`in` — the invariant of test_exactly_once_kills.py (librdkafka, version 1).

Behaviour reference, Apache Kafka 4.3.1: TransactionCoordinator.endTransaction
and handleInitProducerId (core/src/main/scala/kafka/coordinator/transaction/
TransactionCoordinator.scala), TransactionStateManager's load of prepared
transactions, AddPartitionsToTxnManager (ADD_PARTITION for Produce v12+).
"""

import random
import signal
import threading
import time

import pytest

import eos_checks
from conftest import _clients

PARTITIONS = 2
RECORDS = 400
KILLS = 10


class JavaTransformer(threading.Thread):
    """Runs the Java driver's txn-transform again whenever a run ends, until stopped."""

    def __init__(self, broker):
        super().__init__(daemon=True)
        self.driver = _clients.Driver("java", broker)
        self.stop = threading.Event()
        self.runs = []

    def run(self):
        while not self.stop.is_set():
            try:
                self.runs.append(self.driver.call("txn-transform", {
                    "input": "in", "output": "out", "group": "eos", "transactional_id": "eos-txn-v2",
                    "batch": 2, "max_records": RECORDS, "timeout_ms": 60000, "idle_ms": 4000,
                    "config": {"transaction.timeout.ms": 10000, "reconnect.backoff.max.ms": 200,
                               "request.timeout.ms": 5000, "delivery.timeout.ms": 20000,
                               "max.block.ms": 20000, "default.api.timeout.ms": 20000}}, timeout=120))
            except _clients.DriverError as e:
                self.runs.append({"error": str(e)[:200]})


def committed(bootstrap):
    return eos_checks.committed({"bootstrap.servers": bootstrap}, "eos", PARTITIONS)


@pytest.mark.ketch_args("--transaction-abort-check-ms", "1000")
@pytest.mark.timeout(400)
def test_java_transaction_version_2_is_exactly_once_across_kills(broker):
    why = _clients._missing("java")
    if why:
        pytest.skip(why)
    bootstrap = broker.bootstrap
    eos_checks.create_and_fill_input(bootstrap, PARTITIONS, RECORDS)

    t = JavaTransformer(broker)
    t.start()
    rng = random.Random(7)
    for _ in range(KILLS):
        time.sleep(rng.uniform(0.3, 1.2))
        broker.restart(sig=signal.SIGKILL)
    deadline = time.monotonic() + 180
    while committed(bootstrap) != {p: RECORDS // PARTITIONS for p in range(PARTITIONS)}:
        assert time.monotonic() < deadline, "transformer did not finish: %s, runs %s" % (committed(bootstrap), t.runs)
        time.sleep(0.5)
    t.stop.set()
    t.join(150)

    values = eos_checks.read_committed_out(bootstrap, PARTITIONS)
    assert sorted(values) == eos_checks.expected_values(RECORDS), (
        "duplicates: %d, missing: %d; runs %s" % (len(values) - len(set(values)), RECORDS - len(set(values)), t.runs))
    assert broker.starts >= KILLS + 1
