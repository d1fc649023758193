"""The clients of the chaos test (test_chaos.py), each one instance for the
whole run (no client is restarted), all writing into one History
(history.py) through a Recorder:

- ConfluentProducer: confluent-kafka (librdkafka) in a thread;
- StreamProducer: a driver's produce-stream command (tests/clients/DRIVERS.md)
  as one long-lived process: the Java kafka-clients driver and the franz-go
  driver. Records go to its stdin, one JSON line each; each acknowledgement
  comes back on its stdout as a JSON line with partition and offset;
- GroupConsumer: confluent-kafka consumers of one group, committing by hand
  (every COMMIT_EVERY_S) so that each acknowledged commit is recorded in order
  with the deliveries.

Every producer is idempotent with acks=all and sends record i to partition
i mod partitions; values are unique across the run (name prefix)."""

import base64
import json
import subprocess
import threading
import time

from confluent_kafka import Consumer, KafkaError, KafkaException, Producer

RATE_PAUSE_S = 0.05   # pacing: each producer sends BURST records, then pauses
BURST = 10            # (about 150 records a second per producer)
MAX_OUTSTANDING = 3000  # a stream producer's records sent but not answered, at most
COMMIT_EVERY_S = 0.5


class Recorder:
    """The History and what the test watches while the run goes on."""

    def __init__(self, history):
        self.h = history
        self.lock = threading.Lock()
        self.errors = []
        self.acks_by = {}       # (producer client, partition) -> records acknowledged so far
        self.delivered = {}     # partition -> offsets the group got

    def sent(self, producer, key, value):
        with self.lock:
            self.h.sent(producer, key, value)

    def acked(self, client, producer, topic, partition, offset, key, value):
        with self.lock:
            self.h.acked(producer, topic, partition, offset, key, value)
            self.acks_by[(client, partition)] = self.acks_by.get((client, partition), 0) + 1

    def error(self, text):
        with self.lock:
            self.errors.append(text)

    def acks(self):
        """{(producer client, partition): records acknowledged so far}"""
        with self.lock:
            return dict(self.acks_by)

    def delivered_to(self, consumer, m):
        with self.lock:
            self.h.delivered(consumer, m.topic(), m.partition(), m.offset(), m.key(), m.value())
            self.delivered.setdefault(m.partition(), set()).add(m.offset())

    def assigned(self, consumer, tps):
        with self.lock:
            for tp in tps:
                if tp.error is None:  # librdkafka's "none committed" is -1001
                    self.h.assigned(consumer, tp.topic, tp.partition, max(tp.offset, -1))

    def committed(self, consumer, tps):
        with self.lock:
            for tp in tps:
                if tp.error is None and tp.offset >= 0:
                    self.h.committed(consumer, tp.topic, tp.partition, tp.offset)

    def group_has(self, ends):
        """The group got every offset below ends[partition] (from each partition's start)."""
        with self.lock:
            return all(len(self.delivered.get(p, ())) >= end for p, end in ends.items())


class ConfluentProducer:
    client = "confluent"

    def __init__(self, rec, bootstrap, topic, partitions, stop):
        self.rec, self.topic, self.partitions, self.stop = rec, topic, partitions, stop
        self.p = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True, "acks": "all",
                           "linger.ms": 5, "message.timeout.ms": 120000})
        self.left = None
        self.thread = threading.Thread(target=self._run, name="confluent")

    def _on_delivery(self, err, msg):
        if err:
            self.rec.error("confluent: %s" % err)
        else:
            self.rec.acked(self.client, "confluent", msg.topic(), msg.partition(), msg.offset(), msg.key(),
                           msg.value())

    def _run(self):
        i = 0
        while not self.stop.is_set():
            k, v = b"ck%d" % i, b"c%07d" % i
            self.rec.sent("confluent", k, v)
            while True:
                try:
                    self.p.produce(self.topic, key=k, value=v, partition=i % self.partitions,
                                   on_delivery=self._on_delivery)
                    break
                except BufferError:
                    self.p.poll(0.05)
            self.p.poll(0)
            i += 1
            if i % BURST == 0:
                self.p.poll(RATE_PAUSE_S)  # pacing
        self.left = self.p.flush(120)

    def finish(self, timeout):
        self.thread.join(max(0.1, timeout))
        if self.thread.is_alive():
            return "confluent: the producer did not finish in %.0f s" % timeout
        return "confluent: %d records not delivered" % self.left if self.left else None


class StreamProducer:
    """One driver process running produce-stream for the whole run."""

    def __init__(self, rec, client, argv, bootstrap, topic, partitions, stop, prefix, config=None):
        self.rec, self.client, self.topic, self.partitions, self.stop = rec, client, topic, partitions, stop
        self.prefix = prefix
        args = {"topic": topic, "acks": "all", "idempotent": True}
        if config:
            args["config"] = config
        self.proc = subprocess.Popen([*argv, "--bootstrap", bootstrap, "produce-stream", json.dumps(args)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.pending = {}  # input index -> (key, value)
        self.cond = threading.Condition()
        self.answer = None
        self.stderr = b""
        self.threads = [threading.Thread(target=self._send, name=client + "-send"),
                        threading.Thread(target=self._read, name=client + "-read"),
                        threading.Thread(target=self._drain_stderr, name=client + "-stderr")]
        self.thread = self.threads[0]

    def start(self):
        for t in self.threads:
            t.start()

    def _send(self):
        i = 0
        try:
            while not self.stop.is_set():
                with self.cond:  # back-pressure: not more than MAX_OUTSTANDING unanswered
                    self.cond.wait_for(lambda: len(self.pending) < MAX_OUTSTANDING or self.stop.is_set())
                k, v = b"%sk%d" % (self.prefix, i), b"%s%07d" % (self.prefix, i)
                self.rec.sent(self.client, k, v)
                with self.cond:
                    self.pending[i] = (k, v)
                line = {"key": base64.b64encode(k).decode(), "value": base64.b64encode(v).decode(),
                        "partition": i % self.partitions}
                self.proc.stdin.write(json.dumps(line).encode() + b"\n")
                self.proc.stdin.flush()
                i += 1
                if i % BURST == 0:
                    self.stop.wait(RATE_PAUSE_S)  # pacing
        except BrokenPipeError:
            self.rec.error("%s: the driver exited during the run" % self.client)
        finally:
            try:
                self.proc.stdin.close()
            except BrokenPipeError:
                pass

    def _read(self):
        for raw in self.proc.stdout:
            o = json.loads(raw)
            if "n" not in o:
                self.answer = o
                continue
            with self.cond:
                k, v = self.pending.pop(o["n"])
                self.cond.notify_all()
            if o["error"] is None:
                self.rec.acked(self.client, self.client, self.topic, o["partition"], o["offset"], k, v)
            else:
                self.rec.error("%s: %s" % (self.client, o["error"]))

    def _drain_stderr(self):
        self.stderr = self.proc.stderr.read()

    def wake(self):
        with self.cond:
            self.cond.notify_all()

    def finish(self, timeout):
        """Waits for the driver's end; a problem as text, or None."""
        self.wake()
        deadline = time.monotonic() + timeout
        for t in self.threads:
            t.join(max(0.1, deadline - time.monotonic()))
        try:
            code = self.proc.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return "%s: the driver did not finish (%d records unanswered)" % (self.client, len(self.pending))
        if code != 0 or self.answer is None:
            return "%s: driver exit %d, answer %r: %s" % (self.client, code, self.answer, self.stderr[-800:])
        if self.answer.get("failed") or self.pending:
            return "%s: %r, %d unanswered" % (self.client, self.answer, len(self.pending))
        return None


class GroupConsumer:
    """A member of the group: records what it gets and each offset commit acknowledged."""

    def __init__(self, rec, name, bootstrap, topic, group, done):
        self.rec, self.name, self.done = rec, name, done
        self.c = Consumer({"bootstrap.servers": bootstrap, "group.id": group, "auto.offset.reset": "earliest",
                           "enable.auto.commit": False, "session.timeout.ms": 10000})
        self.c.subscribe([topic], on_assign=self._on_assign)
        self.errors = []
        self.thread = threading.Thread(target=self._run, name=name)

    def _on_assign(self, c, tps):
        try:  # what the group's coordinator answers now (OffsetFetch)
            self.rec.assigned(self.name, c.committed(tps, timeout=10))
        except KafkaException as e:
            self.errors.append("committed(): %s" % e)

    def _commit(self):
        try:
            self.rec.committed(self.name, self.c.commit(asynchronous=False))
        except KafkaException as e:
            # Nothing new to commit, or refused (a rebalance, the coordinator
            # moving or failing): the next one covers it. Kept: the test's
            # message names them when the group's commits fall short.
            if e.args[0].code() != KafkaError._NO_OFFSET:
                self.errors.append("commit: %s" % e.args[0].name())

    def _run(self):
        last = time.monotonic()
        try:
            while not self.done.is_set():
                m = self.c.poll(0.2)
                if m is not None and not m.error():
                    self.rec.delivered_to(self.name, m)
                elif m is not None:
                    self.errors.append(str(m.error()))
                if time.monotonic() - last >= COMMIT_EVERY_S:
                    self._commit()
                    last = time.monotonic()
            self._commit()
        finally:
            self.c.close()
