"""Scripted faults in cluster mode are the cluster's (docs/design/faults.md
"Cluster mode", docs/cluster.md): a fault added on any broker's console
(/api/v1/faults, as `ketch fault` does) is injected by every broker started
with --faults, its count is the cluster's (each injection claimed in
PostgreSQL, whichever broker serves the request), and deleting it on any
broker clears it on all. A disk fault has no local log file to fail in
cluster mode and is refused."""

import json
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from confluent_kafka import KafkaError, Producer

sys.path.insert(0, str(Path(__file__).resolve().parent))

from test_shared_produce import FLUSH, create_topic, wait_for_topic  # noqa: E402

FAULTS = ["--faults", "--metrics-listen", "127.0.0.1:0"]


@pytest.fixture(autouse=True)
def no_faults_left(postgres):
    """The database is the module's: a test's faults must not reach the next one's brokers."""
    yield
    postgres.psql("DO $$ BEGIN IF to_regclass('ketch_faults') IS NOT NULL THEN DELETE FROM ketch_faults; END IF; END $$")


def listener(broker, name):
    return json.loads((broker.data_dir / "listeners.json").read_text())[name]


def call(broker, method, path, body=None):
    """The broker's console: (status, JSON)."""
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(listener(broker, "console").rstrip("/") + path, data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def faults(broker):
    status, body = call(broker, "GET", "/api/v1/faults")
    assert status == 200, body
    return body["faults"]


def add(broker, others, rule):
    """Adds the fault on `broker`; the others hear of it by their NOTIFY, and read the faults again
    when their consoles list them: from then on each holds it whether or not the NOTIFY came."""
    status, added = call(broker, "POST", "/api/v1/faults", rule)
    assert status == 201, added
    for other in others:
        assert added["id"] in [f["id"] for f in faults(other)]
    return added


def injected(broker, kind="error", api="Produce"):
    """ketch_faults_injected_total{kind, api} on this broker's metrics page (per broker); api None: summed."""
    text = urllib.request.urlopen(listener(broker, "metrics"), timeout=10).read().decode()
    key = 'ketch_faults_injected_total{kind="%s",api="%s"} ' % (kind, api or "")
    if api is None:
        key = key[:-3]
    return sum(int(line.rpartition(" ")[2]) for line in text.splitlines() if line.startswith(key))


def produce_one(broker, topic, partition):
    """One record to the partition (its leader serves it): the delivery's error, or None."""
    p = Producer({"bootstrap.servers": broker.bootstrap, "acks": "all", "linger.ms": 0})
    errors = []
    p.produce(topic, value=b"v", partition=partition, on_delivery=lambda e, _m: errors.append(e))
    assert p.flush(30) == 0
    return errors[0].code() if errors[0] else None


def two_brokers(start_broker, topic):
    """Brokers 1 and 2 with --faults and a topic, and a partition each leads (as both say: a
    client asks either for Metadata)."""
    b1, b2 = (start_broker(n, *FLUSH, *FAULTS, console=True) for n in (1, 2))
    create_topic(b1, topic, 8)
    deadline = time.monotonic() + 30
    while True:  # both brokers' Metadata agree (each sees the other live) and name each a leader
        leaders = wait_for_topic(b2, topic, 8)
        led = {n: next((p for p, leader in sorted(leaders.items()) if leader == n), None) for n in (1, 2)}
        if None not in led.values() and wait_for_topic(b1, topic, 8) == leaders:
            return b1, b2, led
        assert time.monotonic() < deadline, "no partition led by each broker: %s" % leaders
        time.sleep(0.1)


def test_a_count_is_the_clusters_whichever_broker_serves(start_broker):
    b1, b2, led = two_brokers(start_broker, "faults-count")
    added = add(b1, [b2], {"kind": "error", "error": "TOPIC_AUTHORIZATION_FAILED", "api": "Produce",
                           "topic": "faults-count", "count": 2})
    assert added["remaining"] == 2, added
    # Added on broker 1, it fails a Produce broker 2 serves (the leader of the partition).
    assert produce_one(b2, "faults-count", led[2]) == KafkaError.TOPIC_AUTHORIZATION_FAILED
    assert (injected(b1), injected(b2)) == (0, 1)
    listed = faults(b2)
    assert [(f["id"], f["remaining"], f["injected"]) for f in listed] == [(added["id"], 1, 1)], listed
    # The second of its two: on broker 1.
    assert produce_one(b2, "faults-count", led[1]) == KafkaError.TOPIC_AUTHORIZATION_FAILED
    assert (injected(b1), injected(b2)) == (1, 1)
    # Used up on both: the next Produce to either is answered.
    assert produce_one(b1, "faults-count", led[2]) is None
    assert produce_one(b1, "faults-count", led[1]) is None
    assert faults(b1) == [] and faults(b2) == []
    assert (injected(b1), injected(b2)) == (1, 1)


def test_producers_on_both_brokers_meet_exactly_the_count(start_broker):
    """An idempotent producer writing to every partition (both brokers, concurrently) retries
    NOT_LEADER_OR_FOLLOWER: each record lands, and the brokers injected the fault's count in all."""
    b1, b2, _led = two_brokers(start_broker, "faults-exact")
    add(b2, [b1], {"kind": "error", "error": "NOT_LEADER_OR_FOLLOWER", "api": "Produce", "topic": "faults-exact",
                   "count": 5})
    p = Producer({"bootstrap.servers": b1.bootstrap, "acks": "all", "enable.idempotence": True,
                  "retry.backoff.ms": 20, "linger.ms": 5})
    errors = []
    for i in range(400):
        p.produce("faults-exact", value=b"v%d" % i, partition=i % 8, on_delivery=lambda e, _m: e and errors.append(e))
    assert p.flush(60) == 0 and errors == []
    assert injected(b1) + injected(b2) == 5
    assert faults(b1) == []


def test_deleting_on_one_broker_clears_it_on_the_other(start_broker):
    b1, b2, led = two_brokers(start_broker, "faults-delete")
    added = add(b1, [b2], {"kind": "error", "error": "TOPIC_AUTHORIZATION_FAILED", "api": "Produce",
                           "topic": "faults-delete"})
    assert produce_one(b1, "faults-delete", led[1]) == KafkaError.TOPIC_AUTHORIZATION_FAILED
    assert call(b2, "DELETE", "/api/v1/faults/%d" % added["id"]) == (200, {"removed": added["id"]})
    # Broker 1 injects no more (each injection is claimed in PostgreSQL, where the fault is gone).
    assert produce_one(b1, "faults-delete", led[1]) is None
    assert faults(b1) == []
    assert call(b1, "DELETE", "/api/v1/faults/%d" % added["id"])[0] == 404


def test_a_pause_added_on_one_broker_holds_the_others_requests(start_broker):
    b1, b2, led = two_brokers(start_broker, "faults-pause")
    before = injected(b2, "pause", None)
    started = time.monotonic()
    add(b1, [b2], {"kind": "pause", "duration_ms": 3000})
    assert produce_one(b2, "faults-pause", led[2]) is None  # bootstrapped at broker 2: its first request held
    assert time.monotonic() - started >= 3.0
    assert injected(b2, "pause", None) - before >= 1
    assert faults(b1) == [] and faults(b2) == []  # over on both


def test_disk_faults_are_refused_in_cluster_mode(start_broker):
    b1 = start_broker(1, *FLUSH, *FAULTS, console=True)
    for kind in ("disk_full", "fsync_error"):
        status, body = call(b1, "POST", "/api/v1/faults", {"kind": kind, "topic": "t", "partition": 0})
        assert status == 400 and "cluster mode" in body["message"], body
    assert faults(b1) == []
