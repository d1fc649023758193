"""Transactions version 2 (KIP-890) in cluster mode (docs/design/cluster.md,
"transactions"): every broker finalizes transaction.version 2; a
transactional Produce reaching a broker that does not coordinate its
transactional id has its partitions verified — or, at version 2, added — by
the id's coordinator, which the broker asks with AddPartitionsToTxn v5 (the
batched broker version; verify_only for version 1 clients), as Kafka's
brokers do.

Behaviour reference, Apache Kafka 4.3.1:
- core/src/main/scala/kafka/server/ReplicaManager.scala
  (handleProduceAppend, appendRecordsWithTransactionVerification: the first
  transactional batch of a transaction on a partition is verified with the
  coordinator; a partition it does not have is answered INVALID_TXN_STATE to
  a Produce v3-10);
- server/src/main/java/org/apache/kafka/server/transaction/AddPartitionsToTxnManager.java
  (AddPartitionsToTxn v4+ to the coordinator's broker; Produce v12+: ADD_PARTITION,
  below: verify_only; TRANSACTION_ABORTABLE -> INVALID_TXN_STATE for DEFAULT_ERROR);
- core/src/main/scala/kafka/coordinator/transaction/TransactionCoordinator.scala
  (handleVerifyPartitionsInTransaction; endTransaction: EndTxn v5 bumps the epoch at every end);
- kafka-clients TransactionManager (isTransactionV2Enabled from the finalized
  feature: no AddPartitionsToTxn / AddOffsetsToTxn from the client).
"""

import base64
import json
import socket
import struct
import sys
import types
import urllib.request
from pathlib import Path

import pytest
from confluent_kafka.admin import AdminClient

from conftest import clients
from test_shared_produce import FLUSH, TIMING, create_topic, wait_for_topic

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "behavior"))
import kafka_wire  # noqa: E402

PRODUCE, ADD_PARTITIONS, END_TXN = 0, 24, 26
INVALID_TXN_STATE, NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE = 48, 16, 15
PARTITIONS = 6


def java_driver(bootstrap):
    if clients._missing("java"):
        pytest.skip("java driver not built")
    return clients.Driver("java", types.SimpleNamespace(bootstrap=bootstrap))


def all_live(brokers):
    """Every broker lists every broker: they agree on which one coordinates an id."""
    def every_one():
        return all(len(AdminClient({"bootstrap.servers": b.bootstrap}).list_topics(timeout=10).brokers)
                   == len(brokers) for b in brokers) or None
    clients.wait_for(every_one, what="every broker lists every broker")


def b64(s):
    return base64.b64encode(s.encode()).decode()


class Traffic:
    """One broker's traffic inspector (/api/v1/traffic, docs/console.md): the rows that broker served
    (its console lists every broker's, each naming its node_id); the first look starts the recording."""

    def __init__(self, broker, login=None):
        """`login`: (user, password) for a console that asks for one (a broker with SASL users)."""
        self.url = json.loads((broker.data_dir / "listeners.json").read_text())["console"].rstrip("/")
        self.headers = {}
        if login:
            self.headers["Authorization"] = "Basic " + base64.b64encode(("%s:%s" % login).encode()).decode()
        args = broker.extra_args
        self.node = int(args[args.index("--node-id") + 1])
        first = self.get("/api/v1/traffic")
        assert first["recording"] is True
        self.after = first["last_seq"]  # this broker's own position

    def get(self, path):
        with urllib.request.urlopen(urllib.request.Request(self.url + path, headers=self.headers), timeout=15) as r:
            assert r.status == 200
            return json.loads(r.read())

    def exchanges(self, key, client_id):
        rows = self.get("/api/v1/traffic?after=%d&api=%d&client_id=%s&limit=1000"
                        % (self.after, key, client_id))["exchanges"]
        return [x for x in rows if x["node_id"] == self.node]

    def detail(self, seq):
        return self.get("/api/v1/traffic/%d?node=%d" % (seq, self.node))


def test_java_producer_negotiates_transaction_version_2_with_three_brokers(start_broker, postgres):
    brokers = [start_broker(n, *FLUSH, *TIMING, console=True) for n in (1, 2, 3)]
    bootstrap = ",".join(b.bootstrap for b in brokers)
    create_topic(brokers[0], "v2-three", PARTITIONS)
    for b in brokers[1:]:
        wait_for_topic(b, "v2-three", PARTITIONS)
    all_live(brokers)
    traffic = [Traffic(b) for b in brokers]
    java = java_driver(bootstrap)
    cid, txn_id = "v2-three-producer", "v2-three-txn"

    def records(tag):
        return [{"topic": "v2-three", "partition": p, "key": b64("%s-%d" % (tag, p)),
                 "value": b64("%s-%d-%d" % (tag, p, i))} for p in range(PARTITIONS) for i in range(2)]

    txns = [{"commit": True, "records": records("c1")}, {"commit": False, "records": records("ab")},
            {"commit": True, "records": records("c2")}]
    res = java("txn-produce", {"transactional_id": txn_id, "transactions": txns, "config": {"client.id": cid}})
    assert res["transactions"] == [{"error": None}] * 3, res

    def seen(key, client_id=cid):
        return [(t, x) for t in traffic for x in t.exchanges(key, client_id)]

    # Every broker the client asked told it: transaction.version 2 finalized, EndTxn up to v5.
    versions = [t.detail(x["seq"]) for t, x in seen(18)]
    assert versions
    for v in versions:
        feats = {f["name"]: f for f in v["response"]["finalized_features"]}
        assert (feats["transaction.version"]["min_version_level"],
                feats["transaction.version"]["max_version_level"]) == (2, 2)
        assert [k for k in v["response"]["api_keys"] if k["api_key"] == END_TXN][0]["max_version"] == 5

    # The version 2 protocol: no AddPartitionsToTxn from the client, Produce
    # v12+ to the partitions' brokers (more than one: the coordinator is
    # asked by the others), EndTxn v5 bumping the epoch at every end.
    assert seen(ADD_PARTITIONS) == []
    produces = clients.wait_for(lambda: seen(PRODUCE))
    assert all(p["api_version"] >= 12 and set(p["errors"]) <= {"CONCURRENT_TRANSACTIONS"} for _, p in produces), \
        [(p["api_version"], p["errors"]) for _, p in produces]
    produced_on = {traffic.index(t) + 1 for t, _ in produces}
    ends = seen(END_TXN)
    assert [e["api_version"] for _, e in ends] == [5, 5, 5], ends
    coordinator = {traffic.index(t) + 1 for t, _ in ends}
    assert len(coordinator) == 1
    answers = [t.detail(e["seq"]) for t, e in ends]
    assert [a["request"]["committed"] for a in answers] == [True, False, True]
    assert all(a["response"]["error_code"] == 0 for a in answers)
    sent = [a["request"]["producer_epoch"] for a in answers]
    got = [a["response"]["producer_epoch"] for a in answers]
    assert got == [e + 1 for e in sent] and sent[1:] == got[:-1], (sent, got)

    # The other brokers added their partitions at the coordinator: AddPartitionsToTxn v5, not verify_only.
    others = produced_on - coordinator
    assert others, "the partitions' brokers include one that is not the coordinator"
    forwarded = [(t, x) for t, x in seen(ADD_PARTITIONS, "ketch-broker")]
    assert forwarded and all(traffic.index(t) + 1 in coordinator and x["api_version"] == 5 for t, x in forwarded)
    assert all(t.detail(x["seq"])["request"]["transactions"][0]["verify_only"] is False for t, x in forwarded)

    # The coordinator's state in PostgreSQL: a version 2 client, the epoch bumped three times.
    row = postgres.psql("SELECT client_txn_version, producer_epoch FROM ketch_txns "
                        "WHERE transactional_id = convert_to('%s', 'UTF8')" % txn_id)
    assert row == ["2|%d" % got[-1]]

    # Markers with the bumped epochs went to every partition: read_committed sees the commits only.
    helper = clients.Driver(clients.HELPER, brokers[0])

    def values(isolation, expect):
        args = {"topic": "v2-three", "from": "beginning", "timeout_ms": 8000, "isolation_level": isolation,
                "max_records": expect}
        return sorted(base64.b64decode(r["value"]).decode() for r in helper("consume", args)["records"])

    assert values("read_committed", 4 * PARTITIONS) == sorted(
        "%s-%d-%d" % (t, p, i) for t in ("c1", "c2") for p in range(PARTITIONS) for i in range(2))


def call(sock, api_key, version, corr, body):
    w = kafka_wire
    sock.sendall(w.frame(w.request_header(api_key, version, corr, False, "verify-test") + body))
    r = w.Reader(w.read_frame(sock))
    assert r.take(">i") == corr
    return r


def init_producer_id(broker, txn_id):
    """InitProducerId v0 on `broker`: (error, producer id, epoch)."""
    with socket.create_connection((broker.host, broker.port), timeout=15) as s:
        r = call(s, 22, 0, 1, kafka_wire.nullable_string(txn_id) + struct.pack(">i", 60000))
        r.take(">i")
        return r.take(">h"), r.take(">q"), r.take(">h")


def add_partition_v0(broker, txn_id, pid, epoch, topic, partition):
    t = topic.encode()
    body = (kafka_wire.nullable_string(txn_id) + struct.pack(">qhi", pid, epoch, 1) + struct.pack(">h", len(t)) + t
            + struct.pack(">ii", 1, partition))
    with socket.create_connection((broker.host, broker.port), timeout=15) as s:
        r = call(s, 24, 0, 3, body)
        r.take(">i")
        assert r.take(">i") == 1
        n = r.take(">h")
        r.pos += n
        assert r.take(">i") == 1 and r.take(">i") == partition
        return r.take(">h")


def produce_v3(broker, topic, partition, batch, txn_id):
    with socket.create_connection((broker.host, broker.port), timeout=15) as s:
        s.sendall(kafka_wire.produce_request(topic, partition, batch, 2, transactional_id=txn_id))
        return kafka_wire.parse_produce_response(kafka_wire.read_frame(s))


def test_produce_to_a_partition_not_added_is_refused_by_a_broker_that_is_not_the_coordinator(start_broker):
    """A Produce v3 transactional batch, sent to a broker that does not
    coordinate the id, for a partition the coordinator does not have:
    INVALID_TXN_STATE and nothing appended (ReplicaManager.handleProduceAppend,
    the coordinator asked with verify_only by AddPartitionsToTxnManager,
    DEFAULT_ERROR). Once AddPartitionsToTxn v0 added it at the coordinator,
    the same batch is appended by that broker."""
    brokers = {n: start_broker(n, *FLUSH, *TIMING) for n in (1, 2, 3)}
    create_topic(brokers[1], "v1-verify", 1)
    for b in brokers.values():
        wait_for_topic(b, "v1-verify", 1)
    all_live(list(brokers.values()))
    txn_id = "v1-verify-txn"

    def coordinated():
        for n, b in brokers.items():
            err, pid, epoch = init_producer_id(b, txn_id)
            if err == 0:
                return n, pid, epoch
            assert err in (NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE), err
        return None

    coordinator, pid, epoch = clients.wait_for(coordinated, what="the coordinator's InitProducerId")
    other = brokers[next(n for n in brokers if n != coordinator)]
    batch = kafka_wire.record_batch([(b"k", b"v")], pid, epoch, 0, attributes=0x10)
    assert produce_v3(other, "v1-verify", 0, batch, txn_id) == (INVALID_TXN_STATE, -1)
    assert add_partition_v0(brokers[coordinator], txn_id, pid, epoch, "v1-verify", 0) == 0
    assert produce_v3(other, "v1-verify", 0, batch, txn_id) == (0, 0)
