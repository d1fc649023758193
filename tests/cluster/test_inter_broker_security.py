"""Inter-broker calls over SASL_SSL with the authorizer on (docs/cluster.md
"Inter-broker calls"; docs/design/cluster.md "transactions"): a broker that
is not a transactional id's coordinator asks the coordinator with
AddPartitionsToTxn v5 on --inter-broker-listener, logged in as
--inter-broker-sasl-username, and the coordinator requires CLUSTER_ACTION on
the cluster of that principal.

Three brokers whose only listener is SASL_SSL (named PLAINTEXT, which
replaces --listen's: docs/security.md), SCRAM-SHA-512 only, --authorizer on.

Behaviour reference, Apache Kafka 4.3.1:
- core/src/main/scala/kafka/server/KafkaApis.scala handleAddPartitionsToTxnRequest:
  a v4+ request (brokers only) needs CLUSTER_ACTION on the cluster
  (authHelper.authorize(request.context, CLUSTER_ACTION, CLUSTER, CLUSTER_NAME)),
  else the top-level CLUSTER_AUTHORIZATION_FAILED;
- server/src/main/java/org/apache/kafka/server/transaction/AddPartitionsToTxnManager.java:
  the manager sends on config.interBrokerListenerName(); a top-level
  CLUSTER_AUTHORIZATION_FAILED reaches the producer as INVALID_TXN_STATE; an
  authentication failure as its code (ketch: NOT_ENOUGH_REPLICAS, retriable,
  docs/compatibility.md; Kafka's own validateShareGroupMember in the same file
  answers an inter-broker authentication failure COORDINATOR_NOT_AVAILABLE).
"""

import base64
import ssl
import socket
import struct
import subprocess
import sys
import types
from pathlib import Path

import pytest
from confluent_kafka.admin import (AclBinding, AclBindingFilter, AclOperation, AclPermissionType, AdminClient, NewTopic,
                                   ResourcePatternType, ResourceType)

from conftest import clients
from test_shared_produce import FLUSH, TIMING
from test_txn_v2 import Traffic

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "behavior"))
import kafka_wire  # noqa: E402
from sasl_wire import (ScramClient, authenticate_request, exchange, handshake_request,  # noqa: E402
                       parse_authenticate_response, parse_handshake_response)

USERS = {"admin": "admin-secret", "broker": "broker-secret", "alice": "alice-secret"}
MECHANISM = "SCRAM-SHA-512"
PARTITIONS = 6
PRODUCE, ADD_PARTITIONS, END_TXN = 0, 24, 26
CLUSTER_AUTHORIZATION_FAILED = 31
NOT_ENOUGH_REPLICAS, NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE = 19, 16, 15


def openssl(*args, cwd):
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


def make_certs(d):
    """A CA and a server certificate for 127.0.0.1 signed by it (made at test time, none committed)."""
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2",
            "-subj", "/O=ketch-test/CN=test-ca", "-keyout", "ca.key", "-out", "ca.crt",
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign", cwd=d)
    openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj",
            "/O=ketch-test/CN=localhost", "-keyout", "server.key.sec1", "-out", "server.csr", cwd=d)
    openssl("pkcs8", "-topk8", "-nocrypt", "-in", "server.key.sec1", "-out", "server.key", cwd=d)
    (d / "server.ext").write_text("subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n")
    openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
            "-days", "2", "-extfile", "server.ext", "-out", "server.crt", cwd=d)
    return d


@pytest.fixture
def secure_cluster(start_broker, tmp_path):
    """start(nodes, broker_password) -> brokers with only a SASL_SSL listener, the
    authorizer on, calling each other as User:broker with broker_password."""
    certs = make_certs(tmp_path)
    toml = tmp_path / "ketch.toml"
    toml.write_text("".join('[[users]]\nname = "%s"\npassword = "%s"\n' % kv for kv in USERS.items()))

    def start(nodes, broker_password):
        secret = tmp_path / "inter-broker-password"
        secret.write_text(broker_password + "\n")
        brokers = [start_broker(n, *FLUSH, *TIMING, "--config", str(toml),
                                "--listener", "PLAINTEXT=SASL_SSL://127.0.0.1:0",
                                "--tls-cert", str(certs / "server.crt"), "--tls-key", str(certs / "server.key"),
                                "--sasl-mechanisms", MECHANISM, "--authorizer", "--super-users", "User:admin",
                                "--inter-broker-listener", "PLAINTEXT", "--inter-broker-sasl-username", "broker",
                                "--inter-broker-sasl-password-file", str(secret),
                                "--inter-broker-tls-ca", str(certs / "ca.crt"), console=True)
                   for n in nodes]
        for b in brokers:
            b.ca = str(certs / "ca.crt")
        return brokers

    return start


def traffic_of(brokers):
    """Each broker's traffic inspector, logged in as the super user (docs/console.md)."""
    return [Traffic(b, ("admin", USERS["admin"])) for b in brokers]


def forwarded_adds(traffic, client_id):
    """The AddPartitionsToTxn the brokers forwarded (client id ketch-broker) for the transactions of
    `client_id`: all to the one broker that ended them, its coordinator. Their exchanges' details."""
    ends = [(t, x) for t in traffic for x in t.exchanges(END_TXN, client_id)]
    coordinator = {traffic.index(t) for t, _ in ends}
    assert len(coordinator) == 1, ends
    forwarded = [(t, x) for t in traffic for x in t.exchanges(ADD_PARTITIONS, "ketch-broker")]
    assert forwarded and {traffic.index(t) for t, _ in forwarded} == coordinator, forwarded
    return [t.detail(x["seq"]) for t, x in forwarded]


def librdkafka_config(b, user):
    return {"security.protocol": "SASL_SSL", "ssl.ca.location": b.ca, "sasl.mechanisms": MECHANISM,
            "sasl.username": user, "sasl.password": USERS[user]}


def java_config(b, user):
    return {"security.protocol": "SASL_SSL", "ssl.truststore.type": "PEM", "ssl.truststore.location": b.ca,
            "sasl.mechanism": MECHANISM,
            "sasl.jaas.config": 'org.apache.kafka.common.security.scram.ScramLoginModule required '
                                'username="%s" password="%s";' % (user, USERS[user])}


def admin_of(b):
    return AdminClient({"bootstrap.servers": b.bootstrap, **librdkafka_config(b, "admin")})


def settle(brokers, topic):
    """Every broker lists every broker (they agree on each id's coordinator) and the topic."""
    def every_one():
        for b in brokers:
            md = admin_of(b).list_topics(timeout=10)
            if len(md.brokers) != len(brokers) or len(getattr(md.topics.get(topic), "partitions", {})) != PARTITIONS:
                return None
        return True
    clients.wait_for(every_one, timeout=30, what="every broker lists every broker and %s" % topic)


def cluster_action_listed(b):
    f = AclBindingFilter(ResourceType.BROKER, "kafka-cluster", ResourcePatternType.ANY, "User:broker", None,
                         AclOperation.CLUSTER_ACTION, AclPermissionType.ALLOW)
    admin = admin_of(b)  # held until the answer: a destroyed client fails its futures
    return len(admin.describe_acls(f).result(timeout=20)) == 1


def create_acls(admin, bindings):
    for f in admin.create_acls(bindings).values():
        f.result(timeout=20)


def allow(principal, rtype, name, *ops):
    return [AclBinding(rtype, name, ResourcePatternType.LITERAL, principal, "*", op, AclPermissionType.ALLOW)
            for op in ops]


def b64(s):
    return base64.b64encode(s.encode()).decode()


def records(topic, tag):
    return [{"topic": topic, "partition": p, "key": b64("%s-%d" % (tag, p)), "value": b64("%s-%d" % (tag, p))}
            for p in range(PARTITIONS)]


def test_transactions_commit_through_brokers_that_are_not_the_coordinator(secure_cluster):
    """A Java transactional producer (transaction version 2: its partitions are
    added by the brokers it produces to) as User:alice. Without CLUSTER_ACTION
    for User:broker the coordinator refuses the other brokers' adds
    (CLUSTER_AUTHORIZATION_FAILED; their produces are answered
    INVALID_TXN_STATE and the transaction fails); with it every transaction
    ends as asked and read_committed sees the commits only."""
    if clients._missing("java"):
        pytest.skip("java driver not built")
    brokers = secure_cluster((1, 2, 3), USERS["broker"])
    topic, txn_id = "ib-secure", "ib-secure-txn"
    admin = admin_of(brokers[0])
    admin.create_topics([NewTopic(topic, PARTITIONS, 1)])[topic].result(timeout=20)
    create_acls(admin, allow("User:alice", ResourceType.TOPIC, topic, AclOperation.WRITE, AclOperation.DESCRIBE)
                + allow("User:alice", ResourceType.TRANSACTIONAL_ID, txn_id, AclOperation.WRITE,
                        AclOperation.DESCRIBE))
    settle(brokers, topic)
    bootstrap = ",".join(b.bootstrap for b in brokers)
    java = clients.Driver("java", types.SimpleNamespace(bootstrap=bootstrap))
    config = {**java_config(brokers[0], "alice"), "client.id": "ib-secure-producer", "delivery.timeout.ms": "20000",
              "request.timeout.ms": "10000", "max.block.ms": "20000"}

    before = traffic_of(brokers)
    refused = java("txn-produce", {"transactional_id": txn_id, "config": config,
                                   "transactions": [{"commit": True, "records": records(topic, "refused")}]})
    # The coordinator refused the adds (CLUSTER_AUTHORIZATION_FAILED), the producing broker
    # answered INVALID_TXN_STATE (below, on the wire), and Java's producer fails the
    # transaction: with that error, or with its own TRANSACTION_ABORTABLE when the commit
    # was already under way when the batch failed (the client's timing, not the broker's).
    assert len(refused["transactions"]) == 1, refused
    assert refused["transactions"][0]["error"] in ("INVALID_TXN_STATE", "TRANSACTION_ABORTABLE"), refused
    adds = [t.detail(x["seq"]) for t in before for x in t.exchanges(ADD_PARTITIONS, "ketch-broker")]
    assert adds and all(a["response"]["error_code"] == CLUSTER_AUTHORIZATION_FAILED for a in adds), adds
    produced = [x for t in before for x in t.exchanges(PRODUCE, "ib-secure-producer")]
    assert "INVALID_TXN_STATE" in {e for x in produced for e in x["errors"]}, produced

    create_acls(admin, allow("User:broker", ResourceType.BROKER, "kafka-cluster", AclOperation.CLUSTER_ACTION))
    for b in brokers:  # each broker loads the new ACL at its NOTIFY
        clients.wait_for(lambda: cluster_action_listed(b), what="broker %s lists the ACL" % b.bootstrap)
    traffic = traffic_of(brokers)
    txns = [{"commit": True, "records": records(topic, "c1")}, {"commit": False, "records": records(topic, "ab")},
            {"commit": True, "records": records(topic, "c2")}]
    res = java("txn-produce", {"transactional_id": txn_id, "transactions": txns, "config": config})
    assert res["transactions"] == [{"error": None}] * 3, res

    # The brokers that are not the coordinator added their partitions there, over SASL_SSL as User:broker.
    answers = forwarded_adds(traffic, "ib-secure-producer")
    assert all(a["request"]["transactions"][0]["verify_only"] is False for a in answers)
    assert any(a["response"]["error_code"] == 0 and all(
        p["partition_error_code"] == 0 for r in a["response"]["results_by_transaction"]
        for tr in r["topic_results"] for p in tr["results_by_partition"]) for a in answers), answers

    helper = clients.Driver(clients.HELPER, brokers[1])
    got = helper("consume", {"topic": topic, "from": "beginning", "timeout_ms": 10000, "max_records": 2 * PARTITIONS,
                             "isolation_level": "read_committed", "config": librdkafka_config(brokers[1], "admin")})
    values = sorted(base64.b64decode(r["value"]).decode() for r in got["records"])
    assert values == sorted("%s-%d" % (t, p) for t in ("c1", "c2") for p in range(PARTITIONS)), values


def secure_socket(b, user):
    """A socket to b's SASL_SSL listener, logged in as user with SCRAM-SHA-512."""
    host, _, port = b.bootstrap.rpartition(":")
    ctx = ssl.create_default_context(cafile=b.ca)
    sock = ctx.wrap_socket(socket.create_connection((host, int(port)), timeout=30), server_hostname=host)
    _, err, _ = parse_handshake_response(exchange(sock, handshake_request(MECHANISM)))
    assert err == 0
    scram = ScramClient(MECHANISM, user, USERS[user])
    _, err, _, server_first, _ = parse_authenticate_response(exchange(sock, authenticate_request(scram.first())))
    assert err == 0
    _, err, _, _, _ = parse_authenticate_response(
        exchange(sock, authenticate_request(scram.final(server_first), correlation_id=3)))
    assert err == 0
    return sock


def init_producer_id(b, txn_id):
    """InitProducerId v0 on b as the super user: (error, producer id, epoch)."""
    with secure_socket(b, "admin") as s:
        body = kafka_wire.nullable_string(txn_id) + struct.pack(">i", 60000)
        s.sendall(kafka_wire.frame(kafka_wire.request_header(22, 0, 1, False, "ib-test") + body))
        r = kafka_wire.Reader(kafka_wire.read_frame(s))
        assert r.take(">i") == 1
        r.take(">i")
        return r.take(">h"), r.take(">q"), r.take(">h")


def test_a_wrong_inter_broker_password_is_a_retriable_error_and_a_clear_log(secure_cluster):
    """The brokers call each other with a password User:broker does not have:
    a transactional Produce (v3, verified with verify_only) sent to the broker
    that does not coordinate its id is answered at once NOT_ENOUGH_REPLICAS
    (retriable), nothing appended, and that broker's log says the
    coordinator refused its inter-broker login."""
    brokers = secure_cluster((1, 2), "not-the-broker-password")
    topic, txn_id = "ib-wrong", "ib-wrong-txn"
    admin = admin_of(brokers[0])
    admin.create_topics([NewTopic(topic, 1, 1)])[topic].result(timeout=20)
    create_acls(admin, allow("User:broker", ResourceType.BROKER, "kafka-cluster", AclOperation.CLUSTER_ACTION))

    def coordinated():
        for i, b in enumerate(brokers):
            err, pid, epoch = init_producer_id(b, txn_id)
            if err == 0:
                return i, pid, epoch
            assert err in (NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE), err
        return None

    def every_one_lists_both():
        return all(len(admin_of(b).list_topics(timeout=10).brokers) == 2 and topic in
                   admin_of(b).list_topics(timeout=10).topics for b in brokers)

    clients.wait_for(every_one_lists_both, timeout=30, what="both brokers list both and the topic")
    coordinator, pid, epoch = clients.wait_for(coordinated, what="the coordinator's InitProducerId")
    other = brokers[1 - coordinator]
    batch = kafka_wire.record_batch([(b"k", b"v")], pid, epoch, 0, attributes=0x10)
    for attempt in range(2):  # the second is refused the same way: no kept state, no hang
        with secure_socket(other, "admin") as s:
            s.sendall(kafka_wire.produce_request(topic, 0, batch, 5 + attempt, transactional_id=txn_id))
            assert kafka_wire.parse_produce_response(kafka_wire.read_frame(s)) == (NOT_ENOUGH_REPLICAS, -1)
    log = other.log_text()
    assert "refused this broker's inter-broker login (SASL_SSL listener PLAINTEXT as User:broker " \
           "(SCRAM-SHA-512))" in log, log[-4000:]
    assert "SASL_AUTHENTICATION_FAILED" in log
