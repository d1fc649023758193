"""Transactional ids' leases between live brokers (docs/design/cluster.md
"transactions"): an id is served by its owner among the live brokers, which
holds the id's lease in PostgreSQL.

- A broker whose view of the live brokers is behind (for up to a heartbeat
  after another broker joined) may believe it owns an id that a live broker
  coordinates: it must not take that broker's lease while the holder's
  PostgreSQL session is open, or the holder's transaction in flight ends
  INVALID_TXN_STATE. The holder here is a PostgreSQL session named as a
  broker's heartbeat connection (cluster/membership.cc's application_name),
  so that the refused broker is the only one running.
- When the live set moves an id to another broker, the holder gives the
  lease back at once, so the new owner can take it.

Kafka 4.3.1 keeps one coordinator per id the same way: only the leader of the
id's __transaction_state partition serves it, every other broker answers
NOT_COORDINATOR (core/src/main/scala/kafka/coordinator/transaction/
TransactionStateManager.scala, getTransactionState: NOT_COORDINATOR when the
partition is not owned), and a partition moving away is unloaded by the old
leader (removeTransactionsForTxnTopicPartition).
"""

import os
import subprocess

from conftest import clients
from test_shared_produce import TIMING
from test_txn_v2 import COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR, all_live, init_producer_id


def lease_of(postgres, txn_id):
    """[node_id|epoch] of the id's lease row, or []."""
    return postgres.psql("SELECT node_id || '|' || epoch FROM ketch_txn_leases "
                         "WHERE transactional_id = convert_to('%s', 'UTF8')" % txn_id)


def named_session(postgres, name):
    """A PostgreSQL session whose application_name is `name`, open until its stdin closes."""
    argv = [str(postgres.bin / "psql"), "-h", "127.0.0.1", "-p", str(postgres.port), "-U", postgres.USER,
            "-d", postgres.DATABASE, "-q"]
    p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         env={**os.environ, "PGAPPNAME": name})
    query = "SELECT count(*) FROM pg_stat_activity WHERE application_name = '%s'" % name
    clients.wait_for(lambda: postgres.psql(query) == ["1"], what="the session named " + name)
    return p, query


def test_a_live_holders_lease_is_not_taken(start_broker, postgres):
    b = start_broker(1, *TIMING)  # alone: it owns every id
    txn_id = "held-by-a-live-broker"
    postgres.psql("INSERT INTO ketch_txn_leases (transactional_id, node_id, incarnation, epoch) "
                  "VALUES (convert_to('%s', 'UTF8'), 7, 'inc7', 3)" % txn_id)
    holder, query = named_session(postgres, "ketch-7-inc7")

    err, _, _ = init_producer_id(b, txn_id)
    assert err in (NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE), err
    assert lease_of(postgres, txn_id) == ["7|3"], "the live holder keeps its lease"

    holder.stdin.close()  # the holder's session ends, as a killed broker's does
    holder.wait(timeout=30)
    clients.wait_for(lambda: postgres.psql(query) == ["0"], what="the holder's session gone")
    err, pid, _ = clients.wait_for(lambda: (lambda r: r if r[0] == 0 else None)(init_producer_id(b, txn_id)),
                                   what="InitProducerId once the holder is gone")
    assert pid >= 0
    assert lease_of(postgres, txn_id) == ["1|4"], "taken over: this broker, the next epoch"


def test_ids_moved_by_a_join_are_given_back_and_taken_by_their_owner(start_broker, postgres):
    b1 = start_broker(1, *TIMING)
    ids = ["moving-%d" % i for i in range(12)]
    for txn_id in ids:  # b1 alone takes every id
        assert init_producer_id(b1, txn_id)[0] == 0
    assert all(lease_of(postgres, t)[0].startswith("1|") for t in ids)

    b2 = start_broker(2, *TIMING)
    all_live([b1, b2])

    # Each id is served by one of the two, at once: b2 takes what moved to it (b1 gave
    # it back when it saw b2 join), b1 keeps the rest.
    served = {}
    for txn_id in ids:
        def init():
            for node, b in ((1, b1), (2, b2)):
                err, _, _ = init_producer_id(b, txn_id)
                if err == 0:
                    return node
                assert err in (NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE), (txn_id, node, err)
            return None
        served[txn_id] = clients.wait_for(init, timeout=10, what="a broker serving " + txn_id)
        assert lease_of(postgres, txn_id)[0].startswith("%d|" % served[txn_id])
    assert set(served.values()) == {1, 2}, "rendezvous hashing moves some of twelve ids to the new broker"


REFUSE_LEASE_DELETES = """
CREATE FUNCTION ketch_test_refuse_delete() RETURNS trigger LANGUAGE plpgsql AS
  $f$ BEGIN RAISE EXCEPTION 'test: deletes of ketch_txn_leases refused'; END $f$;
CREATE TRIGGER ketch_test_refuse_delete BEFORE DELETE ON ketch_txn_leases
  FOR EACH ROW EXECUTE FUNCTION ketch_test_refuse_delete();
"""
ALLOW_LEASE_DELETES = ("DROP TRIGGER IF EXISTS ketch_test_refuse_delete ON ketch_txn_leases; "
                       "DROP FUNCTION IF EXISTS ketch_test_refuse_delete()")


def test_a_give_back_that_failed_is_tried_again(start_broker, postgres):
    """When the live set moves an id, its holder gives the lease back; when that give-back fails
    (PostgreSQL refusing it for a moment: here a trigger refuses deletes of ketch_txn_leases), the
    holder tries again at its next timeout check (cluster_txns::orphans), so the owner can take the
    id. Without it the lease stayed under a live broker and the owner was refused ('held by another
    live broker') until the live set changed again: a request for the id never reaches the holder's
    coordinator, which answers NOT_COORDINATOR before looking at the lease."""
    b1 = start_broker(1, *TIMING)
    ids = ["stuck-%d" % i for i in range(12)]
    for txn_id in ids:  # b1 alone takes every id
        assert init_producer_id(b1, txn_id)[0] == 0
    postgres.psql(REFUSE_LEASE_DELETES)
    try:
        b2 = start_broker(2, *TIMING)
        all_live([b1, b2])
        moved = clients.wait_for(
            lambda: [t for t in ids if "transactional id '%s' not given back" % t in b1.log_text()] or None,
            what="b1's failed give-back of the ids that moved to b2")
    finally:
        postgres.psql(ALLOW_LEASE_DELETES)
    for txn_id in moved:
        assert init_producer_id(b1, txn_id)[0] == NOT_COORDINATOR
        clients.wait_for(lambda: init_producer_id(b2, txn_id)[0] == 0 or None, timeout=30,
                         what="b2 serving %s once b1 gave its lease back" % txn_id)
        assert lease_of(postgres, txn_id)[0].startswith("2|")
