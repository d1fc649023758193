"""Read-through of the brokers' caches (docs/cluster.md, "Caches and read-through").

Each broker keeps the topics, SCRAM users and delegation tokens in memory and
reloads them when PostgreSQL NOTIFYs a change. A client that creates one of
them through broker A and at once uses it through broker B may reach B before
B heard the NOTIFY; B then reads PostgreSQL before answering "unknown":

- a controller-style admin request (here AlterPartitionReassignments and
  CreatePartitions; Kafka's clients send them to the controller, which knows
  every topic it committed: core/src/main/scala/kafka/server/ControllerApis.scala)
  naming topics B does not know reads those topics (only those) once per
  request (broker/topic_read_through.h);
- a SCRAM login by a user or by a delegation token (tokenauth=true) B does
  not know reads that user or token (shared/pg_credential_store.h,
  security/delegation_tokens.h).

So that the NOTIFY cannot help, the rows are written here with psql, as the
creating broker's transaction writes them but without its NOTIFY: B can only
learn of them by reading them through (without it, every request below is
answered "unknown" for good). Each read-through is also seen in B's log."""

import base64
import hashlib
import hmac
import os
import socket
import struct
import sys
import time
import uuid
from pathlib import Path

from confluent_kafka.admin import AdminClient

from test_shared_produce import FLUSH
from test_shared_security import ADMIN, ADMIN_PW, login, start

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "behavior"))

from kafka_wire import Reader, compact_string, frame, read_frame, request_header, uvarint  # noqa: E402

CREATE_PARTITIONS, ALTER_PARTITION_REASSIGNMENTS = 37, 45
UNKNOWN_TOPIC_OR_PARTITION = 3
SECRET = "read-through-secret"


def insert_topic(postgres, name, partitions=1):
    """The row CreateTopics writes (shared/pg_topic_store.cc), without the NOTIFY that goes with it."""
    topic_id = base64.urlsafe_b64encode(uuid.uuid4().bytes).rstrip(b"=").decode()
    postgres.psql("INSERT INTO ketch_topics (topic_id, name, partitions, replication_factor, created_ms) "
                  "VALUES ('%s', '%s', %d, 1, %d)" % (topic_id, name, partitions, int(time.time() * 1000)))


def exchange(b, request):
    with socket.create_connection(("127.0.0.1", b.port), timeout=10) as sock:
        sock.sendall(frame(request))
        return Reader(read_frame(sock))


def create_partitions(b, topic, count):
    """CreatePartitions v1 sent to b itself: the topic's error code."""
    t = topic.encode()
    body = struct.pack(">ih", 1, len(t)) + t + struct.pack(">ii", count, -1) + struct.pack(">i?", 10000, False)
    r = exchange(b, request_header(CREATE_PARTITIONS, 1, 7, False) + body)
    assert r.take(">i") == 7
    r.take(">i")  # throttle
    assert r.take(">i") == 1
    assert r.string() == topic
    return r.take(">h")


def alter_reassignments(b, topics, node_id):
    """AlterPartitionReassignments v0 (flexible) sent to b itself, partition 0 of each topic to [node_id]:
    {topic: error code}."""
    body = struct.pack(">i", 10000) + uvarint(len(topics) + 1)
    for t in topics:
        body += compact_string(t) + uvarint(2) + struct.pack(">i", 0) + uvarint(2) + struct.pack(">i", node_id)
        body += b"\x00" + b"\x00"  # the partition's and the topic's tagged fields
    r = exchange(b, request_header(ALTER_PARTITION_REASSIGNMENTS, 0, 8, True) + body + b"\x00")
    assert r.take(">i") == 8
    r.uvarint()  # response header v1: tagged fields
    r.take(">i")  # throttle
    assert r.take(">h") == 0

    def compact_nullable():
        n = r.uvarint() - 1
        s = None if n < 0 else r.data[r.pos:r.pos + n].decode()
        r.pos += max(n, 0)
        return s

    compact_nullable()  # error message
    out = {}
    for _ in range(r.uvarint() - 1):
        name = compact_nullable()
        for _ in range(r.uvarint() - 1):
            r.take(">i")
            out[name] = r.take(">h")
            compact_nullable()
            r.uvarint()
        r.uvarint()
    return out


def read_through_logged(b, what):
    return ("cluster: %s read through from PostgreSQL" % what) in b.log_text()


def test_controller_requests_read_a_topic_not_heard_of_through(start_broker, postgres):
    b = start_broker(2, *FLUSH)

    insert_topic(postgres, "late-1")
    assert alter_reassignments(b, ["late-1"], 2) == {"late-1": 0}
    assert read_through_logged(b, "topic late-1")

    insert_topic(postgres, "late-2")
    assert create_partitions(b, "late-2", 3) == 0
    assert read_through_logged(b, "topic late-2")
    assert postgres.psql("SELECT partitions FROM ketch_topics WHERE name = 'late-2'") == ["3"]

    # Two topics not heard of in one request: one read of those names serves both (a
    # request reads at most once). It reads only the names the request holds, not every
    # topic: late-5, stored as well but not named, is still unknown to b (a list of all
    # topics answers from memory).
    insert_topic(postgres, "late-3")
    insert_topic(postgres, "late-4")
    insert_topic(postgres, "late-5")
    assert alter_reassignments(b, ["late-3", "late-4"], 2) == {"late-3": 0, "late-4": 0}
    assert read_through_logged(b, "topic late-3") and read_through_logged(b, "topic late-4")
    listed = AdminClient({"bootstrap.servers": b.bootstrap}).list_topics(timeout=10).topics
    assert "late-4" in listed and "late-5" not in listed
    assert not read_through_logged(b, "topic late-5")

    # A topic stored nowhere is still unknown after its read.
    assert alter_reassignments(b, ["nowhere"], 2) == {"nowhere": UNKNOWN_TOPIC_OR_PARTITION}
    assert create_partitions(b, "nowhere", 2) == UNKNOWN_TOPIC_OR_PARTITION
    assert not read_through_logged(b, "topic nowhere")


def scram_sha256_row(user, password, iterations=4096):
    """A ketch_scram_credentials row's values as AlterUserScramCredentials stores them (RFC 5802)."""
    salt = os.urandom(16)
    salted = hashlib.pbkdf2_hmac("sha256", password.encode(), salt, iterations)
    stored_key = hashlib.sha256(hmac.new(salted, b"Client Key", hashlib.sha256).digest()).digest()
    server_key = hmac.new(salted, b"Server Key", hashlib.sha256).digest()
    return ("decode('%s', 'hex'), 'SCRAM-SHA-256', decode('%s', 'hex'), decode('%s', 'hex'), decode('%s', 'hex'), %d"
            % (user.encode().hex(), salt.hex(), stored_key.hex(), server_key.hex(), iterations))


def test_a_login_reads_a_user_or_a_token_not_heard_of_through(start_broker, postgres, tmp_path):
    toml = tmp_path / "ketch.toml"
    toml.write_text('[[users]]\nname = "%s"\npassword = "%s"\n' % (ADMIN, ADMIN_PW))
    b = start(start_broker, 2, toml, "--delegation-token-secret-key", SECRET)

    # A SCRAM user (AlterUserScramCredentials through another broker: shared/pg_credential_store.cc's row).
    postgres.psql("INSERT INTO ketch_scram_credentials (user_name, mechanism, salt, stored_key, server_key, "
                  "iterations) VALUES (%s)" % scram_sha256_row("carol", "carol-pw"))
    sock = login(b, "carol", "carol-pw")
    assert sock is not None
    sock.close()
    assert read_through_logged(b, 'SCRAM user "carol"')
    assert login(b, "carol", "wrong") is None

    # A delegation token (CreateDelegationToken through another broker: shared/pg_token_store.cc's row;
    # its password is base64(HmacSHA512(secret, token id)), Kafka's DelegationTokenManager.createHmac).
    token_id = base64.urlsafe_b64encode(uuid.uuid4().bytes).rstrip(b"=").decode()
    now = int(time.time() * 1000)
    postgres.psql("INSERT INTO ketch_delegation_tokens (token_id, owner, requester, renewers, issue_ms, expiry_ms, "
                  "max_ms) VALUES ('%s', convert_to('User:carol', 'UTF8'), convert_to('User:carol', 'UTF8'), "
                  "'\\x'::bytea, %d, %d, %d)" % (token_id, now, now + 3_600_000, now + 86_400_000))
    password = base64.b64encode(hmac.new(SECRET.encode(), token_id.encode(), hashlib.sha512).digest()).decode()
    sock = login(b, token_id, password, token=True)
    assert sock is not None
    sock.close()
    assert read_through_logged(b, "delegation token %s" % token_id)
    assert login(b, "no-such-token", password, token=True) is None
