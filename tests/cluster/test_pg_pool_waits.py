"""Where a broker waits for PostgreSQL (docs/design/cluster.md, "PostgreSQL
connections"): the pool's connections are held only while PostgreSQL is
asked, and what may wait for it runs off the reactor.

- A fetch's object GET holds no connection of the pool: the index rows are
  read, the connection given back, then the GET. Three fetches wait on a
  frozen object store (SIGSTOP of moto) on a broker whose pool is the
  smallest (3): an offset commit through that broker (a group taken over,
  then the offsets written: two takes of the pool) is answered at once, not
  after the pool's 5 s wait (when each waiting GET held a connection, the
  commit's take timed out and was answered NOT_COORDINATOR).
- A group's take-over (its lease's row written, its offsets read) and a
  partition's first open by a Produce (its offsets read) wait on PostgreSQL:
  they run on the broker's blocking pool. The test holds a lock in
  PostgreSQL that the take (the open) waits for; the broker runs one
  reactor, so a wait on it would stall every connection: Metadata from new
  connections is answered meanwhile, and the JoinGroup (the Produce) is
  answered once the lock goes.
- The admin requests that write a shared store (CreateTopics,
  CreatePartitions, DeleteTopics, IncrementalAlterConfigs, CreateAcls,
  AlterUserScramCredentials) wait on PostgreSQL on the blocking pool too, and
  the caches they change (the topics, the ACLs) are not locked for lookups
  while they wait: the test holds a lock on the table each writes, and
  Metadata (which looks the topics up and, with --authorizer, the ACLs) is
  answered meanwhile on a one-reactor broker; each request is answered once
  the lock goes. Before, the write waited on the reactor (the ACLs' on the
  blocking pool, holding the authorizer's lock that Metadata's authorization
  waited for).
- A delegation token's write (CreateDelegationToken) waits on PostgreSQL on
  the blocking pool and the token cache is not locked for lookups meanwhile:
  a SCRAM login by an existing token (tokenauth=true, looked up on the
  reactor) and Metadata on new connections are answered while the lock on
  ketch_delegation_tokens is held, the create once it goes. Before, the
  cache held its lock across the write, and the login's lookup stalled the
  broker's one reactor."""

import base64
import os
import re
import signal
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import (AclBinding, AclOperation, AclPermissionType, AdminClient, AlterConfigOpType,
                                   ConfigEntry, ConfigResource, NewPartitions, NewTopic, ResourcePatternType,
                                   ResourceType, ScramCredentialInfo, ScramMechanism, UserScramCredentialUpsertion)

from conftest import clients
from group_wire import join, stored_offset
from test_fetch_offload import connections_to, consume_until, metadata_answered_meanwhile
from test_shared_produce import FLUSH, TIMING, create_topic, produce, wait_for_topic
from test_shared_security import ADMIN, ADMIN_PW, login, start

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "behavior"))

from kafka_wire import Reader, frame, read_frame, request_header  # noqa: E402

PARTITIONS = 3
TOTAL = 90
pytestmark = pytest.mark.timeout(180)

POOL_WAIT_S = 5  # pg_pool_config::wait: a take waits this long for a connection given back
CREATE_DELEGATION_TOKEN = 38


class HeldLock:
    """A psql session holding `LOCK TABLE <table> IN <mode> MODE` in an open transaction until release()."""

    def __init__(self, postgres, table, mode):
        self.postgres, self.table = postgres, table
        argv = [str(postgres.bin / "psql"), "-h", "127.0.0.1", "-p", str(postgres.port), "-U", postgres.USER,
                "-d", postgres.DATABASE, "-v", "ON_ERROR_STOP=1", "-q"]
        if postgres.as_root:
            argv = ["runuser", "-u", postgres.OS_USER, "--", *argv]
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
        self.proc.stdin.write("BEGIN;\nLOCK TABLE %s IN %s MODE;\n" % (table, mode))
        self.proc.stdin.flush()
        clients.wait_for(lambda: self.locks(granted=True) > 0, timeout=20, what="the test's lock on %s" % table)

    def locks(self, granted):
        """How many locks on the table are held (granted) or waited for (not granted)."""
        return int(self.postgres.psql(
            "SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation WHERE c.relname = '%s' "
            "AND l.granted = %s" % (self.table, "true" if granted else "false"))[0])

    def release(self):
        if self.proc.poll() is None:
            self.proc.stdin.write("COMMIT;\n")
            self.proc.stdin.close()
            self.proc.wait(timeout=20)


def test_fetches_waiting_on_the_object_store_hold_no_connection_of_the_pool(start_broker, s3, postgres):
    # Broker 1 writes every object, then leaves: broker 2 leads every
    # partition and has none of their objects cached.
    b1 = start_broker(1, *FLUSH, *TIMING)
    create_topic(b1, "pool-reads", PARTITIONS)
    acked = {}
    for p in range(PARTITIONS):  # one partition at a time: each in objects of its own, one GET each
        acked.update(produce(b1, "pool-reads", [(None, b"v%d-%04d" % (p, i)) for i in range(TOTAL // PARTITIONS)], 1,
                             first=p))
    assert len(acked) == TOTAL
    b2 = start_broker(2, *FLUSH, *TIMING, "--cluster-pg-connections", "3")
    b1.stop()
    deadline = time.monotonic() + 20
    while set(wait_for_topic(b2, "pool-reads", PARTITIONS).values()) != {2}:
        assert time.monotonic() < deadline, "broker 2 does not lead every partition"
        time.sleep(0.1)

    got, lock, stop = {}, threading.Lock(), threading.Event()
    idle = connections_to(b2.proc.pid, s3.port)  # kept alive from the broker's start
    clients.sigstop(s3.proc)
    # One consumer a partition: each fetch waits on its own GET.
    readers = [threading.Thread(target=consume_until, args=(b2, [("pool-reads", p)], got, lock, stop), daemon=True)
               for p in range(PARTITIONS)]
    try:
        for t in readers:
            t.start()
        clients.wait_for(lambda: connections_to(b2.proc.pid, s3.port) >= idle + PARTITIONS, timeout=20,
                         what="a GET of each partition waiting on the frozen store")
        committer = Consumer({"bootstrap.servers": b2.bootstrap, "group.id": "pool-commits",
                              "enable.auto.commit": False})
        try:
            t0 = time.monotonic()
            committer.commit(offsets=[TopicPartition("pool-reads", 0, 7)], asynchronous=False)
            took = time.monotonic() - t0
        finally:
            committer.close()
        assert took < POOL_WAIT_S - 2, "the commit took %.1f s while fetches waited on the object store" % took
        assert stored_offset(postgres, "pool-commits") == 7
        with lock:
            assert got == {}, "nothing could be read while the store was frozen"
        os.kill(s3.proc.pid, signal.SIGCONT)
        clients.wait_for(lambda: len(got) >= TOTAL, timeout=60, what="every record read once the store thawed")
    finally:
        os.kill(s3.proc.pid, signal.SIGCONT)
        stop.set()
        for t in readers:
            t.join(30)
    assert got == acked
    b2.stop()
    pool = re.findall(r"PostgreSQL pool: at most (\d+) of 3 open, (\d+) takes waited, (\d+) timed out", b2.log_text())
    assert pool and pool[-1][2] == "0", "a take of broker 2's pool timed out: %s" % pool


def test_a_group_taken_over_waits_for_postgresql_off_the_reactor(start_broker, postgres):
    b = start_broker(1, *FLUSH, *TIMING, "--reactors", "1")
    create_topic(b, "pool-groups", 1)
    held = HeldLock(postgres, "ketch_group_leases", "SHARE ROW EXCLUSIVE")  # the take's INSERT waits
    answer = {}
    joining = threading.Thread(target=lambda: answer.update(join=join(b, "pool-waits", session_ms=30000)), daemon=True)
    try:
        joining.start()
        clients.wait_for(lambda: held.locks(granted=False) > 0, timeout=20,
                         what="the group's take waiting on the lease table")
        metadata_answered_meanwhile(b, "pool-groups", "a take-over on PostgreSQL")
        assert joining.is_alive(), "the JoinGroup was answered while its take waited"
    finally:
        held.release()
    joining.join(30)
    assert answer["join"][0] == 0, answer  # NONE: the group taken over, the member joined


def test_a_partitions_first_produce_waits_for_postgresql_off_the_reactor(start_broker, postgres):
    b = start_broker(1, *FLUSH, *TIMING, "--reactors", "1")
    create_topic(b, "pool-opens", 1)  # created, not opened: the first produce opens it
    held = HeldLock(postgres, "ketch_partitions", "ACCESS EXCLUSIVE")  # the open's read of its offsets waits
    acked = []
    p = Producer({"bootstrap.servers": b.bootstrap, "acks": "all", "enable.idempotence": False})
    try:
        p.produce("pool-opens", value=b"first", on_delivery=lambda err, m: acked.append((err, m.offset())))
        p.poll(0)
        clients.wait_for(lambda: held.locks(granted=False) > 0, timeout=20,
                         what="the partition's open waiting on ketch_partitions")
        metadata_answered_meanwhile(b, "pool-opens", "a partition's open on PostgreSQL")
        assert acked == [], "the record was acknowledged while its partition's open waited"
    finally:
        held.release()
    assert p.flush(30) == 0
    assert acked == [(None, 0)]


# Each admin write: the table whose lock it waits for, and how the AdminClient
# sends it (its futures); the topics t and t + "-doomed" exist (the engines
# are the module's: each case has topics of its own).
ADMIN_WRITES = {
    "CreateTopics": ("ketch_topics", lambda a, t: a.create_topics([NewTopic(t + "-new", 1, 1)]).values()),
    "CreatePartitions": ("ketch_topics", lambda a, t: a.create_partitions([NewPartitions(t, 2)]).values()),
    "DeleteTopics": ("ketch_topics", lambda a, t: a.delete_topics([t + "-doomed"]).values()),
    "IncrementalAlterConfigs": ("ketch_topic_configs", lambda a, t: a.incremental_alter_configs([ConfigResource(
        ResourceType.TOPIC, t, incremental_configs=[ConfigEntry(
            "retention.ms", "3600000", incremental_operation=AlterConfigOpType.SET)])]).values()),
    "CreateAcls": ("ketch_acls", lambda a, t: a.create_acls([AclBinding(
        ResourceType.TOPIC, t + "-elsewhere", ResourcePatternType.LITERAL, "User:alice", "*", AclOperation.READ,
        AclPermissionType.ALLOW)]).values()),
    "AlterUserScramCredentials": ("ketch_scram_credentials", lambda a, t: a.alter_user_scram_credentials([
        UserScramCredentialUpsertion(t + "-user", ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 4096),
                                     b"pool-secret")]).values()),
}


@pytest.mark.parametrize("api", list(ADMIN_WRITES))
def test_an_admin_write_waits_for_postgresql_off_the_reactor(start_broker, postgres, api):
    table, send = ADMIN_WRITES[api]
    topic = "pool-admin-" + api.lower()
    # --authorizer: every request's authorization reads the ACLs (none here: allowed).
    b = start_broker(1, *FLUSH, *TIMING, "--reactors", "1", "--authorizer", "--allow-everyone-if-no-acl-found")
    create_topic(b, topic, 1)
    create_topic(b, topic + "-doomed", 1)
    admin = AdminClient({"bootstrap.servers": b.bootstrap})
    held = HeldLock(postgres, table, "SHARE ROW EXCLUSIVE")  # its INSERT, UPDATE or DELETE waits
    try:
        futures = list(send(admin, topic))
        clients.wait_for(lambda: held.locks(granted=False) > 0, timeout=20, what="the %s waiting on %s" % (api, table))
        metadata_answered_meanwhile(b, topic, "a %s on PostgreSQL" % api)
        assert not any(f.done() for f in futures), "the %s was answered while its write waited" % api
    finally:
        held.release()
    for f in futures:
        f.result(timeout=30)  # answered once the lock went, without an error


def create_token(sock, correlation_id):
    """CreateDelegationToken v1 (no renewers, the maximum lifetime) on a logged-in socket:
    (error code, token id, base64 of the HMAC: the token's SCRAM password)."""
    sock.sendall(frame(request_header(CREATE_DELEGATION_TOKEN, 1, correlation_id, False) + struct.pack(">iq", 0, -1)))
    r = Reader(read_frame(sock))
    assert r.take(">i") == correlation_id
    error = r.take(">h")
    r.string(), r.string()  # the owner: principal type, name
    r.take(">q"), r.take(">q"), r.take(">q")  # issue, expiry, max
    token_id = r.string()
    n = r.take(">i")
    return error, token_id, base64.b64encode(r.data[r.pos:r.pos + n]).decode()


def logs_in_by_token_meanwhile(b, token_id, hmac, waiting):
    """SCRAM logins by token (tokenauth=true) on five new connections, each answered within 3 s."""
    for _ in range(5):
        t0 = time.monotonic()
        try:
            sock = login(b, token_id, hmac, token=True)
        except TimeoutError:
            pytest.fail("a login by token was not answered within 10 s while %s waited" % waiting)
        took = time.monotonic() - t0
        assert sock is not None, "the token was refused while %s waited" % waiting
        sock.close()
        assert took < 3, "a login by token took %.1f s while %s waited" % (took, waiting)


def test_a_token_write_waits_for_postgresql_while_logins_by_token_are_answered(start_broker, postgres, tmp_path):
    toml = tmp_path / "ketch.toml"
    toml.write_text('[[users]]\nname = "%s"\npassword = "%s"\n' % (ADMIN, ADMIN_PW))
    b = start(start_broker, 1, toml, "--reactors", "1", "--allow-everyone-if-no-acl-found",
              "--delegation-token-secret-key", "pool-token-secret")
    create_topic(b, "pool-tokens", 1)
    sock = login(b, ADMIN, ADMIN_PW)
    assert sock is not None
    with sock:
        sock.settimeout(60)  # the second create is answered once the lock goes
        error, token_id, hmac = create_token(sock, 1)
        assert error == 0
        held = HeldLock(postgres, "ketch_delegation_tokens", "SHARE ROW EXCLUSIVE")  # the create's INSERT waits
        answer = {}
        creating = threading.Thread(target=lambda: answer.update(created=create_token(sock, 2)), daemon=True)
        try:
            creating.start()
            clients.wait_for(lambda: held.locks(granted=False) > 0, timeout=20,
                             what="the CreateDelegationToken waiting on ketch_delegation_tokens")
            logs_in_by_token_meanwhile(b, token_id, hmac, "a CreateDelegationToken on PostgreSQL")
            metadata_answered_meanwhile(b, "pool-tokens", "a CreateDelegationToken on PostgreSQL")
            assert creating.is_alive(), "the CreateDelegationToken was answered while its write waited"
        finally:
            held.release()
        creating.join(30)
    error, new_id, new_hmac = answer["created"]
    assert error == 0 and new_id != token_id
    assert postgres.psql("SELECT count(*) FROM ketch_delegation_tokens WHERE token_id = '%s'" % new_id) == ["1"]
    fresh = login(b, new_id, new_hmac, token=True)  # the new token is in the cache once written
    assert fresh is not None
    fresh.close()
