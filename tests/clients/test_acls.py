"""ACLs with real clients: an admin (super user) creates, lists and deletes ACLs
with Java's Admin and confluent-kafka's AdminClient (kafka-python and kafkajs list them too); a principal's produce is refused without
WRITE, allowed (and its records readable) with WRITE + READ, refused again once
the ACLs are deleted; the ACLs survive a restart. Java's producer sees the same
refusal and the same grant.

Behaviour references: Kafka 4.3.1's StandardAuthorizer (metadata/.../authorizer/
StandardAuthorizerData.java), AclApis.scala, KafkaApis.handleProduceRequest /
handleFetchRequest / handleTopicMetadataRequest.
"""

import base64
import json
from types import SimpleNamespace

import pytest

from conftest import BrokerProcess, Driver, _ketch_binary, _missing, _wanted_clients

USERS = {"admin": "admin-secret", "alice": "alice-secret"}


@pytest.fixture(scope="module")
def acl_broker(tmp_path_factory):
    run = tmp_path_factory.mktemp("acl-broker")
    toml = run / "ketch.toml"
    toml.write_text("".join('[[users]]\nname = "%s"\npassword = "%s"\n' % kv for kv in USERS.items()))
    (run / "data").mkdir()
    b = BrokerProcess(_ketch_binary(), run / "data", run, [
        "--config", str(toml), "--listener", "SASL_PLAINTEXT=SASL_PLAINTEXT://127.0.0.1:0",
        "--authorizer", "--super-users", "User:admin"])
    b.start()
    sasl_address(b)
    yield b
    b.stop()


def sasl_address(b):
    listeners = json.loads((b.data_dir / "listeners.json").read_text())["listeners"]
    b.sasl = listeners["SASL_PLAINTEXT"]["address"]


def login(client, user):
    if client == "kafka-python":
        return {"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN",
                "sasl.plain.username": user, "sasl.plain.password": USERS[user]}
    if client == "kafkajs":
        return {"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN",
                "sasl.username": user, "sasl.password": USERS[user]}
    if client == "java":
        return {"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN", "sasl.jaas.config":
                'org.apache.kafka.common.security.plain.PlainLoginModule required username="%s" password="%s";'
                % (user, USERS[user])}
    return {"security.protocol": "SASL_PLAINTEXT", "sasl.mechanisms": "PLAIN",
            "sasl.username": user, "sasl.password": USERS[user]}


def driver(name, broker):
    if name not in _wanted_clients()[0]:
        pytest.skip("%s not selected (KETCH_CLIENTS)" % name)
    why = _missing(name)
    if why:
        pytest.skip(why)
    return Driver(name, SimpleNamespace(bootstrap=broker.sasl))


def produce_errors(drv, topic, user):
    out = drv("produce", {"topic": topic, "acks": "all", "config": login(drv.name, user),
                          "records": [{"key": None, "value": base64.b64encode(b"v").decode(), "partition": 0}]})
    return [r["error"] for r in out["records"]]


def test_acls_refuse_then_allow_produce_and_consume(acl_broker):
    admin = driver("confluent", acl_broker)
    clients = [admin] + ([driver("java", acl_broker)] if "java" in _wanted_clients()[0] and not _missing("java")
                         else [])
    as_admin = login("confluent", "admin")
    topic = "acl-topic"
    assert admin("create-topics", {"topics": [{"name": topic, "partitions": 1, "replication_factor": 1}],
                                   "config": as_admin})["results"][0]["error"] is None

    for drv in clients:  # no ACL on the topic: refused
        assert produce_errors(drv, topic, "alice") == ["TOPIC_AUTHORIZATION_FAILED"], drv.name

    grants = [{"resource_type": "TOPIC", "name": topic, "pattern": "LITERAL", "principal": "User:alice",
               "host": "*", "operation": op, "permission": "ALLOW"} for op in ("WRITE", "READ")]
    # librdkafka's consumer looks up its group's coordinator even when it only assigns: READ on the group.
    grants.append({"resource_type": "GROUP", "name": "acl-", "pattern": "PREFIXED", "principal": "User:*",
                   "host": "*", "operation": "READ", "permission": "ALLOW"})
    # Java's Admin creates and deletes the ACLs when the Java driver is there; both clients list them.
    manager = clients[-1]
    out = manager("create-acls", {"acls": grants, "config": login(manager.name, "admin")})
    assert [r["error"] for r in out["results"]] == [None, None, None]
    listers = clients + [driver(n, acl_broker) for n in ("kafka-python", "kafkajs")
                         if n in _wanted_clients()[0] and not _missing(n)]
    for drv in listers:
        listed = drv("describe-acls", {"filter": {"name": topic}, "config": login(drv.name, "admin")})
        assert listed["error"] is None
        assert sorted(a["operation"] for a in listed["acls"]) == ["READ", "WRITE"], drv.name

    acl_broker.restart()  # the ACLs are durable (<data-dir>/acls.db)
    sasl_address(acl_broker)
    for drv in clients:
        drv.broker.bootstrap = acl_broker.sasl

    for drv in clients:  # WRITE: allowed
        assert produce_errors(drv, topic, "alice") == [None], drv.name
    got = admin("consume", {"topic": topic, "partitions": [0], "from": "beginning", "max_records": len(clients),
                            "timeout_ms": 15000, "config": {**login("confluent", "alice"), "group.id": "acl-reader"}})
    assert len(got["records"]) == len(clients)

    # A principal without ALTER on the cluster may not manage ACLs. (DescribeAcls' refusal is a
    # top-level error librdkafka does not report; the conformance recordings pin it.)
    denied = admin("create-acls", {"acls": grants[:1], "config": login("confluent", "alice")})
    assert [r["error"] for r in denied["results"]] == ["CLUSTER_AUTHORIZATION_FAILED"]
    if manager.name == "java":
        denied = manager("describe-acls", {"filter": {}, "config": login("java", "alice")})
        assert denied["error"] == "CLUSTER_AUTHORIZATION_FAILED"

    out = manager("delete-acls", {"filters": [{"resource_type": "TOPIC", "name": topic}],
                                  "config": login(manager.name, "admin")})
    assert out["results"][0]["error"] is None and len(out["results"][0]["deleted"]) == 2
    assert produce_errors(admin, topic, "alice") == ["TOPIC_AUTHORIZATION_FAILED"]
