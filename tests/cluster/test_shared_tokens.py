"""Delegation tokens shared by the brokers of a cluster (docs/cluster.md,
"security"): the tokens live in PostgreSQL (ketch_delegation_tokens) and each
change sends NOTIFY ketch_commit 'tokens', on which the other brokers reload
(shared/pg_token_store.h). Every broker gets the same
--delegation-token-secret-key: the HMAC (the token's password) is not stored.

Two brokers with SASL/SCRAM. The Java Admin 4.3.1 creates, renews and
expires tokens (it picks the broker itself); each broker is then asked on its
own SASL listener, on the wire: a SCRAM login with tokenauth=true
(ScramSaslServer's extension; Kafka's ScramExtensions) succeeds at both, and
DescribeDelegationToken at both lists the token with the same expiry. The
Java producer and consumer log in by token with only the other broker as
bootstrap. A token expired through one broker is refused at both; a
restarted broker keeps the tokens (its data directory holds none).

Behaviour references: Kafka's DelegationTokenManager (one
delegation.token.secret.key on every broker), KafkaApis.handleRenewTokenRequest
and ScramServerCallbackHandler (an expired token authenticates no one)."""

import base64
import socket
import struct
import sys
import types
from pathlib import Path

import pytest
from confluent_kafka.admin import (AclBinding, AclOperation, AclPermissionType, AdminClient, NewTopic,
                                   ResourcePatternType, ResourceType)

from conftest import clients
from test_shared_security import ADMIN, ADMIN_PW, login, start, with_sasl_address

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "behavior"))

from kafka_wire import Reader, frame, read_frame, request_header  # noqa: E402

SECRET = "cluster-token-secret"
USERS = {ADMIN: ADMIN_PW, "alice": "alice-pw", "bob": "bob-pw"}
DESCRIBE_DELEGATION_TOKEN = 41
TOPIC = "token-topic"


def token_logs_in(b, tok):
    sock = login(b, tok["token_id"], tok["hmac"], token=True)
    if sock is None:
        return False
    sock.close()
    return True


def described(b, user):
    """{token_id: expiry_ms} of DescribeDelegationToken v1 (all owners) sent to b itself as user."""
    sock = login(b, user, USERS[user])
    assert sock is not None
    with sock:
        body = struct.pack(">i", -1)  # owners: null, every token the caller may see
        sock.sendall(frame(request_header(DESCRIBE_DELEGATION_TOKEN, 1, 9, False) + body))
        r = Reader(read_frame(sock))
    assert r.take(">i") == 9
    assert r.take(">h") == 0

    def skip(length_format):
        n = r.take(length_format)
        r.pos += n

    out = {}
    for _ in range(r.take(">i")):
        skip(">h"), skip(">h")  # owner: principal type, name
        _, expiry, _ = r.take(">q"), r.take(">q"), r.take(">q")
        n = r.take(">h")
        out[r.data[r.pos:r.pos + n].decode()] = expiry  # the token id
        r.pos += n
        skip(">i")  # hmac
        for _ in range(r.take(">i")):  # renewers
            skip(">h"), skip(">h")
    return out


def java(b):
    if clients._missing("java"):
        pytest.skip("java driver not built")
    return clients.Driver("java", types.SimpleNamespace(bootstrap="%s:%d" % b.sasl))


def scram_config(user, password, token=False):
    extra = ' tokenauth="true"' if token else ""
    return {"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "SCRAM-SHA-256",
            "request.timeout.ms": "8000", "default.api.timeout.ms": "8000",
            "sasl.jaas.config": 'org.apache.kafka.common.security.scram.ScramLoginModule required '
                                'username="%s" password="%s"%s;' % (user, password, extra)}


def as_user(user):
    return scram_config(user, USERS[user])


def start_with_tokens(start_broker, node_id, toml, *extra):
    return start(start_broker, node_id, toml, "--delegation-token-secret-key", SECRET, *extra)


def test_a_token_made_through_one_broker_logs_in_renews_and_expires_on_every_broker(start_broker, postgres,
                                                                                   tmp_path):
    toml = tmp_path / "ketch.toml"
    toml.write_text("".join('[[users]]\nname = "%s"\npassword = "%s"\n' % kv for kv in USERS.items()))
    a, b = start_with_tokens(start_broker, 1, toml), start_with_tokens(start_broker, 2, toml)
    admin = AdminClient({"bootstrap.servers": "%s:%d" % a.sasl, "security.protocol": "SASL_PLAINTEXT",
                         "sasl.mechanisms": "SCRAM-SHA-256", "sasl.username": ADMIN, "sasl.password": ADMIN_PW})
    admin.create_topics([NewTopic(TOPIC, 1, 1)])[TOPIC].result(timeout=20)
    grant = AclBinding(ResourceType.TOPIC, TOPIC, ResourcePatternType.LITERAL, "User:alice", "*", AclOperation.ALL,
                       AclPermissionType.ALLOW)
    admin.create_acls([grant])[grant].result(timeout=20)

    out = java(a)("create-token", {"renewers": ["User:bob"], "config": as_user("alice")})
    assert out["error"] is None, out
    tok = out["token"]
    for broker in (a, b):  # the broker that did not serve it heard the NOTIFY
        clients.wait_for(lambda: token_logs_in(broker, tok), what="the token logs in at %s" % (broker.sasl,))
        assert described(broker, "alice") == {tok["token_id"]: tok["expiry_ms"]}
    assert postgres.psql("SELECT token_id, convert_from(owner, 'UTF8') FROM ketch_delegation_tokens") == \
        ["%s|User:alice" % tok["token_id"]]
    wrong = dict(tok, hmac=base64.b64encode(b"x" * 64).decode())
    assert not token_logs_in(a, wrong) and not token_logs_in(b, wrong)

    # The Java producer and consumer log in by token with only B as bootstrap.
    drv = java(b)
    values = [b"v0", b"v1"]
    produced = drv("produce", {"topic": TOPIC, "acks": "all", "config": scram_config(tok["token_id"], tok["hmac"],
                                                                                      token=True),
                               "records": [{"key": None, "value": base64.b64encode(v).decode(), "partition": 0}
                                           for v in values]})
    assert [r["error"] for r in produced["records"]] == [None, None], produced
    got = drv("consume", {"topic": TOPIC, "partitions": [0], "from": "beginning", "max_records": 2,
                          "timeout_ms": 20000, "config": scram_config(tok["token_id"], tok["hmac"], token=True)})
    assert [base64.b64decode(r["value"]) for r in got["records"]] == values

    # Renewed by bob (a renewer): both brokers describe the new expiry.
    renewed = java(b)("renew-token", {"hmac": tok["hmac"], "period_ms": 120_000, "config": as_user("bob")})
    assert renewed["error"] is None, renewed
    for broker in (a, b):
        clients.wait_for(lambda: described(broker, "alice") == {tok["token_id"]: renewed["expiry_ms"]},
                         what="the renewal seen at %s" % (broker.sasl,))

    # A restarted broker keeps the token.
    b.restart()
    with_sasl_address(b)
    assert described(b, "alice") == {tok["token_id"]: renewed["expiry_ms"]}
    assert token_logs_in(b, tok)

    # Expired (period 0) through one broker: its expiry is past, refused at both.
    expired = java(a)("expire-token", {"hmac": tok["hmac"], "period_ms": 0, "config": as_user("alice")})
    assert expired["error"] is None, expired
    for broker in (a, b):
        clients.wait_for(lambda: not token_logs_in(broker, tok), what="the token refused at %s" % (broker.sasl,))
    assert java(b)("renew-token", {"hmac": tok["hmac"], "config": as_user("bob")})["error"] == \
        "DELEGATION_TOKEN_EXPIRED"

    # Expired at once (a negative period) through one broker: gone at both and from PostgreSQL.
    other = java(b)("create-token", {"config": as_user("alice")})["token"]
    for broker in (a, b):
        clients.wait_for(lambda: token_logs_in(broker, other), what="the second token at %s" % (broker.sasl,))
    assert java(a)("expire-token", {"hmac": other["hmac"], "period_ms": -1, "config": as_user("alice")})["error"] \
        is None
    for broker in (a, b):
        clients.wait_for(lambda: other["token_id"] not in described(broker, "alice"),
                         what="the second token gone at %s" % (broker.sasl,))
        assert not token_logs_in(broker, other)
    assert other["token_id"] not in "".join(postgres.psql("SELECT token_id FROM ketch_delegation_tokens"))


def test_an_expired_token_is_swept_from_postgresql_once(start_broker, postgres, tmp_path):
    """Each broker sweeps expired tokens (--delegation-token-expiry-check-interval-ms; Kafka's
    DelegationTokenManager expireTokens, delegation.token.expiry.check.interval.ms). The
    store's removal is conditional on the stored expiry (pg_token_store.cc remove_expired), so
    a broker that has not heard of another's renewal cannot delete the renewed token (that race:
    tests/unit/security/delegation_tokens_test.cc a_sweep_keeps_a_token_another_broker_renewed);
    here the token did expire: its row goes, once, and no broker lists it any more."""
    toml = tmp_path / "ketch.toml"
    toml.write_text("".join('[[users]]\nname = "%s"\npassword = "%s"\n' % kv for kv in USERS.items()))
    sweep = ("--delegation-token-expiry-check-interval-ms", "200")
    a = start_with_tokens(start_broker, 1, toml, *sweep)
    b = start_with_tokens(start_broker, 2, toml, *sweep)
    rows = "SELECT count(*) FROM ketch_delegation_tokens"
    line = "removed 1 expired delegation token(s)"
    clients.wait_for(lambda: postgres.psql(rows) == ["0"], timeout=30, what="the module's earlier tokens swept")
    before = sum(x.log_text().count(line) for x in (a, b))
    out = java(a)("create-token", {"max_lifetime_ms": 6000, "config": as_user("alice")})
    assert out["error"] is None, out
    tok = out["token"]
    for broker in (a, b):
        clients.wait_for(lambda: tok["token_id"] in described(broker, "alice"), what="the token at %s" % (broker.sasl,))
    clients.wait_for(lambda: postgres.psql(rows) == ["0"], timeout=30, what="the expired token's row swept")
    for broker in (a, b):
        clients.wait_for(lambda: described(broker, "alice") == {}, what="no token listed at %s" % (broker.sasl,))
        assert not token_logs_in(broker, tok)
    swept = sum(x.log_text().count(line) for x in (a, b)) - before
    assert swept == 1, swept  # one broker's DELETE removed it; the other's found it gone
