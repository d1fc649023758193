"""Client quotas shared by the brokers of a cluster (docs/cluster.md,
"security"): AlterClientQuotas writes ketch_client_quotas in PostgreSQL, on
the broker's blocking pool (broker/blocking.h store_answer,
handlers/49_alter_client_quotas.cc), ending with NOTIFY ketch_commit 'quotas',
on which every broker reloads the settings it enforces and describes
(shared/pg_quota_store.h, app/cluster_security.cc).

Two brokers. The Java AdminClient (tests/clients/java: alter-client-quotas,
Admin.alterClientQuotas) changes quotas, bootstrapped at one broker; it sends
AlterClientQuotas to the broker it finds least loaded (Apache Kafka 4.3.1,
clients/src/main/java/org/apache/kafka/clients/admin/KafkaAdminClient.java,
alterClientQuotas: LeastLoadedNodeProvider), so each broker is then asked on
its own listener, on the wire (DescribeClientQuotas v0): whichever broker
served the change, the other must have heard it (the Java Admin's describeClientQuotas reads the same). A
broker that kept its quotas to itself (a store of its own, or no reload on
the notice) fails the wait at the other broker.

What is described follows ClientQuotasImage.describe (Apache Kafka 4.3.1,
metadata/src/main/java/org/apache/kafka/image/ClientQuotasImage.java): no
component and not strict lists every entity; an exact component lists the
entities holding that name, and strict only those with no other part. An
alteration's op without a value removes the key, and an entity left with no
key is gone (metadata/src/main/java/org/apache/kafka/controller/
ClientQuotaControlManager.java, alterClientQuotas). validateOnly checks
and answers, and changes nothing (AlterClientQuotasRequest.json:
ValidateOnly)."""

import sys
import types
from pathlib import Path

import pytest

from conftest import clients
from test_shared_produce import FLUSH, TIMING

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "behavior"))

from kafka_wire import MATCH_EXACT, describe_client_quotas  # noqa: E402

ALICE, ALICE_APP, DEFAULT_USER, BOB = (("user", "alice"),), (("client-id", "app"), ("user", "alice")), \
    (("user", None),), (("user", "bob"),)


def described(b, components=(), strict=False):
    host, _, port = b.bootstrap.rpartition(":")
    error, entries = describe_client_quotas(host, int(port), list(components), strict)
    assert error == 0, error
    return entries


def java(bootstrap):
    return clients.Driver("java", types.SimpleNamespace(bootstrap=bootstrap))


def described_by_java(bootstrap):
    """Every entity as the Java Admin describes it (describeClientQuotas: whichever broker it picks)."""
    out = java(bootstrap)("describe-client-quotas", {})
    assert out["error"] is None, out
    return {tuple(sorted(e["entity"].items())): e["values"] for e in out["entries"]}


def alter(bootstrap, entries, validate_only=False):
    out = java(bootstrap)("alter-client-quotas", {"entries": [{"entity": dict(e), "ops": ops} for e, ops in entries],
                                       "validate_only": validate_only})
    assert [r["error"] for r in out["results"]] == [None] * len(entries), out


def stored(postgres):
    return sorted(postgres.psql("SELECT key, value FROM ketch_client_quotas"))


def wait_described_everywhere(brokers, expected):
    for b in brokers:
        clients.wait_for(lambda: described(b) == expected, what="the quotas described by %s" % b.bootstrap)


def test_quotas_altered_through_one_broker_are_described_by_the_other(start_broker, postgres):
    if clients._missing("java"):
        pytest.skip("java driver not built")
    a, b = start_broker(1, *FLUSH, *TIMING), start_broker(2, *FLUSH, *TIMING)
    assert described(a) == described(b) == {}

    alter(a.bootstrap, [(ALICE, {"producer_byte_rate": 1048576, "consumer_byte_rate": 2097152}),
                        (ALICE_APP, {"request_percentage": 50}),
                        (DEFAULT_USER, {"producer_byte_rate": 524288})])
    everything = {ALICE: {"producer_byte_rate": 1048576.0, "consumer_byte_rate": 2097152.0},
                  ALICE_APP: {"request_percentage": 50.0},
                  DEFAULT_USER: {"producer_byte_rate": 524288.0}}
    wait_described_everywhere((a, b), everything)
    assert described_by_java(b.bootstrap) == everything
    for x in (a, b):
        assert described(x, [("user", MATCH_EXACT, "alice")]) == {k: everything[k] for k in (ALICE, ALICE_APP)}
        assert described(x, [("user", MATCH_EXACT, "alice")], strict=True) == {ALICE: everything[ALICE]}
    rows = ["consumer_byte_rate|2097152", "producer_byte_rate|1048576", "producer_byte_rate|524288",
            "request_percentage|50"]
    assert stored(postgres) == rows

    # validateOnly: answered, nothing written (the alter has returned: a write would be committed).
    alter(b.bootstrap, [(ALICE, {"producer_byte_rate": 1}), (BOB, {"consumer_byte_rate": 1})], validate_only=True)
    assert stored(postgres) == rows

    # Removed through the other broker's bootstrap: a key of alice, and alice's client-id entity
    # (its only key). Each broker hears this change after any the validateOnly made: neither shows one.
    alter(b.bootstrap, [(ALICE, {"consumer_byte_rate": None}), (ALICE_APP, {"request_percentage": None})])
    after = {ALICE: {"producer_byte_rate": 1048576.0}, DEFAULT_USER: {"producer_byte_rate": 524288.0}}
    wait_described_everywhere((a, b), after)
    assert described_by_java(a.bootstrap) == after
    assert stored(postgres) == ["producer_byte_rate|1048576", "producer_byte_rate|524288"]

    # A restarted broker reads them from PostgreSQL (its data directory holds none).
    b.restart()
    assert described(b) == after
