"""KIP-714 client telemetry on the console (docs/console.md, "Client
telemetry"): the Java client (4.3.1, pushes by default when the broker
advertises the APIs) and confluent-kafka (enable.metrics.push=true) produce
and consume, and their pushed metrics appear in /api/v1/clients. The APIs are
advertised only with the console on. Behaviour of the answers themselves:
Kafka's ClientMetricsManager
(server/src/main/java/org/apache/kafka/server/ClientMetricsManager.java),
pinned in tests/unit/telemetry."""

import base64
import socket
import struct
import uuid

import pytest

from conftest import Driver, HELPER, _missing, eventually
from registry_util import Rest, registry_cluster, stop_broker
from test_console_api import start_console_broker

TELEMETRY_APIS = {71, 72}


MATRIX_BROKER = True  # KETCH_TEST_CLUSTER: the matrix's cluster; the console (its first broker's) lists every broker's clients


@pytest.fixture(scope="module")
def broker(request, tmp_path_factory):
    b = registry_cluster(request) or start_console_broker(tmp_path_factory.mktemp("console-telemetry"))
    yield b
    stop_broker(b)


@pytest.fixture(scope="module")
def api(broker):
    return Rest(broker.console_url)


def driver(name, broker):
    why = _missing(name)
    if why:
        pytest.skip(why)
    return Driver(name, broker)


def b64(s):
    return base64.b64encode(s.encode()).decode()


def make_topic(api):
    t = "telemetry-%s" % uuid.uuid4().hex[:8]
    status, got = api.post("/api/v1/topics", {"name": t, "partitions": 1})
    assert status == 201, got
    return t


def advertised_api_keys(host, port):
    """ApiVersions v0 on a raw socket: the API keys the broker advertises."""
    body = struct.pack(">hhih", 18, 0, 1, 4) + b"test"
    with socket.create_connection((host, port), timeout=10) as s:
        s.sendall(struct.pack(">i", len(body)) + body)
        size = struct.unpack(">i", s.recv(4, socket.MSG_WAITALL))[0]
        data = s.recv(size, socket.MSG_WAITALL)
    _, err, n = struct.unpack(">ihi", data[:10])
    assert err == 0
    return {struct.unpack(">h", data[10 + 6 * i:12 + 6 * i])[0] for i in range(n)}


def client_with_metrics(api, client_id, prefix):
    """The client instance of `client_id` once it has pushed a metric named prefix*."""
    status, got = api.get("/api/v1/clients")
    assert status == 200 and got["enabled"] is True
    mine = [c for c in got["clients"] if c["client_id"] == client_id and c["pushes"] > 0]
    assert mine, [(c["client_id"], c["pushes"]) for c in got["clients"]]
    for c in mine:
        status, d = api.get("/api/v1/clients/%s?prefix=%s" % (c["client_instance_id"], prefix))
        assert status == 200
        if d["metrics"]:
            return d
    raise AssertionError("%s pushed no %s metric yet" % (client_id, prefix))


def test_telemetry_apis_are_advertised_only_with_the_console(broker, tmp_path):
    assert TELEMETRY_APIS <= advertised_api_keys(broker.host, broker.port)
    assert get_subscriptions_answered(broker.host, broker.port)
    off = start_console_broker_off(tmp_path)
    try:
        assert not (TELEMETRY_APIS & advertised_api_keys(off.host, off.port))
        # Not served either: the connection is closed, as for any API ketch does not serve.
        assert not get_subscriptions_answered(off.host, off.port)
    finally:
        stop_broker(off)


def get_subscriptions_answered(host, port):
    """GetTelemetrySubscriptions v0 (flexible: header v2) with the zero instance id on a raw
    socket: True when answered with error 0 and a nonzero instance id, False when closed."""
    header = struct.pack(">hhih", 71, 0, 7, 4) + b"test" + b"\x00"
    body = bytes(16) + b"\x00"
    with socket.create_connection((host, port), timeout=10) as s:
        s.sendall(struct.pack(">i", len(header + body)) + header + body)
        size_bytes = s.recv(4, socket.MSG_WAITALL)
        if len(size_bytes) < 4:
            return False
        data = s.recv(struct.unpack(">i", size_bytes)[0], socket.MSG_WAITALL)
    # correlation id, header tags, throttle_time_ms, error_code, client_instance_id
    corr, _tags, _throttle, err = struct.unpack(">ibih", data[:11])
    assert corr == 7
    return err == 0 and data[11:27] != bytes(16)


def start_console_broker_off(tmp_path):
    from conftest import BrokerProcess, _ketch_binary
    data = tmp_path / "data"
    data.mkdir()
    b = BrokerProcess(_ketch_binary(), data, tmp_path, ["--schema-registry=false", "--console=false"])
    b.start()
    return b


def test_java_producer_and_consumer_metrics_appear(api, broker):
    """A Java consume-transform-produce app (a transactional producer and a
    consumer, client.id cid) that runs long enough for periodic pushes (5 s
    default interval, jittered by the client to 2.5-7.5 s for the first). A
    short-lived Java producer pushes nothing: it closes before its first push,
    and its terminating push needs a pushed subscription state."""
    java, helper = driver("java", broker), driver(HELPER, broker)
    src, dst = make_topic(api), make_topic(api)
    cid = "java-%s" % uuid.uuid4().hex[:6]
    out = helper.call("produce", {"topic": src, "acks": "all",
                                  "records": [{"key": b64("k%d" % i), "value": b64("v%d" % i), "partition": 0}
                                              for i in range(50)]})
    assert all(r["error"] is None for r in out["records"])
    got = java.call("txn-transform", {"input": src, "output": dst, "group": "g-" + cid, "transactional_id": cid,
                                      "batch": 10, "max_records": 1000, "timeout_ms": 20000, "idle_ms": 9000,
                                      "config": {"client.id": cid}})
    assert got["error"] is None and got["processed"] == 50
    p = eventually(lambda: client_with_metrics(api, cid, "org.apache.kafka.producer."), timeout=30, interval=0.5)
    assert p["client_software_name"] == "apache-kafka-java" and p["client_software_version"]
    assert p["subscription"]["push_interval_ms"] == 5000
    names = {m["name"] for m in p["metrics"]}
    assert "org.apache.kafka.producer.record.send.total" in names or \
        "org.apache.kafka.producer.record.send.rate" in names, sorted(names)[:60]
    assert all(m["points"] and len(m["points"][0]) == 2 for m in p["metrics"])
    c = eventually(lambda: client_with_metrics(api, cid, "org.apache.kafka.consumer."), timeout=30, interval=0.5)
    assert c["client_software_name"] == "apache-kafka-java"
    assert any(".fetch.manager." in m["name"] for m in c["metrics"]), sorted(m["name"] for m in c["metrics"])[:60]


def test_confluent_kafka_metrics_appear(api, broker):
    helper = driver(HELPER, broker)
    t = make_topic(api)
    cid = "ck-%s" % uuid.uuid4().hex[:6]
    got = helper.call("group-consume", {"topic": t, "group": "g-" + cid, "max_records": 1, "timeout_ms": 15000,
                                        "idle_ms": 12000, "commit": "none", "from": "earliest",
                                        "config": {"client.id": cid, "enable.metrics.push": True}})
    assert got["records"] == []
    c = eventually(lambda: client_with_metrics(api, cid, "org.apache.kafka.consumer."), timeout=30, interval=0.5)
    assert c["client_software_name"] == "confluent-kafka-python"
    assert c["last_error"] == "NONE"


def test_unknown_and_malformed_instances(api):
    status, body = api.get("/api/v1/clients/not-a-uuid!")
    assert status == 400 and body["error_code"] == 400
    status, body = api.get("/api/v1/clients/AAAAAAAAAAAAAAAAAAAAAA")
    assert status == 404 and body["error_code"] == 404
    status, body = api.get("/api/v1/clients/AAAAAAAAAAAAAAAAAAAAAA?points=0")
    assert status in (400, 404)
