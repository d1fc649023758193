"""Scripted faults (--faults; docs/design/faults.md, docs/console.md "Faults",
docs/cli.md "ketch fault"): each fault is injected through the console's
/api/v1/faults and a real client (the Java producer and confluent-kafka) is
driven through it; the tests assert what the client sees. One ketch (with
--faults and the metrics page) serves the file; every test clears the faults
it added.

On the cluster matrix (KETCH_TEST_CLUSTER) the faults are the cluster's
(docs/cluster.md "Scripted faults"): added through the first broker's
console, injected by whichever broker serves the request; the metric is per
broker, so the tests sum every broker's, and the first broker's traffic
inspector lists every broker's requests."""

import base64
import json
import subprocess
import time
import urllib.request
import uuid

import pytest

import cluster_matrix
from conftest import BrokerProcess, Driver, HELPER, _ketch_binary, _missing
from registry_util import Rest, stop_broker

CLIENTS = ["java", "confluent"]
JSON = "application/json"


MATRIX_BROKER = True  # KETCH_TEST_CLUSTER: the fixture's broker is the matrix's cluster, the console its first broker's


@pytest.fixture(scope="module")
def broker(request, tmp_path_factory):
    cluster = cluster_matrix.module_broker(request, ["--schema-registry=false", "--faults", "--metrics-listen",
                                                     "127.0.0.1:0", "--console-addr", "127.0.0.1:0"])
    if cluster is not None:
        cluster.console_urls = cluster_matrix.listener_urls(cluster, "console")
        cluster.metrics_urls = cluster_matrix.listener_urls(cluster, "metrics")
        cluster.console_url, cluster.metrics_url = cluster.console_urls[0], cluster.metrics_urls[0]
        yield cluster
        return
    tmp = tmp_path_factory.mktemp("faults")
    (tmp / "data").mkdir()
    b = BrokerProcess(_ketch_binary(), tmp / "data", tmp,
                      ["--schema-registry=false", "--faults", "--metrics-listen", "127.0.0.1:0"])
    b.start()
    listeners = json.loads((b.data_dir / "listeners.json").read_text())
    b.console_url, b.metrics_url = listeners["console"], listeners["metrics"]
    yield b
    stop_broker(b)


def consoles(broker):
    """Every broker's console (the one broker's on a single node)."""
    return [Rest(url) for url in getattr(broker, "console_urls", [broker.console_url])]


@pytest.fixture(scope="module")
def api(broker):
    rest = Rest(broker.console_url)
    rest.peers = consoles(broker)[1:]
    return rest


def traffic_position(console):
    """Where the console's traffic listing stands (asking starts the recording): in cluster mode the
    listing is every broker's and its position a cursor (docs/console.md), on one node a sequence."""
    status, page = console.get("/api/v1/traffic")
    assert status == 200, page
    return "cursor=" + page["cursor"] if "cursor" in page else "after=%d" % page["last_seq"]


def produces_since(console, position, topic):
    """The Produce exchanges for `topic` that the console lists after `position` (every broker's)."""
    return console.get("/api/v1/traffic?%s&api=Produce&topic=%s" % (position, topic))[1]["exchanges"]


def same_leader(broker, topic):
    """Two partitions of the topic with one leader (the first such pair), as Metadata names them."""
    from confluent_kafka.admin import AdminClient
    parts = AdminClient({"bootstrap.servers": broker.bootstrap}).list_topics(topic, timeout=10).topics[topic].partitions
    by_leader = {}
    for p in sorted(parts):
        by_leader.setdefault(parts[p].leader, []).append(p)
    pair = next(ps[:2] for ps in by_leader.values() if len(ps) >= 2)
    return pair[0], pair[1]


@pytest.fixture(autouse=True)
def no_faults_left(api):
    yield
    assert api.delete("/api/v1/faults")[0] == 200


@pytest.fixture(params=CLIENTS)
def client(request, broker):
    why = _missing(request.param)
    if why:
        pytest.skip(why)
    return Driver(request.param, broker)


@pytest.fixture
def helper(broker):
    why = _missing(HELPER)
    if why:
        pytest.skip(why)
    return Driver(HELPER, broker)


def topic_name(tag):
    return "faults-%s-%s" % (tag, uuid.uuid4().hex[:8])


def add_fault(rest, /, **rule):
    status, body = rest.post("/api/v1/faults", rule, content_type=JSON)
    assert status == 201, body
    # Cluster: each other broker hears of it by its NOTIFY, and reads the faults again when its
    # console lists them: from here on every broker holds it.
    for peer in getattr(rest, "peers", []):
        assert body["id"] in [f["id"] for f in peer.get("/api/v1/faults")[1]["faults"]]
    return body["id"]


def records(n, tag="v"):
    return [{"key": None, "value": base64.b64encode(("%s%d" % (tag, i)).encode()).decode()} for i in range(n)]


def create(helper, topic, partitions=1):
    out = helper("create-topics", {"topics": [{"name": topic, "partitions": partitions, "replication_factor": 1}]})
    assert out["results"][0]["error"] is None, out


def consume_values(helper, topic, expect, partition=0):
    out = helper("consume", {"topic": topic, "partitions": [partition], "from": "beginning", "max_records": expect + 1,
                             "timeout_ms": 3000})
    return [base64.b64decode(r["value"]).decode() for r in out["records"]]


def injected(broker, kind, api_name=None):
    """ketch_faults_injected_total of `kind` for `api_name` (None: summed over APIs), summed over
    the brokers (the metric is each broker's own injections)."""
    key = 'ketch_faults_injected_total{kind="%s",api="%s"} ' % (kind, api_name or "")
    total = 0
    for url in getattr(broker, "metrics_urls", [broker.metrics_url]):
        text = urllib.request.urlopen(url, timeout=10).read().decode()
        for line in text.splitlines():
            if line.startswith(key) or (api_name is None and line.startswith(key[:-3])):
                total += int(line.rpartition(" ")[2])
    return total


# ------------------------------------------------------------------ errors

@pytest.mark.parametrize("client", CLIENTS, indirect=True)
def test_retriable_error_is_retried_and_each_record_lands_once(api, broker, client, helper):
    topic = topic_name("retry")
    create(helper, topic)
    before = injected(broker, "error", "Produce")
    add_fault(api, kind="error", error="NOT_LEADER_OR_FOLLOWER", api="Produce", topic=topic, count=3)
    out = client("produce", {"topic": topic, "idempotent": True, "records": records(20),
                             "config": {"retry.backoff.ms": "50"}})
    assert [r["error"] for r in out["records"]] == [None] * 20, out
    assert injected(broker, "error", "Produce") - before == 3
    assert api.get("/api/v1/faults")[1]["faults"] == []  # used up
    assert consume_values(helper, topic, 20) == ["v%d" % i for i in range(20)]


@pytest.mark.parametrize("client", CLIENTS, indirect=True)
def test_non_retriable_error_reaches_the_application(api, client, helper):
    topic = topic_name("authz")
    create(helper, topic)
    add_fault(api, kind="error", error="TOPIC_AUTHORIZATION_FAILED", api="Produce", topic=topic, count=1)
    out = client("produce", {"topic": topic, "records": records(1)})
    assert out["records"][0]["error"] == "TOPIC_AUTHORIZATION_FAILED", out
    assert consume_values(helper, topic, 0) == []


@pytest.mark.parametrize("client", ["java"], indirect=True)
def test_error_matches_only_the_named_partition(api, broker, client, helper):
    """One Produce naming partitions 0 and 1 under a fault on partition 1: only partition 1 is refused.

    The Java producer sends it: the batches RecordAccumulator.drain takes for a broker go in one
    ProduceRequest (clients/src/main/java/org/apache/kafka/clients/producer/internals/Sender.java,
    sendProducerData / sendProduceRequests), and a TOPIC_AUTHORIZATION_FAILED fails only its own batch.
    librdkafka cannot: it sends one ProduceRequest per partition (confluentinc/librdkafka issue 1700), and a
    Produce answered TOPIC_AUTHORIZATION_FAILED marks the whole topic failed, failing the records of the
    topic's other partitions not yet sent with that error (rdkafka_request.c rd_kafka_handle_Produce_error
    -> rd_kafka_topic_set_error; rdkafka_broker.c, RD_KAFKA_OP_PARTITION_LEAVE), so whether partition a's
    record landed raced with partition b's answer. linger.ms keeps the producer from sending partition a's
    batch alone before partition b's record is added; flush() sends both at once, whatever linger.ms.

    Partitions a and b share a leader (one broker: 0 and 1; the matrix: two of N + 1 partitions over N
    brokers), so that one Produce names both; the inspector lists it with the broker that served it."""
    topic = topic_name("partition")
    create(helper, topic, partitions=len(consoles(broker)) + 1)
    a, b = same_leader(broker, topic)
    add_fault(api, kind="error", error="TOPIC_AUTHORIZATION_FAILED", topic=topic, partition=b)
    to_a, to_b = records(1), records(1)
    to_a[0]["partition"], to_b[0]["partition"] = a, b
    assert helper("produce", {"topic": topic, "records": to_a})["records"][0]["error"] is None
    assert helper("produce", {"topic": topic, "records": to_b})["records"][0]["error"] == "TOPIC_AUTHORIZATION_FAILED"
    assert api.get("/api/v1/faults")[1]["faults"][0]["injected"] == 1
    since = traffic_position(api)
    both = records(2, "w")
    both[0]["partition"], both[1]["partition"] = a, b
    out = client("produce", {"topic": topic, "records": both, "config": {"linger.ms": "5000"}})
    assert [r["error"] for r in out["records"]] == [None, "TOPIC_AUTHORIZATION_FAILED"], out
    assert api.get("/api/v1/faults")[1]["faults"][0]["injected"] == 2
    produced = produces_since(api, since, topic)
    assert len(produced) == 1 and produced[0]["fault"], produced
    exchange = api.get("/api/v1/traffic/%d?node=%d" % (produced[0]["seq"], produced[0]["node_id"]))[1]
    answered = {p["index"]: p["error_code"] for t in exchange["response"]["responses"] for p in t["partition_responses"]}
    assert answered == {a: 0, b: 29}, exchange  # one request, partition a written, partition b refused
    assert consume_values(helper, topic, 2, partition=a) == ["v0", "w0"]


# ------------------------------------------------------------------ latency, drop, pause

@pytest.mark.parametrize("client", CLIENTS, indirect=True)
def test_latency_delays_the_answer(api, client, helper):
    topic = topic_name("latency")
    create(helper, topic)
    add_fault(api, kind="latency", duration_ms=1500, api="Produce", topic=topic, count=1)
    out = client("produce", {"topic": topic, "records": records(1), "warm_metadata": True})
    assert out["records"][0]["error"] is None, out
    assert out["elapsed_ms"] >= 1500, out
    faster = client("produce", {"topic": topic, "records": records(1), "warm_metadata": True})  # the fault is used up
    assert faster["elapsed_ms"] < 1500, faster


@pytest.mark.parametrize("client", CLIENTS, indirect=True)
def test_dropped_connection_is_reconnected(api, broker, client, helper):
    topic = topic_name("drop")
    create(helper, topic)
    before = injected(broker, "drop", "Produce")
    add_fault(api, kind="drop", api="Produce", topic=topic, count=1)
    out = client("produce", {"topic": topic, "idempotent": True, "records": records(5),
                             "config": {"retry.backoff.ms": "50"}})
    assert [r["error"] for r in out["records"]] == [None] * 5, out
    assert injected(broker, "drop", "Produce") - before == 1
    assert consume_values(helper, topic, 5) == ["v%d" % i for i in range(5)]


def test_pause_holds_requests_until_it_ends(api, broker, helper):
    topic = topic_name("pause")
    create(helper, topic)
    before = injected(broker, "pause")
    started = time.monotonic()
    add_fault(api, kind="pause", duration_ms=2000)
    out = helper("produce", {"topic": topic, "records": records(1)})
    assert out["records"][0]["error"] is None, out
    assert time.monotonic() - started >= 2.0
    assert injected(broker, "pause") - before >= 1  # the client's first request, whichever it is
    assert api.get("/api/v1/faults")[1]["faults"] == []  # over


# ------------------------------------------------------------------ disk

@pytest.mark.parametrize("client", CLIENTS, indirect=True)
def test_disk_full_answers_storage_error_and_loses_nothing_acknowledged(api, client, helper):
    topic = topic_name("disk")
    create(helper, topic)
    first = client("produce", {"topic": topic, "records": records(3, "a")})
    assert [r["error"] for r in first["records"]] == [None] * 3
    fid = add_fault(api, kind="disk_full", topic=topic, partition=0)
    # Kafka's log layer answers an IOException as KAFKA_STORAGE_ERROR (UnifiedLog,
    # ReplicaManager.appendToLocalLog); it is retriable, so the client must not retry.
    failed = client("produce", {"topic": topic, "records": records(1, "x"),
                                "config": {"retries": "0", "delivery.timeout.ms": "5000", "request.timeout.ms": "4000",
                                           "linger.ms": "0"}})
    assert failed["records"][0]["error"] == "KAFKA_STORAGE_ERROR", failed
    assert api.get("/api/v1/faults")[1]["faults"][0]["injected"] >= 1
    assert api.delete("/api/v1/faults/%d" % fid)[0] == 200
    after = client("produce", {"topic": topic, "records": records(3, "b")})
    assert [r["error"] for r in after["records"]] == [None] * 3, after
    assert consume_values(helper, topic, 6) == ["a0", "a1", "a2", "b0", "b1", "b2"]


def test_fsync_failure_answers_storage_error(api, broker, helper):
    topic = topic_name("fsync")
    create(helper, topic)
    before = injected(broker, "fsync_error", "none")
    add_fault(api, kind="fsync_error", topic=topic, partition=0, count=1)
    # acks=all waits for the fdatasync; a failed one is KAFKA_STORAGE_ERROR (the
    # partition's log then stays failed until the broker restarts, as Kafka takes
    # the log directory offline).
    out = helper("produce", {"topic": topic, "records": records(1),
                             "config": {"retries": "0", "delivery.timeout.ms": "5000", "request.timeout.ms": "4000"}})
    assert out["records"][0]["error"] == "KAFKA_STORAGE_ERROR", out
    assert injected(broker, "fsync_error", "none") - before == 1


# ------------------------------------------------------------------ visibility

def test_injection_is_marked_in_the_traffic_inspector(api, broker, helper):
    """The mark is on the exchange of the broker that injected (cluster: whichever serves the Produce;
    the first broker's inspector lists every broker's exchanges)."""
    topic = topic_name("traffic")
    create(helper, topic)
    since = traffic_position(api)
    add_fault(api, kind="error", error="NOT_LEADER_OR_FOLLOWER", api="Produce", topic=topic, count=1)
    out = helper("produce", {"topic": topic, "records": records(1)})
    assert out["records"][0]["error"] is None
    produced = produces_since(api, since, topic)
    marked = [e["fault"] for e in produced if e["fault"]]
    assert len(marked) == 1 and marked[0].startswith("error NOT_LEADER_OR_FOLLOWER"), produced
    assert len(produced) >= 2  # the retry went through unmarked


# ------------------------------------------------------------------ the admin endpoint

def test_admin_endpoint_refuses_bad_input(api):
    for bad in ({}, {"kind": "nope"}, {"kind": "error"}, {"kind": "error", "error": "NO_SUCH_ERROR"},
                {"kind": "error", "error_code": 6, "count": 0}, {"kind": "latency"},
                {"kind": "latency", "duration_ms": 10 ** 12}, {"kind": "drop", "api": "NoSuchApi"},
                {"kind": "drop", "partition": 1}, {"kind": "disk_full", "api": "Produce"},
                {"kind": "pause", "duration_ms": 10, "topic": "t"}, {"kind": "drop", "extra": 1}):
        status, body = api.post("/api/v1/faults", bad, content_type=JSON)
        assert status == 400 and body["error_code"] == 400 and body["message"], (bad, status, body)
    status, body = api.post("/api/v1/faults", raw=b"{not json", content_type=JSON)
    assert status == 400, body
    assert api.delete("/api/v1/faults/12345")[0] == 404
    assert api.delete("/api/v1/faults/abc")[0] == 400
    assert api.get("/api/v1/faults") == (200, {"faults": []})


def test_admin_endpoint_lists_adds_and_clears(api):
    a = add_fault(api, kind="latency", duration_ms=5, api=1, client_id="nobody")
    b = add_fault(api, kind="error", error_code=6, api="PRODUCE", topic="nothing", partition=3, count=2)
    status, listed = api.get("/api/v1/faults")
    assert status == 200
    assert listed["faults"] == [
        {"id": a, "kind": "latency", "duration_ms": 5, "api": "Fetch", "client_id": "nobody", "count": None,
         "remaining": None, "injected": 0},
        {"id": b, "kind": "error", "error_code": 6, "error": "NOT_LEADER_OR_FOLLOWER", "api": "Produce",
         "topic": "nothing", "partition": 3, "count": 2, "remaining": 2, "injected": 0}]
    assert api.delete("/api/v1/faults/%d" % a) == (200, {"removed": a})
    assert api.delete("/api/v1/faults") == (200, {"cleared": 1})


def test_at_most_1000_faults(api):
    for _ in range(1000):
        add_fault(api, kind="drop", client_id="nobody")
    status, body = api.post("/api/v1/faults", {"kind": "drop", "client_id": "nobody"}, content_type=JSON)
    assert status == 409, body


# ------------------------------------------------------------------ the CLI

def ketch(*args, check=True):
    p = subprocess.run([str(_ketch_binary()), *map(str, args)], capture_output=True, timeout=60)
    if check and p.returncode != 0:
        raise AssertionError("ketch %s exited %d: %s" % (args, p.returncode, p.stderr.decode()))
    return p


def test_cli_adds_lists_and_clears(broker, api):
    url = ("--console-url", broker.console_url)
    added = json.loads(ketch("fault", "add", "error", "--error", "NOT_LEADER_OR_FOLLOWER", "--api", "Produce",
                             "--topic", "t", "--count", "3", "--json", *url).stdout)
    assert added["error"] == "NOT_LEADER_OR_FOLLOWER" and added["remaining"] == 3
    assert ketch("fault", "add", "latency", "--duration-ms", "200", *url).stdout.decode().startswith("fault ")
    listed = json.loads(ketch("fault", "list", "--json", *url).stdout)["faults"]
    assert [f["kind"] for f in listed] == ["error", "latency"]
    table = ketch("fault", "list", *url).stdout.decode().splitlines()
    assert table[0].split()[:2] == ["ID", "FAULT"] and len(table) == 3
    assert ketch("fault", "clear", str(added["id"]), *url).returncode == 0
    assert [f["kind"] for f in api.get("/api/v1/faults")[1]["faults"]] == ["latency"]
    assert "1 fault(s) cleared" in ketch("fault", "clear", *url).stdout.decode()


def test_cli_reports_refusals(broker):
    url = ("--console-url", broker.console_url)
    p = ketch("fault", "add", "error", *url, check=False)
    assert p.returncode == 1 and b"non-zero error code" in p.stderr, p.stderr
    p = ketch("fault", "add", "nope", *url, check=False)
    assert p.returncode == 2
    p = ketch("fault", "clear", "999999", *url, check=False)
    assert p.returncode == 1 and b"404" in p.stderr
    p = ketch("fault", "list", "--console-url", "http://127.0.0.1:1", check=False)
    assert p.returncode == 1 and b"cannot connect" in p.stderr


# ------------------------------------------------------------------ start-up

def test_faults_refused_on_a_non_loopback_listener(tmp_path):
    data = tmp_path / "data"
    argv = [str(_ketch_binary()), "--listen", "0.0.0.0:0", "--data-dir", str(data), "--faults",
            "--schema-registry=false", "--console-addr", "127.0.0.1:0"]
    p = subprocess.run(argv, capture_output=True, timeout=60)
    assert p.returncode == 1
    assert b"--faults-unsafe" in p.stdout + p.stderr
    # With --faults-unsafe it starts.
    ready = tmp_path / "ready"
    proc = subprocess.Popen(argv + ["--faults-unsafe", "--ready-file", str(ready)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while not ready.exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert ready.exists() and proc.poll() is None
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_without_faults_the_endpoint_is_404(tmp_path):
    (tmp_path / "data").mkdir()
    b = BrokerProcess(_ketch_binary(), tmp_path / "data", tmp_path, ["--schema-registry=false"])
    b.start()
    try:
        url = json.loads((b.data_dir / "listeners.json").read_text())["console"]
        status, body = Rest(url).get("/api/v1/faults")
        assert status == 404 and "--faults" in body["message"]
    finally:
        stop_broker(b)
