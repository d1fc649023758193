"""Inter-broker logins with OAUTHBEARER (docs/cluster.md "Inter-broker
calls"): the brokers' only listener is SASL_PLAINTEXT (named PLAINTEXT) with
OAUTHBEARER validated against a JWKS file (RS256, --sasl-oauthbearer-jwks)
and PLAIN for the test's own connections; the brokers log in to each other
with the JWT in --inter-broker-oauthbearer-token-file, read again when the
file changes. A transactional Produce (v3) sent to a broker that does not
coordinate its transactional id is verified by that broker at the
coordinator (AddPartitionsToTxn v5, verify_only), logged in with the token.

Behaviour reference, Apache Kafka 4.x (clients/src/main/java/org/apache/kafka/
common/security/oauthbearer/):
- FileJwtRetriever.java: sasl.oauthbearer.token.endpoint.url=file:... makes
  the login read the JWT from a file, its contents trimmed, through
  CachedFile.java's lastModifiedCacheRefreshPolicy (read again when the
  file's modification time changed): the token is replaced without a
  restart by whatever rotates the file;
- internals/OAuthBearerSaslServer.java and the validator: an expired or
  wrongly signed token is refused (SASL_AUTHENTICATION_FAILED), and
  authenticator/SaslServerAuthenticator ends a session at its token's expiry
  (the kept connection is closed; the next one logs in with the new token).
"""

import json
import socket
import struct
import subprocess
import sys
import time
from pathlib import Path

import pytest
from confluent_kafka.admin import AdminClient, NewTopic

from conftest import clients
from test_shared_produce import FLUSH, TIMING
from test_txn_v2 import Traffic

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "behavior"))
pytest.importorskip("cryptography")
from cryptography.hazmat.primitives.asymmetric import rsa  # noqa: E402
import kafka_wire  # noqa: E402
from jwt_mint import jwk, signed_jwt  # noqa: E402
from sasl_wire import (authenticate_request, exchange, handshake_request, parse_authenticate_response,  # noqa: E402
                       parse_handshake_response, plain_token)

ADMIN = ("admin", "admin-secret")
ADD_PARTITIONS = 24
NOT_ENOUGH_REPLICAS, NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE, CONCURRENT_TRANSACTIONS = 19, 16, 15, 51
PLAIN_ADMIN = {"security.protocol": "SASL_PLAINTEXT", "sasl.mechanisms": "PLAIN", "sasl.username": ADMIN[0],
               "sasl.password": ADMIN[1]}


@pytest.fixture(scope="module")
def keys():
    return {"idp": rsa.generate_private_key(65537, 2048), "stranger": rsa.generate_private_key(65537, 2048)}


def token(key, lifetime_s, sub="broker"):
    now = int(time.time())
    return signed_jwt(key, "idp-1", {"sub": sub, "iat": now, "exp": now + lifetime_s})


@pytest.fixture
def oauth_cluster(start_broker, tmp_path, keys):
    """start(nodes, token) -> brokers calling each other with the JWT `token`, in a file the test may rewrite
    (brokers[i].token_file)."""
    toml = tmp_path / "ketch.toml"
    toml.write_text('[[users]]\nname = "%s"\npassword = "%s"\n' % ADMIN)
    jwks = tmp_path / "jwks.json"
    jwks.write_text(json.dumps({"keys": [jwk(keys["idp"], "idp-1")]}))
    token_file = tmp_path / "inter-broker-token"

    def start(nodes, first_token):
        token_file.write_text(first_token + "\n")
        brokers = [start_broker(n, *FLUSH, *TIMING, "--config", str(toml),
                                "--listener", "PLAINTEXT=SASL_PLAINTEXT://127.0.0.1:0",
                                "--sasl-mechanisms", "OAUTHBEARER,PLAIN", "--sasl-oauthbearer-jwks", str(jwks),
                                "--sasl-oauthbearer-clock-skew-seconds", "0",
                                "--inter-broker-listener", "PLAINTEXT", "--inter-broker-sasl-mechanism", "OAUTHBEARER",
                                "--inter-broker-oauthbearer-token-file", str(token_file), console=True)
                   for n in nodes]
        for b in brokers:
            b.token_file = token_file
        return brokers

    return start


def admin_socket(b):
    """A socket to b's listener, logged in as the super user with PLAIN."""
    host, _, port = b.bootstrap.rpartition(":")
    sock = socket.create_connection((host, int(port)), timeout=30)
    _, err, _ = parse_handshake_response(exchange(sock, handshake_request("PLAIN")))
    assert err == 0
    _, err, msg, _, _ = parse_authenticate_response(exchange(sock, authenticate_request(plain_token(*ADMIN))))
    assert err == 0, msg
    return sock


def call(b, api_key, version, body):
    with admin_socket(b) as s:
        s.sendall(kafka_wire.frame(kafka_wire.request_header(api_key, version, 7, False, "ib-oauth-test") + body))
        r = kafka_wire.Reader(kafka_wire.read_frame(s))
        assert r.take(">i") == 7
        return r


def init_producer_id(b, txn_id):
    """InitProducerId v0: (error, producer id, epoch)."""
    r = call(b, 22, 0, kafka_wire.nullable_string(txn_id) + struct.pack(">i", 60000))
    r.take(">i")
    return r.take(">h"), r.take(">q"), r.take(">h")


def add_partition(b, txn_id, pid, epoch, topic):
    """AddPartitionsToTxn v0 (a client's) for partition 0 of `topic`: its error code."""
    body = (kafka_wire.nullable_string(txn_id) + struct.pack(">qh", pid, epoch) + struct.pack(">i", 1)
            + kafka_wire.nullable_string(topic) + struct.pack(">ii", 1, 0))
    r = call(b, ADD_PARTITIONS, 0, body)
    r.take(">i")
    assert r.take(">i") == 1 and r.string() == topic and r.take(">i") == 1
    assert r.take(">i") == 0
    return r.take(">h")


def wait_for_cluster(brokers, topic):
    admin = AdminClient({"bootstrap.servers": brokers[0].bootstrap, **PLAIN_ADMIN})
    admin.create_topics([NewTopic(topic, 1, 1)])[topic].result(timeout=20)

    def every_one_lists_all():
        for b in brokers:
            md = AdminClient({"bootstrap.servers": b.bootstrap, **PLAIN_ADMIN}).list_topics(timeout=10)
            if len(md.brokers) != len(brokers) or topic not in md.topics:
                return False
        return True

    clients.wait_for(every_one_lists_all, timeout=30, what="every broker lists every broker and %s" % topic)


def coordinator_of(brokers, txn_id):
    """(index of the coordinator, producer id, epoch) after an InitProducerId there."""
    def coordinated():
        for i, b in enumerate(brokers):
            err, pid, epoch = init_producer_id(b, txn_id)
            if err == 0:
                return i, pid, epoch
            if err == CONCURRENT_TRANSACTIONS:  # the coordinator is still aborting the previous transaction
                return None
            assert err in (NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE), err
        return None
    return clients.wait_for(coordinated, what="the coordinator's InitProducerId")


def coordinator_seen_by(b, txn_id):
    """FindCoordinator v1 (transaction) asked of b: (error, "host:port" of the coordinator it names)."""
    r = call(b, 10, 1, kafka_wire.nullable_string(txn_id) + struct.pack(">b", 1))
    r.take(">i")  # throttle_time_ms
    err = r.take(">h")
    r.string()  # error_message
    r.take(">i")  # node_id
    host = r.string()
    return err, "%s:%d" % (host, r.take(">i"))


def produce_through_another(brokers, txn_id, topic, value):
    """A transaction whose partition is added at its coordinator, then a Produce of it to another broker
    (which verifies it at the coordinator, logged in as the brokers): (coordinator, other, produce error)."""
    i, pid, epoch = coordinator_of(brokers, txn_id)
    assert add_partition(brokers[i], txn_id, pid, epoch, topic) == 0
    other = brokers[(i + 1) % len(brokers)]
    # The other broker names the coordinator from its view of the live brokers, which catches
    # up at its next membership refresh (under load, after the Metadata wait above).
    clients.wait_for(lambda: coordinator_seen_by(other, txn_id) == (0, brokers[i].bootstrap),
                     what="the other broker names the same coordinator")
    batch = kafka_wire.record_batch([(b"k", value)], pid, epoch, 0, attributes=0x10)
    with admin_socket(other) as s:
        s.sendall(kafka_wire.produce_request(topic, 0, batch, 5, transactional_id=txn_id))
        err, _ = kafka_wire.parse_produce_response(kafka_wire.read_frame(s))
    return brokers[i], other, err


def test_brokers_log_in_to_each_other_with_the_token_and_a_replaced_one_after_it_expires(oauth_cluster, keys):
    """Three brokers; the first token lives LIFETIME_S. A produce through a
    broker that is not the coordinator is verified there (the coordinator
    saw the AddPartitionsToTxn from ketch-broker, answered 0). The file is
    then rewritten with a token that lives an hour, and once the first has
    expired (a login with it would be refused, the session made with it is
    over) the same produce through the same broker succeeds: the broker read
    the new token, no restart."""
    lifetime_s = 40
    first = token(keys["idp"], lifetime_s)
    expires = time.time() + lifetime_s
    brokers = oauth_cluster((1, 2, 3), first)
    topic, txn_id = "ib-oauth", "ib-oauth-txn"
    wait_for_cluster(brokers, topic)
    traffic = [Traffic(b, ADMIN) for b in brokers]

    coordinator, other, err = produce_through_another(brokers, txn_id, topic, b"first")
    assert time.time() < expires - 1, "the first round outlived the first token: raise lifetime_s"
    assert err == 0, other.log_text()[-4000:]
    t = traffic[brokers.index(coordinator)]
    adds = [t.detail(x["seq"]) for x in t.exchanges(ADD_PARTITIONS, "ketch-broker")]
    assert adds and all(a["response"]["error_code"] == 0 for a in adds), adds
    assert "as User:broker (OAUTHBEARER)" in other.log_text()

    other.token_file.write_text(token(keys["idp"], 3600) + "\n")
    clients.wait_for(lambda: time.time() > expires + 1, timeout=lifetime_s + 10, what="the first token's expiry")
    coordinator2, other2, err = produce_through_another(brokers, txn_id, topic, b"second")
    assert (coordinator2, other2) == (coordinator, other)  # the same broker calls the same coordinator
    assert err == 0, other.log_text()[-4000:]
    assert "read a new token from %s" % other.token_file in other.log_text()


def test_a_token_the_brokers_do_not_trust_is_a_retriable_error_and_a_clear_log(oauth_cluster, keys):
    """The token is signed by a key the JWKS does not hold: the coordinator
    refuses the login, the produce through the other broker is answered
    NOT_ENOUGH_REPLICAS (retriable), twice the same, and that broker's log
    says the coordinator refused its inter-broker login."""
    brokers = oauth_cluster((1, 2), token(keys["stranger"], 3600))
    topic, txn_id = "ib-oauth-stranger", "ib-oauth-stranger-txn"
    wait_for_cluster(brokers, topic)
    for _ in range(2):
        _, other, err = produce_through_another(brokers, txn_id, topic, b"refused")
        assert err == NOT_ENOUGH_REPLICAS
    log = other.log_text()
    assert "refused this broker's inter-broker login (SASL_PLAINTEXT listener PLAINTEXT as User:broker " \
           "(OAUTHBEARER))" in log, log[-4000:]
    assert "SASL_AUTHENTICATION_FAILED" in log


def test_a_token_file_that_cannot_log_in_is_refused_at_start(postgres, s3, aws_env, tmp_path, keys):
    """An expired token, a file that is not a JWT, a missing file: exit code 1 naming the flag."""
    expired = tmp_path / "expired"
    expired.write_text(token(keys["idp"], -60))
    garbage = tmp_path / "garbage"
    garbage.write_text("not a token\n")
    for path, why in ((expired, "has expired"), (garbage, "is not a JWT"), (tmp_path / "missing", "cannot read")):
        run = tmp_path / ("run-%s" % path.name)
        argv = [str(clients._ketch_binary()), "--listen", "127.0.0.1:0", "--data-dir", str(run / "data"),
                "--listener", "PLAINTEXT=SASL_PLAINTEXT://127.0.0.1:0", "--sasl-mechanisms", "OAUTHBEARER",
                "--sasl-oauthbearer-unsecured", "--schema-registry=false", "--console=false", "--node-id", "7",
                "--cluster", postgres.url(), "--object-store", s3.url(), "--inter-broker-listener", "PLAINTEXT",
                "--inter-broker-oauthbearer-token-file", str(path)]
        r = subprocess.run(argv, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
        out = r.stdout + r.stderr
        assert r.returncode == 1, out
        assert "--inter-broker-oauthbearer-token-file %s: " % path in out and why in out, out
