"""Fetch sessions (KIP-227) with real consumers on many partitions: every record of 50
partitions comes back exactly once and in offset order, and the clients that use fetch
sessions get one from ketch and are answered incrementally.

Which clients use sessions (their own source): the Java consumer
(clients/.../FetchSessionHandler.java: epoch 0, then incremental fetches), franz-go
(pkg/kgo/source.go: fetch sessions unless disabled) and kafka-python
(kafka/consumer/fetcher.py: FetchSessionHandler); librdkafka (confluent-kafka, kcat)
always sends session id 0 and epoch -1 (src/rdkafka_fetcher.c), and kafkajs opens none
either (seen here), so they stay on full fetches.
The broker side: Apache Kafka 4.3.1 server/.../FetchManager.java, FetchContext.java.
Counted on the metrics page: ketch_fetch_sessions_created_total,
ketch_fetch_requests_total{kind="incremental"} (docs/metrics.md).
"""

import base64
import json
import re
import urllib.request

import pytest

from conftest import create_topics

PARTITIONS = 50
ROUNDS = 4
PER_ROUND = 5
PER_PARTITION = ROUNDS * PER_ROUND
USES_SESSIONS = {"java": True, "franz-go": True, "kafka-python": True, "confluent": False, "kcat": False,
                 "kafkajs": False}


def value(p, i):
    return b"p%d-r%d-" % (p, i) + b"x" * 200


def metrics(broker):
    url = json.loads((broker.data_dir / "listeners.json").read_text())["metrics"]  # http://host:port/metrics
    text = urllib.request.urlopen(url, timeout=10).read().decode()
    out = {}
    for line in text.splitlines():
        m = re.match(r"^(ketch_fetch_[a-z_]+(?:\{[^}]*\})?) (\d+)$", line)
        if m:
            out[m.group(1)] = int(m.group(2))
    return out


@pytest.mark.ketch_args("--metrics-listen", "127.0.0.1:0")
def test_many_partitions_consumed_in_order_through_fetch_sessions(client, helper, broker, unique_topic):
    if broker.external:
        pytest.skip("reads ketch's metrics page")
    topic = unique_topic()
    create_topics(client, helper, {topic: PARTITIONS})
    for rnd in range(ROUNDS):  # a produce call per round: several batches per partition
        records = [{"key": None, "value": base64.b64encode(value(p, i)).decode(), "headers": [],
                    "timestamp": None, "partition": p}
                   for i in range(rnd * PER_ROUND, (rnd + 1) * PER_ROUND) for p in range(PARTITIONS)]
        out = helper("produce", {"topic": topic, "acks": "all", "compression": "none", "idempotent": False,
                                 "records": records})["records"]
        assert all(r["error"] is None for r in out)

    before = metrics(broker)
    # One batch per fetch (the first partition's, KIP-74): many fetches, which a session
    # client sends incrementally.
    config = {"max.partition.fetch.bytes": 1} if USES_SESSIONS.get(client.name) else {}
    got = client("consume", {"topic": topic, "from": "beginning", "max_records": PARTITIONS * PER_PARTITION,
                             "timeout_ms": 120000, "config": config})["records"]
    after = metrics(broker)

    by_partition = {}
    for m in got:
        by_partition.setdefault(m["partition"], []).append((m["offset"], base64.b64decode(m["value"])))
    assert sorted(by_partition) == list(range(PARTITIONS))
    for p, recs in by_partition.items():
        assert recs == [(i, value(p, i)) for i in range(PER_PARTITION)], p

    created = after["ketch_fetch_sessions_created_total"] - before["ketch_fetch_sessions_created_total"]
    incremental = (after['ketch_fetch_requests_total{kind="incremental"}']
                   - before['ketch_fetch_requests_total{kind="incremental"}'])
    if USES_SESSIONS[client.name]:
        assert created >= 1 and incremental >= 1, (created, incremental)
    else:
        assert (created, incremental) == (0, 0)
