"""`ketch tenant delete T` deletes everything T owns (docs/tenancy.md "Administration";
console/tenant_purge.cc), made with real clients: topics and their records, consumer
groups and their committed offsets (confluent-kafka), ACLs on its resources and of its
users, SCRAM users, client quotas of its users (`ketch quota`, the CLI's AlterClientQuotas),
delegation tokens owned by its users (the Java Admin creates them; the Java client and a
SCRAM client written from RFC 5802 log in with them), transactional ids (confluent-kafka:
a committed one and one in flight) and its limits. Afterwards a login with the tenant's
token is refused, a connection already logged in with it is closed at its next request,
the in-flight transaction is aborted (its producer cannot commit), ListTransactions and
DescribeTransactions know none of its ids, and a tenant created again under the name
starts empty. Tenant alice holds the same names all along and keeps every one of them.

A tenant never created (a user is its own tenant) is deleted the same way; a name that
was never created and owns nothing is 404.

Behaviour references (what Kafka has that the purge stands in for): Kafka has no
tenants; ExpireDelegationToken is the owner's or a renewer's only
(DelegationTokenControlManager.expireDelegationToken), and a transactional id is only
removed by its expiration (TransactionStateManager.removeExpiredTransactionalIds), an
open transaction by its timeout (TransactionCoordinator.abortTimedOutTransactions):
the purge does both at once.
"""

import base64
import json
import socket
import struct
import subprocess
import sys
import threading
from pathlib import Path
from types import SimpleNamespace

import pytest

from conftest import BrokerProcess, Driver, _ketch_binary, _missing, wait_for
from test_delegation_tokens import login_refused

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "behavior"))
import sasl_wire as sw  # noqa: E402

USERS = {"alice": "alice-pw", "bob": "bob-pw", "carol": "carol-pw", "root": "root-pw"}
SECRET = "tenant-delete-token-secret"


@pytest.fixture(scope="module")
def broker(tmp_path_factory):
    run = tmp_path_factory.mktemp("tenant-delete")
    toml = run / "ketch.toml"
    toml.write_text("".join('[[users]]\nname = "%s"\npassword = "%s"\n' % kv for kv in USERS.items()))
    (run / "data").mkdir()
    b = BrokerProcess(_ketch_binary(), run / "data", run, [
        "--config", str(toml), "--tenancy", "--authorizer", "--super-users", "User:root",
        "--delegation-token-secret-key", SECRET, "--schema-registry=false",
        "--listener", "SASL_PLAINTEXT=SASL_PLAINTEXT://127.0.0.1:0"])
    b.start()
    listeners = json.loads((run / "data" / "listeners.json").read_text())
    b.address = listeners["listeners"]["SASL_PLAINTEXT"]["address"]
    b.console_url = listeners["console"]
    yield b
    b.stop()


def sasl(user):
    return {"security.protocol": "SASL_PLAINTEXT", "sasl.mechanisms": "PLAIN", "sasl.username": user,
            "sasl.password": USERS[user]}


def java_plain(user):
    return {"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN", "sasl.jaas.config":
            'org.apache.kafka.common.security.plain.PlainLoginModule required username="%s" password="%s";'
            % (user, USERS[user]), "request.timeout.ms": "8000", "default.api.timeout.ms": "8000"}


def java_token(token):
    return {"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "SCRAM-SHA-256",
            "request.timeout.ms": "8000", "default.api.timeout.ms": "8000",
            "sasl.jaas.config": 'org.apache.kafka.common.security.scram.ScramLoginModule required '
                                'username="%s" password="%s" tokenauth="true";' % (token["token_id"], token["hmac"])}


def driver(name, address):
    why = _missing(name)
    if why:
        pytest.skip(why)
    return Driver(name, SimpleNamespace(bootstrap=address))


def ketch(*args, check=True):
    p = subprocess.run([str(_ketch_binary()), *map(str, args)], capture_output=True, timeout=60)
    if check and p.returncode != 0:
        raise AssertionError("ketch %s exited %d: %s" % (args, p.returncode, p.stderr.decode()))
    return p


class TokenScram(sw.ScramClient):
    """SCRAM with the tokenauth=true extension in the client-first message (RFC 5802
    extensions; Kafka's ScramExtensions), as a client logging in with a token sends it."""

    def first(self):
        out = super().first()
        self.bare += ",tokenauth=true"
        return out + b",tokenauth=true"


def token_connection(address, token):
    """A raw connection logged in with `token` (SCRAM-SHA-256, tokenauth=true)."""
    host, _, port = address.rpartition(":")
    s = socket.create_connection((host, int(port)), timeout=15)
    assert sw.parse_handshake_response(sw.exchange(s, sw.handshake_request("SCRAM-SHA-256")))[1] == 0
    c = TokenScram("SCRAM-SHA-256", token["token_id"], token["hmac"])
    _, err, msg, server_first, _ = sw.parse_authenticate_response(sw.exchange(s, sw.authenticate_request(c.first())))
    assert err == 0, msg
    _, err, msg, _, _ = sw.parse_authenticate_response(
        sw.exchange(s, sw.authenticate_request(c.final(server_first), correlation_id=3)))
    assert err == 0, msg
    return s


def metadata_answered(s):
    """Metadata v1 on a logged-in raw connection: True when answered, False when closed."""
    try:
        return struct.unpack_from(">i", sw.exchange(s, sw.metadata_request_v1()))[0] == 9
    except (ConnectionError, OSError):
        return False


def make_everything(b, d, java, user, auth):
    """`user`'s tenant gets one of each resource, under the names every tenant uses here."""
    def acl(rtype, name):
        return {"resource_type": rtype, "name": name, "principal": "User:" + user, "host": "*",
                "operation": "ALL", "permission": "ALLOW"}
    grants = [acl("TOPIC", user + "~orders"), acl("GROUP", user + "~billing"),
              acl("TRANSACTIONAL_ID", user + "~etl"), acl("TRANSACTIONAL_ID", user + "~open")]
    out = d("create-acls", {"config": sasl("root"), "acls": grants})
    assert [r["error"] for r in out["results"]] == [None] * 4, out
    out = d("create-topics", {"topics": [{"name": "orders", "partitions": 1, "replication_factor": 1}],
                              "config": sasl(user)})
    assert out["results"][0]["error"] is None, out
    out = d("produce", {"topic": "orders", "acks": "all", "config": sasl(user),
                        "records": [{"key": None, "value": base64.b64encode(b"x").decode(), "partition": 0}]})
    assert out["records"][0]["error"] is None, out
    out = d("group-consume", {"topic": "orders", "group": "billing", "max_records": 1, "timeout_ms": 20000,
                              "idle_ms": 500, "commit": "sync", "from": "earliest", "config": sasl(user)})
    assert len(out["records"]) == 1, out
    out = d("txn-produce", {"transactional_id": "etl", "config": sasl(user), "transactions": [
        {"commit": True, "records": [{"topic": "orders", "partition": 0, "key": None,
                                      "value": base64.b64encode(b"t").decode()}]}]})
    assert out["transactions"] == [{"error": None}], out
    ketch("user", "create", user + "~ci", "--password", "ci-pw", "--mechanism", "SCRAM-SHA-256", *auth)
    for entity in ("user=" + user, "user=" + user + "~ci"):
        ketch("quota", "alter", "--entity", entity, "--add", "producer_byte_rate=1048576", *auth)
    ketch("quota", "alter", "--entity", "user=" + user, "--entity", "client-id=app", "--add",
          "consumer_byte_rate=2097152", *auth)
    token = java("create-token", {"owner": "User:" + user, "config": java_plain("root")})["token"]
    assert token["owner"] == "User:" + user, token
    return token


def open_transaction(b, user):
    """A confluent-kafka producer of `user` with a transaction begun and one record sent."""
    from confluent_kafka import Producer
    p = Producer(dict(sasl(user), **{"bootstrap.servers": b.address, "transactional.id": "open",
                                     "transaction.timeout.ms": 600000}))
    p.init_transactions(30)
    p.begin_transaction()
    p.produce("orders", b"in flight", partition=0)
    assert p.flush(30) == 0
    return p


def live_member(b, user, password):
    """A confluent-kafka consumer of group "live", logged in with SCRAM, holding its assignment."""
    from confluent_kafka import Consumer
    c = Consumer({"bootstrap.servers": b.address, "security.protocol": "SASL_PLAINTEXT",
                  "sasl.mechanisms": "SCRAM-SHA-256", "sasl.username": user, "sasl.password": password,
                  "group.id": "live", "auto.offset.reset": "earliest", "session.timeout.ms": 45000})
    c.subscribe(["orders"])
    wait_for(lambda: c.poll(0.2) is not None or c.assignment(), timeout=30, what="a live member of group live")
    return c


def txn_ids(auth):
    return sorted(t["transactional_id"] for t in json.loads(ketch("txn", "list", "--json", *auth).stdout))


def quota_entities(auth):
    return [q["entity"] for q in json.loads(ketch("quota", "describe", "--json", *auth).stdout)]


def test_deleting_a_tenant_deletes_everything_it_owns_and_nothing_of_another(broker):
    why = _missing("confluent")
    if why:
        pytest.skip(why)
    b = broker
    d = Driver("confluent", SimpleNamespace(bootstrap=b.address))
    java = driver("java", b.address)
    auth = ["-b", b.address, "-X", "security.protocol=SASL_PLAINTEXT", "-X", "sasl.mechanism=PLAIN",
            "-X", "sasl.username=root", "-X", "sasl.password=" + USERS["root"]]
    admin = ("--console-url", b.console_url, "--user", "root", "--password", USERS["root"])
    ketch("tenant", "create", "bob", "max_topics=5", *admin)
    tokens = {u: make_everything(b, d, java, u, auth) for u in ("alice", "bob")}
    producer = open_transaction(b, "bob")
    out = d("create-acls", {"config": sasl("root"), "acls": [
        {"resource_type": rtype, "name": name, "principal": "User:bob~ci", "host": "*", "operation": "READ",
         "permission": "ALLOW"} for rtype, name in (("TOPIC", "bob~orders"), ("GROUP", "bob~live"))]})
    assert [r["error"] for r in out["results"]] == [None, None], out
    member = live_member(b, "bob~ci", "ci-pw")
    assert txn_ids(auth) == ["alice~etl", "bob~etl", "bob~open"]
    live = token_connection(b.address, tokens["bob"])
    assert metadata_answered(live)
    assert not login_refused(java, java_token(tokens["bob"]))

    out = json.loads(ketch("tenant", "delete", "bob", "--json", *admin).stdout)
    deleted = out["deleted"]
    assert out["created"] is True, out
    # Group "live" had a member (its connection open): it was removed, then the group deleted.
    assert (deleted["topics"], deleted["groups"], deleted["groups_left"]) == (1, 2, 0), deleted
    # Its users: bob~ci and bob himself (ketch.toml's users are stored credentials too:
    # bob comes back at the next start).
    assert deleted["acls"] == 6 and deleted["users"] == 2, deleted
    assert (deleted["client_quotas"], deleted["delegation_tokens"]) == (3, 1), deleted
    assert (deleted["transactional_ids"], deleted["transactions_aborted"], deleted["transactional_ids_left"]) == (
        2, 1, 0), deleted

    # The token: refused at a new login; the connection already logged in with it is
    # closed at its next request (every connection of the deleted tenant is).
    assert not metadata_answered(live)
    live.close()
    assert login_refused(java, java_token(tokens["bob"]))
    assert not login_refused(java, java_token(tokens["alice"]))
    # The transaction in flight was aborted: its producer cannot commit it.
    from confluent_kafka import KafkaException
    with pytest.raises(KafkaException):
        producer.commit_transaction(30)
    # Transactional ids: none of bob's listed or described; alice's stays.
    assert txn_ids(auth) == ["alice~etl"]
    described = ketch("txn", "describe", "bob~etl", "--json", *auth, check=False)
    assert described.returncode != 0 and b"TRANSACTIONAL_ID_NOT_FOUND" in described.stderr, described
    # Topics, groups, offsets, ACLs, SCRAM users, quotas: bob's gone, alice's kept.
    topics = d("list-topics", {"config": sasl("root")})["topics"]
    assert "alice~orders" in topics and not [t for t in topics if t.startswith("bob~")], topics
    groups = [g["group_id"] for g in d("list-groups", {"config": sasl("root")})["groups"]]
    assert "alice~billing" in groups and not [g for g in groups if g.startswith("bob~")], groups
    assert d("committed-offsets", {"group": "billing", "topic": "orders", "partitions": [0],
                                   "config": sasl("alice")})["offsets"] == {"0": 1}
    acls = d("describe-acls", {"config": sasl("root")})["acls"]
    assert not [a for a in acls if a["name"].startswith("bob~") or a["principal"] == "User:bob"], acls
    assert len([a for a in acls if a["principal"] == "User:alice"]) == 4, acls
    users = ketch("user", "list", *auth).stdout.decode()
    assert "alice~ci" in users and "bob~ci" not in users, users
    # bob of ketch.toml had both SCRAM mechanisms: both went (one user per
    # AlterUserScramCredentials request, ScramControlManager.alterCredentials).
    assert not [line for line in users.splitlines() if line.split()[:1] == ["bob"]], users
    entities = quota_entities(auth)
    assert not [e for e in entities if e.get("user", "").startswith("bob")], entities
    assert sorted(e["user"] for e in entities) == ["alice", "alice", "alice~ci"], entities
    # Its limits: the tenant is no longer created; made again, it starts empty.
    assert ketch("tenant", "describe", "bob", *admin, check=False).returncode == 1
    ketch("tenant", "create", "bob", *admin)
    again = json.loads(ketch("tenant", "describe", "bob", "--json", *admin).stdout)
    assert again["limits"] == {} and again["usage"]["topics"] == 0, again
    ketch("user", "create", "bob~new", "--password", "new-pw", "--mechanism", "SCRAM-SHA-256", *auth)
    new = {"security.protocol": "SASL_PLAINTEXT", "sasl.mechanisms": "SCRAM-SHA-256", "sasl.username": "bob~new",
           "sasl.password": "new-pw"}
    assert d("list-topics", {"config": new})["topics"] == {}
    assert d("list-groups", {"config": new})["groups"] == []
    assert d("describe-acls", {"config": sasl("root"), "filter": {"principal": "User:bob~new"}})["acls"] == []
    # The live member's user is gone: its consumer cannot come back (closed without waiting for it).
    threading.Thread(target=member.close, daemon=True).start()


def test_a_tenant_never_created_is_deleted_all_the_same(broker):
    """carol was never created (`ketch tenant create`): she is her own tenant and owns
    what she made; deleting her deletes it. A name never created that owns nothing is 404."""
    why = _missing("confluent")
    if why:
        pytest.skip(why)
    d = Driver("confluent", SimpleNamespace(bootstrap=broker.address))
    admin = ("--console-url", broker.console_url, "--user", "root", "--password", USERS["root"])
    out = d("create-acls", {"config": sasl("root"), "acls": [{
        "resource_type": "TOPIC", "name": "carol~orders", "principal": "User:carol", "host": "*",
        "operation": "ALL", "permission": "ALLOW"}]})
    assert out["results"] == [{"error": None}], out
    out = d("create-topics", {"topics": [{"name": "orders", "partitions": 1, "replication_factor": 1}],
                              "config": sasl("carol")})
    assert out["results"][0]["error"] is None, out
    out = json.loads(ketch("tenant", "delete", "carol", "--json", *admin).stdout)
    assert out["created"] is False, out
    assert (out["deleted"]["topics"], out["deleted"]["acls"]) == (1, 1), out
    wait_for(lambda: "carol~orders" not in d("list-topics", {"config": sasl("root")})["topics"],
             what="carol's topic gone")
    missing = ketch("tenant", "delete", "nobody", *admin, check=False)
    assert missing.returncode == 1 and b"never created and owns nothing" in missing.stderr, missing
    bad = ketch("tenant", "delete", "a~b", *admin, check=False)
    assert bad.returncode == 1, bad
