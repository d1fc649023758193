"""The schema registry in a cluster (docs/cluster.md "Schema registry"): its
state is in PostgreSQL (app/pg_schema_store.h), so every broker's registry port
answers the same. A schema registered through one broker is read through
another at once (each request first checks the registry's change number);
a schema text has one id across the cluster (as Confluent's registry, whose
one leader gives ids: core/.../storage/KafkaSchemaRegistry.java); brokers
registering under one subject at the same time get distinct consecutive
versions (the writes take one lock in PostgreSQL, in turn); compatibility,
mode and deletes made through one broker hold on the others. Confluent's own
serializer registers through broker 1 and its deserializer reads through
broker 2."""

import json
from concurrent.futures import ThreadPoolExecutor

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroDeserializer, AvroSerializer
from confluent_kafka.serialization import MessageField, SerializationContext

import engines
from conftest import clients
from test_shared_produce import FLUSH, create_topic, wait_for_topic

CT = "application/vnd.schemaregistry.v1+json"


def record(name, field):
    return json.dumps({"type": "record", "name": name, "fields": [{"name": field, "type": "string"}]})


class Rest:
    """A broker's registry REST API: call(method, path, body) -> (status, JSON)."""

    def __init__(self, url):
        self.url = url

    def call(self, method, path, body=None):
        import urllib.error
        import urllib.request
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.url + path, data=data, method=method)
        if data is not None:
            req.add_header("Content-Type", CT)
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                return r.status, json.loads(r.read().decode())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read().decode())

    def register(self, subject, schema):
        return self.call("POST", "/subjects/%s/versions" % subject, {"schema": schema})


@pytest.fixture(scope="module")
def brokers(postgres, s3, tmp_path_factory):
    """Two brokers of one cluster, each with its registry on a free port (registry_url)."""
    started = []
    with pytest.MonkeyPatch.context() as mp:
        for k, v in engines.CREDENTIALS.items():
            mp.setenv(k, v)
        try:
            for node in (1, 2):
                run = tmp_path_factory.mktemp("node-%d" % node)
                (run / "data").mkdir()
                b = clients.BrokerProcess(clients._ketch_binary(), run / "data", run,
                                          ["--node-id", str(node), "--cluster", postgres.url(), "--object-store",
                                           s3.url(), "--console=false", "--schema-registry-addr", "127.0.0.1:0",
                                           *FLUSH])
                started.append(b)
                b.start()
                b.rest = Rest(json.loads((b.data_dir / "listeners.json").read_text())["schema_registry"])
            yield started
        finally:
            for b in started:
                b.stop()


@pytest.fixture(autouse=True)
def logs_on_failure(request, brokers, postgres, s3):
    request.node.ketch_brokers = brokers
    request.node.ketch_engines = [postgres, s3]


def test_a_schema_registered_through_one_broker_is_read_through_the_other_at_once(brokers):
    b1, b2 = (b.rest for b in brokers)
    status, body = b1.register("orders-value", record("Order", "id"))
    assert status == 200, body
    sid = body["id"]
    assert b2.call("GET", "/subjects")[1] == ["orders-value"]
    assert b2.call("GET", "/subjects/orders-value/versions")[1] == [1]
    status, v1 = b2.call("GET", "/subjects/orders-value/versions/latest")
    assert status == 200 and v1["id"] == sid and v1["version"] == 1, v1
    assert json.loads(b2.call("GET", "/schemas/ids/%d" % sid)[1]["schema"]) == json.loads(record("Order", "id"))
    # The same text through the other broker, under another subject: the same id.
    status, again = b2.register("orders-copy-value", record("Order", "id"))
    assert status == 200 and again["id"] == sid, again
    assert sorted(b1.call("GET", "/schemas/ids/%d/subjects" % sid)[1]) == ["orders-copy-value", "orders-value"]
    # A new text through broker 2 has the next id, which broker 1 knows at once.
    status, other = b2.register("orders-value", json.dumps(
        {"type": "record", "name": "Order", "fields": [{"name": "id", "type": "string"},
                                                       {"name": "note", "type": "string", "default": ""}]}))
    assert status == 200 and other["id"] > sid, other
    assert b1.call("GET", "/subjects/orders-value/versions")[1] == [1, 2]
    assert b1.call("GET", "/subjects/orders-value/versions/2")[1]["id"] == other["id"]


def test_settings_and_deletes_made_through_one_broker_hold_on_the_other(brokers):
    b1, b2 = (b.rest for b in brokers)
    assert b1.register("pay-value", record("Pay", "a"))[0] == 200
    # BACKWARD (the default) refuses a record with a new field without a default, through either broker.
    status, body = b2.register("pay-value", record("Pay", "b"))
    assert status == 409, body
    assert b1.call("PUT", "/config/pay-value", {"compatibility": "NONE"}) == (200, {"compatibility": "NONE"})
    assert b2.call("GET", "/config/pay-value")[1] == {"compatibilityLevel": "NONE"}
    status, body = b2.register("pay-value", record("Pay", "b"))
    assert status == 200, body
    assert b2.call("PUT", "/mode/pay-value", {"mode": "READONLY"})[0] == 200
    status, body = b1.register("pay-value", record("Pay", "c"))
    assert status == 422 and body["error_code"] == 42205, body
    assert b1.call("DELETE", "/mode/pay-value")[0] == 200
    # A soft delete through one broker hides the version on the other; the permanent one removes it.
    assert b1.call("DELETE", "/subjects/pay-value/versions/1") == (200, 1)
    assert b2.call("GET", "/subjects/pay-value/versions")[1] == [2]
    assert b2.call("GET", "/subjects/pay-value/versions?deleted=true")[1] == [1, 2]
    assert b2.call("DELETE", "/subjects/pay-value/versions/1?permanent=true") == (200, 1)
    assert b1.call("GET", "/subjects/pay-value/versions?deleted=true")[1] == [2]
    assert b2.call("DELETE", "/subjects/pay-value") == (200, [2])
    assert b1.call("GET", "/subjects/pay-value/versions")[0] == 404
    assert "pay-value" in b1.call("GET", "/subjects?deleted=true")[1]


def test_concurrent_registrations_through_two_brokers_get_distinct_consecutive_versions(brokers):
    b1, b2 = (b.rest for b in brokers)
    subject = "race-value"
    assert b1.call("PUT", "/config/%s" % subject, {"compatibility": "NONE"})[0] == 200
    n = 24
    schemas = [record("Race", "f%d" % i) for i in range(n)]
    with ThreadPoolExecutor(8) as pool:  # four requests at a time through each broker
        answers = list(pool.map(lambda i: (brokers[i % 2].rest.register(subject, schemas[i])), range(n)))
    assert all(status == 200 for status, _ in answers), answers
    ids = [body["id"] for _, body in answers]
    assert len(set(ids)) == n, "each text its own id: %s" % ids
    for rest in (b1, b2):
        assert rest.call("GET", "/subjects/%s/versions" % subject)[1] == list(range(1, n + 1))
        by_version = {v: rest.call("GET", "/subjects/%s/versions/%d" % (subject, v))[1]["id"]
                      for v in range(1, n + 1)}
        assert sorted(by_version.values()) == sorted(ids)
    # The same new text through both brokers at once, under two subjects: one id.
    shared = record("Shared", "x")
    with ThreadPoolExecutor(2) as pool:
        got = list(pool.map(lambda i: brokers[i].rest.register("same-%d" % i, shared), range(2)))
    assert got[0][0] == got[1][0] == 200 and got[0][1]["id"] == got[1][1]["id"], got


USER = json.dumps({"type": "record", "name": "User", "namespace": "ketch.test",
                   "fields": [{"name": "name", "type": "string"}, {"name": "age", "type": "int"}]})


def test_confluent_avro_serializer_through_one_broker_and_deserializer_through_the_other(brokers):
    b1, b2 = brokers
    topic = "users"
    create_topic(b1, topic, 1)
    wait_for_topic(b2, topic, 1)
    ser = AvroSerializer(SchemaRegistryClient({"url": b1.rest.url}), USER)
    users = [{"name": "user-%d" % i, "age": 20 + i} for i in range(10)]
    p = Producer({"bootstrap.servers": b1.bootstrap, "enable.idempotence": True, "acks": "all"})
    for u in users:
        p.produce(topic, value=ser(u, SerializationContext(topic, MessageField.VALUE)))
    assert p.flush(60) == 0
    deser = AvroDeserializer(SchemaRegistryClient({"url": b2.rest.url}))  # the id is all it knows
    c = Consumer({"bootstrap.servers": b2.bootstrap, "group.id": "sr-check", "enable.auto.commit": False,
                  "auto.offset.reset": "earliest"})
    c.assign([TopicPartition(topic, 0, 0)])
    got = []
    try:
        while len(got) < len(users):
            m = c.poll(30.0)
            assert m is not None, "no record within 30 s; got %d" % len(got)
            if m.error():
                continue
            got.append(deser(m.value(), SerializationContext(topic, MessageField.VALUE)))
    finally:
        c.close()
    assert got == users
    status, latest = b2.rest.call("GET", "/subjects/%s-value/versions/latest" % topic)
    assert status == 200 and json.loads(latest["schema"]) == json.loads(USER), latest
