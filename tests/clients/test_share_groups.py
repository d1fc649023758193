"""Share groups (KIP-932, issue 23) with the Java KafkaShareConsumer 4.3.1: records of
one topic shared by several consumers, each record delivered to one of them; RELEASE
redelivers, REJECT or the delivery limit never again; a consumer that stalls or is killed with records
acquired loses them to the others (lock expiry, connection close); acknowledged state survives a
broker restart. Needs a broker the tests own (the lock duration is a broker flag).

Behaviour reference, Apache Kafka 4.3.1: core/src/main/java/kafka/server/share/
SharePartition.java (acquire, acknowledge, the acquisition lock timeout, the delivery
count), SharePartitionManager.java (share sessions), group-coordinator/.../assignor/
SimpleAssignor.java (every partition to the members), share-coordinator (durable
state: ketch keeps it in shares.db, docs/design/share_groups.md).
"""

import base64
import signal
import subprocess
import time
from collections import Counter

import pytest

from conftest import create_topics, eventually, java_main
from json_lines import JsonLinesProcess

LOCK_MS = 2000
pytestmark = pytest.mark.ketch_args("--group-share-record-lock-duration-ms", str(LOCK_MS))
WAIT_S = 90


def _java(args, **kw):
    return java_main("ShareConsumerMain", args, **kw)


def group_configs(broker, group, **settings):
    """Sets the group's configs (IncrementalAlterConfigs on the GROUP resource)."""
    p = _java(["setup", broker.bootstrap, group, *("%s=%s" % kv for kv in settings.items())],
              stdout=subprocess.PIPE)
    out, _ = p.communicate(timeout=120)
    assert p.returncode == 0 and out.strip() == b"ok", out


class ShareConsumer(JsonLinesProcess):
    """A KafkaShareConsumer in its own JVM (ShareConsumerMain), its lines collected."""

    def __init__(self, broker, group, topic, mode, log_dir):
        self.log = open(log_dir / ("share-%s-%d.log" % (mode, time.monotonic_ns())), "wb")
        super().__init__(_java(["consume", broker.bootstrap, group, topic, mode], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=self.log))

    def records(self):
        return [line for line in self.snapshot() if "value" in line]

    def events(self):
        return [line["event"] for line in self.snapshot() if "event" in line]


@pytest.fixture
def consumers(broker, tmp_path):
    started = []

    def start(group, topic, mode="ack"):
        started.append(ShareConsumer(broker, group, topic, mode, tmp_path))
        return started[-1]
    yield start
    for c in started:
        if c.proc.poll() is None:
            c.kill()


def describe(broker, group):
    """Admin.describeShareGroups and listGroups(type share) of the Java client."""
    import json
    p = _java(["describe", broker.bootstrap, group], stdout=subprocess.PIPE)
    out, _ = p.communicate(timeout=120)
    assert p.returncode == 0, out
    return json.loads(out)


def admin(broker, *args):
    """ShareConsumerMain's offsets / alter / delete-offsets: its one line of output."""
    import json
    p = _java([args[0], broker.bootstrap, *args[1:]], stdout=subprocess.PIPE)
    out, _ = p.communicate(timeout=120)
    assert p.returncode == 0, out
    text = out.decode().strip()
    return json.loads(text) if text.startswith("{") else text


def produce(helper, topic, values):
    records = [{"key": None, "value": base64.b64encode(v.encode()).decode(), "headers": [], "timestamp": None,
                "partition": 0} for v in values]
    out = helper("produce", {"topic": topic, "acks": "all", "compression": "none", "idempotent": False,
                             "records": records})["records"]
    assert [r["error"] for r in out] == [None] * len(values), out[:3]


def deliveries(members):
    return [r for m in members for r in m.records()]


def accepted(members):
    return Counter(r["value"] for r in deliveries(members) if r["ack"] == "ACCEPT")


def wait_accepted(members, values, timeout=WAIT_S):
    def check():
        got = accepted(members)
        missing = [v for v in values if got[v] == 0]
        assert not missing, "%d not accepted yet, e.g. %s" % (len(missing), missing[:5])
    eventually(check, timeout=timeout, interval=0.1)


def setup_topic(broker, helper, unique_topic, lock_ms=30000):
    """A one-partition topic and a share group starting at earliest. The group's lock
    is Kafka's default 30 s unless the test is about locks running out (then the
    broker's 2 s), so that a slow JVM does not see its records redelivered."""
    if broker.external:
        pytest.skip("the lock duration is a flag of the ketch under test")
    topic = unique_topic()
    group = topic + "-share"
    create_topics(helper, helper, {topic: 1})
    group_configs(broker, group, **{"share.auto.offset.reset": "earliest", "share.record.lock.duration.ms": lock_ms})
    return topic, group


def test_three_consumers_share_a_topic(broker, helper, unique_topic, consumers):
    """Three consumers on a one-partition topic: every plain record is accepted by
    exactly one of them, once; a record RELEASEd on its first delivery comes back
    (delivery count 2) and is accepted then; a REJECTed record is never delivered again
    (checked after a record produced later has been accepted)."""
    topic, group = setup_topic(broker, helper, unique_topic)
    plain = ["v%d" % i for i in range(300)]
    released = ["release-%d" % i for i in range(10)]
    rejected = ["reject-%d" % i for i in range(10)]
    produce(helper, topic, plain[:100] + released + rejected + plain[100:])
    members = [consumers(group, topic) for _ in range(3)]
    wait_accepted(members, plain + released)
    produce(helper, topic, ["after"])
    wait_accepted(members, ["after"])
    got = deliveries(members)
    by_value = {}
    for r in got:
        by_value.setdefault(r["value"], []).append(r)
    for rs in by_value.values():  # in delivery order: a redelivery may reach an earlier-listed member
        rs.sort(key=lambda r: r["delivery"])
    for v in plain + ["after"]:
        assert [(r["ack"], r["delivery"]) for r in by_value[v]] == [("ACCEPT", 1)], (v, by_value[v])
    for v in released:
        assert [(r["ack"], r["delivery"]) for r in by_value[v]] == [("RELEASE", 1), ("ACCEPT", 2)], by_value[v]
    for v in rejected:
        assert [(r["ack"], r["delivery"]) for r in by_value[v]] == [("REJECT", 1)], by_value[v]

    # ShareGroupDescribe and ListGroups: three members sharing the one partition
    # (SimpleAssignor: more members than partitions, so the partition is shared).
    def described():
        d = describe(broker, group)
        assert d["state"] == "Stable", d
        assert sorted(m["partitions"] for m in d["members"]) == [[topic + "-0"]] * 3, d
        assert [(g["type"].lower(), g["state"]) for g in d["listed"] if g["id"] == group] == [("share", "Stable")], d
    eventually(described, timeout=WAIT_S, interval=0.5)
    for m in members:
        m.close()
        assert m.proc.returncode == 0


def test_a_released_record_goes_to_another_consumer(broker, helper, unique_topic, consumers):
    """A consumer RELEASEs every record of its first poll, commits the acknowledgements and
    stops polling (it stays a member): another consumer gets each released record and
    accepts it. A RELEASE makes the record available at once (Kafka's SharePartition
    acknowledge: RELEASE -> AVAILABLE, core/src/main/java/kafka/server/share/SharePartition.java),
    so its delivery count there is 2, or more when the stalled client's background ShareFetch
    took it again unseen and that 2 s lock ran out first."""
    topic, group = setup_topic(broker, helper, unique_topic, lock_ms=LOCK_MS)
    values = ["r%d" % i for i in range(50)]
    produce(helper, topic, values)
    releaser = consumers(group, topic, "release-hold")

    def holding():
        assert "holding" in releaser.events()
    eventually(holding, timeout=WAIT_S, interval=0.1)
    mine = releaser.records()
    assert mine and all((r["ack"], r["delivery"]) == ("RELEASE", 1) for r in mine), mine
    released = {r["value"] for r in mine}
    group_configs(broker, group, **{"share.record.lock.duration.ms": 30000})
    other = consumers(group, topic)
    wait_accepted([other], values)
    for r in other.records():
        assert r["delivery"] >= (2 if r["value"] in released else 1), r
    assert sorted(accepted([other]).values()) == [1] * len(values)
    assert releaser.proc.poll() is None, "the releasing consumer is still running"
    releaser.kill()
    other.close()


def test_locked_records_of_a_stalled_or_killed_consumer_go_to_the_others(broker, helper, unique_topic, consumers):
    """A consumer acquires records and stops without acknowledging them (it stays
    connected and a group member): once their lock (2000 ms) runs out they are
    delivered to another consumer, with delivery count 2. A second consumer is killed
    (SIGKILL) holding records: its connection closes and they are delivered to the
    others too (at once or after the lock: SharePartitionManager releases a closed
    connection's share session)."""
    topic, group = setup_topic(broker, helper, unique_topic, lock_ms=LOCK_MS)
    values = ["k%d" % i for i in range(50)]
    produce(helper, topic, values)
    holder = consumers(group, topic, "hold")

    def holding(c):
        def check():
            assert "holding" in c.events()
        eventually(check, timeout=WAIT_S, interval=0.1)
        return [r["value"] for r in c.records()]
    held = holding(holder)
    assert held and set(held) <= set(values)
    # The holder's records keep the 2 s lock they were acquired with; what the others
    # acquire from now on gets 30 s (the lock is taken from the group's config at
    # acquisition), so a slow JVM never sees its own records run out.
    group_configs(broker, group, **{"share.record.lock.duration.ms": 30000})
    other = consumers(group, topic)
    wait_accepted([other], values)
    # A held record comes with delivery count 2, or more: the stalled consumer's client may
    # send its next ShareFetch in the background (a parked long poll answered when the lock
    # ran out), acquiring what expired once more, unseen by the application.
    for r in other.records():
        assert (r["delivery"] >= 2) if r["value"] in held else (r["delivery"] == 1), r
    assert sorted(accepted([other]).values()) == [1] * len(values)
    assert holder.proc.poll() is None, "the stalled consumer is still running"
    holder.kill()
    other.close()

    more = ["m%d" % i for i in range(50)]
    produce(helper, topic, more)
    victim = consumers(group, topic, "hold")
    victim_held = holding(victim)
    assert victim_held and set(victim_held) <= set(more)
    victim.kill()
    rest = [consumers(group, topic) for _ in range(2)]
    wait_accepted(rest, more)
    for r in deliveries(rest):
        assert r["delivery"] == (2 if r["value"] in victim_held else 1), r
    assert sorted(accepted(rest).values()) == [1] * len(more)


def test_a_record_past_the_delivery_limit_is_never_delivered_again(broker, helper, unique_topic, consumers):
    """share.delivery.count.limit (GroupConfig; SharePartition: a record whose lock runs out or
    is released after its limit-th delivery is ARCHIVED). With the limit 2, records acquired by
    two consumers in turn that both die holding them are never delivered to a third, which
    still gets a record produced later; at the default limit (5) the third would get them
    with delivery count 3."""
    topic, group = setup_topic(broker, helper, unique_topic, lock_ms=LOCK_MS)
    group_configs(broker, group, **{"share.delivery.count.limit": 2})
    values = ["p%d" % i for i in range(20)]
    produce(helper, topic, values)

    def hold_and_die():
        c = consumers(group, topic, "hold")

        def holding():
            assert "holding" in c.events()
        eventually(holding, timeout=WAIT_S, interval=0.1)
        got = {r["value"]: r["delivery"] for r in c.records()}
        c.kill()
        return got
    first = hold_and_die()
    assert first and set(first) <= set(values) and set(first.values()) == {1}, first
    second = hold_and_die()
    twice = [v for v, n in second.items() if n == 2]
    assert twice, (first, second)  # the first holder's records, delivered a second time
    produce(helper, topic, ["after"])
    third = consumers(group, topic)
    wait_accepted([third], ["after"] + [v for v in values if v not in first and v not in second])
    seen = [r for r in third.records() if r["value"] in twice]
    assert seen == [], seen
    assert max(r["delivery"] for r in third.records()) <= 2, third.records()
    third.close()


def test_acknowledged_records_survive_a_broker_restart(broker, helper, unique_topic, consumers):
    """Records accepted before the broker is killed (SIGKILL) and restarted are not
    delivered again; records produced after are."""
    topic, group = setup_topic(broker, helper, unique_topic)
    before = ["b%d" % i for i in range(100)]
    produce(helper, topic, before)
    first = consumers(group, topic)
    wait_accepted([first], before)
    first.close()
    broker.restart(signal.SIGKILL)
    after = ["a%d" % i for i in range(20)]
    produce(helper, topic, after)
    second = consumers(group, topic)
    wait_accepted([second], after)
    assert not [r for r in second.records() if r["value"] in before]
    second.close()


def test_share_group_offsets_admin(broker, helper, unique_topic, consumers):
    """listShareGroupOffsets shows the SPSO and the lag; alterShareGroupOffsets and
    deleteShareGroupOffsets are refused while the group has members (NON_EMPTY_GROUP:
    GroupNotEmptyException) and act once it is empty: after an alter to offset 5 a
    consumer gets exactly the records from 5 on; after a delete the group starts again
    at share.auto.offset.reset (earliest here)."""
    topic, group = setup_topic(broker, helper, unique_topic)
    values = ["o%d" % i for i in range(10)]
    produce(helper, topic, values)
    first = consumers(group, topic)
    wait_accepted([first], values)

    def spso_at_end():
        assert admin(broker, "offsets", group, topic) == {"start": 10, "lag": 0}
    eventually(spso_at_end, timeout=WAIT_S, interval=0.5)
    assert admin(broker, "alter", group, topic, "5") == "GroupNotEmptyException"
    assert admin(broker, "delete-offsets", group, topic) == "GroupNotEmptyException"
    first.close()

    def altered():
        assert admin(broker, "alter", group, topic, "5") == "ok"
    eventually(altered, timeout=WAIT_S, interval=0.5)
    assert admin(broker, "offsets", group, topic) == {"start": 5, "lag": 5}
    second = consumers(group, topic)
    wait_accepted([second], values[5:])
    assert sorted(r["value"] for r in second.records()) == sorted(values[5:])
    second.close()

    def deleted():
        assert admin(broker, "delete-offsets", group, topic) == "ok"
    eventually(deleted, timeout=WAIT_S, interval=0.5)
    third = consumers(group, topic)
    wait_accepted([third], values)
    # A classic member cannot join a share group's id: JoinGroup answers
    # INCONSISTENT_GROUP_PROTOCOL (GroupMetadataManager.classicGroupJoin).
    from kafka import KafkaConsumer
    from kafka.errors import InconsistentGroupProtocolError
    classic = KafkaConsumer(topic, bootstrap_servers=broker.bootstrap, group_id=group, api_version=(3, 7))
    try:
        with pytest.raises(InconsistentGroupProtocolError):
            classic.poll(timeout_ms=10000)
    finally:
        classic.close(autocommit=False)
    # Nor a KIP-848 member: ConsumerGroupHeartbeat answers GROUP_ID_NOT_FOUND
    # ("is not a consumer group"; GroupMetadataManager.getOrMaybeCreateConsumerGroup).
    from confluent_kafka import Consumer, KafkaError
    errors = []
    modern = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": group, "group.protocol": "consumer",
                       "error_cb": errors.append})
    try:
        modern.subscribe([topic])

        def refused():
            msg = modern.poll(0.2)
            if msg is not None and msg.error():
                errors.append(msg.error())
            # librdkafka raises the heartbeat's error as fatal, naming it (its text for
            # GROUP_ID_NOT_FOUND is "The group id does not exist").
            assert any(e.code() == KafkaError._FATAL and "ConsumerGroupHeartbeat" in e.str()
                       and "The group id does not exist" in e.str() for e in errors), errors
        eventually(refused, timeout=20)
    finally:
        modern.close()
    # deleteShareGroups (DeleteGroups; ShareGroup.validateDeleteGroup): refused
    # while the group has members, then the group is gone.
    assert admin(broker, "delete-group", group, topic) == "GroupNotEmptyException"
    third.close()

    def group_deleted():
        assert admin(broker, "delete-group", group, topic) == "ok"
    eventually(group_deleted, timeout=WAIT_S, interval=0.5)
    assert admin(broker, "delete-group", group, topic) == "GroupIdNotFoundException"


def test_read_committed_share_group_never_delivers_aborted_records(broker, helper, drivers, unique_topic, consumers):
    """share.isolation.level=read_committed: records of aborted transactions are archived,
    never delivered (SharePartition.filterAbortedTransactionalAcquiredRecords), and
    records of an open transaction wait for its commit (the read stops at the last stable
    offset); a read_uncommitted group of the same topic gets the aborted ones too."""
    if "java" not in drivers:
        pytest.skip("the Java driver is not built")
    topic, group = setup_topic(broker, helper, unique_topic)
    group_configs(broker, group, **{"share.isolation.level": "read_committed"})
    plain_group = group + "-uncommitted"
    group_configs(broker, plain_group, **{"share.auto.offset.reset": "earliest"})

    def rec(v):
        return {"topic": topic, "partition": 0, "key": None, "value": base64.b64encode(v.encode()).decode()}
    committed = ["committed-%d" % i for i in range(20)]
    aborted = ["aborted-%d" % i for i in range(10)]
    drivers["java"]("txn-produce", {"transactional_id": topic + "-txn", "transactions": [
        {"commit": True, "records": [rec(v) for v in committed[:10]]},
        {"commit": False, "records": [rec(v) for v in aborted]},
        {"commit": True, "records": [rec(v) for v in committed[10:]]}]})
    produce(helper, topic, ["plain-after"])

    reader = consumers(group, topic)
    wait_accepted([reader], committed + ["plain-after"])
    everyone = consumers(plain_group, topic)
    wait_accepted([everyone], committed + aborted + ["plain-after"])
    produce(helper, topic, ["last"])
    wait_accepted([reader], ["last"])  # anything aborted would have come before it
    got = [r["value"] for r in reader.records()]
    assert not [v for v in got if v.startswith("aborted")], got
    assert sorted(got) == sorted(committed + ["plain-after", "last"]), got
    for m in (reader, everyone):
        m.close()
        assert m.proc.returncode == 0


def test_by_duration_reset_starts_at_the_first_record_that_new(broker, helper, unique_topic, consumers):
    """share.auto.offset.reset=by_duration:PT1H: a new share-partition starts at the first
    record with a timestamp in the last hour (ShareFetchUtils.offsetForTimestamp), so
    records stamped two hours ago are skipped and the recent ones delivered."""
    topic, group = setup_topic(broker, helper, unique_topic)
    group_configs(broker, group, **{"share.auto.offset.reset": "by_duration:PT1H"})
    now_ms = int(time.time() * 1000)
    old = ["old-%d" % i for i in range(5)]
    new = ["new-%d" % i for i in range(5)]
    records = [{"key": None, "value": base64.b64encode(v.encode()).decode(), "headers": [], "partition": 0,
                "timestamp": now_ms - (7200000 if v.startswith("old") else 0)} for v in old + new]
    out = helper("produce", {"topic": topic, "acks": "all", "compression": "none", "idempotent": False,
                             "records": records})["records"]
    assert [r["error"] for r in out] == [None] * len(records), out[:3]
    reader = consumers(group, topic)
    wait_accepted([reader], new)
    produce(helper, topic, ["last"])
    wait_accepted([reader], ["last"])
    got = [r["value"] for r in reader.records()]
    assert sorted(got) == sorted(new + ["last"]), got
    reader.close()
    assert reader.proc.returncode == 0
