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
- internals/secured/HttpAccessTokenRetriever.java (3.x; ClientCredentialsJwtRetriever.java
  in 4.x): sasl.oauthbearer.token.endpoint.url=https://... makes the login POST
  "grant_type=client_credentials" (and "&scope=" with
  sasl.oauthbearer.scope) with the client id and secret in an HTTP Basic
  header, and take the answer's access_token; the answers in
  UNRETRYABLE_HTTP_CODES (401 among them) are not retried, and the error
  names the status and the body's error and error_description;
- internals/expiring/ExpiringCredentialRefreshingLogin.java: the next token
  is got at sasl.login.refresh.window.factor (0.8) of the token's lifetime;
- internals/OAuthBearerSaslServer.java and the validator: an expired or
  wrongly signed token is refused (SASL_AUTHENTICATION_FAILED), and
  authenticator/SaslServerAuthenticator ends a session at its token's expiry
  (the kept connection is closed; the next one logs in with the new token).
"""

import base64
import json
import socket
import ssl
import struct
import subprocess
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from confluent_kafka.admin import AdminClient, NewTopic

from conftest import clients
from test_objstore_tls import make_certificate
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


CLIENT_ID, CLIENT_SECRET, SCOPE = "ketch-brokers", "s3cret:with/odd+chars", "kafka.broker cluster"


class TokenEndpoint:
    """An OAuth token endpoint of the client-credentials grant on loopback (https with `tls`, a (cert, key)):
    a POST with CLIENT_ID and CLIENT_SECRET in HTTP Basic and grant_type=client_credentials is answered a JWT
    for User:broker signed by `key` that lives `lifetime_s`, with expires_in; wrong credentials 401 invalid_client.
    `asked` records every request (its path, client id, content type and form)."""

    def __init__(self, key, lifetime_s, tls=None):
        self.asked = []
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                form = urllib.parse.parse_qs(self.rfile.read(int(self.headers.get("Content-Length", "0"))).decode())
                auth = self.headers.get("Authorization", "")
                given = base64.b64decode(auth[6:]).decode() if auth.startswith("Basic ") else ""
                client, _, secret = given.partition(":")
                endpoint.asked.append({"path": self.path, "client_id": client, "form": form,
                                       "content_type": self.headers.get("Content-Type")})
                if (client, secret) != (CLIENT_ID, CLIENT_SECRET):
                    return self.answer(401, {"error": "invalid_client", "error_description": "bad client credentials"})
                if form.get("grant_type") != ["client_credentials"]:
                    return self.answer(400, {"error": "unsupported_grant_type"})
                now = int(time.time())
                jwt = signed_jwt(key, "idp-1", {"sub": "broker", "iat": now, "exp": now + lifetime_s,
                                                "scope": form.get("scope", [""])[0]})
                self.answer(200, {"access_token": jwt, "token_type": "Bearer", "expires_in": lifetime_s})

            def answer(self, status, body):
                raw = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        if tls:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(str(tls[0]), str(tls[1]))
            self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = "%s://127.0.0.1:%d/oauth2/token" % ("https" if tls else "http", self.server.server_address[1])

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def certificate(tmp_path):
    return make_certificate(tmp_path, "token-endpoint", "IP:127.0.0.1")


def endpoint_flags(tmp_path, endpoint, secret=CLIENT_SECRET, ca=None):
    secret_file = tmp_path / ("client-secret-%d" % len(list(tmp_path.glob("client-secret-*"))))
    secret_file.write_text(secret + "\n")
    flags = ["--inter-broker-oauthbearer-token-endpoint", endpoint.url, "--inter-broker-oauthbearer-client-id",
             CLIENT_ID, "--inter-broker-oauthbearer-client-secret-file", str(secret_file),
             "--inter-broker-oauthbearer-scope", SCOPE]
    return flags + (["--inter-broker-oauthbearer-tls-ca", str(ca)] if ca else [])


def test_brokers_log_in_to_each_other_with_a_token_from_the_endpoint_and_its_successor(
        start_broker, tmp_path, keys, certificate):
    """Three brokers get their token from an https token endpoint (the test's own, its certificate trusted with
    --inter-broker-oauthbearer-tls-ca): a produce through a broker that does not coordinate the transactional id
    is verified at the coordinator, logged in with it. Each broker asks again at 80% of the token's lifetime,
    so once every first token has expired the same produce still succeeds: a new connection logs in with the
    successor."""
    lifetime_s = 30
    endpoint = TokenEndpoint(keys["idp"], lifetime_s, tls=certificate)
    try:
        toml = tmp_path / "ketch.toml"
        toml.write_text('[[users]]\nname = "%s"\npassword = "%s"\n' % ADMIN)
        jwks = tmp_path / "jwks.json"
        jwks.write_text(json.dumps({"keys": [jwk(keys["idp"], "idp-1")]}))
        flags = endpoint_flags(tmp_path, endpoint, ca=certificate[0])
        brokers = [start_broker(n, *FLUSH, *TIMING, "--config", str(toml),
                                "--listener", "PLAINTEXT=SASL_PLAINTEXT://127.0.0.1:0",
                                "--sasl-mechanisms", "OAUTHBEARER,PLAIN", "--sasl-oauthbearer-jwks", str(jwks),
                                "--sasl-oauthbearer-clock-skew-seconds", "0", "--inter-broker-listener", "PLAINTEXT",
                                "--inter-broker-sasl-mechanism", "OAUTHBEARER", *flags, console=True)
                   for n in (1, 2, 3)]
        first_expired = time.time() + lifetime_s + 1  # every broker got its first token before this line
        assert len(endpoint.asked) >= 3, endpoint.asked
        for asked in endpoint.asked:
            assert asked == {"path": "/oauth2/token", "client_id": CLIENT_ID,
                             "content_type": "application/x-www-form-urlencoded",
                             "form": {"grant_type": ["client_credentials"], "scope": [SCOPE]}}, asked
        topic, txn_id = "ib-endpoint", "ib-endpoint-txn"
        wait_for_cluster(brokers, topic)
        traffic = [Traffic(b, ADMIN) for b in brokers]
        coordinator, other, err = produce_through_another(brokers, txn_id, topic, b"first")
        assert err == 0, other.log_text()[-4000:]
        t = traffic[brokers.index(coordinator)]
        adds = [t.detail(x["seq"]) for x in t.exchanges(ADD_PARTITIONS, "ketch-broker")]
        assert adds and all(a["response"]["error_code"] == 0 for a in adds), adds
        assert "as User:broker (OAUTHBEARER)" in other.log_text()
        assert "got a token from %s (as User:broker)" % endpoint.url in other.log_text()

        clients.wait_for(lambda: time.time() > first_expired, timeout=lifetime_s + 10, what="the first tokens' expiry")
        assert len(endpoint.asked) >= 6, endpoint.asked  # each broker asked again, before its first expired
        for b in brokers:
            assert "got a new token from %s" % endpoint.url in b.log_text(), b.log_text()[-4000:]
        coordinator2, other2, err = produce_through_another(brokers, txn_id, topic, b"second")
        assert (coordinator2, other2) == (coordinator, other)
        assert err == 0, other.log_text()[-4000:]
    finally:
        endpoint.close()


def refused_start(postgres, s3, tmp_path, flags):
    run = tmp_path / ("run-%d" % len(list(tmp_path.glob("run-*"))))
    argv = [str(clients._ketch_binary()), "--listen", "127.0.0.1:0", "--data-dir", str(run / "data"),
            "--listener", "PLAINTEXT=SASL_PLAINTEXT://127.0.0.1:0", "--sasl-mechanisms", "OAUTHBEARER",
            "--sasl-oauthbearer-unsecured", "--schema-registry=false", "--console=false", "--node-id", "7",
            "--cluster", postgres.url(), "--object-store", s3.url(), "--inter-broker-listener", "PLAINTEXT", *flags]
    r = subprocess.run(argv, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    return r.returncode, r.stdout + r.stderr


def test_a_wrong_client_secret_or_an_untrusted_endpoint_is_refused_at_start(postgres, s3, aws_env, tmp_path, keys,
                                                                           certificate):
    """A wrong secret: the endpoint's 401 is not retried (asked once), and the broker exits 1 naming the flag,
    the status and the endpoint's error. An https endpoint whose certificate the system's trust store does not
    hold: retried, then the same exit naming the failed verification."""
    plain = TokenEndpoint(keys["idp"], 3600)
    secure = TokenEndpoint(keys["idp"], 3600, tls=certificate)
    try:
        code, out = refused_start(postgres, s3, tmp_path, endpoint_flags(tmp_path, plain, secret="wrong"))
        assert code == 1, out
        assert ('--inter-broker-oauthbearer-token-endpoint %s: the token endpoint answered 401 '
                '{"invalid_client" - "bad client credentials"}; not retried' % plain.url) in out, out
        assert [a["client_id"] for a in plain.asked] == [CLIENT_ID]

        code, out = refused_start(postgres, s3, tmp_path, endpoint_flags(tmp_path, secure))
        assert code == 1, out
        assert "--inter-broker-oauthbearer-token-endpoint %s: " % secure.url in out, out
        assert "TLS handshake" in out and "certificate verify failed" in out, out
        assert secure.asked == []
    finally:
        plain.close()
        secure.close()
