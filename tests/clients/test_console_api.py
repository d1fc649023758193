"""The developer console's JSON API (docs/console.md), endpoint by endpoint,
with good and hostile input. Records are produced and consumed with a real
client (confluent-kafka, the helper driver) and then seen through the API;
a group's lag must equal what the group has not consumed. One ketch serves
the whole file; the console is on a free port (--listen port 0)."""

import base64
import json
import socket
import time
import urllib.parse
import uuid

import pytest

from conftest import BrokerProcess, Driver, HELPER, _ketch_binary, _missing, eventually, wait_for
import cluster_matrix
from registry_util import Rest, registry_cluster, stop_broker


def start_console_broker(tmp_dir, *extra):
    data = tmp_dir / "data"
    data.mkdir(parents=True, exist_ok=True)
    b = BrokerProcess(_ketch_binary(), data, tmp_dir, ["--schema-registry=false", *extra])
    b.start()
    listeners = json.loads((b.data_dir / "listeners.json").read_text())
    assert "console" in listeners, listeners
    b.console_url = listeners["console"]
    return b


MATRIX_BROKER = True  # KETCH_TEST_CLUSTER: the fixture's broker is the matrix's cluster, the console its first broker's


@pytest.fixture(scope="module")
def broker(request, tmp_path_factory):
    b = registry_cluster(request) or start_console_broker(tmp_path_factory.mktemp("console-api"))
    yield b
    stop_broker(b)


@pytest.fixture(scope="module")
def api(broker):
    return Rest(broker.console_url)


@pytest.fixture(scope="module")
def helper(broker):
    why = _missing(HELPER)
    if why:
        pytest.skip(why)
    return Driver(HELPER, broker)


def name(tag="t"):
    return "console-%s-%s" % (tag, uuid.uuid4().hex[:8])


def b64(s):
    return base64.b64encode(s.encode()).decode()


def q(s):
    return urllib.parse.quote(s, safe="")


def make_topic(api, partitions=1, configs=None):
    t = name()
    body = {"name": t, "partitions": partitions}
    if configs:
        body["configs"] = configs
    status, got = api.post("/api/v1/topics", body)
    assert status == 201, got
    return t


def assert_error(answer, status):
    got_status, body = answer
    assert got_status == status, answer
    assert isinstance(body, dict) and body["error_code"] == status and body["message"], answer


# ------------------------------------------------------------------ basics

def test_healthz_and_cluster(api, broker):
    assert api.get("/healthz") == (200, {"status": "ok"})
    status, c = api.get("/api/v1/cluster")
    assert status == 200
    assert c["node_id"] == 1 and c["version"] and c["kafka_version"] == "4.3.1"
    assert c["cluster_id"]
    # DescribeCluster's brokers: this one, or in cluster mode every live one.
    nodes = list(range(1, len(getattr(broker, "brokers", [broker])) + 1))
    assert sorted(b["node_id"] for b in c["brokers"]) == nodes, c["brokers"]
    assert "%s:%d" % (broker.host, broker.port) in [b["address"] for b in c["brokers"]]
    addrs = [l["address"] for l in c["listeners"]]
    assert "%s:%d" % (broker.host, broker.port) in addrs
    assert c["data_dir"].endswith("data") and c["data_dir_bytes"] > 0
    assert c["uptime_ms"] >= 0 and c["connections"]["active"] >= 0
    # Requests already served are counted (the console's own ApiVersions and DescribeCluster at least).
    apis = {r["api"]: r for r in c["requests"]}
    assert apis["ApiVersions"]["count"] >= 1
    assert sum(b["count"] for b in apis["ApiVersions"]["buckets"]) >= apis["ApiVersions"]["count"] - 1


def api_versions_v3(software, version):
    """An ApiVersions v3 request frame (KIP-511: the client software's name and version)."""
    import struct

    def compact(s):
        b = s.encode()
        return bytes([len(b) + 1]) + b
    body = struct.pack(">hhi", 18, 3, 7) + struct.pack(">h", 4) + b"test" + b"\x00"
    body += compact(software) + compact(version) + b"\x00"
    return struct.pack(">i", len(body)) + body


def test_overview_counts_open_connections_by_client_software(api, broker):
    sw = "console-test-" + uuid.uuid4().hex[:6]
    with socket.create_connection((broker.host, broker.port), timeout=10) as s:
        s.sendall(api_versions_v3(sw, "1.2.3"))
        size = int.from_bytes(s.recv(4), "big")
        while size > 0:
            size -= len(s.recv(size))
        clients = api.get("/api/v1/cluster")[1]["clients"]
        assert {"software": sw + " 1.2.3", "connections": 1} in clients
    # Closed: it is gone.
    assert eventually(lambda: all(c["software"] != sw + " 1.2.3" for c in api.get("/api/v1/cluster")[1]["clients"]))


def test_unknown_path_and_method_are_json_errors(api):
    assert_error(api.get("/api/v1/nothing-here"), 404)
    assert_error(api.call("PUT", "/api/v1/cluster", {}), 405)


def test_pages_are_served_from_the_binary(api):
    import urllib.request
    with urllib.request.urlopen(api.url + "/", timeout=10) as r:
        html = r.read().decode()
        assert r.headers["Content-Type"].startswith("text/html")
    assert "<nav" in html and "/assets/console.js" in html
    with urllib.request.urlopen(api.url + "/assets/console.js", timeout=10) as r:
        assert r.headers["Content-Type"].startswith("text/javascript")
        assert len(r.read()) > 100
    assert_error(api.get("/assets/no-such-file.js"), 404)


# ------------------------------------------------------------------ topics

def test_topic_create_list_describe_delete(api):
    t = make_topic(api, partitions=3, configs={"retention.ms": "3600000", "cleanup.policy": "delete"})
    status, listing = api.get("/api/v1/topics")
    assert status == 200
    row = [x for x in listing["topics"] if x["name"] == t]
    assert row and row[0]["partitions"] == 3 and row[0]["messages"] == 0
    assert row[0]["retention_ms"] == "3600000" and row[0]["cleanup_policy"] == "delete"
    status, d = api.get("/api/v1/topics/" + t)
    assert status == 200 and [p["partition"] for p in d["partitions"]] == [0, 1, 2]
    assert all(p["log_start_offset"] == 0 and p["high_watermark"] == 0 for p in d["partitions"])
    assert_error(api.post("/api/v1/topics", {"name": t, "partitions": 1}), 409)
    assert api.delete("/api/v1/topics/" + t)[0] == 200
    assert_error(api.get("/api/v1/topics/" + t), 404)
    assert_error(api.delete("/api/v1/topics/" + t), 404)


def test_topic_create_bad_input(api):
    assert_error(api.post("/api/v1/topics", raw=b"{not json"), 400)
    assert_error(api.post("/api/v1/topics", [1, 2]), 400)
    assert_error(api.post("/api/v1/topics", {"partitions": 1}), 400)
    assert_error(api.post("/api/v1/topics", {"name": "bad name!"}), 400)
    assert_error(api.post("/api/v1/topics", {"name": name(), "partitions": 0}), 400)
    assert_error(api.post("/api/v1/topics", {"name": name(), "partitions": "three"}), 400)
    assert_error(api.post("/api/v1/topics", {"name": name(), "configs": {"retention.ms": "soon"}}), 400)
    assert_error(api.post("/api/v1/topics", {"name": name(), "configs": {"no.such.config": "1"}}), 400)


def test_oversized_body_is_413(api):
    assert_error(api.post("/api/v1/topics", raw=b"{" + b" " * (2 * 1024 * 1024) + b"}"), 413)


def test_unknown_topic_is_404_everywhere(api):
    t = name("missing")
    for path in ("/api/v1/topics/%s", "/api/v1/topics/%s/configs", "/api/v1/topics/%s/messages"):
        assert_error(api.get(path % t), 404)
    assert_error(api.post("/api/v1/topics/%s/messages" % t, {"value": "x"}), 404)
    assert_error(api.call("PATCH", "/api/v1/topics/%s/configs" % t, {"set": {"retention.ms": "1"}}), 404)


def test_configs_get_and_incremental_alter(api):
    t = make_topic(api)
    status, c = api.get("/api/v1/topics/%s/configs" % t)
    assert status == 200
    by = {x["name"]: x for x in c["configs"]}
    assert by["retention.ms"]["source"] == "DEFAULT_CONFIG" and by["retention.ms"]["acts_in_ketch"]
    status, c = api.call("PATCH", "/api/v1/topics/%s/configs" % t, {"set": {"retention.ms": "12345"}})
    assert status == 200, c
    by = {x["name"]: x for x in c["configs"]}
    assert by["retention.ms"]["value"] == "12345" and by["retention.ms"]["source"] == "TOPIC_CONFIG"
    status, c = api.call("PATCH", "/api/v1/topics/%s/configs" % t, {"delete": ["retention.ms"]})
    assert status == 200
    assert {x["name"]: x for x in c["configs"]}["retention.ms"]["source"] == "DEFAULT_CONFIG"
    assert_error(api.call("PATCH", "/api/v1/topics/%s/configs" % t, {}), 400)
    assert_error(api.call("PATCH", "/api/v1/topics/%s/configs" % t, {"set": ["x"]}), 400)
    assert_error(api.call("PATCH", "/api/v1/topics/%s/configs" % t, {"set": {"retention.ms": "x"}}), 400)
    assert_error(api.call("PATCH", "/api/v1/topics/%s/configs" % t, raw=b"]["), 400)


# ------------------------------------------------------------------ messages

def test_records_produced_by_a_client_are_browsable(api, helper, broker):
    t = make_topic(api, partitions=2)
    recs = [{"key": b64("k%d" % i), "value": b64(json.dumps({"n": i})), "headers": [["h", b64("v%d" % i)]],
             "partition": i % 2} for i in range(6)]
    out = helper("produce", {"topic": t, "acks": "all", "records": recs})
    assert all(r["error"] is None for r in out["records"])
    status, m = api.get("/api/v1/topics/%s/messages?partition=0&offset=0" % t)
    assert status == 200
    got = m["messages"]
    assert [(x["partition"], x["offset"]) for x in got] == [(0, 0), (0, 1), (0, 2)]
    assert [x["key"]["text"] for x in got] == ["k0", "k2", "k4"]
    assert [x["value"]["json"] for x in got] == [{"n": 0}, {"n": 2}, {"n": 4}]
    assert [x["headers"] for x in got][0][0]["key"] == "h" and got[0]["headers"][0]["value"]["text"] == "v0"
    assert all(x["type"] == "record" for x in got)
    assert m["next_offsets"] == {"0": 3} and m["high_watermarks"] == {"0": 3}
    status, d = api.get("/api/v1/topics/" + t)
    if isinstance(broker, cluster_matrix.ClusterBroker):  # the batches are objects in the bucket: no segment files
        assert [(p["segment_count"], p["segments"]) for p in d["partitions"]] == [(0, [])] * 2
    else:  # each partition's one (active) segment file holds its 3 records
        assert [(p["segment_count"], [(s["base_offset"], s["next_offset"], s["active"]) for s in p["segments"]])
                for p in d["partitions"]] == [(1, [(0, 3, True)])] * 2
        assert all(p["segments"][0]["size_bytes"] == p["size_bytes"] > 0 for p in d["partitions"])
    # Both partitions, newest first, bounded by limit.
    status, m = api.get("/api/v1/topics/%s/messages?from=newest&limit=2" % t)
    assert status == 200 and len(m["messages"]) == 2
    ts = [x["timestamp"] for x in m["messages"]]
    assert ts == sorted(ts, reverse=True)
    # Filters.
    status, m = api.get("/api/v1/topics/%s/messages?key=k3" % t)
    assert [x["key"]["text"] for x in m["messages"]] == ["k3"]
    status, m = api.get("/api/v1/topics/%s/messages?contains=%s" % (t, q('"n": 5')))
    assert [x["value"]["json"] for x in m["messages"]] == [{"n": 5}]
    # From a timestamp after everything: nothing.
    status, m = api.get("/api/v1/topics/%s/messages?timestamp=%d" % (t, int(time.time() * 1000) + 3600_000))
    assert status == 200 and m["messages"] == []


def test_produce_through_the_api_is_read_by_a_client(api, helper):
    t = make_topic(api)
    status, r = api.post("/api/v1/topics/%s/messages" % t,
                         {"key": "user-1", "value": {"name": "ada"}, "headers": {"source": "console"}})
    assert status == 201 and r == {"topic": t, "partition": 0, "offset": 0}
    got = helper("consume", {"topic": t, "from": "beginning", "max_records": 1, "timeout_ms": 10000})["records"]
    assert len(got) == 1
    assert base64.b64decode(got[0]["key"]) == b"user-1"
    assert json.loads(base64.b64decode(got[0]["value"])) == {"name": "ada"}
    assert got[0]["headers"] == [["source", b64("console")]]
    assert_error(api.post("/api/v1/topics/%s/messages" % t, {"value": "x", "partition": 7}), 404)
    assert_error(api.post("/api/v1/topics/%s/messages" % t, {"value": "x", "partition": "0"}), 400)
    assert_error(api.post("/api/v1/topics/%s/messages" % t, {"headers": 5}), 400)
    assert_error(api.post("/api/v1/topics/%s/messages" % t, raw=b"nope"), 400)


def test_produce_without_a_partition_places_keys_as_the_java_producer_does(api, broker):
    why = _missing("java")
    if why:
        pytest.skip(why)
    t = make_topic(api, partitions=5)
    keys = ["user-%d" % i for i in range(12)]
    console = {}
    for k in keys:
        status, r = api.post("/api/v1/topics/%s/messages" % t, {"key": k, "value": "v"})
        assert status == 201, r
        console[k] = r["partition"]
    out = Driver("java", broker)("produce", {"topic": t, "acks": "all",
                                             "records": [{"key": b64(k), "value": b64("v")} for k in keys]})
    java = {k: r["partition"] for k, r in zip(keys, out["records"])}
    assert console == java
    assert len(set(java.values())) > 1  # the keys are spread, not all on partition 0
    # Without a key: each partition in turn.
    unkeyed = [api.post("/api/v1/topics/%s/messages" % t, {"value": "x"})[1]["partition"] for _ in range(5)]
    assert sorted(unkeyed) == [0, 1, 2, 3, 4]


def test_browse_is_bounded(api):
    t = make_topic(api)
    for i in range(30):
        api.post("/api/v1/topics/%s/messages" % t, {"value": "v%d" % i})
    assert_error(api.get("/api/v1/topics/%s/messages?limit=1000000" % t), 400)
    assert_error(api.get("/api/v1/topics/%s/messages?max_bytes=999999999999" % t), 400)
    assert_error(api.get("/api/v1/topics/%s/messages?offset=-1" % t), 400)
    assert_error(api.get("/api/v1/topics/%s/messages?offset=abc" % t), 400)
    assert_error(api.get("/api/v1/topics/%s/messages?from=sideways" % t), 400)
    assert_error(api.get("/api/v1/topics/%s/messages?isolation=dirty" % t), 400)
    assert_error(api.get("/api/v1/topics/%s/messages?partition=9" % t), 404)
    status, m = api.get("/api/v1/topics/%s/messages?limit=500" % t)
    assert status == 200 and len(m["messages"]) == 30
    status, m = api.get("/api/v1/topics/%s/messages?limit=7&offset=20" % t)
    assert [x["offset"] for x in m["messages"]] == list(range(20, 27))
    # The next page starts after the last record shown, not after what the Fetch brought.
    assert m["next_offsets"]["0"] == 27
    assert m["scanned"] == 7  # records past `limit` are not decoded
    # Past the end: empty at once, and a tail (wait_ms) returns a record produced meanwhile.
    status, m = api.get("/api/v1/topics/%s/messages?offset=30" % t)
    assert status == 200 and m["messages"] == []


def test_browse_pages_inside_a_batch(api, helper):
    # 50 records produced in one call (batched by the client): a page of 10 from
    # offset 20 shows 20..29 and says to go on from 30, however much the Fetch read.
    t = make_topic(api)
    out = helper("produce", {"topic": t, "acks": "all",
                             "records": [{"key": b64("k%d" % i), "value": b64("v" * 100)} for i in range(50)]})
    assert all(r["error"] is None for r in out["records"])
    status, m = api.get("/api/v1/topics/%s/messages?partition=0&offset=20&limit=10" % t)
    assert status == 200
    assert [x["offset"] for x in m["messages"]] == list(range(20, 30))
    assert m["next_offsets"] == {"0": 30}
    status, m = api.get("/api/v1/topics/%s/messages?positions=0:30&limit=10" % t)
    assert [x["offset"] for x in m["messages"]] == list(range(30, 40))


def test_transaction_markers_are_flagged(api, helper, broker):
    t = make_topic(api)
    tx_id = name("tx")
    r = helper("txn-produce", {"transactional_id": tx_id, "transactions": [
        {"commit": True, "records": [{"topic": t, "partition": 0, "key": None, "value": b64("committed")}]},
        {"commit": False, "records": [{"topic": t, "partition": 0, "key": None, "value": b64("aborted")}]}]})
    assert all(x["error"] is None for x in r["transactions"])

    def browsed():  # the coordinator writes the markers after EndTxn's answer (Kafka's TransactionMarkerChannelManager)
        status, m = api.get("/api/v1/topics/%s/messages" % t)
        kinds = [(x["type"], x.get("marker"), (x.get("value") or {}).get("text")) for x in m["messages"]]
        assert kinds == [("record", None, "committed"), ("control", "COMMIT", None),
                         ("record", None, "aborted"), ("control", "ABORT", None)]
        return m
    m = eventually(browsed)
    assert all(x["transactional"] for x in m["messages"])
    status, m = api.get("/api/v1/topics/%s/messages?isolation=read_committed" % t)
    texts = [(x["type"], (x.get("value") or {}).get("text")) for x in m["messages"]]
    assert ("record", "aborted") not in texts and ("record", "committed") in texts
    # ListTransactions answers the ids its broker coordinates; the console asks every broker, as Kafka's
    # Admin.listTransactions does (ListTransactionsHandler: one request per broker), so in a cluster
    # every broker's console lists the id, naming its coordinator.
    for url in getattr(broker, "console_urls", [api.url]):
        def listed():
            status, tx = Rest(url).get("/api/v1/transactions")
            assert status == 200 and tx.get("unreached_brokers", []) == [], tx
            rows = [x for x in tx["transactions"] if x["transactional_id"] == tx_id]
            assert [x["state"] for x in rows] == ["CompleteAbort"], tx
            return rows[0]
        row = eventually(listed)
        status, one = Rest(url).get("/api/v1/transactions/" + tx_id)
        assert status == 200 and (one["state"], one["node_id"]) == ("CompleteAbort", row["node_id"]), one


# ------------------------------------------------------------------ groups

def test_group_lag_matches_what_was_not_consumed_and_reset(api, helper):
    t = make_topic(api)
    g = name("g")
    recs = [{"key": None, "value": b64("v%d" % i), "headers": [], "partition": 0} for i in range(10)]
    helper("produce", {"topic": t, "acks": "all", "records": recs})
    out = helper("group-consume", {"topic": t, "group": g, "max_records": 4, "max_poll_records": 4,
                                   "timeout_ms": 30000, "idle_ms": 3000, "commit": "sync", "from": "earliest"})
    consumed = len(out["records"])
    committed = out["committed"]["%s:0" % t]
    assert consumed >= 4 and committed == consumed

    def described():
        s, d = api.get("/api/v1/groups/" + g)
        return d if s == 200 and d["state"] == "Empty" else None
    d = eventually(described)
    assert d["lag"] == 10 - committed
    assert d["offsets"] == [{"topic": t, "partition": 0, "committed_offset": committed, "end_offset": 10,
                             "lag": 10 - committed, "metadata": d["offsets"][0]["metadata"]}]
    status, listing = api.get("/api/v1/groups")
    row = [x for x in listing["groups"] if x["group_id"] == g]
    assert row and row[0]["lag"] == 10 - committed
    # Reset to earliest, then to an offset: the client reads from there.
    status, r = api.post("/api/v1/groups/%s/offsets" % g, {"topic": t, "to": "offset", "offset": 7})
    assert status == 200, r
    assert helper("committed-offsets", {"group": g, "topic": t})["offsets"] == {"0": 7}
    out = helper("group-consume", {"topic": t, "group": g, "max_records": 3, "timeout_ms": 30000,
                                   "idle_ms": 3000, "commit": "sync", "from": "earliest"})
    assert [r["offset"] for r in out["records"]] == [7, 8, 9]
    status, r = api.post("/api/v1/groups/%s/offsets" % g, {"topic": t, "to": "earliest"})
    assert status == 200 and r["offsets"] == [{"topic": t, "partition": 0, "offset": 0}]
    wait_for(lambda: api.get("/api/v1/groups/" + g)[1]["lag"] == 10)
    # Bad input.
    assert_error(api.post("/api/v1/groups/%s/offsets" % g, {"topic": t, "to": "yesterday"}), 400)
    assert_error(api.post("/api/v1/groups/%s/offsets" % g, {"to": "earliest"}), 400)
    assert_error(api.post("/api/v1/groups/%s/offsets" % g, {"topic": name("none"), "to": "earliest"}), 404)
    assert_error(api.post("/api/v1/groups/%s/offsets" % g, {"topic": t, "to": "offset"}), 400)
    assert_error(api.post("/api/v1/groups/%s/offsets" % g, raw=b"{"), 400)


def test_unknown_group_is_404(api):
    assert_error(api.get("/api/v1/groups/" + name("nogroup")), 404)


# ------------------------------------------------------------------ producers, security

def test_producers_lists_an_idempotent_producer(api, helper):
    t = make_topic(api)
    helper("produce", {"topic": t, "acks": "all", "idempotent": True,
                       "records": [{"key": None, "value": b64("x"), "headers": [], "partition": 0}]})
    status, p = api.get("/api/v1/producers?topic=" + t)
    assert status == 200
    assert len(p["producers"]) == 1 and p["producers"][0]["producer_id"] >= 0
    assert p["producers"][0]["last_sequence"] == 0
    assert_error(api.get("/api/v1/producers?topic=" + name("none")), 404)
    assert_error(api.get("/api/v1/transactions/" + name("none")), 404)


def test_acls_without_an_authorizer_are_501(api):
    assert_error(api.get("/api/v1/acls"), 501)
    assert_error(api.post("/api/v1/acls", {"resource_type": "TOPIC"}), 400)


def test_users_and_quotas(api):
    assert api.get("/api/v1/users") == (200, {"users": []})
    status, qs = api.get("/api/v1/quotas")
    assert status == 200 and isinstance(qs["quotas"], list)


def test_hostile_requests_do_not_take_the_broker_down(api, broker):
    host, port = urllib.parse.urlsplit(api.url).hostname, urllib.parse.urlsplit(api.url).port
    for junk in (b"\x00\x01\x02garbage\r\n\r\n", b"GET /" + b"a" * 20000 + b" HTTP/1.1\r\n\r\n",
                 b"POST /api/v1/topics HTTP/1.1\r\nContent-Length: 99999999999\r\n\r\n"):
        with socket.create_connection((host, port), timeout=10) as s:
            s.sendall(junk)
            s.recv(4096)
    for path in ("/api/v1/topics/%00", "/api/v1/topics/" + "x" * 5000, "/api/v1/groups/%ff%fe",
                 "/api/v1/topics/a/messages?limit=&offset=&partition="):
        status, _ = api.get(path)
        assert 200 <= status < 500
    assert api.get("/healthz") == (200, {"status": "ok"})
    assert broker.running()


# ------------------------------------------------------------------ protection and login

def test_console_off_and_non_loopback_needs_a_choice(tmp_path):
    b = BrokerProcess(_ketch_binary(), tmp_path / "d1", tmp_path, ["--console=false", "--schema-registry=false"])
    (tmp_path / "d1").mkdir()
    b.start()
    try:
        assert "console" not in json.loads((b.data_dir / "listeners.json").read_text())
    finally:
        stop_broker(b)
    d2 = tmp_path / "d2"
    d2.mkdir()
    b = BrokerProcess(_ketch_binary(), d2, tmp_path, ["--console-addr", "0.0.0.0:0", "--schema-registry=false"])
    b.start()
    try:
        assert "console" not in json.loads((b.data_dir / "listeners.json").read_text())
        assert "--console-unprotected" in b.log_text()
    finally:
        stop_broker(b)
    d3 = tmp_path / "d3"
    d3.mkdir()
    b = BrokerProcess(_ketch_binary(), d3, tmp_path,
                      ["--console-addr", "0.0.0.0:0", "--console-unprotected", "--schema-registry=false"])
    b.start()
    try:
        assert "console" in json.loads((b.data_dir / "listeners.json").read_text())
        assert "UNPROTECTED" in b.log_text()
    finally:
        stop_broker(b)


def test_login_with_the_brokers_scram_users(tmp_path):
    cfg = tmp_path / "ketch.toml"
    cfg.write_text('[[users]]\nname = "alice"\npassword = "alice-secret"\n')
    b = start_console_broker(tmp_path, "--config", str(cfg))
    try:
        anon = Rest(b.console_url)
        assert_error(anon.get("/api/v1/topics"), 401)
        assert anon.get("/healthz")[0] == 200
        assert_error(Rest(b.console_url, "alice", "wrong").get("/api/v1/topics"), 401)
        alice = Rest(b.console_url, "alice", "alice-secret")
        assert alice.get("/api/v1/topics")[0] == 200
        status, users = alice.get("/api/v1/users")
        assert status == 200 and [u["user"] for u in users["users"]] == ["alice"]
        assert "alice-secret" not in json.dumps(users)
    finally:
        stop_broker(b)


# ------------------------------------------------------------------ traffic inspector

def test_traffic_records_a_clients_requests_while_watched(api, helper):
    t = make_topic(api)
    client_id = name("client")
    status, first = api.get("/api/v1/traffic")  # watching starts recording
    assert status == 200 and first["recording"] is True
    # On a cluster the listing is every broker's: its position a cursor of
    # them all, each row naming its broker (node_id), opened there (?node=).
    since = ("cursor=" + first["cursor"]) if "cursor" in first else "after=%d" % first["last_seq"]
    out = helper("produce", {"topic": t, "acks": "all", "config": {"client.id": client_id},
                             "records": [{"key": b64("k"), "value": b64('{"a": 1}'), "headers": [["h", b64("v")]],
                                          "partition": 0}]})
    assert out["records"][0]["error"] is None
    missing = name("missing")
    helper("delete-topics", {"topics": [missing], "config": {"client.id": client_id}})

    def produced():
        s, r = api.get("/api/v1/traffic?%s&client_id=%s&api=Produce" % (since, client_id))
        return r["exchanges"] if s == 200 and r["exchanges"] else None
    rows = eventually(produced)
    assert len(rows) == 1
    p = rows[0]
    assert p["api"] == "Produce" and p["client_id"] == client_id and t in p["topics"] and p["errors"] == []
    assert p["request_bytes"] > 0 and p["response_bytes"] > 0 and p["duration_us"] >= 0
    # Other filters find the same exchange, or exclude it.
    assert [x["seq"] for x in api.get("/api/v1/traffic?%s&topic=%s&api=0" % (since, t))[1]["exchanges"]] == [p["seq"]]
    assert api.get("/api/v1/traffic?%s&topic=%s&api=Fetch" % (since, t))[1]["exchanges"] == []
    conn = api.get("/api/v1/traffic?%s&connection=%d" % (since, p["connection"]))[1]["exchanges"]
    assert (p["node_id"], p["seq"]) in [(x["node_id"], x["seq"]) for x in conn]
    assert all(x["connection"] == p["connection"] for x in conn)
    errs = wait_for(lambda: api.get("/api/v1/traffic?%s&error=UNKNOWN_TOPIC_OR_PARTITION&client_id=%s"
                                      % (since, client_id))[1]["exchanges"] or None)
    assert errs[0]["api"] == "DeleteTopics" and missing in errs[0]["topics"]
    assert api.get("/api/v1/traffic?%s&error=any&client_id=%s&api=Produce" % (since, client_id))[1]["exchanges"] == []
    # The whole exchange, decoded; records as sizes, the records themselves a click away.
    status, d = api.get("/api/v1/traffic/%d?node=%d" % (p["seq"], p["node_id"]))
    assert status == 200
    part = d["request"]["topic_data"][0]["partition_data"][0]
    assert part["index"] == 0 and part["records"]["records"] == 1 and part["records"]["batches"] == 1
    assert part["records"]["bytes"] > 0
    assert d["response"]["responses"][0]["partition_responses"][0]["error_code"] == 0
    status, recs = api.get("/api/v1/traffic/%d/records?node=%d" % (p["seq"], p["node_id"]))
    assert status == 200 and len(recs["records"]) == 1
    r = recs["records"][0]
    assert r["key"]["text"] == "k" and r["value"]["json"] == {"a": 1} and r["headers"][0]["key"] == "h"
    # Connection events.
    status, ev = api.get("/api/v1/traffic/connections")
    assert status == 200 and any(e["kind"] == "connect" for e in ev["events"])
    assert eventually(lambda: any(e["kind"] == "close" for e in api.get("/api/v1/traffic/connections")[1]["events"]))
    # Bad input.
    assert_error(api.get("/api/v1/traffic/abc"), 400)
    assert_error(api.get("/api/v1/traffic/999999999"), 404)
    assert_error(api.get("/api/v1/traffic/%d/records?node=%d" % (errs[0]["seq"], errs[0]["node_id"])), 400)
    assert_error(api.get("/api/v1/traffic?limit=0"), 400)
    assert_error(api.get("/api/v1/traffic?after=-5"), 400)


def test_the_consoles_own_requests_are_not_recorded(api):
    api.get("/api/v1/traffic")
    last = api.get("/api/v1/traffic")[1]["last_seq"]
    api.get("/api/v1/topics")
    assert [x for x in api.get("/api/v1/traffic?after=%d" % last)[1]["exchanges"]
            if x["client_id"] == "ketch-console"] == []
