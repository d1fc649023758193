"""ACLs and SCRAM users shared by the brokers of a cluster (docs/cluster.md,
"security"): both live in PostgreSQL (ketch_acls, ketch_scram_credentials)
and each change sends NOTIFY ketch_commit, on which the other brokers reload
(shared/pg_acl_store.h, shared/pg_credential_store.h).

Two brokers with SASL/SCRAM and the authorizer. confluent-kafka's AdminClient
(as the super user) creates a SCRAM user and ACLs through one broker and
deletes them through the other; whatever broker served the admin request,
each broker is then asked on its own SASL listener, on the wire: the user
logs in at both, a Produce is allowed at both once the WRITE ACL exists and
refused at both (TOPIC_AUTHORIZATION_FAILED) once it is gone. A restarted
broker keeps the user and the ACLs (they are not in its data directory)."""

import json
import socket
import sys
from pathlib import Path

from confluent_kafka.admin import (AclBinding, AclBindingFilter, AclOperation, AclPermissionType, AdminClient,
                                   NewTopic, ResourcePatternType, ResourceType, ScramCredentialInfo, ScramMechanism,
                                   UserScramCredentialUpsertion)

from conftest import clients
from test_shared_produce import FLUSH, TIMING

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "behavior"))

from kafka_wire import parse_produce_response, produce_request, read_frame, record_batch  # noqa: E402
from sasl_wire import (ScramClient, authenticate_request, exchange, handshake_request,  # noqa: E402
                       parse_authenticate_response, parse_handshake_response)

ADMIN, ADMIN_PW = "admin", "admin-secret"
TOPIC_AUTHORIZATION_FAILED = 29
TOPIC = "secured"


def start(start_broker, node_id, toml, *extra):
    b = start_broker(node_id, *FLUSH, *TIMING, "--config", str(toml), "--listener",
                     "SASL_PLAINTEXT=SASL_PLAINTEXT://127.0.0.1:0", "--authorizer", "--super-users", "User:admin",
                     *extra)
    return with_sasl_address(b)


def with_sasl_address(b):
    listeners = json.loads((b.data_dir / "listeners.json").read_text())["listeners"]
    host, _, port = listeners["SASL_PLAINTEXT"]["address"].rpartition(":")
    b.sasl = (host, int(port))
    return b


def admin_of(b):
    return AdminClient({"bootstrap.servers": "%s:%d" % b.sasl, "security.protocol": "SASL_PLAINTEXT",
                        "sasl.mechanisms": "SCRAM-SHA-256", "sasl.username": ADMIN, "sasl.password": ADMIN_PW})


class TokenScram(ScramClient):
    """SCRAM's client-first with the extension tokenauth=true (RFC 5802 extensions, KIP-48)."""

    def first(self):
        self.bare = "n=%s,r=%s,tokenauth=true" % (self.user, self.nonce)
        return ("n,," + self.bare).encode()


def login(b, user, password, mechanism="SCRAM-SHA-256", token=False):
    """A socket to b's SASL listener logged in as user (RFC 5802 on the wire), or None when refused."""
    sock = socket.create_connection(b.sasl, timeout=10)
    _, err, _ = parse_handshake_response(exchange(sock, handshake_request(mechanism)))
    assert err == 0
    scram = (TokenScram if token else ScramClient)(mechanism, user, password)
    _, err, _, server_first, _ = parse_authenticate_response(exchange(sock, authenticate_request(scram.first())))
    if err == 0:
        reply = exchange(sock, authenticate_request(scram.final(server_first), correlation_id=3))
        _, err, _, server_final, _ = parse_authenticate_response(reply)
    if err != 0:
        sock.close()
        return None
    assert server_final.decode() == scram.expected_server_final
    return sock


def produce_error(b, user, password):
    """The error code of a one-record Produce sent to b itself as user."""
    sock = login(b, user, password)
    assert sock is not None, "%s cannot log in at %s" % (user, b.sasl)
    with sock:
        sock.sendall(produce_request(TOPIC, 0, record_batch([(b"k", b"v")]), correlation_id=7))
        error, _ = parse_produce_response(read_frame(sock))
    return error


def alice_acls(b):
    f = AclBindingFilter(ResourceType.TOPIC, TOPIC, ResourcePatternType.ANY, "User:alice", None, AclOperation.ANY,
                         AclPermissionType.ANY)
    admin = admin_of(b)  # held until the answer: a destroyed client fails its futures
    return sorted(a.operation.name for a in admin.describe_acls(f).result(timeout=20))


def test_acls_and_scram_users_made_on_one_broker_hold_on_the_other(start_broker, postgres, tmp_path):
    toml = tmp_path / "ketch.toml"
    toml.write_text('[[users]]\nname = "%s"\npassword = "%s"\n' % (ADMIN, ADMIN_PW))
    a, b = start(start_broker, 1, toml), start(start_broker, 2, toml)
    admin_a = admin_of(a)
    admin_a.create_topics([NewTopic(TOPIC, 1, 1)])[TOPIC].result(timeout=20)

    # A SCRAM user made through A logs in at both brokers.
    up = UserScramCredentialUpsertion("alice", ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 4096), b"alice-pw")
    admin_a.alter_user_scram_credentials([up])["alice"].result(timeout=20)
    for broker in (a, b):
        clients.wait_for(lambda: login(broker, "alice", "alice-pw"), what="alice logs in at %s" % (broker.sasl,))
    assert login(b, "alice", "wrong") is None
    assert postgres.psql("SELECT convert_from(user_name, 'UTF8'), mechanism FROM ketch_scram_credentials "
                         "ORDER BY 1, 2") == ["admin|SCRAM-SHA-256", "admin|SCRAM-SHA-512", "alice|SCRAM-SHA-256"]

    # No ACL on the topic: refused at both. An ACL made through A: allowed and listed at both.
    clients.wait_for(lambda: produce_error(b, "alice", "alice-pw") == TOPIC_AUTHORIZATION_FAILED)
    assert produce_error(a, "alice", "alice-pw") == TOPIC_AUTHORIZATION_FAILED
    grants = [AclBinding(ResourceType.TOPIC, TOPIC, ResourcePatternType.LITERAL, "User:alice", "*", op,
                         AclPermissionType.ALLOW) for op in (AclOperation.WRITE, AclOperation.DESCRIBE)]
    for f in admin_a.create_acls(grants).values():
        f.result(timeout=20)
    for broker in (a, b):
        clients.wait_for(lambda: produce_error(broker, "alice", "alice-pw") == 0, what="WRITE at %s" % (broker.sasl,))
        assert alice_acls(broker) == ["DESCRIBE", "WRITE"]
    assert len(postgres.psql("SELECT principal FROM ketch_acls")) == 2

    # A restarted broker keeps both (its data directory holds neither).
    b.restart()
    with_sasl_address(b)
    assert produce_error(b, "alice", "alice-pw") == 0
    assert alice_acls(b) == ["DESCRIBE", "WRITE"]

    # Deleted through B: gone at both, and refused again at both.
    everything = AclBindingFilter(ResourceType.TOPIC, TOPIC, ResourcePatternType.ANY, None, None, AclOperation.ANY,
                                  AclPermissionType.ANY)
    admin_b = admin_of(b)
    deleted = admin_b.delete_acls([everything])[everything].result(timeout=20)
    assert len(deleted) == 2
    for broker in (a, b):
        clients.wait_for(lambda: produce_error(broker, "alice", "alice-pw") == TOPIC_AUTHORIZATION_FAILED,
                         what="no WRITE at %s" % (broker.sasl,))
        assert alice_acls(broker) == []
    assert postgres.psql("SELECT principal FROM ketch_acls") == []
