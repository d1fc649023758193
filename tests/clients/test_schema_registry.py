"""The built-in schema registry with confluent-kafka Python's own client and
serde (SchemaRegistryClient, AvroSerializer/AvroDeserializer, JSONSerializer,
ProtobufSerializer): each produces through ketch and consumes back equal
objects, and what the serializers registered is visible in the REST API.
One ketch (registry on a free port) serves the whole file."""

import uuid

import pytest

confluent_kafka = pytest.importorskip("confluent_kafka")
from confluent_kafka import Consumer, Producer  # noqa: E402
from confluent_kafka.schema_registry import SchemaRegistryClient, Schema  # noqa: E402
from confluent_kafka.schema_registry.avro import AvroDeserializer, AvroSerializer  # noqa: E402
from confluent_kafka.serialization import MessageField, SerializationContext  # noqa: E402

from registry_util import Rest, read_registry_url, start_broker, start_registry_broker, stop_broker  # noqa: E402

USER_V1 = """{"type": "record", "name": "User", "namespace": "ketch.test",
  "fields": [{"name": "name", "type": "string"},
             {"name": "age", "type": "int"},
             {"name": "tags", "type": {"type": "array", "items": "string"}},
             {"name": "score", "type": ["null", "double"], "default": null}]}"""
USER_V2 = USER_V1.replace('{"name": "age", "type": "int"}',
                          '{"name": "age", "type": "long"}, {"name": "email", "type": "string", "default": ""}')


MATRIX_BROKER = True  # KETCH_TEST_CLUSTER: the fixture's broker is the matrix's cluster


@pytest.fixture(scope="module")
def broker(request, tmp_path_factory):
    b = start_registry_broker(request, tmp_path_factory.mktemp("registry"))
    yield b
    stop_broker(b)


@pytest.fixture
def topic():
    return "sr-" + uuid.uuid4().hex[:10]


def produce_consume(broker, topic, serializer, deserializer, objects):
    p = Producer({"bootstrap.servers": broker.bootstrap})
    for o in objects:
        p.produce(topic, value=serializer(o, SerializationContext(topic, MessageField.VALUE)))
    assert p.flush(30) == 0
    c = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": "g-" + topic,
                  "auto.offset.reset": "earliest", "enable.auto.commit": False})
    c.subscribe([topic])
    out = []
    try:
        for _ in range(200):
            if len(out) == len(objects):
                break
            m = c.poll(0.5)
            if m is None or m.error():
                continue
            out.append(deserializer(m.value(), SerializationContext(topic, MessageField.VALUE)))
    finally:
        c.close()
    return out


def test_avro_serializer_round_trip_and_evolution(broker, topic):
    sr = SchemaRegistryClient({"url": broker.registry_url})
    users = [{"name": "ann", "age": 31, "tags": ["a", "b"], "score": 1.5},
             {"name": "bob", "age": 42, "tags": [], "score": None}]
    ser = AvroSerializer(sr, USER_V1)
    got = produce_consume(broker, topic, ser, AvroDeserializer(sr), users)
    assert got == users
    subject = topic + "-value"
    latest = sr.get_latest_version(subject)
    assert latest.version == 1
    # The framing names the id the registry gave: the deserializer found it there.
    assert sr.get_schema(latest.schema_id).schema_type == "AVRO"
    # A compatible evolution (a long for an int, a field with a default) registers as version 2;
    # a reader of v2 reads the v1 records with the default filled in.
    ser2 = AvroSerializer(sr, USER_V2)
    got2 = produce_consume(broker, topic + "-2", ser2, AvroDeserializer(sr, schema_str=USER_V2),
                           [{"name": "cy", "age": 7, "email": "c@x", "tags": ["z"], "score": None}])
    assert got2 == [{"name": "cy", "age": 7, "email": "c@x", "tags": ["z"], "score": None}]
    assert sr.register_schema(subject, Schema(USER_V2, "AVRO")) > latest.schema_id
    assert sr.get_versions(subject) == [1, 2]
    reader_v2 = AvroDeserializer(sr, schema_str=USER_V2)
    ctx = SerializationContext(topic, MessageField.VALUE)
    assert reader_v2(ser(users[0], ctx), ctx) == dict(users[0], email="")


def test_avro_incompatible_change_is_refused_with_409(broker, topic):
    sr = SchemaRegistryClient({"url": broker.registry_url})
    subject = topic + "-value"
    sr.register_schema(subject, Schema(USER_V1, "AVRO"))
    breaking = USER_V1.replace('{"name": "age", "type": "int"}', '{"name": "age", "type": "string"}')
    with pytest.raises(confluent_kafka.schema_registry.error.SchemaRegistryError) as e:
        sr.register_schema(subject, Schema(breaking, "AVRO"))
    assert e.value.http_status_code == 409
    assert e.value.error_code == 409
    assert "TYPE_MISMATCH" in e.value.error_message
    assert sr.test_compatibility(subject, Schema(breaking, "AVRO")) is False
    assert sr.test_compatibility(subject, Schema(USER_V2, "AVRO")) is True


def test_registry_state_survives_a_restart(tmp_path, topic):
    broker = start_broker(tmp_path)  # its own: the restart moves the ports
    sr = SchemaRegistryClient({"url": broker.registry_url})
    subject = topic + "-value"
    sid = sr.register_schema(subject, Schema(USER_V1, "AVRO"))
    broker.stop()
    broker.start()
    rest = Rest(read_registry_url(broker))
    status, body = rest.get("/subjects/%s/versions/latest" % subject)
    assert status == 200, body
    assert body["id"] == sid
    status, body = rest.post("/subjects/%s/versions" % subject, {"schema": USER_V1})
    assert (status, body) == (200, {"id": sid})
    stop_broker(broker)


ORDER_JSON = """{"$schema": "http://json-schema.org/draft-07/schema#", "title": "Order", "type": "object",
  "properties": {"id": {"type": "integer"}, "item": {"type": "string"},
                 "qty": {"type": "number", "minimum": 0}},
  "required": ["id", "item"], "additionalProperties": false}"""


def test_json_schema_serializer_round_trip(broker, topic):
    from confluent_kafka.schema_registry.json_schema import JSONDeserializer, JSONSerializer
    sr = SchemaRegistryClient({"url": broker.registry_url})
    orders = [{"id": 1, "item": "pen", "qty": 2.5}, {"id": 2, "item": "ink"}]
    ser = JSONSerializer(ORDER_JSON, sr)
    got = produce_consume(broker, topic, ser, JSONDeserializer(None, schema_registry_client=sr), orders)
    assert got == orders
    latest = sr.get_latest_version(topic + "-value")
    assert latest.schema.schema_type == "JSON"
    # Closed content model: adding an optional property is compatible, a required one is not.
    widened = ORDER_JSON.replace('"qty": {', '"note": {"type": "string"}, "qty": {')
    assert sr.test_compatibility(topic + "-value", Schema(widened, "JSON")) is True
    required = widened.replace('"required": ["id", "item"]', '"required": ["id", "item", "note"]')
    assert sr.test_compatibility(topic + "-value", Schema(required, "JSON")) is False


def order_message_class():
    """An Order message built at run time (no protoc): package ketch.test, with a
    nested message and a google.protobuf.Timestamp import."""
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory, timestamp_pb2  # noqa: F401
    fdp = descriptor_pb2.FileDescriptorProto(name="ketch_order.proto", package="ketch.test", syntax="proto3",
                                             dependency=["google/protobuf/timestamp.proto"])
    line = fdp.message_type.add(name="Line")
    line.field.add(name="sku", number=1, type=9, label=1)
    line.field.add(name="count", number=2, type=5, label=1)
    order = fdp.message_type.add(name="Order")
    order.field.add(name="id", number=1, type=3, label=1)
    order.field.add(name="lines", number=2, type=11, label=3, type_name=".ketch.test.Line")
    order.field.add(name="at", number=3, type=11, label=1, type_name=".google.protobuf.Timestamp")
    pool = descriptor_pool.Default()
    try:
        pool.Add(fdp)
    except Exception:  # already added by an earlier test of this process
        pass
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("ketch.test.Order"))


def test_protobuf_serializer_round_trip_with_message_indexes(broker, topic):
    from confluent_kafka.schema_registry.protobuf import ProtobufDeserializer, ProtobufSerializer
    sr = SchemaRegistryClient({"url": broker.registry_url})
    Order = order_message_class()
    msgs = [Order(id=7, lines=[{"sku": "a", "count": 2}], at={"seconds": 1700000000}), Order(id=8)]
    ser = ProtobufSerializer(Order, sr, {"use.deprecated.format": False})
    got = produce_consume(broker, topic, ser, ProtobufDeserializer(Order, {"use.deprecated.format": False}), msgs)
    assert got == msgs
    latest = sr.get_latest_version(topic + "-value")
    assert latest.schema.schema_type == "PROTOBUF"
    assert "message Order" in latest.schema.schema_str
    # Order is the file's second message: the frame carries the index path [1].
    frame = ser(msgs[1], SerializationContext(topic, MessageField.VALUE))
    assert frame[0] == 0 and int.from_bytes(frame[1:5], "big") == latest.schema_id
    assert frame[5:7] == bytes([2, 2])  # zigzag count 1, zigzag index 1


def run_driver(name, broker, command, args):
    """A client driver of tests/clients (DRIVERS.md) with one command; skips when not built."""
    import json
    import subprocess
    from conftest import DRIVER_TABLE, _missing
    why = _missing(name)
    if why:
        pytest.skip(why)
    argv = [str(a) for a in DRIVER_TABLE[name][0]] + ["--bootstrap", broker.bootstrap, command, json.dumps(args)]
    p = subprocess.run(argv, capture_output=True, timeout=180, stdin=subprocess.DEVNULL)
    assert p.returncode == 0, p.stderr.decode(errors="replace")[-4000:]
    return json.loads(p.stdout)


def test_franz_go_sr_client_and_serde(broker, topic):
    records = [{"id": 1, "item": "pen"}, {"id": 2, "item": "ink", "qty": 3}]
    out = run_driver("franz-go", broker, "sr-roundtrip",
                     {"registry": broker.registry_url, "topic": topic, "schema": ORDER_JSON, "records": records})
    assert out["records"] == records
    assert out["schema_type"] == "JSON"
    assert out["version"] == 1
    assert topic + "-value" in out["subjects"]
    status, body = Rest(broker.registry_url).get("/schemas/ids/%d" % out["id"])
    assert status == 200 and body["schemaType"] == "JSON"


def test_kafkajs_confluent_schema_registry(broker, topic):
    users = [{"name": "ann", "age": 31, "tags": ["a"], "score": 1.5},
             {"name": "bob", "age": 42, "tags": [], "score": None}]
    out = run_driver("kafkajs", broker, "sr-roundtrip",
                     {"registry": broker.registry_url, "topic": topic, "schema": USER_V1, "records": users})
    assert out["records"] == users
    assert out["latest_id"] == out["id"]


def test_java_plain_http_client_and_kafka_clients(broker, topic):
    records = [{"id": 1, "item": "pen"}, {"id": 2, "item": "ink", "qty": 0.5}]
    out = run_driver("java", broker, "sr-roundtrip",
                     {"registry": broker.registry_url, "topic": topic, "schema": ORDER_JSON, "records": records})
    assert out["records"] == records
    assert out["schema_types"] == ["JSON", "JSON"]
    assert Rest(broker.registry_url).get("/subjects/%s-value/versions/1" % topic)[1]["id"] == out["id"]
