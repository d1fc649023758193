"""A tenant's max_storage_bytes counted for the cluster (docs/cluster.md
"Tenants", docs/design/cluster.md "Tenants"): each broker checks a Produce
against the tenant's bytes in the shared log — the sum of its partitions'
ketch_partitions.stored_bytes, which the commit, retention, DeleteRecords and
compaction keep equal to the sum of their index rows' byte_length — read every
--cluster-heartbeat-ms, plus what the broker itself let through since its
last read (within a batch: SLACK). ketch_tenant_storage_bytes on each broker's metrics page is that number.

Two brokers with --tenancy. Tenant team (max_storage_bytes LIMIT) writes
batches of one size through broker 1, then through broker 2 until refused:
the refusal comes when the tenant's bytes through both pass the limit (not
when broker 2's own do, which would let it hold twice the limit); broker 1
then refuses too. DeleteRecords through broker 2 frees bytes and broker 1
accepts again; filled again, retention frees bytes and broker 2 accepts
again; the topic deleted, both brokers count nothing. PostgreSQL's
stored_bytes equals the index's bytes after each step."""

import time
import urllib.request

from confluent_kafka import TopicPartition
from confluent_kafka.admin import AdminClient, AlterConfigOpType, ConfigEntry, ConfigResource

from conftest import clients
from test_shared_security import login
from test_shared_tenants import conf, create_topic, described, start_tenancy_brokers

# tests/behavior, on the path through test_shared_tenants
from kafka_wire import produce, record_batch  # noqa: E402
from sasl_wire import exchange, metadata_request_v1  # noqa: E402

USERS = {"root": "root-pw", "team": "team-pw"}
POLICY_VIOLATION = 44  # Errors.POLICY_VIOLATION
VALUE = b"v" * 2000
LIMIT = 40_000
FIRST = 12  # batches through broker 1 first: under the limit
JANITOR = ["--retention-check-ms", "200"]


def start_two(start_broker, tmp_path):
    brokers = start_tenancy_brokers(start_broker, tmp_path, (1, 2), USERS, *JANITOR, "--metrics-listen", "127.0.0.1:0")
    for b in brokers:
        b.metrics = b.listeners["metrics"]
    return brokers


def batch():
    return record_batch([(b"k", VALUE)], timestamp=int(time.time() * 1000))


B = len(batch())  # every batch of this test has this size
# A broker's check may miss its own batch still being committed when it last
# read PostgreSQL (each Writer has one in flight at most): one batch over.
SLACK = 2 * B


class Writer:
    """Team's raw Produce requests to one broker (any broker takes any partition's)."""

    def __init__(self, b):
        self.sock = login(b, "team", USERS["team"])
        assert self.sock is not None
        exchange(self.sock, metadata_request_v1())  # its first request: the tenant's metrics on b begin
        self.correlation = 100

    def produce(self, partition):
        self.correlation += 1
        error, _ = produce(self.sock, "data", partition, batch(), self.correlation)
        return error


def seen_by(b):
    """ketch_tenant_storage_bytes{tenant="team"} on b's metrics page (None: not listed)."""
    with urllib.request.urlopen(b.metrics, timeout=10) as r:
        for line in r.read().decode().splitlines():
            if line.startswith('ketch_tenant_storage_bytes{tenant="team"} '):
                return int(line.split()[-1])
    return None


def stored(postgres):
    """Team's bytes in PostgreSQL, after checking stored_bytes against the index, partition by partition."""
    drift = postgres.psql(
        "SELECT p.partition, p.stored_bytes, (SELECT coalesce(sum(b.byte_length), 0) FROM ketch_batches b WHERE "
        "b.topic_id = p.topic_id AND b.partition = p.partition) FROM ketch_partitions p JOIN ketch_topics t ON "
        "t.topic_id = p.topic_id WHERE t.name LIKE 'team~%' AND p.stored_bytes <> (SELECT coalesce(sum(b.byte_length), "
        "0) FROM ketch_batches b WHERE b.topic_id = p.topic_id AND b.partition = p.partition)")
    assert drift == [], drift
    return int(postgres.psql("SELECT coalesce(sum(p.stored_bytes), 0) FROM ketch_partitions p JOIN ketch_topics t ON "
                             "t.topic_id = p.topic_id WHERE t.name LIKE 'team~%'")[0])


def fill_until_refused(w, partition):
    """Batches to `partition` through w until one is refused; how many were accepted."""
    accepted = 0
    while True:
        error = w.produce(partition)
        if error == POLICY_VIOLATION:
            return accepted
        assert error == 0, error
        accepted += 1
        assert accepted * B < 2 * LIMIT, "never refused"


def test_a_tenants_storage_limit_holds_for_its_bytes_in_the_cluster(start_broker, postgres, tmp_path):
    b1, b2 = start_two(start_broker, tmp_path)
    status, _ = b1.rest.post("/api/v1/tenants", {"name": "team", "limits": {"max_storage_bytes": LIMIT}})
    assert status == 201
    for b in (b1, b2):
        clients.wait_for(lambda: described(b, "team") == ({"max_storage_bytes": LIMIT}, []),
                         what="broker %s knows tenant team" % b.address)
    assert create_topic(b1, "team", "data", 2) is None
    w1, w2 = Writer(b1), Writer(b2)

    # Under the limit through broker 1; broker 2 reads the tenant's bytes from PostgreSQL.
    for _ in range(FIRST):
        assert w1.produce(0) == 0
    assert FIRST * B < LIMIT
    clients.wait_for(lambda: stored(postgres) == FIRST * B, what="broker 1's batches committed")
    clients.wait_for(lambda: seen_by(b2) == FIRST * B, what="broker 2 counts broker 1's bytes")

    # Through broker 2 until refused: when the tenant's bytes through both pass the limit.
    second = fill_until_refused(w2, 1)
    total = (FIRST + second) * B
    assert LIMIT <= total < LIMIT + SLACK, (FIRST, second, B)
    clients.wait_for(lambda: stored(postgres) == total, what="broker 2's batches committed")
    # Broker 1, which wrote less than the limit itself, refuses too once it has read them.
    clients.wait_for(lambda: seen_by(b1) == total, what="broker 1 counts broker 2's bytes")
    assert w1.produce(0) == POLICY_VIOLATION

    # DeleteRecords through broker 2 frees partition 1's bytes: broker 1 accepts again.
    admin2 = AdminClient(conf(b2, "team"))  # kept: its futures die with it
    for f in admin2.delete_records([TopicPartition("data", 1, second)]).values():
        f.result(timeout=30)
    clients.wait_for(lambda: stored(postgres) == FIRST * B, what="DeleteRecords dropped partition 1's bytes")
    clients.wait_for(lambda: w1.produce(0) == 0, what="broker 1 accepts after DeleteRecords")

    # Filled again through broker 1, then retention frees them: broker 2 accepts again.
    third = fill_until_refused(w1, 0)
    assert LIMIT <= (FIRST + 1 + third) * B < LIMIT + SLACK, (FIRST, third, B)
    clients.wait_for(lambda: seen_by(b2) == (FIRST + 1 + third) * B, what="broker 2 counts them")
    assert w2.produce(1) == POLICY_VIOLATION
    retention = ConfigEntry("retention.ms", "1000", incremental_operation=AlterConfigOpType.SET)
    admin1 = AdminClient(conf(b1, "team"))
    for f in admin1.incremental_alter_configs([ConfigResource("topic", "data", incremental_configs=[retention])]).values():
        f.result(timeout=30)
    clients.wait_for(lambda: stored(postgres) == 0, timeout=30, what="retention dropped every batch")
    clients.wait_for(lambda: w2.produce(1) == 0, what="broker 2 accepts after retention")

    # The topic deleted: neither broker counts its bytes.
    admin2.delete_topics(["data"])["data"].result(timeout=30)
    for b in (b1, b2):
        clients.wait_for(lambda: seen_by(b) == 0, what="broker %s counts nothing of a deleted topic" % b.address)
