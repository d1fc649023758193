"""The console's message browser decodes Confluent-framed records through the
built-in schema registry (issue 20's console seam): values written by
confluent-kafka's AvroSerializer and JSONSerializer are shown as the
objects they encode, with their schema id; a record that is not framed, or
whose id is unknown, is shown as bytes only."""

import json
import uuid

import pytest

confluent_kafka = pytest.importorskip("confluent_kafka")
from confluent_kafka import Producer  # noqa: E402
from confluent_kafka.schema_registry import SchemaRegistryClient  # noqa: E402
from confluent_kafka.schema_registry.avro import AvroSerializer  # noqa: E402
from confluent_kafka.schema_registry.json_schema import JSONSerializer  # noqa: E402
from confluent_kafka.serialization import MessageField, SerializationContext  # noqa: E402

from registry_util import Rest, start_registry_broker, stop_broker  # noqa: E402

USER = """{"type": "record", "name": "User", "namespace": "ketch.test",
  "fields": [{"name": "name", "type": "string"}, {"name": "age", "type": "int"}]}"""
ORDER = json.dumps({"type": "object", "properties": {"id": {"type": "integer"}, "item": {"type": "string"}},
                    "required": ["id"]})


MATRIX_BROKER = True  # KETCH_TEST_CLUSTER: the fixture's broker is the matrix's cluster


@pytest.fixture(scope="module")
def broker(request, tmp_path_factory):
    b = start_registry_broker(request, tmp_path_factory.mktemp("console-registry"))
    if not hasattr(b, "console_url"):  # a cluster's is its first broker's; the schemas registered through its last
        b.console_url = json.loads((b.data_dir / "listeners.json").read_text())["console"]
    yield b
    stop_broker(b)


def produce(broker, topic, values):
    p = Producer({"bootstrap.servers": broker.bootstrap})
    for v in values:
        p.produce(topic, value=v)
    assert p.flush(30) == 0


def browse(broker, topic):
    status, m = Rest(broker.console_url).get("/api/v1/topics/%s/messages?partition=0&offset=0" % topic)
    assert status == 200, m
    return m["messages"]


def test_avro_and_json_schema_values_are_shown_decoded(broker):
    sr = SchemaRegistryClient({"url": broker.registry_url})
    users = [{"name": "ada", "age": 36}, {"name": "alan", "age": 41}]
    orders = [{"id": 7, "item": "tea"}]
    t_avro, t_json = "cr-avro-" + uuid.uuid4().hex[:8], "cr-json-" + uuid.uuid4().hex[:8]
    avro = AvroSerializer(sr, USER)
    produce(broker, t_avro, [avro(u, SerializationContext(t_avro, MessageField.VALUE)) for u in users])
    js = JSONSerializer(ORDER, sr)
    produce(broker, t_json, [js(o, SerializationContext(t_json, MessageField.VALUE)) for o in orders])

    avro_id = sr.get_latest_version(t_avro + "-value").schema_id
    got = browse(broker, t_avro)
    assert [m["value"]["json"] for m in got] == users
    assert {(m["value"]["schema_id"], m["value"]["schema_type"]) for m in got} == {(avro_id, "AVRO")}

    json_id = sr.get_latest_version(t_json + "-value").schema_id
    got = browse(broker, t_json)
    assert [m["value"]["json"] for m in got] == orders
    assert got[0]["value"]["schema_id"] == json_id and got[0]["value"]["schema_type"] == "JSON"


def test_unframed_or_unknown_ids_are_shown_as_bytes(broker):
    t = "cr-raw-" + uuid.uuid4().hex[:8]
    unknown_id = b"\x00\x00\x01\x86\xa0" + b"\x06ada"  # magic byte, id 100000 (not registered)
    produce(broker, t, [b'{"plain": true}', unknown_id])
    got = browse(broker, t)
    assert got[0]["value"]["json"] == {"plain": True} and "schema_id" not in got[0]["value"]
    assert "schema_id" not in got[1]["value"] and "json" not in got[1]["value"]
    assert got[1]["value"]["hex"] == unknown_id.hex()
