"""Kafka's own verification tools (kafka-tools 4.3.1, the ones Kafka's system tests drive)
against ketch: VerifiableProducer, VerifiableConsumer (classic and consumer group
protocols), VerifiableShareConsumer and TransactionalMessageCopier with random aborts.
Each tool reports what it did as JSON lines; the tests check those reports against each
other: every acknowledged record consumed, in offset order per partition, exactly once
per group; every record of a share group acknowledged by exactly one of its consumers;
the copier's read_committed output is its input exactly once.

The tools run from the reference Kafka's jars (conformance/reference/kafka.sh tools;
scripts/install-test-deps.sh resolves them from Maven Central). Tool sources, Apache Kafka
4.3.1: tools/src/main/java/org/apache/kafka/tools/VerifiableProducer.java,
VerifiableConsumer.java, VerifiableShareConsumer.java, TransactionalMessageCopier.java.
"""

import base64
import shutil
import signal
import subprocess
from collections import Counter, defaultdict

import pytest

from conftest import REPO, create_topics, eventually
from json_lines import JsonLinesProcess

KAFKA_SH = REPO / "conformance" / "reference" / "kafka.sh"
DIST = REPO / "conformance" / "reference" / "dist" / "lib"
RECORDS = 3000
PARTITIONS = 3
WAIT_S = 120


@pytest.fixture(autouse=True)
def _tools_present():
    if not shutil.which("java") or not shutil.which("mvn"):
        pytest.skip("java/mvn are not installed")
    if not (DIST / "kafka-tools-4.3.1.jar").exists():
        pytest.fail("the kafka-tools jars are missing: run scripts/install-test-deps.sh")


class Tool(JsonLinesProcess):
    """One tool in its own JVM; its JSON lines collected as they come."""

    def __init__(self, name, *args):
        self.name = name
        super().__init__(subprocess.Popen([str(KAFKA_SH), "tools", "org.apache.kafka.tools." + name, *map(str, args)],
                                          stdout=subprocess.PIPE, stderr=subprocess.PIPE))
        _started.append(self)

    def events(self, name):
        return [line for line in self.snapshot() if line.get("name", line.get("stage")) == name]

    def wait(self, timeout=WAIT_S, ok=(0,)):
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            pytest.fail("%s did not finish in %d s; stderr: %s" % (self.name, timeout, self.proc.stderr.read()[-2000:]))
        self.join_reader()
        assert self.proc.returncode in ok, (self.name, self.proc.returncode, self.proc.stderr.read()[-2000:])
        return self

    def stop(self):
        """SIGTERM: the tools close their clients (acknowledging or committing) and exit."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        self.wait(ok=(0, 128 + signal.SIGTERM))  # the JVM's exit status after its shutdown hooks ran
        assert self.events("shutdown_complete"), self.name
        return self


_started = []


@pytest.fixture(autouse=True)
def _no_tool_outlives_its_test():
    yield
    while _started:
        _started.pop().kill()


def produce(broker, topic, records=RECORDS):
    """VerifiableProducer with acks=all and keys spread over the partitions:
    {(partition, offset): value} of every acknowledged record."""
    p = Tool("VerifiableProducer", "--bootstrap-server", broker.bootstrap, "--topic", topic,
             "--max-messages", records, "--acks", "-1", "--repeating-keys", 97).wait()
    acked = {(e["partition"], e["offset"]): e["value"] for e in p.events("producer_send_success")}
    (data,) = p.events("tool_data")
    assert data["sent"] == data["acked"] == records == len(acked), data
    assert not p.events("producer_send_error")
    return acked


def test_verifiable_consumers_read_every_acknowledged_record_once_in_order(broker, helper, unique_topic):
    topic = unique_topic()
    create_topics(helper, helper, {topic: PARTITIONS})
    acked = produce(broker, topic)
    ends = Counter(p for p, _ in acked)
    assert len(ends) == PARTITIONS  # the keys reached every partition
    for protocol in ("classic", "consumer"):
        group = "%s-%s" % (topic, protocol)
        c = Tool("VerifiableConsumer", "--bootstrap-server", broker.bootstrap, "--topic", topic,
                 "--group-id", group, "--group-protocol", protocol, "--reset-policy", "earliest",
                 "--max-messages", RECORDS, "--verbose").wait()
        seen = defaultdict(list)
        for e in c.events("record_data"):
            seen[e["partition"]].append((e["offset"], e["value"]))
        for part in range(PARTITIONS):
            assert seen[part] == sorted((o, v) for (p, o), v in acked.items() if p == part), (protocol, part)
        # The last commit of each partition is its end: nothing consumed is left uncommitted.
        last = {}
        for e in c.events("offsets_committed"):
            assert e["success"], e
            for o in e["offsets"]:
                last[o["partition"]] = o["offset"]
        assert last == {p: ends[p] for p in range(PARTITIONS)}, (protocol, last)


def test_verifiable_share_consumers_split_the_records_exactly_once(broker, helper, unique_topic):
    topic = unique_topic()
    create_topics(helper, helper, {topic: PARTITIONS})
    acked = produce(broker, topic)
    group = topic + "-share"
    members = [Tool("VerifiableShareConsumer", "--bootstrap-server", broker.bootstrap, "--topic", topic,
                    "--group-id", group, "--offset-reset-strategy", "earliest", "--acknowledgement-mode", "sync")
               for _ in range(2)]

    def acknowledged():
        got = Counter()
        for m in members:
            for e in m.events("offsets_acknowledged"):
                assert e["success"], e
                for p in e["partitions"]:
                    got.update((p["partition"], o) for o in p["offsets"])
        return got

    def all_acknowledged():
        got = acknowledged()
        assert set(got) == set(acked), "%d of %d acknowledged" % (len(got), len(acked))
    eventually(all_acknowledged, timeout=WAIT_S, interval=0.5)
    for m in members:
        m.stop()
    got = acknowledged()
    assert set(got) == set(acked)
    assert [k for k, n in got.items() if n > 1] == []  # no record accepted twice


def test_transactional_message_copier_with_random_aborts_is_exactly_once(broker, helper, unique_topic):
    src, dst = unique_topic("in"), unique_topic("out")
    # The copier writes each record to its input partition's number in the output topic.
    create_topics(helper, helper, {src: PARTITIONS, dst: PARTITIONS})
    acked = produce(broker, src)
    per_partition = Counter(p for p, _ in acked)
    copiers = [Tool("TransactionalMessageCopier", "--broker-list", broker.bootstrap, "--input-topic", src,
                    "--input-partition", p, "--output-topic", dst, "--transactional-id", "%s-copier-%d" % (dst, p),
                    "--consumer-group", dst + "-copiers", "--transaction-size", 50, "--enable-random-aborts",
                    "--use-group-metadata", "--max-messages", per_partition[p])
               for p in range(PARTITIONS)]
    for c in copiers:
        c.wait()
        (done,) = c.events("ShutdownComplete")
        assert done["remaining"] == 0, done
    # One record more than expected is asked for: a duplicate anywhere would show.
    out = helper("consume", {"topic": dst, "partitions": list(range(PARTITIONS)), "from": "beginning", "isolation_level": "read_committed",
                             "max_records": RECORDS + 1, "timeout_ms": 8000})
    got = Counter(base64.b64decode(r["value"]).decode() for r in out["records"])
    assert got == Counter(acked.values())
