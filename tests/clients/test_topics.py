"""Topic administration as each real client sees it (issue 2).

Behaviour reference, Apache Kafka 4.3.1:
- name rules: clients/src/main/java/org/apache/kafka/common/internals/Topic.java
  (non-empty, not "." or "..", at most 249 chars, only [a-zA-Z0-9._-], no '.'/'_' collision)
- partitions / replication factor checks, duplicate names, placement:
  metadata/src/main/java/org/apache/kafka/controller/ReplicationControlManager.java
- topics vanish from Metadata once deleted: same file, deleteTopic / replay.
"""

import re
import shutil
import signal
import subprocess

import pytest

from conftest import create_topics, eventually


def create(client, name, partitions=1, replication_factor=1, **extra):
    """create-topics for one topic; its error name (None on success)."""
    out = client("create-topics", {"topics": [{"name": name, "partitions": partitions,
                                               "replication_factor": replication_factor}], **extra})
    assert [r["name"] for r in out["results"]] == [name]
    return out["results"][0]["error"]


def node_id(client):
    cluster = client("describe-cluster")
    assert len(cluster["brokers"]) == 1, cluster
    return cluster["brokers"][0]["id"]


def assert_listed(client, expected):
    """list-topics shows each name with its partition count (None = absent)."""
    def check():
        topics = client("list-topics")["topics"]
        assert {n: topics.get(n) for n in expected} == expected
    eventually(check)


def test_created_topics_are_listed_with_their_partition_counts(client, helper, unique_topic):
    specs = {unique_topic("p%d" % n): n for n in (1, 3, 6)}
    create_topics(client, helper, specs)
    assert_listed(client, specs)


def test_describe_shows_every_partition_led_by_the_broker(client, helper, unique_topic):
    specs = {unique_topic("p%d" % n): n for n in (1, 3, 6)}
    create_topics(client, helper, specs)
    node = node_id(client)
    out = client("describe-topics", {"topics": list(specs)})
    assert [t["name"] for t in out["topics"]] == list(specs)
    for t in out["topics"]:
        assert t["error"] is None, t
        assert [p["partition"] for p in t["partitions"]] == list(range(specs[t["name"]]))
        for p in t["partitions"]:
            assert (p["leader"], p["replicas"], p["isr"]) == (node, [node], [node]), (t["name"], p)


def test_describe_unknown_topic_is_unknown_topic_or_partition(client, unique_topic):
    name = unique_topic("never-created")
    out = client("describe-topics", {"topics": [name]})
    assert [(t["name"], t["error"]) for t in out["topics"]] == [(name, "UNKNOWN_TOPIC_OR_PARTITION")]


def test_creating_an_existing_topic_is_topic_already_exists(client, unique_topic):
    name = unique_topic()
    assert create(client, name, partitions=3) is None
    assert create(client, name, partitions=3) == "TOPIC_ALREADY_EXISTS"
    assert create(client, name, partitions=5) == "TOPIC_ALREADY_EXISTS"
    assert_listed(client, {name: 3})  # the failed attempts changed nothing


INVALID_NAMES = ["", ".", "..", "a" * 250, "bad/name", "bad name", "bad\u00e9"]


def test_invalid_topic_names_are_invalid_topic_exception(client):
    """Every kind of invalid name in one create call: each refused, none created."""
    out = client("create-topics", {"topics": [{"name": n, "partitions": 1, "replication_factor": 1}
                                              for n in INVALID_NAMES]})
    assert {r["name"]: r["error"] for r in out["results"]} == {n: "INVALID_TOPIC_EXCEPTION" for n in INVALID_NAMES}
    listed = client("list-topics")["topics"]
    assert [n for n in INVALID_NAMES if n in listed] == []


def test_longest_legal_name_is_accepted(client, unique_topic):
    name = unique_topic()
    name = name + "x" * (249 - len(name))
    assert create(client, name) is None
    assert_listed(client, {name: 1})


def test_names_colliding_on_dot_and_underscore_are_rejected(client, unique_topic):
    base = unique_topic()  # Topic.hasCollision: names equal once every '.' is read as '_'
    assert create(client, base + ".x") is None
    assert create(client, base + "_x") == "INVALID_TOPIC_EXCEPTION"
    assert base + "_x" not in client("list-topics")["topics"]


def test_non_positive_partition_counts_are_invalid_partitions(client, unique_topic):
    counts = {unique_topic("zero"): 0, unique_topic("minus-two"): -2}
    out = client("create-topics", {"topics": [{"name": n, "partitions": p, "replication_factor": 1}
                                              for n, p in counts.items()]})
    assert {r["name"]: r["error"] for r in out["results"]} == {n: "INVALID_PARTITIONS" for n in counts}
    listed = client("list-topics")["topics"]
    assert [n for n in counts if n in listed] == []


def test_zero_replication_factor_is_invalid_replication_factor(client, unique_topic):
    name = unique_topic()
    assert create(client, name, replication_factor=0) == "INVALID_REPLICATION_FACTOR"
    assert name not in client("list-topics")["topics"]


def test_replication_factor_above_broker_count(client, unique_topic, broker):
    """Apache Kafka with one broker refuses replication factor 2
    (ReplicationControlManager: INVALID_REPLICATION_FACTOR). ketch accepts it on
    purpose, so applications written for a cluster start unchanged
    (conformance/differences.md); the topic then has one replica."""
    name = unique_topic()
    if broker.external:
        assert create(client, name, replication_factor=2) == "INVALID_REPLICATION_FACTOR"
        assert name not in client("list-topics")["topics"]
        return
    assert create(client, name, replication_factor=2) is None
    assert client("list-topics")["topics"][name] == 1
    parts = client("describe-topics", {"topics": [name]})["topics"][0]["partitions"]
    assert all(p["replicas"] == [p["leader"]] for p in parts)


def test_broker_defaults_apply_for_minus_one(client, unique_topic):
    name = unique_topic()
    assert create(client, name, partitions=-1, replication_factor=-1) is None
    # num.partitions and default.replication.factor default to 1 (ServerLogConfigs, ReplicationConfigs)
    assert_listed(client, {name: 1})


def test_validate_only_creates_nothing(client, unique_topic):
    name = unique_topic()
    assert create(client, name, partitions=2, validate_only=True) is None
    assert name not in client("list-topics")["topics"]
    assert create(client, name, partitions=0, validate_only=True) == "INVALID_PARTITIONS"


def test_deleted_topic_is_gone(client, helper, unique_topic):
    keep, gone = unique_topic("keep"), unique_topic("gone")
    create_topics(client, helper, {keep: 2, gone: 3})
    out = client.call("delete-topics", {"topics": [gone]})
    if out is None:
        pytest.skip("%s cannot delete topics" % client.name)
    assert out["results"] == [{"name": gone, "error": None}]
    assert_listed(client, {keep: 2, gone: None})
    described = client("describe-topics", {"topics": [gone]})["topics"]
    assert [(t["name"], t["error"]) for t in described] == [(gone, "UNKNOWN_TOPIC_OR_PARTITION")]
    # the name is free again, with a new shape
    assert create(client, gone, partitions=1) is None
    assert_listed(client, {keep: 2, gone: 1})


def test_deleting_an_unknown_topic_is_unknown_topic_or_partition(client, unique_topic):
    name = unique_topic()
    out = client("delete-topics", {"topics": [name]})
    assert out["results"] == [{"name": name, "error": "UNKNOWN_TOPIC_OR_PARTITION"}]


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=["sigterm", "sigkill"])
def test_topics_survive_a_restart(broker, drivers, helper, unique_topic, sig):
    """Topics created by every client with an admin API are all there after one restart,
    with their partition counts and leaders, as every client sees them."""
    if broker.external:
        pytest.skip("restart needs a ketch the tests started")
    specs = {}
    for name, drv in drivers.items():
        mine = {unique_topic("%s-p%d" % (name, n)): n for n in (1, 3, 6)}
        out = drv.call("create-topics", {"topics": [{"name": t, "partitions": n, "replication_factor": 1}
                                                    for t, n in mine.items()]})
        if out is None:
            continue  # no admin API in this client (kcat)
        assert [r["error"] for r in out["results"]] == [None] * len(mine), (name, out)
        specs.update(mine)
    assert len(specs) >= 3 * 4, "fewer than four clients could create topics"
    assert_listed(helper, specs)
    before = helper("describe-cluster")
    broker.restart(sig)
    after = helper("describe-cluster")
    assert after["cluster_id"] == before["cluster_id"]
    assert [b["id"] for b in after["brokers"]] == [b["id"] for b in before["brokers"]]
    node = after["brokers"][0]["id"]
    for name, drv in drivers.items():
        assert_listed(drv, specs)
        described = drv.call("describe-topics", {"topics": list(specs)})
        if described is None:
            continue
        for t in described["topics"]:
            assert t["error"] is None, (name, t)
            assert [(p["partition"], p["leader"]) for p in t["partitions"]] == \
                [(i, node) for i in range(specs[t["name"]])], (name, t)
    first = next(iter(specs))
    assert helper("create-topics", {"topics": [{"name": first, "partitions": 1, "replication_factor": 1}]}) \
        ["results"][0]["error"] == "TOPIC_ALREADY_EXISTS"


def test_describe_cluster_is_the_one_broker(client, broker, helper):
    cluster = client("describe-cluster")
    assert len(cluster["brokers"]) == 1, cluster
    b = cluster["brokers"][0]
    assert (b["host"], b["port"]) == (broker.host, broker.port)
    assert cluster["controller"] == b["id"]
    if client.name != "kcat":  # kcat prints no cluster id
        assert isinstance(cluster["cluster_id"], str) and cluster["cluster_id"], cluster
        assert cluster["cluster_id"] == helper("describe-cluster")["cluster_id"]


def test_kcat_metadata_listing_shows_broker_and_topics(broker, helper, unique_topic):
    """`kcat -L` as a person runs it: plain text, not the driver's JSON."""
    kcat = shutil.which("kcat") or shutil.which("kafkacat")
    if kcat is None:
        pytest.skip("kcat is not installed")
    specs = {unique_topic("p%d" % n): n for n in (1, 3)}
    create_topics(helper, helper, specs)
    node = helper("describe-cluster")["brokers"][0]["id"]
    p = subprocess.run([kcat, "-L", "-b", broker.bootstrap, "-m", "30"], capture_output=True, timeout=60)
    assert p.returncode == 0, p.stderr
    text = p.stdout.decode()
    assert re.search(r"^ 1 brokers:\s*$", text, re.M), text
    assert re.search(r"^\s+broker %d at %s(?: \(controller\))?\s*$" % (node, re.escape(broker.bootstrap)), text, re.M), text
    for name, n in specs.items():
        assert re.search(r'^\s+topic "%s" with %d partitions:\s*$' % (re.escape(name), n), text, re.M), text
        for i in range(n):
            assert re.search(r"^\s+partition %d, leader %d, replicas: %d, isrs: %d\s*$" % (i, node, node, node),
                             text, re.M), text
