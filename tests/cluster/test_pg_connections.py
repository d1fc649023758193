"""PostgreSQL connections per broker (issue 26; docs/cluster.md "Starting
brokers"): a broker holds at most --cluster-pg-connections connections of its
pool (application_name ketch-<node>-pool: every store, Fetch's reads) and
four of its own (ketch-<node>-<incarnation>: the heartbeat;
ketch-<node>-listen: LISTEN; ketch-<node>-commit: the flushes' commits;
ketch-<node>-jobs: the janitor and the orphan sweeper), whatever it serves.

- One broker with the smallest pool (3) serves a mixed load (idempotent
  produce and fetch, a consumer group committing offsets, transactions
  committed and aborted read with read_committed, a share group) while its
  sessions are sampled from pg_stat_activity: never more than 3 + 4, and no
  nested take (a thread holding a pooled connection taking another) logged.
- Three brokers with the default pool (5) run the same load against a
  PostgreSQL with max_connections 32 (3 x (5 + 4) = 27, and the sampler's
  psql): before the pool each broker kept one connection per store it had
  used and the reads' (14 each under this load, 17 to 20 under franz-go's
  suite), and three overran it: stores refused "too many clients"."""

import subprocess
import threading
import uuid

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition

import engines
from group_wire import live_brokers
from test_share_store_starved import ShareConsumer
from test_shared_produce import FLUSH, create_topic, produce

import conftest

clients = conftest.clients
DEDICATED = 4  # heartbeat, LISTEN, commits, the jobs
DEFAULT_POOL = 5  # --cluster-pg-connections' default
SMALL_SERVER = 32  # max_connections: 3 x (5 + 4) and the sampler's psql fit, 3 x 14 did not


@pytest.fixture(scope="module")
def postgres():
    pg = engines.Postgres(max_connections=SMALL_SERVER)
    yield pg
    pg.close()


class Sampler:
    """Samples pg_stat_activity on a thread of its own until stopped: per node, the most
    sessions seen at once in all (ketch-<node>-*) and in its pool (ketch-<node>-pool)."""

    def __init__(self, pg, nodes):
        self.pg, self.nodes = pg, nodes
        self.most = {n: {"all": 0, "pool": 0} for n in nodes}
        self.samples = 0
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while not self.stopping.is_set():
            rows = self.pg.psql("SELECT application_name FROM pg_stat_activity WHERE application_name LIKE 'ketch-%'")
            for n in self.nodes:
                mine = [r for r in rows if r.startswith("ketch-%d-" % n)]
                self.most[n]["all"] = max(self.most[n]["all"], len(mine))
                self.most[n]["pool"] = max(self.most[n]["pool"], mine.count("ketch-%d-pool" % n))
            self.samples += 1

    def stop(self):
        self.stopping.set()
        self.thread.join(timeout=30)
        return self.most


def produce_and_read_in_a_group(broker, bootstrap, tag):
    topic, group = "mixed-" + tag, "mixed-group-" + tag
    create_topic(broker, topic, 4)
    acked = produce(broker, topic, [(b"k%d" % i, b"v%d" % i) for i in range(400)], 4)
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": group, "enable.auto.commit": False,
                  "auto.offset.reset": "earliest"})
    c.subscribe([topic])
    got = set()
    try:
        clients.wait_for(lambda: collect(c, got) >= len(acked), timeout=90, what="the group read every record")
        c.commit(asynchronous=False)
        committed = c.committed([TopicPartition(topic, p) for p in range(4)], timeout=30)
    finally:
        c.close()
    assert got == set(acked.values())
    assert sum(tp.offset for tp in committed) == len(acked)


def collect(consumer, got):
    m = consumer.poll(0.5)
    if m is not None and not m.error():
        got.add(m.value())
    return len(got)


def transactions(broker, bootstrap, tag):
    topic = "mixed-txn-" + tag
    create_topic(broker, topic, 2)
    p = Producer({"bootstrap.servers": bootstrap, "transactional.id": "mixed-" + tag})
    p.init_transactions(60)
    kept = set()
    for i in range(9):
        p.begin_transaction()
        value = b"t%d" % i
        p.produce(topic, value=value, partition=i % 2)
        if i % 3 == 2:
            p.abort_transaction(60)
        else:
            p.commit_transaction(60)
            kept.add(value)
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "mixed-rc-" + tag, "enable.auto.commit": False,
                  "auto.offset.reset": "earliest", "isolation.level": "read_committed"})
    c.assign([TopicPartition(topic, p, 0) for p in range(2)])
    got = set()
    try:
        clients.wait_for(lambda: collect(c, got) >= len(kept), timeout=90, what="the committed records read")
    finally:
        c.close()
    assert got == kept


def share_group(broker, tag, log):
    topic, group = "mixed-share-" + tag, "mixed-share-group-" + tag
    create_topic(broker, topic, 1)
    values = {"s%d" % i for i in range(20)}
    produce(broker, topic, [(None, v.encode()) for v in sorted(values)], 1)
    setup = clients.java_main("ShareConsumerMain", ["setup", broker.bootstrap, group, "share.auto.offset.reset=earliest"],
                              stdout=subprocess.PIPE, text=True)
    assert setup.communicate(timeout=90)[0].strip() == "ok"
    consumer = ShareConsumer(broker.bootstrap, group, topic, log)
    try:
        clients.wait_for(lambda: consumer.got() == values, timeout=90, what="the share group read every record")
    finally:
        consumer.close()


def run_all(*loads):
    """Runs each load on a thread of its own; re-raises the first failure."""
    errors = []

    def guarded(fn):
        try:
            fn()
        except BaseException as e:  # noqa: B902 (reported below)
            errors.append(e)

    threads = [threading.Thread(target=guarded, args=(fn,)) for fn in loads]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=240)
    assert not any(t.is_alive() for t in threads), "a load did not finish"
    if errors:
        raise errors[0]


def test_a_broker_with_the_smallest_pool_serves_a_mixed_load_within_its_bound(start_broker, postgres, tmp_path):
    bound = 3
    broker = start_broker(1, *FLUSH, "--cluster-pg-connections", str(bound))
    sampler = Sampler(postgres, [1])
    tag = uuid.uuid4().hex[:8]
    try:
        run_all(lambda: produce_and_read_in_a_group(broker, broker.bootstrap, tag),
                lambda: transactions(broker, broker.bootstrap, tag),
                lambda: share_group(broker, tag, open(tmp_path / "share.log", "w")))
    finally:
        most = sampler.stop()
    assert sampler.samples > 0
    assert 1 <= most[1]["pool"] <= bound, most
    assert most[1]["all"] <= bound + DEDICATED, most
    assert "takes another" not in broker.log_text()


def test_three_brokers_fit_a_server_the_per_store_connections_overran(start_broker, postgres, tmp_path):
    brokers = [start_broker(n, *FLUSH) for n in (1, 2, 3)]
    bootstrap = ",".join(b.bootstrap for b in brokers)
    # Each broker's view of the live brokers catches up at its next heartbeat: until then the
    # first ones started name other coordinators for the groups and transactional ids than the
    # last (a transactional id taken by one, refused to the owner by the others' view, failed a
    # commit once).
    for b in brokers:
        clients.wait_for(lambda b=b: live_brokers(b) == 3, timeout=30, what="%s lists three brokers" % b.bootstrap)
    sampler = Sampler(postgres, [1, 2, 3])
    try:
        loads = []
        for i, b in enumerate(brokers):
            tag = "%s-%d" % (uuid.uuid4().hex[:8], i)
            loads += [lambda b=b, tag=tag: produce_and_read_in_a_group(b, bootstrap, tag),
                      lambda b=b, tag=tag: transactions(b, bootstrap, tag)]
        loads.append(lambda: share_group(brokers[0], uuid.uuid4().hex[:8], open(tmp_path / "share.log", "w")))
        run_all(*loads)
    finally:
        most = sampler.stop()
    for n in (1, 2, 3):
        assert most[n]["pool"] <= DEFAULT_POOL and most[n]["all"] <= DEFAULT_POOL + DEDICATED, most
    for b in brokers:
        assert b.running()
        assert "too many clients" not in b.log_text()
