"""SASL/OAUTHBEARER with real clients: unsecured JWTs (development) and RS256 / ES256
JWTs signed by a key of a JWKS file; expired and wrongly signed tokens refused with
SASL_AUTHENTICATION_FAILED; KIP-368 re-authentication before a token expires.

Keys are made at test time with the `cryptography` package; nothing secret is
committed. Behaviour references (Kafka, clients/src/main/java/org/apache/kafka/common/
security/): oauthbearer/internals/OAuthBearerSaslServer (the {"status":"invalid_token"}
challenge, then the failure with it as the message),
oauthbearer/internals/unsecured/OAuthBearerUnsecuredValidatorCallbackHandler,
oauthbearer/OAuthBearerValidatorCallbackHandler, authenticator/SaslServerAuthenticator
(ReauthInfo: the session lifetime is the token's remaining lifetime).
"""

import base64
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
import urllib.request
import uuid
from pathlib import Path
from types import SimpleNamespace

import pytest

from conftest import (REPO, Driver, DriverError, _ketch_binary, _missing, listener_address, own_broker,
                      own_broker_scope, release_own_broker)

# Under KETCH_TEST_CLUSTER=N each broker started here is a cluster of N (tests/clients/cluster_matrix.py).
OWN_BROKERS_JOIN_THE_MATRIX = True

cryptography = pytest.importorskip("cryptography")
from cryptography.hazmat.primitives.asymmetric import ec, rsa  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "behavior"))
from jwt_mint import b64url, jwk, signed_jwt  # noqa: E402,F401

KAFKA_SH = REPO / "conformance" / "reference" / "kafka.sh"
ISSUER = "https://idp.ketch.test"
AUDIENCE = "ketch"


def claims(sub="alice", lifetime_s=3600, **extra):
    now = int(time.time())
    return {"sub": sub, "iat": now, "exp": now + lifetime_s, "iss": ISSUER, "aud": AUDIENCE, **extra}


@pytest.fixture(scope="module")
def keys():
    return SimpleNamespace(rsa=rsa.generate_private_key(65537, 2048), ec=ec.generate_private_key(ec.SECP256R1()),
                           stranger=rsa.generate_private_key(65537, 2048))


def start_broker(request, tmp_path_factory, name, args):
    b = own_broker(request, tmp_path_factory.mktemp(name), [
        "--schema-registry=false", "--console=false", "--metrics-listen", "127.0.0.1:0",
        "--listener", "SASL_PLAINTEXT=SASL_PLAINTEXT://127.0.0.1:0", *args])
    b.sasl = listener_address(b, "SASL_PLAINTEXT")
    b.metrics_urls = [listeners["metrics"] for listeners in b.listeners()]
    return b


@pytest.fixture(scope=own_broker_scope)
def unsecured_broker(request, tmp_path_factory):
    b = start_broker(request, tmp_path_factory, "oauth-unsecured", ["--sasl-oauthbearer-unsecured"])
    yield b
    release_own_broker(b)


@pytest.fixture(scope=own_broker_scope)
def jwks_broker(request, tmp_path_factory, keys):
    d = tmp_path_factory.mktemp("jwks")
    (d / "jwks.json").write_text(json.dumps({"keys": [jwk(keys.rsa, "rsa-1"), jwk(keys.ec, "ec-1")]}))
    b = start_broker(request, tmp_path_factory, "oauth-jwks", [
        "--sasl-mechanisms", "OAUTHBEARER", "--sasl-oauthbearer-jwks", str(d / "jwks.json"),
        "--sasl-oauthbearer-expected-issuer", ISSUER, "--sasl-oauthbearer-expected-audience", AUDIENCE])
    yield b
    release_own_broker(b)


def driver(name, address):
    why = _missing(name)
    if why:
        pytest.skip(why)
    return Driver(name, SimpleNamespace(bootstrap=address))


def produce_and_consume(drv, config, topic):
    values = [("%s %d" % (topic, i)).encode() for i in range(3)]
    out = drv("produce", {"topic": topic, "acks": "all", "config": config,
                          "records": [{"key": None, "value": base64.b64encode(v).decode(), "partition": 0}
                                      for v in values]})
    assert [r["error"] for r in out["records"]] == [None] * 3, out
    got = drv("consume", {"topic": topic, "partitions": [0], "from": "beginning", "max_records": 3,
                          "timeout_ms": 20000, "config": config})
    assert [base64.b64decode(r["value"]) for r in got["records"]] == values


def test_java_client_logs_in_with_an_unsecured_jwt(unsecured_broker):
    """OAuthBearerLoginModule with Kafka's default OAuthBearerUnsecuredLoginCallbackHandler."""
    drv = driver("java", unsecured_broker.sasl)
    config = {"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "OAUTHBEARER",
              "sasl.jaas.config": "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required "
                                  'unsecuredLoginStringClaim_sub="alice";'}
    produce_and_consume(drv, config, "oauth-java-unsecured")


def test_confluent_logs_in_with_librdkafkas_unsecured_jwt(unsecured_broker):
    drv = driver("confluent", unsecured_broker.sasl)
    config = {"security.protocol": "SASL_PLAINTEXT", "sasl.mechanisms": "OAUTHBEARER",
              "enable.sasl.oauthbearer.unsecure.jwt": "true", "sasl.oauthbearer.config": "principal=alice"}
    produce_and_consume(drv, config, "oauth-confluent-unsecured")


def confluent_producer(address, token_fn, errors):
    ck = pytest.importorskip("confluent_kafka")
    return ck.Producer({"bootstrap.servers": address, "security.protocol": "SASL_PLAINTEXT",
                        "sasl.mechanisms": "OAUTHBEARER", "oauth_cb": token_fn,
                        "error_cb": lambda e: errors.append(e), "message.timeout.ms": 15000})


def produce_one(p, topic):
    delivered = []
    p.produce(topic, b"v", on_delivery=lambda err, msg: delivered.append(err))
    p.flush(20)
    return delivered


@pytest.mark.parametrize("kind", ["rsa", "ec"])
def test_confluent_logs_in_with_a_signed_jwt(jwks_broker, keys, kind):
    """oauth_cb hands librdkafka an RS256 / ES256 token signed by a key of the broker's JWKS."""
    key, kid = (keys.rsa, "rsa-1") if kind == "rsa" else (keys.ec, "ec-1")
    errors = []

    def token(_config):
        c = claims("svc-" + kind)
        return signed_jwt(key, kid, c), float(c["exp"])

    p = confluent_producer(jwks_broker.sasl, token, errors)
    assert produce_one(p, "oauth-signed-" + kind) == [None], errors


def _verifiable_producer(address, config_file, topic, records, env):
    """Kafka's VerifiableProducer (the reference's jars: kafka-clients with jose4j, which the
    Java driver's classpath lacks): (acknowledged count, its output)."""
    p = subprocess.run([str(KAFKA_SH), "tools", "org.apache.kafka.tools.VerifiableProducer", "--bootstrap-server",
                        address, "--topic", topic, "--max-messages", str(records), "--acks", "-1",
                        "--producer.config", str(config_file)], capture_output=True, timeout=120, env=env)
    events = [json.loads(line) for line in p.stdout.splitlines() if line.startswith(b"{")]
    return len([e for e in events if e.get("name") == "producer_send_success"]), (p.stdout + p.stderr).decode()


def test_java_client_logs_in_with_a_signed_jwt(jwks_broker, keys, tmp_path):
    """The Java client 4.3.1's own OAuthBearerLoginCallbackHandler with a signed JWT from a file
    (DefaultJwtRetriever: a file: token endpoint URL is read by FileJwtRetriever; Kafka 4.x
    reads it only when the JVM's org.apache.kafka.sasl.oauthbearer.allowed.urls lists it),
    checked by the client's ClientJwtValidator, then by the broker against its JWKS. The same
    client with a token signed by a key the JWKS lacks is refused."""
    if not shutil.which("java") or not (KAFKA_SH.parent / "dist" / "lib" / "kafka-tools-4.3.1.jar").exists():
        pytest.skip("java or the kafka-tools jars are missing (scripts/install-test-deps.sh)")
    jwt = tmp_path / "token.jwt"
    url = "file:" + str(jwt)
    env = dict(os.environ, JAVA_TOOL_OPTIONS="-Dorg.apache.kafka.sasl.oauthbearer.allowed.urls=" + url)
    cfg = tmp_path / "producer.properties"
    cfg.write_text("security.protocol=SASL_PLAINTEXT\nsasl.mechanism=OAUTHBEARER\n"
                   "sasl.login.callback.handler.class="
                   "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler\n"
                   "sasl.oauthbearer.token.endpoint.url=%s\nmax.block.ms=8000\ndelivery.timeout.ms=8000\n"
                   "request.timeout.ms=5000\nsasl.jaas.config="
                   "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required;\n" % url)
    jwt.write_text(signed_jwt(keys.rsa, "rsa-1", claims("svc-java", scope="kafka")))
    acked, out = _verifiable_producer(jwks_broker.sasl, cfg, "oauth-java-signed", 5, env)
    assert acked == 5, out[-3000:]
    jwt.write_text(signed_jwt(keys.stranger, "rsa-1", claims("svc-java", scope="kafka")))
    acked, out = _verifiable_producer(jwks_broker.sasl, cfg, "oauth-java-signed", 1, env)
    assert acked == 0 and "SaslAuthenticationException" in out, out[-3000:]


def refused(address, token):
    errors = []
    p = confluent_producer(address, lambda _c: (token, time.time() + 3600), errors)
    deadline = time.monotonic() + 20
    while not errors and time.monotonic() < deadline:
        p.poll(0.2)
    return " ".join(str(e) for e in errors)


@pytest.mark.parametrize("case", ["expired", "wrong_signature", "unknown_kid", "wrong_issuer", "wrong_audience"])
def test_bad_signed_tokens_are_refused_with_sasl_authentication_failed(jwks_broker, keys, case):
    c = claims()
    key, kid = keys.rsa, "rsa-1"
    if case == "expired":
        c.update(iat=c["iat"] - 7200, exp=c["iat"] - 3600)  # well past the 30 s clock skew
    elif case == "wrong_signature":
        key = keys.stranger
    elif case == "unknown_kid":
        kid = "rsa-2"
    elif case == "wrong_issuer":
        c["iss"] = "https://evil.test"
    else:
        c["aud"] = "someone-else"
    text = refused(jwks_broker.sasl, signed_jwt(key, kid, c))
    # librdkafka reports the failed SaslAuthenticate (_AUTHENTICATION) with the broker's
    # message: Kafka's RFC 7628 JSON (tests/behavior/test_sasl_wire.py checks the code, 58).
    assert "SASL authentication error: {\"status\":\"invalid_token\"}" in text, text


def test_an_expired_unsecured_jwt_is_refused(unsecured_broker):
    expired = "%s.%s." % (b64url(b'{"alg":"none"}'),
                          b64url(json.dumps({"sub": "alice", "exp": int(time.time()) - 60}).encode()))
    # franz-go's own TestOAuthAuth (the outside suite) checks the same refusal with its client.
    text = refused(unsecured_broker.sasl, expired)
    assert '{"status":"invalid_token"}' in text, text


def metric(broker, name):
    """The metric's value summed over the brokers (one, or a cluster's)."""
    total = 0
    for url in broker.metrics_urls:
        text = urllib.request.urlopen(url, timeout=10).read().decode()
        m = re.search(r"^%s(?:\{[^}]*\})? (\d+)" % re.escape(name), text, re.M)
        total += int(m.group(1))
    return total


def test_clients_reauthenticate_before_their_tokens_expire(jwks_broker, keys):
    """KIP-368: the broker announces the token's remaining lifetime as the session
    lifetime; librdkafka refreshes its token and re-authenticates on the same
    connection, so producing for three token lifetimes opens no new connection (a
    session that ran out would be closed by the broker and the client reconnect)."""
    lifetime_s, errors, tokens = 6, [], []

    def token(_config):
        c = claims("alice", lifetime_s)
        tokens.append(c["exp"])
        return signed_jwt(keys.rsa, "rsa-1", c), float(c["exp"])

    p = confluent_producer(jwks_broker.sasl, token, errors)
    topic = "oauth-reauth-" + uuid.uuid4().hex[:8]
    assert produce_one(p, topic) == [None], errors  # its bootstrap and broker connections are open now
    accepted = metric(jwks_broker, "ketch_connections_accepted_total")
    deadline = time.monotonic() + 3 * lifetime_s
    while time.monotonic() < deadline:
        assert produce_one(p, topic) == [None], errors
        time.sleep(0.5)
    assert len(tokens) >= 3, tokens  # librdkafka refreshed its token
    assert metric(jwks_broker, "ketch_connections_accepted_total") == accepted
    assert not [e for e in errors if "authentication" in str(e).lower()], errors


def unsecured_token(sub, exp):
    return "%s.%s." % (b64url(b'{"alg":"none"}'), b64url(json.dumps({"sub": sub, "exp": exp}).encode()))


def test_ketch_cli_logs_in_with_a_static_token(unsecured_broker):
    """ketch's own client: -X sasl.mechanism=OAUTHBEARER -X sasl.oauthbearer.token=JWT."""
    def cli(token):
        return subprocess.run([str(_ketch_binary()), "topic", "list", "--json", "-b", unsecured_broker.sasl,
                               "-X", "security.protocol=SASL_PLAINTEXT", "-X", "sasl.mechanism=OAUTHBEARER",
                               "-X", "sasl.oauthbearer.token=" + token], capture_output=True, timeout=60)
    ok = cli(unsecured_token("alice", int(time.time()) + 60))
    assert ok.returncode == 0, ok.stderr.decode()
    assert isinstance(json.loads(ok.stdout), list)
    bad = cli(unsecured_token("alice", int(time.time()) - 60))
    assert bad.returncode != 0
    assert "SASL_AUTHENTICATION_FAILED" in bad.stderr.decode() and "invalid_token" in bad.stderr.decode(), bad.stderr


class _JwksServer(http.server.BaseHTTPRequestHandler):
    body = b""

    def do_GET(self):  # noqa: N802 (http.server's name)
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(type(self).body)))
        self.end_headers()
        self.wfile.write(type(self).body)

    def log_message(self, *args):
        pass


def test_a_jwks_url_is_fetched_at_start_and_again_every_refresh_interval(request, tmp_path_factory, keys):
    """--sasl-oauthbearer-jwks http://...: the keys served at start verify tokens; a key
    added to the document later is used once the broker fetched it again
    (sasl.oauthbearer.jwks.endpoint.refresh.ms)."""
    _JwksServer.body = json.dumps({"keys": [jwk(keys.rsa, "rsa-1")]}).encode()
    httpd = http.server.HTTPServer(("127.0.0.1", 0), _JwksServer)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    url = "http://127.0.0.1:%d/jwks.json" % httpd.server_port
    b = start_broker(request, tmp_path_factory, "oauth-jwks-url", [
        "--sasl-oauthbearer-jwks", url, "--sasl-oauthbearer-jwks-refresh-ms", "300",
        "--sasl-oauthbearer-expected-issuer", ISSUER, "--sasl-oauthbearer-expected-audience", AUDIENCE])
    try:
        errors = []
        p = confluent_producer(b.sasl, lambda _c: (signed_jwt(keys.rsa, "rsa-1", claims()), time.time() + 3600),
                               errors)
        assert produce_one(p, "oauth-url") == [None], errors
        assert "SASL authentication error" in refused(b.sasl, signed_jwt(keys.ec, "ec-1", claims()))
        _JwksServer.body = json.dumps({"keys": [jwk(keys.rsa, "rsa-1"), jwk(keys.ec, "ec-1")]}).encode()
        deadline = time.monotonic() + 30
        while True:  # the broker's next fetch (every 300 ms) brings the new key
            errors = []
            p = confluent_producer(b.sasl, lambda _c: (signed_jwt(keys.ec, "ec-1", claims()), time.time() + 3600),
                                   errors)
            if produce_one(p, "oauth-url") == [None]:
                break
            assert time.monotonic() < deadline, errors
    finally:
        release_own_broker(b)
        httpd.shutdown()


def test_a_token_with_a_kid_the_broker_lacks_makes_it_fetch_the_jwks_url_again(request, tmp_path_factory, keys):
    """As Kafka's RefreshingHttpsJwks: an unknown kid triggers a fetch before the refresh
    interval (here an hour), at most once per 10 s."""
    _JwksServer.body = json.dumps({"keys": [jwk(keys.rsa, "rsa-1")]}).encode()
    httpd = http.server.HTTPServer(("127.0.0.1", 0), _JwksServer)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    b = start_broker(request, tmp_path_factory, "oauth-jwks-kid", [
        "--sasl-oauthbearer-jwks", "http://127.0.0.1:%d/jwks.json" % httpd.server_port,
        "--sasl-oauthbearer-expected-issuer", ISSUER, "--sasl-oauthbearer-expected-audience", AUDIENCE])
    try:
        _JwksServer.body = json.dumps({"keys": [jwk(keys.rsa, "rsa-1"), jwk(keys.ec, "ec-1")]}).encode()
        deadline = time.monotonic() + 40
        while True:  # each refused login asks for a fetch; the first allowed one brings ec-1
            errors = []
            p = confluent_producer(b.sasl, lambda _c: (signed_jwt(keys.ec, "ec-1", claims()), time.time() + 3600),
                                   errors)
            if produce_one(p, "oauth-kid") == [None]:
                break
            assert time.monotonic() < deadline, errors
    finally:
        release_own_broker(b)
        httpd.shutdown()
