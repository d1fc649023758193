"""`ketch` the command line against a two-broker cluster (docs/cli.md,
docs/cluster.md): partitions led by different brokers, so the CLI must follow
Metadata's leaders and connect to each broker, and FindCoordinator for a
group. Records produced through one broker are read back through the other,
each partition in produce order."""

import base64
import json
import os
import subprocess
import time
import uuid

from confluent_kafka.admin import AdminClient

from conftest import clients

FLUSH = ["--cluster-flush-ms", "50", "--cluster-heartbeat-ms", "250", "--cluster-session-timeout-ms", "3000"]


def ketch(broker, *args, stdin=None):
    argv = [str(clients._ketch_binary()), *[str(a) for a in args], "-b", broker.bootstrap]
    env = dict(os.environ, KETCH_CONFIG_DIR="/nonexistent-ketch-config")
    env.pop("KAFKA_BOOTSTRAP_SERVERS", None)
    p = subprocess.run(argv, input=stdin.encode() if stdin else None, capture_output=True, timeout=120, env=env)
    assert p.returncode == 0, "%s exited %d: %s" % (" ".join(argv), p.returncode, p.stderr.decode(errors="replace"))
    return p.stdout.decode()


def leaders(broker, topic):
    return {p["partition"]: p["leader"] for p in json.loads(ketch(broker, "topic", "describe", topic, "--json"))["partitions"]}


def test_cli_follows_leaders_and_coordinators_across_brokers(start_broker):
    b1 = start_broker(1, *FLUSH)
    b2 = start_broker(2, *FLUSH)
    topic, partitions = "cli-cluster", 12
    ketch(b1, "topic", "create", topic, "-p", partitions)
    # Both brokers live and answering alike: leaders spread over 1 and 2
    # (rendezvous hashing; 12 partitions all on one broker has odds 1 in 2048
    # and the hash is deterministic for this name).
    deadline = time.monotonic() + 30
    while set(leaders(b1, topic).values()) != {1, 2} or leaders(b2, topic) != leaders(b1, topic):
        assert time.monotonic() < deadline, "leaders never spread: %s / %s" % (leaders(b1, topic), leaders(b2, topic))
        time.sleep(0.1)

    n = 3000
    lines = "".join("k%d:v%05d\n" % (i % 97, i) for i in range(n))
    summary = json.loads(ketch(b2, "produce", topic, "--json",
                               stdin="".join(json.dumps({"key": l.split(":")[0], "value": l.split(":")[1]}) + "\n"
                                             for l in lines.splitlines())))
    assert summary["records"] == n
    assert sum(p["last_offset"] - p["first_offset"] + 1 for p in summary["partitions"]) == n

    got = [json.loads(x) for x in ketch(b1, "consume", topic, "-o", "beginning", "-e", "--json").splitlines()]
    assert sorted(r["value"] for r in got) == ["v%05d" % i for i in range(n)]
    for p in range(partitions):  # each partition in produce order, offsets contiguous
        mine = [r for r in got if r["partition"] == p]
        assert [r["offset"] for r in mine] == list(range(len(mine)))
        assert [r["value"] for r in mine] == sorted(r["value"] for r in mine)
    placed = {}  # a key's records all in one partition (murmur2, as the Java producer places them)
    for r in got:
        placed.setdefault(r["key"], set()).add(r["partition"])
    assert len(placed) == 97 and all(len(parts) == 1 for parts in placed.values())

    # A group through broker 2, described through broker 1: FindCoordinator
    # leads both to the same coordinator.
    ketch(b2, "consume", topic, "-g", "cli-cluster-group", "-o", "beginning", "-n", n)
    d = json.loads(ketch(b1, "group", "describe", "cli-cluster-group", "--json"))
    assert d["total_lag"] == 0
    assert sum(o["committed_offset"] for o in d["offsets"]) == n


def test_cli_waits_until_every_broker_knows_a_new_topic(start_broker, postgres):
    """A broker learns of a topic another created from PostgreSQL's NOTIFY, a moment
    after CreateTopics was answered; a Metadata naming a topic it has not heard of
    reads it through first. The CLI, asked to produce through a broker that never
    heard the NOTIFY, finds the topic there and produces."""
    b1 = start_broker(1, *FLUSH)
    b2 = start_broker(2, *FLUSH)
    # A topic in PostgreSQL that no NOTIFY announced; b1 reads it at its restart, b2 never.
    topic_id = base64.urlsafe_b64encode(uuid.uuid4().bytes).rstrip(b"=").decode()
    postgres.psql("INSERT INTO ketch_topics (topic_id, name, partitions, replication_factor, created_ms) "
                  "VALUES ('%s', 'cli-late', 4, 1, %d)" % (topic_id, int(time.time() * 1000)))
    b1.restart()
    admin = AdminClient({"bootstrap.servers": b2.bootstrap})
    deadline = time.monotonic() + 30
    while len(admin.list_topics(timeout=10).brokers) != 2:  # b2 sees b1 back
        assert time.monotonic() < deadline, "b2 never listed b1 again"
        time.sleep(0.1)
    lines = "".join(json.dumps({"key": "k%d" % i, "value": "v%d" % i}) + "\n" for i in range(100))
    # No NOTIFY: b2's Metadata naming the topic reads the topics through from PostgreSQL
    # (docs/cluster.md "Caches and read-through"), so the CLI asked through b2 produces at once.
    assert json.loads(ketch(b2, "produce", "cli-late", "--json", stdin=lines))["records"] == 100
    got = ketch(b1, "consume", "cli-late", "-o", "beginning", "-e", "--json").splitlines()
    assert sorted(json.loads(r)["value"] for r in got) == sorted("v%d" % i for i in range(100))
