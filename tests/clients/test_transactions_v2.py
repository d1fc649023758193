"""Transactions version 2 (KIP-890) with the Java KafkaProducer 4.3.1: ketch
finalizes transaction.version 2 in ApiVersions, so the client runs the new
protocol. The broker's traffic inspector (/api/v1/traffic, docs/console.md)
shows the versions it used: Produce v12+ with no AddPartitionsToTxn (the broker
adds the partitions), EndTxn v5 whose answers bump the epoch at every end,
TxnOffsetCommit v5 with no AddOffsetsToTxn. read_committed consumers see the
committed transactions only.

Behaviour reference, Apache Kafka 4.3.1:
- server-common TransactionVersion (TV_2, the latest production level; levels 0-2);
- kafka-clients TransactionManager (isTransactionV2Enabled from the finalized
  feature: no AddPartitionsToTxn / AddOffsetsToTxn, EndTxn v5 and its producer
  id/epoch adopted);
- kafka-server AddPartitionsToTxnManager.produceRequestVersionToTransactionSupportedOperation
  (Produce v12+: ADD_PARTITION) and TransactionCoordinator.endTransaction
  (core/src/main/scala/kafka/coordinator/transaction/TransactionCoordinator.scala).
"""

import base64
import json

import pytest

from conftest import wait_for
from registry_util import Rest

PRODUCE, ADD_PARTITIONS, ADD_OFFSETS, END_TXN, TXN_OFFSET_COMMIT = 0, 24, 25, 26, 28


def b64(s):
    return base64.b64encode(s.encode()).decode()


def unb64(s):
    return base64.b64decode(s).decode()


@pytest.fixture
def java(drivers):
    if "java" not in drivers:
        pytest.skip("java driver not built or not selected")
    return drivers["java"]


@pytest.fixture
def traffic(broker):
    """The (first) broker's traffic inspector; the first look starts the recording. In cluster mode it
    lists every broker's exchanges, and its position is a cursor (docs/console.md)."""
    if broker.external:
        pytest.skip("needs ketch's console")
    url = json.loads((broker.data_dir / "listeners.json").read_text())["console"]
    api = Rest(url)
    status, first = api.get("/api/v1/traffic")
    assert status == 200 and first["recording"] is True
    api.position = "cursor=" + first["cursor"] if "cursor" in first else "after=%d" % first["last_seq"]
    return api


def exchanges(api, key, client_id):
    status, r = api.get("/api/v1/traffic?%s&api=%d&client_id=%s&limit=1000" % (api.position, key, client_id))
    assert status == 200
    return r["exchanges"]


def detail(api, exchange):
    """One exchange in full, from the broker that served it."""
    node = "?node=%d" % exchange["node_id"] if "node_id" in exchange else ""
    status, d = api.get("/api/v1/traffic/%d%s" % (exchange["seq"], node))
    assert status == 200
    return d


def records(tag, topic):
    return [{"topic": topic, "partition": p, "key": b64("%s-%d" % (tag, p)), "value": b64("%s-%d-%d" % (tag, p, i))}
            for p in (0, 1) for i in range(2)]


def read_values(helper, topic, isolation, expect):
    args = {"topic": topic, "from": "beginning", "timeout_ms": 8000, "isolation_level": isolation,
            "max_records": expect}
    return sorted(unb64(r["value"]) for r in helper("consume", args)["records"])


def test_java_producer_negotiates_transaction_version_2(java, helper, traffic, unique_topic):
    topic = unique_topic()
    out = helper("create-topics", {"topics": [{"name": topic, "partitions": 2, "replication_factor": 1}]})
    assert out["results"][0]["error"] is None
    cid = unique_topic("producer")
    txns = [{"commit": True, "records": records("c1", topic)},
            {"commit": False, "records": records("ab", topic)},
            {"commit": True, "records": records("c2", topic)}]
    res = java("txn-produce", {"transactional_id": unique_topic("txn"), "transactions": txns,
                               "config": {"client.id": cid}})
    assert res["transactions"] == [{"error": None}] * 3, res

    # ApiVersions told the client: transaction.version 2 finalized, EndTxn up to v5.
    versions = [detail(traffic, x) for x in exchanges(traffic, 18, cid)]
    assert versions
    feats = {f["name"]: f for f in versions[-1]["response"]["finalized_features"]}
    assert (feats["transaction.version"]["min_version_level"], feats["transaction.version"]["max_version_level"]) \
        == (2, 2)
    end_range = [k for k in versions[-1]["response"]["api_keys"] if k["api_key"] == END_TXN][0]
    assert end_range["max_version"] == 5

    # The version 2 protocol: no AddPartitionsToTxn, transactional Produce v12+,
    # EndTxn v5 whose answer bumps the epoch at every end, one id throughout.
    assert exchanges(traffic, ADD_PARTITIONS, cid) == []
    produces = wait_for(lambda: exchanges(traffic, PRODUCE, cid))
    # A produce of the next transaction that arrives while the previous one's
    # markers are written is answered CONCURRENT_TRANSACTIONS (the coordinator's
    # add in PrepareCommit/PrepareAbort) and retried by the client.
    assert produces and all(p["api_version"] >= 12 and set(p["errors"]) <= {"CONCURRENT_TRANSACTIONS"}
                            for p in produces), [(p["api_version"], p["errors"]) for p in produces]
    ends = exchanges(traffic, END_TXN, cid)
    assert [e["api_version"] for e in ends] == [5, 5, 5], ends
    answers = [detail(traffic, e) for e in ends]
    assert [a["request"]["committed"] for a in answers] == [True, False, True]
    assert all(a["response"]["error_code"] == 0 for a in answers)
    sent = [a["request"]["producer_epoch"] for a in answers]
    got = [a["response"]["producer_epoch"] for a in answers]
    assert got == [e + 1 for e in sent] and sent[1:] == got[:-1], (sent, got)
    assert len({a["request"]["producer_id"] for a in answers} | {a["response"]["producer_id"] for a in answers}) == 1

    # Markers went to both partitions each time; read_committed sees the commits only.
    assert read_values(helper, topic, "read_uncommitted", 12) == sorted(
        "%s-%d-%d" % (t, p, i) for t in ("c1", "ab", "c2") for p in (0, 1) for i in range(2))
    assert read_values(helper, topic, "read_committed", 8) == sorted(
        "%s-%d-%d" % (t, p, i) for t in ("c1", "c2") for p in (0, 1) for i in range(2))
    ends_at = helper("list-offsets", {"topic": topic, "partitions": [0, 1], "spec": "latest"})["offsets"]
    assert ends_at == {"0": 9, "1": 9}  # 3 x (2 records + 1 marker)


def test_java_consume_transform_produce_adds_the_group_implicitly(java, helper, traffic, unique_topic):
    src, dst = unique_topic("in"), unique_topic("out")
    out = helper("create-topics", {"topics": [{"name": t, "partitions": 1, "replication_factor": 1} for t in (src, dst)]})
    assert [r["error"] for r in out["results"]] == [None, None]
    out = helper("produce", {"topic": src, "records": [{"key": b64("k%d" % i), "value": b64("v%d" % i), "partition": 0}
                                                        for i in range(30)]})
    assert all(r["error"] is None for r in out["records"])
    cid, group = unique_topic("eos"), unique_topic("g")
    got = java("txn-transform", {"input": src, "output": dst, "group": group, "transactional_id": cid,
                                 "batch": 10, "max_records": 30, "timeout_ms": 20000, "idle_ms": 3000,
                                 "config": {"client.id": cid}})
    assert got["error"] is None and got["processed"] == 30, got
    # TxnOffsetCommit v5 adds the group's __consumer_offsets partition: no AddOffsetsToTxn.
    commits = exchanges(traffic, TXN_OFFSET_COMMIT, cid)
    assert commits and all(c["api_version"] == 5 and set(c["errors"]) <= {"CONCURRENT_TRANSACTIONS"}
                           for c in commits), [(c["api_version"], c["errors"]) for c in commits]
    assert exchanges(traffic, ADD_OFFSETS, cid) == []
    assert exchanges(traffic, ADD_PARTITIONS, cid) == []
    assert read_values(helper, dst, "read_committed", 30) == sorted("v%d" % i for i in range(30))
    # The group's committed offset is the end of the input (committed with the last transaction).
    offsets = helper("committed-offsets", {"group": group, "topic": src, "partitions": [0]})
    assert offsets["offsets"] == {"0": 30}, offsets


# ------------------------------------------------------------ version 1 clients: verification

def _wire():
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "behavior"))
    import kafka_wire
    return kafka_wire


def _call(sock, w, api_key, version, corr, body):
    import struct
    sock.sendall(w.frame(w.request_header(api_key, version, corr, False, "verify-test") + body))
    r = w.Reader(w.read_frame(sock))
    assert r.take(">i") == corr
    return r, struct


def transaction_coordinator(broker, w, txn_id):
    """The (host, port) of the broker coordinating txn_id: FindCoordinator v1, key type 1 (on one node, itself)."""
    import socket
    import struct
    with socket.create_connection((broker.host, broker.port), timeout=15) as s:
        r, _ = _call(s, w, 10, 1, 7, w.nullable_string(txn_id) + struct.pack(">b", 1))
        r.take(">i")  # throttle_time_ms
        assert r.take(">h") == 0
        r.string()  # error_message
        r.take(">i")  # node_id
        host = r.string()
        return host, r.take(">i")


def test_version_1_produce_to_a_partition_not_in_the_transaction_is_refused(broker, helper, unique_topic):
    """A Produce v3-10 transactional batch to a partition the coordinator does not
    have: INVALID_TXN_STATE, nothing appended (ReplicaManager.handleProduceAppend,
    AddPartitionsToTxnManager DEFAULT_ERROR: TRANSACTION_ABORTABLE -> INVALID_TXN_STATE);
    once AddPartitionsToTxn v0 added it, the same batch is appended."""
    import socket
    import struct
    w = _wire()
    topic, txn_id = unique_topic(), unique_topic("txn")
    out = helper("create-topics", {"topics": [{"name": topic, "partitions": 1, "replication_factor": 1}]})
    assert out["results"][0]["error"] is None
    with socket.create_connection(transaction_coordinator(broker, w, txn_id), timeout=15) as s:
        r, _ = _call(s, w, 22, 0, 1, w.nullable_string(txn_id) + struct.pack(">i", 60000))  # InitProducerId v0
        r.take(">i")
        assert r.take(">h") == 0
        pid, epoch = r.take(">q"), r.take(">h")
        batch = w.record_batch([(b"k", b"v")], pid, epoch, 0, attributes=0x10)
        s.sendall(w.produce_request(topic, 0, batch, 2, transactional_id=txn_id))
        assert w.parse_produce_response(w.read_frame(s)) == (48, -1)  # INVALID_TXN_STATE
        t = topic.encode()
        body = (w.nullable_string(txn_id) + struct.pack(">qhi", pid, epoch, 1) + struct.pack(">h", len(t)) + t
                + struct.pack(">ii", 1, 0))
        r, _ = _call(s, w, 24, 0, 3, body)  # AddPartitionsToTxn v0
        r.take(">i")
        assert r.take(">i") == 1
        n = r.take(">h")
        r.pos += n
        assert r.take(">i") == 1 and r.take(">i") == 0
        assert r.take(">h") == 0
        s.sendall(w.produce_request(topic, 0, batch, 4, transactional_id=txn_id))
        assert w.parse_produce_response(w.read_frame(s)) == (0, 0)
    ends = helper("list-offsets", {"topic": topic, "partitions": [0], "spec": "latest"})["offsets"]
    assert ends == {"0": 1}
