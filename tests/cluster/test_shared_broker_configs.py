"""Dynamic broker configs in a cluster (docs/cluster.md, "what each engine
holds"): both layers live in PostgreSQL (ketch_broker_configs). The
cluster-wide default (the BROKER resource named "") set through one broker
is described and applied by every broker (NOTIFY ketch_commit
'broker-configs'; meta::topic_registry::reload_broker_configs); a broker's
own (the resource named by its node id) acts on that broker only, and a
broker restarted with an empty data directory keeps it.

The Java Admin 4.3.1 sets the default (librdkafka refuses a BROKER resource
that names no broker id); confluent-kafka's AdminClient sets and describes
each broker's own resource (it sends those to the broker named). Applied
means Produce on the wire at each broker (any broker serves any partition):
message.max.bytes, the broker-wide default of every topic's
max.message.bytes (Kafka's DynamicBrokerConfig / ServerTopicConfigSynonyms),
refuses a batch above it with MESSAGE_TOO_LARGE."""

import shutil
import socket
import sys
import types
from pathlib import Path

import pytest
from confluent_kafka.admin import (AdminClient, AlterConfigOpType, ConfigEntry, ConfigResource, ConfigSource, NewTopic,
                                   ResourceType)

from conftest import clients
from test_shared_produce import FLUSH, TIMING

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "behavior"))

from kafka_wire import parse_produce_response, produce_request, read_frame, record_batch  # noqa: E402

TOPIC = "configured"
MESSAGE_TOO_LARGE = 10
KEY = "message.max.bytes"


def produce_error(b, size):
    """The error code of a Produce of one record of `size` value bytes sent to b itself."""
    host, _, port = b.bootstrap.rpartition(":")
    with socket.create_connection((host, int(port)), timeout=20) as sock:
        sock.sendall(produce_request(TOPIC, 0, record_batch([(b"k", b"x" * size)]), correlation_id=5))
        error, _ = parse_produce_response(read_frame(sock))
    return error


def own(b, node_id):
    """(value, source) of message.max.bytes in DescribeConfigs of b's own BROKER resource."""
    r = ConfigResource(ResourceType.BROKER, str(node_id))
    admin = AdminClient({"bootstrap.servers": b.bootstrap})
    entry = admin.describe_configs([r])[r].result(timeout=20)[KEY]
    return entry.value, ConfigSource(entry.source).name


def set_own(b, node_id, value):
    r = ConfigResource(ResourceType.BROKER, str(node_id),
                       incremental_configs=[ConfigEntry(KEY, value, incremental_operation=AlterConfigOpType.SET)])
    admin = AdminClient({"bootstrap.servers": b.bootstrap})  # held until the answer: a destroyed client fails it
    admin.incremental_alter_configs([r])[r].result(timeout=20)


DYNAMIC_DEFAULT, DYNAMIC_BROKER = "DYNAMIC_DEFAULT_BROKER_CONFIG", "DYNAMIC_BROKER_CONFIG"


def test_the_cluster_default_acts_on_every_broker_and_a_brokers_own_on_it_alone(start_broker, postgres):
    if clients._missing("java"):
        pytest.skip("java driver not built")
    brokers = {n: start_broker(n, *FLUSH, *TIMING) for n in (1, 2)}
    admin = AdminClient({"bootstrap.servers": brokers[1].bootstrap})
    admin.create_topics([NewTopic(TOPIC, 1, 1)])[TOPIC].result(timeout=20)
    for b in brokers.values():
        clients.wait_for(lambda: produce_error(b, 2500) == 0, what="a 2500-byte record at %s" % b.bootstrap)

    java = clients.Driver("java", types.SimpleNamespace(bootstrap=brokers[2].bootstrap))
    out = java("incremental-alter-configs", {"resource": "broker", "name": "",
                                             "ops": [{"key": KEY, "op": "SET", "value": "2000"}]})
    assert out["error"] is None, out
    for n, b in brokers.items():
        clients.wait_for(lambda: own(b, n) == ("2000", DYNAMIC_DEFAULT), what="the default described at %d" % n)
        clients.wait_for(lambda: produce_error(b, 2500) == MESSAGE_TOO_LARGE, what="the default applied at %d" % n)
    assert sorted(postgres.psql("SELECT scope, name, value FROM ketch_broker_configs WHERE name = '%s'" % KEY)) == \
        ["|%s|2000" % KEY]

    # Broker 1's own value: at broker 1 only.
    set_own(brokers[1], 1, "3000")
    assert own(brokers[1], 1) == ("3000", DYNAMIC_BROKER)
    assert produce_error(brokers[1], 2500) == 0
    assert own(brokers[2], 2) == ("2000", DYNAMIC_DEFAULT)
    assert produce_error(brokers[2], 2500) == MESSAGE_TOO_LARGE
    assert sorted(postgres.psql("SELECT scope, value FROM ketch_broker_configs WHERE name = '%s'" % KEY)) == \
        ["1|3000", "|2000"]

    # Broker 1 restarted with an empty data directory keeps its own value (it is in PostgreSQL).
    b1 = brokers[1]
    b1.stop()
    shutil.rmtree(b1.data_dir)
    b1.data_dir.mkdir()
    b1.start(port=b1.port)
    assert own(b1, 1) == ("3000", DYNAMIC_BROKER)
    clients.wait_for(lambda: produce_error(b1, 2500) == 0, what="broker 1's own value after the restart")
    assert produce_error(b1, 3500) == MESSAGE_TOO_LARGE

    # The default removed through the other broker: gone at both.
    java = clients.Driver("java", types.SimpleNamespace(bootstrap=brokers[1].bootstrap))
    out = java("incremental-alter-configs", {"resource": "broker", "name": "",
                                             "ops": [{"key": KEY, "op": "DELETE", "value": None}]})
    assert out["error"] is None, out
    clients.wait_for(lambda: own(brokers[2], 2)[1] != DYNAMIC_DEFAULT, what="the default gone at 2")
    clients.wait_for(lambda: produce_error(brokers[2], 2500) == 0, what="the default no longer applied at 2")
    assert own(brokers[1], 1) == ("3000", DYNAMIC_BROKER)
