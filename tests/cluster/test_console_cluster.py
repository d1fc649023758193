"""The console of one broker shows the whole cluster (docs/cluster.md "The
console"): a group another broker coordinates is described by asking that
broker over the inter-broker channel, with its members and lag; the group
list is the union over the live brokers; the producers page asks each
partition's leader. A broker that does not answer leaves the list answering
with what the others said, naming it in "unreached_brokers", and the page of
a group it coordinates 503 naming it, as Kafka's admin tools report a
coordinator they cannot reach.

Kafka answers DescribeGroups and OffsetFetch only at a group's coordinator
(NOT_COORDINATOR elsewhere: GroupCoordinatorService.java in
group-coordinator/src/main/java/org/apache/kafka/coordinator/group/), and
ListGroups with the groups the answering broker coordinates
(KafkaApis.handleListGroupsRequest), so a UI over a cluster asks every
broker, as Admin.listGroups does (clients/src/main/java/org/apache/kafka/
clients/admin/KafkaAdminClient.java, listGroups: one ListGroups per broker
of Metadata; ListGroupsResults keeps the groups of the brokers that answered
and adds an error "Error listing groups on <node>" for one that did not)."""

import json
import signal
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from confluent_kafka import Consumer, Producer, TopicPartition

sys.path.insert(0, str(Path(__file__).resolve().parent))

from conftest import clients  # noqa: E402
from group_wire import commit, live_brokers, name_coordinated_by, wait_for  # noqa: E402
from test_shared_produce import FLUSH, create_topic, wait_for_topic  # noqa: E402

# Heartbeats every 250 ms; a stopped or killed broker stays live (and keeps
# its groups) for 30 s, the window in which the others' consoles must say
# they did not reach it.
TIMING = ["--cluster-heartbeat-ms", "250", "--cluster-session-timeout-ms", "30000"]
TOPIC = "console-cluster"


def call(broker, path, body=None):
    """The broker's console: (status, JSON); a POST with `body`."""
    url = json.loads((broker.data_dir / "listeners.json").read_text())["console"].rstrip("/") + path
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def get(broker, path):
    return call(broker, path)


def post(broker, path, body):
    return call(broker, path, body)


def produce(broker, topic, partition, n, **conf):
    p = Producer({"bootstrap.servers": broker.bootstrap, "acks": "all", **conf})
    errors = []
    for i in range(n):
        p.produce(topic, value=b"v%d" % i, partition=partition, on_delivery=lambda e, _m: e and errors.append(e))
    assert p.flush(30) == 0 and errors == []


def consume_and_commit(broker, group, n, protocol="classic", timeout_s=60):
    """A group member (the classic protocol, or KIP-848's "consumer") that read and committed `n` records of
    partition 0 and stays in the group."""
    c = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": group, "client.id": "console-cluster-member",
                  "group.protocol": protocol, "auto.offset.reset": "earliest", "enable.auto.commit": False})
    c.subscribe([TOPIC])
    got, deadline = 0, time.monotonic() + timeout_s
    while got < n:
        assert time.monotonic() < deadline, "the member read %d records of %d" % (got, n)
        m = c.poll(1.0)
        if m is not None and m.error() is None:
            got += 1
    c.commit(offsets=[TopicPartition(TOPIC, 0, n)], asynchronous=False)
    return c


def stable_with_lag(broker, group, lag, what):
    """The console's description of `group`, once it is Stable with `lag` (waited for)."""
    def described():
        status, d = get(broker, "/api/v1/groups/" + group)
        return d if status == 200 and d["state"] == "Stable" and d["lag"] == lag else None
    return wait_for(described, what)


def two_brokers_with_topic(start_broker, topic):
    """Brokers 1 and 2 with the console, each listing both, and `topic` (one partition) known to both."""
    brokers = {n: start_broker(n, *FLUSH, *TIMING, console=True) for n in (1, 2)}
    a, b = brokers[1], brokers[2]
    create_topic(a, topic, 1)
    wait_for_topic(b, topic, 1)
    for n, x in brokers.items():
        wait_for(lambda: live_brokers(x) == 2, "broker %d does not list both" % n)
    return a, b


def test_console_of_one_broker_describes_a_group_another_coordinates(start_broker):
    a, b = two_brokers_with_topic(start_broker, TOPIC)
    on_b = name_coordinated_by([a, b], 2, "console-on-b", 0)
    on_a = name_coordinated_by([a, b], 1, "console-on-a", 0)
    produce(a, TOPIC, 0, 10)
    assert commit(a, on_a, TOPIC, 3) == 0

    modern_on_b = name_coordinated_by([a, b], 2, "console-848-on-b", 0)
    modern = consume_and_commit(a, modern_on_b, 5, protocol="consumer")
    try:
        d = stable_with_lag(a, modern_on_b, 5, "broker 1's console does not describe broker 2's KIP-848 group")
        assert d["type"] == "consumer" and [m["client_id"] for m in d["members"]] == ["console-cluster-member"], d
        assert d["members"][0]["assignment"] == [{"topic": TOPIC, "partitions": [0]}], d
    finally:
        modern.close()

    member = consume_and_commit(a, on_b, 4)
    try:
        d = stable_with_lag(a, on_b, 6, "broker 1's console does not describe broker 2's group")
        assert [m["client_id"] for m in d["members"]] == ["console-cluster-member"], d
        assert d["members"][0]["assignment"] == [{"topic": TOPIC, "partitions": [0]}], d
        assert d["offsets"] == [{"topic": TOPIC, "partition": 0, "committed_offset": 4, "end_offset": 10,
                                 "lag": 6, "metadata": d["offsets"][0]["metadata"]}], d

        status, listing = get(a, "/api/v1/groups")
        assert status == 200 and listing["unreached_brokers"] == [], listing
        rows = {g["group_id"]: g for g in listing["groups"]}
        assert rows[on_b]["members"] == 1 and rows[on_b]["lag"] == 6, rows
        assert rows[on_a]["lag"] == 7, rows
    finally:
        member.close()

    # The offset reset of an empty group goes to its coordinator.
    wait_for(lambda: get(a, "/api/v1/groups/" + on_b)[1].get("state") == "Empty", "the group is not empty")
    status, r = post(a, "/api/v1/groups/%s/offsets" % on_b, {"topic": TOPIC, "to": "offset", "offset": 8})
    assert status == 200, r
    assert get(b, "/api/v1/groups/" + on_b)[1]["lag"] == 2

    # Broker 2 stopped (SIGSTOP: connections open, no answer), then killed
    # (connections refused): live, the owner of its groups, until its
    # session times out. Broker 1's list still answers, naming it; the page
    # of its group is 503 naming it. (clients.sigstop returns once every
    # thread of broker 2 has stopped: kill() returns before, and a broker
    # still answering then made the list complete.)
    def answers_without_broker_2():
        status, listing = get(a, "/api/v1/groups")
        assert status == 200, listing
        assert [u["node_id"] for u in listing["unreached_brokers"]] == [2], listing
        assert {g["group_id"]: g["lag"] for g in listing["groups"]}.get(on_a) == 7, listing
        status, err = get(a, "/api/v1/groups/" + on_b)
        assert status == 503 and "broker 2" in err["message"], err

    clients.sigstop(b.proc)
    try:
        answers_without_broker_2()
    finally:
        b.kill()
        b.proc.send_signal(signal.SIGCONT)
    answers_without_broker_2()
    assert a.running()


def test_every_console_lists_the_producers_of_a_partition_another_broker_leads(start_broker):
    """DescribeProducers in cluster mode answers from PostgreSQL (each
    producer's last batches, kept for idempotence), so every broker lists the
    producers of every partition, whichever broker they wrote through
    (Kafka: KafkaApis.handleDescribeProducersRequest asks the partition's
    leader's ProducerStateManager)."""
    brokers = {n: start_broker(n, *FLUSH, *TIMING, console=True) for n in (1, 2)}
    a = brokers[1]
    create_topic(a, "console-producers", 16)
    for n, x in brokers.items():
        wait_for(lambda: live_brokers(x) == 2, "broker %d does not list both" % n)
    # Leaders are spread over the brokers whose PostgreSQL session broker 1
    # sees open (rendezvous hashing of the topic id and partition): 16
    # partitions, so broker 2 leads some once broker 1 sees its session.
    def led_by_2():
        leaders = wait_for_topic(a, "console-producers", 16)
        return next((p for p, leader in sorted(leaders.items()) if leader == 2), None)
    wait_for(lambda: led_by_2() is not None, "broker 1's Metadata names broker 2 the leader of no partition")
    partition = led_by_2()
    # The idempotent producer writes to the partition's leader, broker 2, three records in one batch or more.
    produce(a, "console-producers", partition, 3, **{"enable.idempotence": True})
    for n, x in brokers.items():  # every broker's console, each asking its own broker
        status, p = get(x, "/api/v1/producers?topic=console-producers")
        assert status == 200, p
        assert [(r["partition"], r["last_sequence"], r["current_txn_start_offset"]) for r in p["producers"]] == \
            [(partition, 2, -1)], (n, p)
        assert p["producers"][0]["producer_id"] >= 0 and p["producers"][0]["last_timestamp"] > 0, (n, p)


def test_console_of_one_broker_lists_the_transactions_every_broker_coordinates(start_broker):
    """A transactional id is listed and described by its coordinator only (Kafka:
    TransactionStateManager answers NOT_COORDINATOR for an id of another broker's
    partition of __transaction_state), so Kafka's Admin.listTransactions sends
    ListTransactions to every broker and keeps each broker's listings by its id
    (clients/src/main/java/org/apache/kafka/clients/admin/internals/
    ListTransactionsHandler.java: an AllBrokersStrategy, one request per broker).
    The console of any broker lists every live broker's, each row naming its
    broker; one is opened through any console; a broker that does not answer is
    named in "unreached_brokers" and its ids' pages are 503."""
    topic = "console-txns"
    a, b = two_brokers_with_topic(start_broker, topic)
    on_a = name_coordinated_by([a, b], 1, "console-txn-a", 1)
    on_b = name_coordinated_by([a, b], 2, "console-txn-b", 1)
    Producer({"bootstrap.servers": a.bootstrap, "transactional.id": on_a}).init_transactions(30)
    open_txn = Producer({"bootstrap.servers": a.bootstrap, "transactional.id": on_b})
    open_txn.init_transactions(30)
    open_txn.begin_transaction()
    open_txn.produce(topic, value=b"open", partition=0)
    assert open_txn.flush(30) == 0

    for console in (a, b):  # every console lists both brokers' ids, each with its coordinator
        status, page = get(console, "/api/v1/transactions")
        assert status == 200 and page["unreached_brokers"] == [], page
        rows = {r["transactional_id"]: r for r in page["transactions"]}
        assert (rows[on_a]["node_id"], rows[on_a]["state"]) == (1, "Empty"), rows
        assert (rows[on_b]["node_id"], rows[on_b]["state"]) == (2, "Ongoing"), rows
        assert rows[on_b]["partitions"] == [{"topic": topic, "partitions": [0]}], rows
    # Broker 2's id opened through broker 1: at its coordinator (found, or named with ?node=).
    for path in ("/api/v1/transactions/" + on_b, "/api/v1/transactions/%s?node=2" % on_b):
        status, d = get(a, path)
        assert status == 200 and (d["transactional_id"], d["node_id"], d["state"]) == (on_b, 2, "Ongoing"), d
    status, d = get(a, "/api/v1/transactions/console-txn-unknown")
    assert status == 404, d

    clients.sigstop(b.proc)
    try:
        status, page = get(a, "/api/v1/transactions")
        assert status == 200 and [u["node_id"] for u in page["unreached_brokers"]] == [2], page
        assert {r["transactional_id"] for r in page["transactions"]} >= {on_a}, page
        assert {r["node_id"] for r in page["transactions"]} == {1}, page
        status, err = get(a, "/api/v1/transactions/" + on_b)
        assert status == 503 and "broker 2" in err["message"], err
    finally:
        b.proc.send_signal(signal.SIGCONT)
    open_txn.abort_transaction(30)
    assert a.running()
