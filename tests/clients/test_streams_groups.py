"""Streams groups (KIP-1071, issue 23) with a Kafka Streams 4.3.1 application using
group.protocol=streams: a word count (a repartition topic and a state store with its
changelog, exactly_once_v2) in two instances. The broker assigns the tasks (the sticky
task assignor), creates the internal topics the topology asks for, and moves a stopped
instance's tasks to the other; the output is exactly the counts of the input.

Behaviour reference, Apache Kafka 4.3.1: group-coordinator/.../GroupMetadataManager.java
(streamsGroupHeartbeat), streams/assignor/StickyTaskAssignor.java,
streams/topics/InternalTopicManager.java; core KafkaApis.handleStreamsGroupHeartbeat
(internal topic creation).
"""

import base64
import json
import struct
import subprocess
import time
from collections import Counter, defaultdict

import pytest

from conftest import create_topics, eventually, java_main
from json_lines import JsonLinesProcess

WAIT_S = 120
PARTITIONS = 4


def _java(args, **kw):
    return java_main("StreamsAppMain", args, **kw)


class StreamsApp(JsonLinesProcess):
    """One instance of the word count (StreamsAppMain run), its JSON lines collected."""

    def __init__(self, broker, app_id, source, sink, tmp_path, name):
        self.log = open(tmp_path / ("streams-%s.log" % name), "wb")
        state = tmp_path / ("state-" + name)
        state.mkdir()
        super().__init__(_java(["run", broker.bootstrap, app_id, source, sink, str(state)], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=self.log))

    def active(self):
        """The active tasks it last reported."""
        reports = [line["active"] for line in self.snapshot() if "active" in line]
        return set(reports[-1]) if reports else set()

    def errors(self):
        return [line for line in self.snapshot() if "error" in line]

    def stop(self):
        """Closes its stdin (the app stops on it) and waits, killing it after 90 s."""
        self.close(timeout=90)


@pytest.fixture
def apps(broker, tmp_path):
    started = []

    def start(app_id, source, sink, name):
        started.append(StreamsApp(broker, app_id, source, sink, tmp_path, name))
        return started[-1]
    yield start
    for a in started:
        if a.proc.poll() is None:
            a.proc.kill()
            a.proc.wait()


def describe(broker, app_id):
    p = _java(["describe", broker.bootstrap, app_id], stdout=subprocess.PIPE)
    out, _ = p.communicate(timeout=120)
    assert p.returncode == 0, out
    return json.loads(out)


def produce_lines(helper, topic, lines):
    records = [{"key": None, "value": base64.b64encode(line.encode()).decode(), "headers": [], "timestamp": None,
                "partition": i % PARTITIONS} for i, line in enumerate(lines)]
    out = helper("produce", {"topic": topic, "acks": "all", "compression": "none", "idempotent": False,
                             "records": records})["records"]
    assert [r["error"] for r in out] == [None] * len(lines), out[:3]


def output_counts(helper, topic, expected_records):
    """The committed output: word -> the counts written for it, in order."""
    out = helper("consume", {"topic": topic, "isolation_level": "read_committed", "from": "beginning",
                             "max_records": expected_records, "timeout_ms": 5000})["records"]
    seen = defaultdict(list)
    for r in sorted(out, key=lambda r: (r["partition"], r["offset"])):
        seen[base64.b64decode(r["key"]).decode()].append(struct.unpack(">q", base64.b64decode(r["value"]))[0])
    return dict(seen)


def expected(lines):
    words = Counter(w for line in lines for w in line.lower().split())
    return {w: list(range(1, n + 1)) for w, n in words.items()}


def all_tasks():
    # Subtopology 0 reads the input, 1 the repartition topic (as many partitions
    # as the input): PARTITIONS tasks each.
    return {"%d_%d" % (s, p) for s in (0, 1) for p in range(PARTITIONS)}


def test_word_count_two_instances_then_one(broker, helper, unique_topic, apps):
    source, sink = unique_topic("in"), unique_topic("out")
    app_id = unique_topic("app")
    create_topics(helper, helper, {source: PARTITIONS, sink: PARTITIONS})
    first = ["the quick brown fox", "jumps over the lazy dog", "the dog barks", "a fox runs"] * 5
    produce_lines(helper, source, first)

    a = apps(app_id, source, sink, "a")
    b = apps(app_id, source, sink, "b")

    def split():
        assert not a.errors() and not b.errors(), (a.errors(), b.errors())
        ta, tb = a.active(), b.active()
        assert ta and tb and not (ta & tb) and ta | tb == all_tasks(), (ta, tb)
    eventually(split, timeout=WAIT_S, interval=0.2)

    # The coordinator created the internal topics with the partitions the topology needs.
    topics = helper("list-topics")["topics"]
    internal = {t: n for t, n in topics.items() if t.startswith(app_id + "-")}
    assert any(t.endswith("-repartition") for t in internal), internal
    assert any(t.endswith("-changelog") for t in internal), internal
    assert set(internal.values()) == {PARTITIONS}, internal

    def counted(lines):
        want = expected(lines)
        got = output_counts(helper, sink, sum(len(v) for v in want.values()))
        assert got == want, (got, want)
    eventually(lambda: counted(first), timeout=WAIT_S, interval=0.5)

    d = describe(broker, app_id)
    assert d["listed"].lower().startswith("streams/"), d
    assert d["state"].lower() == "stable", d
    assert sorted(d["subtopologies"]) == ["0", "1"], d
    assert len(d["members"]) == 2, d
    described = [set(m["active"]) for m in d["members"]]
    assert described[0] | described[1] == all_tasks() and not (described[0] & described[1]), d

    # One instance stops: the other takes all its tasks and goes on counting.
    b.stop()
    eventually(lambda: (assert_tasks(a, all_tasks())), timeout=WAIT_S, interval=0.2)
    second = ["the fox again", "a lazy cat"] * 3
    produce_lines(helper, source, second)
    eventually(lambda: counted(first + second), timeout=WAIT_S, interval=0.5)
    d = describe(broker, app_id)
    assert len(d["members"]) == 1 and set(d["members"][0]["active"]) == all_tasks(), d
    assert not a.errors(), a.errors()
    a.stop()


def assert_tasks(app, tasks):
    assert app.active() == tasks, app.active()


SESSION_MS = 6000


@pytest.mark.ketch_args("--group-streams-session-timeout-ms", str(SESSION_MS),
                        "--group-streams-heartbeat-interval-ms", "1000")
def test_killed_instance_loses_its_tasks_and_the_output_stays_exact(broker, helper, unique_topic, apps):
    """SIGKILL one instance: its session ends (group.streams.session.timeout.ms), the other
    takes its tasks, and exactly_once_v2 keeps the output exact (its open transaction is
    aborted, read_committed never sees it); a restarted instance gets its share back.
    Against the reference Kafka (scripts/tools-reference.sh) the session timeout is its
    default (45 s, group.streams.session.timeout.ms), within WAIT_S."""
    source, sink = unique_topic("in"), unique_topic("out")
    app_id = unique_topic("app")
    create_topics(helper, helper, {source: PARTITIONS, sink: PARTITIONS})
    lines = ["red green blue", "green blue", "blue"] * 4
    produce_lines(helper, source, lines)
    a = apps(app_id, source, sink, "a")
    b = apps(app_id, source, sink, "b")

    def split(x, y):
        def check():
            tx, ty = x.active(), y.active()
            assert tx and ty and not (tx & ty) and tx | ty == all_tasks(), (tx, ty)
        return check
    eventually(split(a, b), timeout=WAIT_S, interval=0.2)

    def counted(got_lines):
        want = expected(got_lines)
        got = output_counts(helper, sink, sum(len(v) for v in want.values()))
        assert got == want, (got, want)
    eventually(lambda: counted(lines), timeout=WAIT_S, interval=0.5)

    b.kill()
    eventually(lambda: assert_tasks(a, all_tasks()), timeout=WAIT_S, interval=0.2)
    more = ["red again", "green and blue"] * 3
    produce_lines(helper, source, more)
    eventually(lambda: counted(lines + more), timeout=WAIT_S, interval=0.5)

    c = apps(app_id, source, sink, "c")
    eventually(split(a, c), timeout=WAIT_S, interval=0.2)
    last = ["blue moon"] * 5
    produce_lines(helper, source, last)
    eventually(lambda: counted(lines + more + last), timeout=WAIT_S, interval=0.5)
    assert not a.errors() and not c.errors(), (a.errors(), c.errors())


def test_group_survives_a_broker_restart(broker, helper, unique_topic, apps):
    """A streams group is durable (ketch: the group row of offsets.db; Kafka replays the
    StreamsGroup* records of __consumer_offsets): after a broker restart the running
    instance goes on as the same member at the same epoch, in a group at the same epoch,
    with all its tasks, and the output stays exact."""
    if broker.external:
        pytest.skip("restarts the ketch under test")
    source, sink = unique_topic("in"), unique_topic("out")
    app_id = unique_topic("app")
    create_topics(helper, helper, {source: PARTITIONS, sink: PARTITIONS})
    lines = ["one two three", "two three", "three"] * 4
    produce_lines(helper, source, lines)
    a = apps(app_id, source, sink, "a")
    eventually(lambda: assert_tasks(a, all_tasks()), timeout=WAIT_S, interval=0.2)

    def counted(got_lines):
        want = expected(got_lines)
        got = output_counts(helper, sink, sum(len(v) for v in want.values()))
        assert got == want, (got, want)
    eventually(lambda: counted(lines), timeout=WAIT_S, interval=0.5)
    before = describe(broker, app_id)
    assert before["state"].lower() == "stable", before

    broker.restart()
    more = ["three again", "one more"] * 3
    produce_lines(helper, source, more)
    eventually(lambda: counted(lines + more), timeout=WAIT_S, interval=0.5)
    after = describe(broker, app_id)
    members = lambda d: [(m["member_id"], m["process_id"], m["epoch"], sorted(m["active"])) for m in d["members"]]
    assert members(after) == members(before), (before, after)
    assert after["group_epoch"] == before["group_epoch"], (before, after)
    assert_tasks(a, all_tasks())
    a.stop()
