"""Delegation tokens (KIP-48) with real clients: the Java Admin 4.3.1 creates,
renews, expires and describes tokens; the Java producer and consumer (and
franz-go) log in with SCRAM and tokenauth=true as the token's owner; tokens
survive a restart; an expired or expired-by-request token is refused.

librdkafka (confluent-kafka, kcat) and kafka-python have no SCRAM extension
support (their client-first message carries no tokenauth=true), so they cannot
log in with a token; only the Java client and franz-go (scram.Auth.IsToken) can.

Behaviour references: Kafka's KafkaApis.handleCreateTokenRequest /
handleRenewTokenRequest / handleExpireTokenRequest / handleDescribeTokensRequest
and allowTokenRequests (core), DelegationTokenControlManager (metadata),
DelegationTokenManager.filterToken, ScramSaslServer and
ScramServerCallbackHandler (clients).
"""

import base64
import json
import re
import subprocess
import urllib.request
from types import SimpleNamespace

import pytest

from conftest import (REPO, Driver, DriverError, _missing, listener_address, own_broker, own_broker_scope,
                      release_own_broker)

# Under KETCH_TEST_CLUSTER=N each broker here is a cluster of N (conftest.own_broker): a token
# created through one broker logs in at once through any other (docs/cluster.md "Caches and
# read-through"), and every address below lists every broker.
OWN_BROKERS_JOIN_THE_MATRIX = True

KAFKA_SH = REPO / "conformance" / "reference" / "kafka.sh"

USERS = {"admin": "admin-pw", "alice": "alice-pw", "bob": "bob-pw", "carol": "carol-pw"}
SECRET = "token-secret-for-tests"
MAX_LIFETIME_MS = 3_600_000
EXPIRY_TIME_MS = 600_000


def _start(request, tmp_path_factory, name, extra):
    run = tmp_path_factory.mktemp(name)
    toml = run / "ketch.toml"
    toml.write_text("".join('[[users]]\nname = "%s"\npassword = "%s"\n' % kv for kv in USERS.items()))
    b = own_broker(request, run, [
        "--config", str(toml), "--listener", "SASL_PLAINTEXT=SASL_PLAINTEXT://127.0.0.1:0", *extra])
    b.reread = lambda: _addresses(b)
    b.reread()
    return b


def _addresses(b):
    """Each listener's bootstrap.servers: its address on every broker."""
    b.addresses = {name: listener_address(b, name) for name in b.listeners()[0]["listeners"]}


@pytest.fixture(scope=own_broker_scope)
def token_broker(request, tmp_path_factory):
    b = _start(request, tmp_path_factory, "token-broker", [
        "--delegation-token-secret-key", SECRET,
        "--delegation-token-max-lifetime-ms", str(MAX_LIFETIME_MS),
        "--delegation-token-expiry-time-ms", str(EXPIRY_TIME_MS),
        "--authorizer", "--super-users", "User:admin"])
    yield b
    release_own_broker(b)


def java(address):
    why = _missing("java")
    if why:
        pytest.skip(why)
    return Driver("java", SimpleNamespace(bootstrap=address))


def scram(user, password, mechanism="SCRAM-SHA-512", token=False):
    extra = ' tokenauth="true"' if token else ""
    return {"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": mechanism,
            "request.timeout.ms": "8000", "default.api.timeout.ms": "8000",
            "sasl.jaas.config": 'org.apache.kafka.common.security.scram.ScramLoginModule required '
                                'username="%s" password="%s"%s;' % (user, password, extra)}


def as_user(user):
    return scram(user, USERS[user])


def token_login(token, mechanism="SCRAM-SHA-256"):
    return scram(token["token_id"], token["hmac"], mechanism, token=True)


def admin_call(b, command, args, config):
    return java(b.addresses["SASL_PLAINTEXT"])(command, dict(args, config=config))


def grant(b, principal, operation, resource_type, name):
    out = admin_call(b, "create-acls", {"acls": [{
        "resource_type": resource_type, "name": name, "pattern": "LITERAL", "principal": principal,
        "host": "*", "operation": operation, "permission": "ALLOW"}]}, as_user("admin"))
    assert out["results"] == [{"error": None}], out


def produce_consume(drv, topic, config, n=3):
    values = [("%s-%d" % (topic, i)).encode() for i in range(n)]
    out = drv("produce", {"topic": topic, "acks": "all", "config": config,
                          "records": [{"key": None, "value": base64.b64encode(v).decode(), "partition": 0}
                                      for v in values]})
    assert [r["error"] for r in out["records"]] == [None] * n, out
    got = drv("consume", {"topic": topic, "partitions": [0], "from": "beginning", "max_records": n,
                          "timeout_ms": 20000, "config": config})
    assert [base64.b64decode(r["value"]) for r in got["records"]] == values


def login_refused(drv, config):
    try:
        out = drv.call("list-topics", {"config": config}, timeout=60)
    except DriverError as e:
        out = {"error": str(e)}
    text = json.dumps(out)
    return "SaslAuthenticationException" in text or "SASL_AUTHENTICATION_FAILED" in text


def test_token_requests_need_an_authenticated_non_token_connection(token_broker):
    """KafkaApis.allowTokenRequests: refused on PLAINTEXT."""
    drv = java(token_broker.bootstrap)
    assert drv("create-token", {})["error"] == "DELEGATION_TOKEN_REQUEST_NOT_ALLOWED"
    assert drv("describe-tokens", {})["error"] == "DELEGATION_TOKEN_REQUEST_NOT_ALLOWED"
    assert drv("renew-token", {"hmac": "AAAA"})["error"] == "DELEGATION_TOKEN_REQUEST_NOT_ALLOWED"


def test_create_describe_renew_expire_and_log_in_with_a_token(token_broker):
    b = token_broker
    grant(b, "User:alice", "ALL", "TOPIC", "*")
    out = admin_call(b, "create-token", {"renewers": ["User:bob"]}, as_user("alice"))
    assert out["error"] is None, out
    tok = out["token"]
    assert (tok["owner"], tok["requester"], tok["renewers"]) == ("User:alice", "User:alice", ["User:bob"])
    assert tok["expiry_ms"] - tok["issue_ms"] == EXPIRY_TIME_MS
    assert tok["max_ms"] - tok["issue_ms"] == MAX_LIFETIME_MS

    # Owner and renewer see it; carol only with DESCRIBE on the DELEGATION_TOKEN resource.
    ids = lambda user: [t["token_id"] for t in admin_call(b, "describe-tokens", {}, as_user(user))["tokens"]]
    assert tok["token_id"] in ids("alice") and tok["token_id"] in ids("bob")
    assert tok["token_id"] not in ids("carol")
    grant(b, "User:carol", "DESCRIBE", "DELEGATION_TOKEN", tok["token_id"])
    assert tok["token_id"] in ids("carol")
    described = [t for t in admin_call(b, "describe-tokens", {"owners": ["User:alice"]}, as_user("alice"))["tokens"]
                 if t["token_id"] == tok["token_id"]]
    assert described == [tok]

    # Renew: only the owner or a renewer.
    assert admin_call(b, "renew-token", {"hmac": tok["hmac"]}, as_user("carol"))["error"] == \
        "DELEGATION_TOKEN_OWNER_MISMATCH"
    renewed = admin_call(b, "renew-token", {"hmac": tok["hmac"], "period_ms": 60_000}, as_user("bob"))
    assert renewed["error"] is None and renewed["expiry_ms"] <= tok["max_ms"], renewed

    # The Java producer and consumer log in with the token as alice.
    drv = java(b.addresses["SASL_PLAINTEXT"])
    produce_consume(drv, "token-java", token_login(tok))
    produce_consume(drv, "token-java-512", token_login(tok, "SCRAM-SHA-512"))
    # A token-authenticated connection may not manage tokens.
    assert admin_call(b, "describe-tokens", {}, token_login(tok))["error"] == "DELEGATION_TOKEN_REQUEST_NOT_ALLOWED"
    # A wrong HMAC is refused.
    assert login_refused(drv, scram(tok["token_id"], base64.b64encode(b"x" * 64).decode(), "SCRAM-SHA-256", True))

    # Expired now (a negative period): gone, and its login refused.
    out = admin_call(b, "expire-token", {"hmac": tok["hmac"], "period_ms": -1}, as_user("alice"))
    assert out["error"] is None, out
    assert tok["token_id"] not in ids("alice")
    assert login_refused(drv, token_login(tok))
    assert admin_call(b, "renew-token", {"hmac": tok["hmac"]}, as_user("alice"))["error"] == \
        "DELEGATION_TOKEN_NOT_FOUND"


def test_franz_go_logs_in_with_a_token(token_broker):
    b = token_broker
    why = _missing("franz-go")
    if why:
        pytest.skip(why)
    grant(b, "User:alice", "ALL", "TOPIC", "*")
    tok = admin_call(b, "create-token", {}, as_user("alice"))["token"]
    drv = Driver("franz-go", SimpleNamespace(bootstrap=b.addresses["SASL_PLAINTEXT"]))
    config = {"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "SCRAM-SHA-512",
              "sasl.username": tok["token_id"], "sasl.password": tok["hmac"], "sasl.scram.tokenauth": "true"}
    out = drv("create-topics", {"topics": [{"name": "token-franz", "partitions": 1, "replication_factor": 1}],
                                "config": config})
    assert [r["error"] for r in out["results"]] == [None], out
    produce_consume(drv, "token-franz", config)


def test_an_expired_token_is_refused(token_broker):
    b = token_broker
    tok = admin_call(b, "create-token", {}, as_user("bob"))["token"]
    out = admin_call(b, "expire-token", {"hmac": tok["hmac"], "period_ms": 0}, as_user("bob"))
    assert out["error"] is None and out["expiry_ms"] >= tok["issue_ms"], out
    # Its expiry is now in the past (the JVM start alone takes longer than 1 ms).
    drv = java(b.addresses["SASL_PLAINTEXT"])
    assert login_refused(drv, token_login(tok))
    assert admin_call(b, "renew-token", {"hmac": tok["hmac"]}, as_user("bob"))["error"] == "DELEGATION_TOKEN_EXPIRED"


def test_owner_other_than_the_requester_needs_create_tokens(token_broker):
    b = token_broker
    out = admin_call(b, "create-token", {"owner": "User:bob"}, as_user("carol"))
    assert out["error"] == "DELEGATION_TOKEN_AUTHORIZATION_FAILED", out
    grant(b, "User:carol", "CREATE_TOKENS", "USER", "User:bob")
    out = admin_call(b, "create-token", {"owner": "User:bob"}, as_user("carol"))
    assert out["error"] is None, out
    assert (out["token"]["owner"], out["token"]["requester"]) == ("User:bob", "User:carol")
    assert admin_call(b, "create-token", {"renewers": ["Group:x"]}, as_user("carol"))["error"] == \
        "INVALID_PRINCIPAL_TYPE"


def test_tokens_survive_a_restart(token_broker):
    b = token_broker
    grant(b, "User:alice", "ALL", "TOPIC", "*")
    tok = admin_call(b, "create-token", {}, as_user("alice"))["token"]
    b.restart()
    b.reread()
    described = [t for t in admin_call(b, "describe-tokens", {}, as_user("alice"))["tokens"]
                 if t["token_id"] == tok["token_id"]]
    assert described == [tok]
    produce_consume(java(b.addresses["SASL_PLAINTEXT"]), "token-restart", token_login(tok))


def test_without_a_secret_tokens_are_disabled(request, tmp_path_factory):
    b = _start(request, tmp_path_factory, "no-secret-broker", [])
    try:
        assert admin_call(b, "create-token", {}, as_user("alice"))["error"] == "DELEGATION_TOKEN_AUTH_DISABLED"
        assert admin_call(b, "describe-tokens", {}, as_user("alice"))["error"] == "DELEGATION_TOKEN_AUTH_DISABLED"
        assert admin_call(b, "renew-token", {"hmac": "AAAA"}, as_user("alice"))["error"] == \
            "DELEGATION_TOKEN_AUTH_DISABLED"
    finally:
        release_own_broker(b)


def test_the_secret_is_a_sensitive_broker_config(token_broker):
    """delegation.token.secret.key is a PASSWORD config: DescribeConfigs shows it set
    (STATIC_BROKER_CONFIG) without its value, as Kafka's KafkaConfig does."""
    b = token_broker
    node = str(admin_call(b, "describe-cluster", {}, as_user("admin"))["brokers"][0]["id"])
    keys = ["delegation.token.secret.key", "delegation.token.max.lifetime.ms", "delegation.token.expiry.time.ms"]
    got = admin_call(b, "describe-configs", {"resource": "broker", "name": node, "keys": keys}, as_user("admin"))
    assert got["error"] is None, got
    secret = got["configs"]["delegation.token.secret.key"]
    assert (secret["value"], secret["sensitive"], secret["source"]) == (None, True, "STATIC_BROKER_CONFIG"), got
    assert got["configs"]["delegation.token.max.lifetime.ms"]["value"] == str(MAX_LIFETIME_MS)
    assert got["configs"]["delegation.token.expiry.time.ms"]["value"] == str(EXPIRY_TIME_MS)


REAUTH_MS = 2000


def _metric(urls, name, labels=""):
    """The metric summed over the brokers' metrics endpoints."""
    total = 0.0
    for url in urls:
        text = urllib.request.urlopen(url, timeout=10).read().decode()
        m = re.search(r"^%s%s (\S+)$" % (re.escape(name), re.escape(labels)), text, re.M)
        total += float(m.group(1)) if m else 0.0
    return total


@pytest.fixture(scope=own_broker_scope)
def reauth_broker(request, tmp_path_factory):
    b = _start(request, tmp_path_factory, "token-reauth-broker", [
        "--delegation-token-secret-key", SECRET, "--connections-max-reauth-ms", str(REAUTH_MS),
        "--metrics-listen", "127.0.0.1:0", "--schema-registry=false", "--console=false"])
    b.metrics_urls = [listeners["metrics"] for listeners in b.listeners()]
    yield b
    release_own_broker(b)


def test_a_token_session_is_reauthenticated_on_the_same_connection(reauth_broker, tmp_path):
    """KIP-368 with a delegation token: the broker announces a session lifetime (here
    connections.max.reauth.ms, below the token's expiry: the shorter of the two, as
    SaslServerAuthenticator.ReauthInfo computes it; tests/unit/security/scram_token_auth_test.cc
    has the token's own expiry as the bound), and the Java producer 4.3.1
    (KafkaChannel.maybeBeginClientReauthentication) logs in again with the token's SCRAM
    exchange on its open connection before the session ends. A producer sending for several
    session lifetimes opens no new connection and loses no record, and the broker answers
    SaslAuthenticate more times than the producer has connections: it was re-authenticated.
    (An expired session is closed at its next request: tests/behavior/test_sasl_wire.py.)"""
    b = reauth_broker
    tok = admin_call(b, "create-token", {}, as_user("alice"))["token"]
    assert tok["expiry_ms"] - tok["issue_ms"] > 10 * REAUTH_MS, tok
    cfg = tmp_path / "producer.properties"
    cfg.write_text("".join("%s=%s\n" % kv for kv in token_login(tok).items()))
    logins_before = _metric(b.metrics_urls, "ketch_request_duration_seconds_count", '{api="SaslAuthenticate"}')
    accepted_before = _metric(b.metrics_urls, "ketch_connections_accepted_total")
    records = 50  # at 5 a second: 10 s, five session lifetimes
    p = subprocess.run([str(KAFKA_SH), "tools", "org.apache.kafka.tools.VerifiableProducer", "--bootstrap-server",
                        b.addresses["SASL_PLAINTEXT"], "--topic", "token-reauth", "--max-messages", str(records),
                        "--throughput", "5", "--acks", "-1", "--producer.config", str(cfg)],
                       capture_output=True, timeout=180)
    assert p.returncode == 0, p.stderr.decode()[-3000:]
    events = [json.loads(line) for line in p.stdout.splitlines() if line.startswith(b"{")]
    acked = [e for e in events if e.get("name") == "producer_send_success"]
    assert len(acked) == records and not [e for e in events if e.get("name") == "producer_send_error"], events[-3:]
    connections = _metric(b.metrics_urls, "ketch_connections_accepted_total") - accepted_before
    logins = _metric(b.metrics_urls, "ketch_request_duration_seconds_count", '{api="SaslAuthenticate"}') - logins_before
    assert _metric(b.metrics_urls, "ketch_authentication_failures_total") == 0
    # Each connection logs in once (SCRAM: two SaslAuthenticate rounds); more rounds than
    # that are re-authentications on connections already open. The producer holds the
    # bootstrap connection and one to each partition leader's broker (one broker, or under
    # KETCH_TEST_CLUSTER each of the cluster's), none opened again for a new session.
    assert 1 <= connections <= 1 + len(b.metrics_urls), connections
    assert logins >= 2 * connections + 2 * 2, (logins, connections)
