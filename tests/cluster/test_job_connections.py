"""The exclusive jobs (shared/exclusive_job.h: the orphan sweeper, the
janitor) hold no connection of the broker's pool while they wait on the
object store (docs/design/cluster.md, "PostgreSQL connections", the jobs'
session): the advisory lock that makes a job run on one broker at a time,
and the pass's statements, are on the broker's own job session
(application_name ketch-<node>-jobs).

The sweeper's LIST hangs (tests/cluster/faulty_s3.py holds LIST requests
only) on a broker whose pool is the smallest (3); a fetch's index read and
a CreateAcls wait on locks the test holds in PostgreSQL, each holding a
pooled connection. An offset commit (a group taken over, then its offsets
written), an AlterUserScramCredentials and Metadata are answered meanwhile
within a bound. Before, the sweeper's pass held the third pooled connection
across its LIST: the commit's take waited the pool's 5 s and failed.

A broker killed mid-pass (SIGKILL, its sweeper's LIST held) loses the lock
with its session, and another broker's sweeper takes it; while the first
held it, the second, trying every 200 ms, did not get it."""

import re
import threading
import time

import pytest
from confluent_kafka import Consumer, TopicPartition
from confluent_kafka.admin import (AclBinding, AclOperation, AclPermissionType, AdminClient, ResourcePatternType,
                                   ResourceType, ScramCredentialInfo, ScramMechanism, UserScramCredentialUpsertion)

from conftest import clients
from faulty_s3 import FaultyS3
from group_wire import stored_offset
from test_fetch_offload import consume_until, metadata_answered_meanwhile
from test_pg_pool_waits import POOL_WAIT_S, HeldLock
from test_shared_produce import FLUSH, TIMING, create_topic, produce, wait_for_topic

pytestmark = pytest.mark.timeout(180)

TOTAL = 30
SWEEP_LOCK = 7263541209911  # shared/sweeper.cc k_sweep_lock: pg_locks shows a bigint key as classid, objid


def is_list(method, path):
    return method == "GET" and "list-type=2" in path


def sweep_lock_holders(postgres):
    """The application_name of each session holding the sweepers' advisory lock."""
    return postgres.psql(
        "SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid WHERE l.locktype = "
        "'advisory' AND l.granted AND l.classid = %d AND l.objid = %d AND l.objsubid = 1"
        % (SWEEP_LOCK >> 32, SWEEP_LOCK & 0xFFFFFFFF))


def answered_within(what, call):
    t0 = time.monotonic()
    call()
    took = time.monotonic() - t0
    assert took < POOL_WAIT_S - 2, "%s took %.1f s while the sweeper waited on the object store" % (what, took)


def test_a_job_waiting_on_the_object_store_holds_no_connection_of_the_pool(start_broker, s3, postgres):
    # Broker 1 writes the objects and leaves: broker 2's fetch reads the index.
    b1 = start_broker(1, *FLUSH, *TIMING)
    create_topic(b1, "job-conns", 1)
    acked = produce(b1, "job-conns", [(None, b"v%04d" % i) for i in range(TOTAL)], 1)
    assert len(acked) == TOTAL
    proxy = FaultyS3(s3.port)
    proxy.hang_only = is_list
    try:
        b2 = start_broker(2, *FLUSH, *TIMING, "--cluster-pg-connections", "3", "--cluster-sweep-interval-ms", "200",
                          "--authorizer", "--allow-everyone-if-no-acl-found", object_store=proxy.url(s3.bucket))
        b1.stop()
        clients.wait_for(lambda: set(wait_for_topic(b2, "job-conns", 1).values()) == {2}, timeout=20,
                         what="broker 2 leading the partition")
        proxy.set_mode("hang")
        clients.wait_for(lambda: proxy.injected["hang"] >= 1 and sweep_lock_holders(postgres), timeout=20,
                         what="broker 2's sweeper holding its lock, its LIST held")
        run_while_the_sweeper_waits(b2, postgres, acked)
        b2.stop()
    finally:
        proxy.close()
    pool = re.findall(r"PostgreSQL pool: at most (\d+) of 3 open, (\d+) takes waited, (\d+) timed out", b2.log_text())
    assert pool and pool[-1][2] == "0", "a take of broker 2's pool timed out: %s" % pool


def run_while_the_sweeper_waits(b2, postgres, acked):
    got, lock, stop = {}, threading.Lock(), threading.Event()
    admin = AdminClient({"bootstrap.servers": b2.bootstrap})
    batches = HeldLock(postgres, "ketch_batches", "ACCESS EXCLUSIVE")  # the fetch's index read waits
    acls = HeldLock(postgres, "ketch_acls", "SHARE ROW EXCLUSIVE")  # the CreateAcls' INSERT waits
    reader = threading.Thread(target=consume_until, args=(b2, [("job-conns", 0)], got, lock, stop), daemon=True)
    try:
        reader.start()
        clients.wait_for(lambda: batches.locks(granted=False) > 0, timeout=20, what="the fetch waiting on the index")
        acl = admin.create_acls([AclBinding(ResourceType.TOPIC, "job-elsewhere", ResourcePatternType.LITERAL,
                                            "User:alice", "*", AclOperation.READ, AclPermissionType.ALLOW)])
        clients.wait_for(lambda: acls.locks(granted=False) > 0, timeout=20, what="the CreateAcls waiting")
        # Two of the three pooled connections wait in PostgreSQL: the third is free.
        committer = Consumer({"bootstrap.servers": b2.bootstrap, "group.id": "job-commits",
                              "enable.auto.commit": False})
        try:
            answered_within("an offset commit", lambda: committer.commit(
                offsets=[TopicPartition("job-conns", 0, 7)], asynchronous=False))
        finally:
            committer.close()
        assert stored_offset(postgres, "job-commits") == 7
        # A client of its own: one connection's requests are answered in order, after the CreateAcls.
        scram_admin = AdminClient({"bootstrap.servers": b2.bootstrap})
        answered_within("an AlterUserScramCredentials", lambda: [f.result(timeout=POOL_WAIT_S) for f in (
            scram_admin.alter_user_scram_credentials([UserScramCredentialUpsertion(
                "job-user", ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 4096), b"job-secret")]).values())])
        metadata_answered_meanwhile(b2, "job-conns", "the sweeper's LIST")
        assert sweep_lock_holders(postgres) == ["ketch-2-jobs"], "the sweeper's lock is not on its own session"
        with lock:
            assert got == {}, "the fetch was answered while its index read waited"
        assert not any(f.done() for f in acl.values()), "the CreateAcls was answered while its write waited"
    finally:
        batches.release()
        acls.release()
    for f in acl.values():
        f.result(timeout=30)
    clients.wait_for(lambda: len(got) >= TOTAL, timeout=60, what="every record read once the lock went")
    stop.set()
    reader.join(30)
    assert got == acked


def test_a_broker_that_dies_mid_pass_lets_another_take_the_job(start_broker, s3, postgres):
    # Broker 1's sweeper holds the lock, its LIST held; broker 2's sweeper
    # (straight to the store) tries every 200 ms meanwhile and does not get it.
    proxy = FaultyS3(s3.port)
    proxy.hang_only = is_list
    try:
        b1 = start_broker(1, *TIMING, "--cluster-sweep-interval-ms", "200", object_store=proxy.url(s3.bucket))
        proxy.set_mode("hang")
        clients.wait_for(lambda: sweep_lock_holders(postgres) == ["ketch-1-jobs"], timeout=20,
                         what="broker 1's sweeper holding its lock")
        b2 = start_broker(2, *TIMING, "--cluster-sweep-interval-ms", "200")
        clients.wait_for(lambda: "ketch-2-jobs" in postgres.psql("SELECT application_name FROM pg_stat_activity"),
                         timeout=20, what="broker 2's sweeper trying the lock")
        assert sweep_lock_holders(postgres) == ["ketch-1-jobs"], "two brokers hold the sweepers' lock"
        b1.kill()  # SIGKILL mid-pass: its session ends, the lock with it
        clients.wait_for(lambda: sweep_lock_holders(postgres) == ["ketch-2-jobs"], timeout=20,
                         what="broker 2's sweeper taking the lock")
        b2.stop()
    finally:
        proxy.close()
