"""Config resources shared by every broker (docs/cluster.md, "Security" and
"what each engine holds"):

- GROUP and CLIENT_METRICS resources live in PostgreSQL
  (ketch_resource_configs): set through one broker, described by every
  broker once it heard the NOTIFY ('resource-configs'), kept by a broker
  restarted with an empty data directory, removed everywhere;
- IncrementalAlterConfigs computes the next set from the stored one in one
  PostgreSQL transaction that holds the set's lock, so concurrent changes of
  different keys of one set through two brokers all hold: the cluster-wide
  default broker configs (the BROKER resource named "") and a GROUP's.
  Kafka's controller applies them one after the other
  (metadata/src/main/java/org/apache/kafka/controller/
  ConfigurationControlManager.java, incrementalAlterConfigs: each op applied
  to the current config of the resource).

Raw requests (IncrementalAlterConfigs v0, DescribeConfigs v1): librdkafka
refuses a BROKER resource with an empty name, and each request must go to
the broker named."""

import shutil
import struct
import sys
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "behavior"))

from conftest import clients  # noqa: E402
from kafka_wire import Reader  # noqa: E402
from test_shared_produce import FLUSH, TIMING  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))

from group_wire import call  # noqa: E402

BROKER, GROUP, CLIENT_METRICS = 4, 32, 16
SET, DELETE = 0, 1


def _string(s):
    b = s.encode()
    return struct.pack(">h", len(b)) + b


def _nullable(s):
    return struct.pack(">h", -1) if s is None else _string(s)


def alter(broker, rtype, name, ops):
    """IncrementalAlterConfigs v0 of one resource: ops [(key, op, value)]; (error code, message)."""
    body = struct.pack(">i", 1) + struct.pack(">b", rtype) + _string(name) + struct.pack(">i", len(ops))
    for key, op, value in ops:
        body += _string(key) + struct.pack(">b", op) + _nullable(value)
    r = Reader(call(broker, 44, 0, body + b"\x00"))
    r.take(">i")
    assert r.take(">i") == 1
    return r.take(">h"), r.string()


def describe(broker, rtype, name):
    """DescribeConfigs v1 of one resource: {key: value}."""
    body = struct.pack(">i", 1) + struct.pack(">b", rtype) + _string(name) + struct.pack(">i", -1) + b"\x00"
    r = Reader(call(broker, 32, 1, body))
    r.take(">i")
    assert r.take(">i") == 1
    error, message = r.take(">h"), r.string()
    assert error == 0, (error, message)
    r.take(">b")
    r.string()
    out = {}
    for _ in range(r.take(">i")):
        key, value = r.string(), r.string()
        r.take(">b"), r.take(">b"), r.take(">b")  # read_only, source, sensitive
        for _ in range(r.take(">i")):
            r.string(), r.string(), r.take(">b")
        out[key] = value
    return out


def stored(postgres, name):
    return sorted(postgres.psql("SELECT kind, convert_from(name, 'UTF8'), config, value FROM ketch_resource_configs "
                                "WHERE name = convert_to('%s', 'UTF8')" % name))


def default_layer(postgres):
    """The cluster-wide default's rows of the two keys the test changes."""
    return sorted(postgres.psql("SELECT name, value FROM ketch_broker_configs WHERE scope = '' "
                                "AND name IN ('log.retention.ms', 'log.retention.bytes')"))


def test_group_and_client_metrics_configs_are_shared_by_every_broker(start_broker, postgres):
    brokers = {n: start_broker(n, *FLUSH, *TIMING) for n in (1, 2)}
    assert alter(brokers[1], GROUP, "shared-group", [("consumer.heartbeat.interval.ms", SET, "6000")]) == (0, None)
    assert alter(brokers[2], CLIENT_METRICS, "shared-sub",
                 [("interval.ms", SET, "60000"), ("metrics", SET, "org.apache.kafka.producer.")]) == (0, None)
    assert stored(postgres, "shared-sub") == ["16|shared-sub|interval.ms|60000",
                                              "16|shared-sub|metrics|org.apache.kafka.producer."]
    assert stored(postgres, "shared-group") == ["32|shared-group|consumer.heartbeat.interval.ms|6000"]
    for n, b in brokers.items():
        clients.wait_for(lambda: describe(b, GROUP, "shared-group")["consumer.heartbeat.interval.ms"] == "6000",
                         what="the group's config described at %d" % n)
        clients.wait_for(lambda: describe(b, CLIENT_METRICS, "shared-sub").get("interval.ms") == "60000",
                         what="the subscription described at %d" % n)

    # A broker restarted with an empty data directory has them (PostgreSQL's).
    b2 = brokers[2]
    b2.stop()
    shutil.rmtree(b2.data_dir)
    b2.data_dir.mkdir()
    b2.start(port=b2.port)
    assert describe(b2, GROUP, "shared-group")["consumer.heartbeat.interval.ms"] == "6000"
    assert describe(b2, CLIENT_METRICS, "shared-sub")["interval.ms"] == "60000"

    # Removed through one broker: gone at the other.
    assert alter(b2, GROUP, "shared-group", [("consumer.heartbeat.interval.ms", DELETE, None)]) == (0, None)
    clients.wait_for(lambda: describe(brokers[1], GROUP, "shared-group")["consumer.heartbeat.interval.ms"] == "5000",
                     what="the group's config gone at 1")
    assert stored(postgres, "shared-group") == []
    assert len(stored(postgres, "shared-sub")) == 2


def _concurrently(calls):
    """Runs the calls at once (a barrier); their results in order."""
    start, out = threading.Barrier(len(calls)), [None] * len(calls)

    def run(i, fn):
        start.wait()
        out[i] = fn()

    threads = [threading.Thread(target=run, args=(i, fn)) for i, fn in enumerate(calls)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return out


def test_concurrent_changes_of_the_cluster_default_through_two_brokers_all_hold(start_broker, postgres):
    b1, b2 = (start_broker(n, *FLUSH, *TIMING) for n in (1, 2))
    for i in range(12):
        ms, size = str(3_600_000 + i), str(1_000_000 + i)
        answers = _concurrently([lambda: alter(b1, BROKER, "", [("log.retention.ms", SET, ms)]),
                                 lambda: alter(b2, BROKER, "", [("log.retention.bytes", SET, size)])])
        assert answers == [(0, None), (0, None)]
        assert default_layer(postgres) == ["log.retention.bytes|" + size, "log.retention.ms|" + ms], "round %d" % i
    for b in (b1, b2):  # every broker ends with the last round's layer
        clients.wait_for(lambda: describe(b, BROKER, "").get("log.retention.bytes") == size, what="the default layer")
        clients.wait_for(lambda: describe(b, BROKER, "").get("log.retention.ms") == ms, what="the default layer")


def test_concurrent_changes_of_a_groups_configs_through_two_brokers_all_hold(start_broker, postgres):
    b1, b2 = (start_broker(n, *FLUSH, *TIMING) for n in (1, 2))
    for i in range(12):
        hb, st = str(5000 + i), str(45000 + i)
        answers = _concurrently([lambda: alter(b1, GROUP, "busy", [("consumer.heartbeat.interval.ms", SET, hb)]),
                                 lambda: alter(b2, GROUP, "busy", [("consumer.session.timeout.ms", SET, st)])])
        assert answers == [(0, None), (0, None)]
        assert stored(postgres, "busy") == ["32|busy|consumer.heartbeat.interval.ms|" + hb,
                                    "32|busy|consumer.session.timeout.ms|" + st], "round %d" % i
    for b in (b1, b2):
        clients.wait_for(lambda: describe(b, GROUP, "busy")["consumer.session.timeout.ms"] == st, what="the group's set")
