"""Three brokers, one killed and restarted again and again (issue 26's "three
brokers, one killed"), checked by the history checker (history.py).

Three ketch processes share the engines. While idempotent acks=all
producers (confluent-kafka, one producer for the whole run; franz-go, one
producer per chunk of records) write to six partitions and a consumer group
of two (confluent-kafka) reads, a broker is SIGKILLed KILLS times, in turn:
mostly restarted at once on its port (its partitions and groups stay with
its node id, the new process reads them from the engines), every fourth
time only after the session timeout (its partitions and groups move to the
others first, then back). No client is restarted. Afterwards every
partition is read back and the history checked: every acknowledged record
exactly once at its offset, offsets contiguous, produce order kept, nothing
read that was never sent, every acknowledged record delivered to the group."""

import base64
import json
import subprocess
import threading
import time
from pathlib import Path

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition

from history import History
from test_shared_produce import FLUSH, create_topic, wait_for_topic

pytestmark = pytest.mark.timeout(290)

PARTITIONS = 6
KILLS = 20
SESSION_MS = 3000
TIMING = ["--cluster-heartbeat-ms", "250", "--cluster-session-timeout-ms", str(SESSION_MS)]
DRIVER = Path(__file__).resolve().parents[1] / "clients" / "go" / "driver"


def test_three_brokers_killed_twenty_times_lose_nothing(start_broker, tmp_path):
    if not DRIVER.exists():
        pytest.skip("franz-go driver not built (tests/clients/go; scripts/install-test-deps.sh)")
    brokers = [start_broker(n, *FLUSH, *TIMING) for n in (1, 2, 3)]
    create_topic(brokers[0], "chaos", PARTITIONS)
    for b in brokers[1:]:
        wait_for_topic(b, "chaos", PARTITIONS)
    bootstrap = ",".join(b.bootstrap for b in brokers)
    h = History()
    lock = threading.Lock()
    stop = threading.Event()
    errors = []

    def confluent_producer():
        def on_delivery(err, msg):
            with lock:
                if err:
                    errors.append("confluent: %s" % err)
                else:
                    h.acked("confluent", msg.topic(), msg.partition(), msg.offset(), msg.key(), msg.value())

        p = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True, "acks": "all", "linger.ms": 5,
                      "message.timeout.ms": 120000})
        i = 0
        while not stop.is_set():
            k, v = b"ck%d" % i, b"c%07d" % i
            with lock:
                h.sent("confluent", k, v)
            while True:
                try:
                    p.produce("chaos", key=k, value=v, partition=i % PARTITIONS, on_delivery=on_delivery)
                    break
                except BufferError:
                    p.poll(0.05)
            p.poll(0)
            i += 1
            if i % 25 == 0:
                p.poll(0.05)  # about 500 records a second
        assert p.flush(150) == 0

    def franz_producer():
        chunk = 0
        while not stop.is_set():
            name = "franz-%d" % chunk
            recs = [(b"fk%d-%d" % (chunk, j), b"f%04d-%04d" % (chunk, j), j % PARTITIONS) for j in range(120)]
            with lock:
                for k, v, _ in recs:
                    h.sent(name, k, v)
            args = {"topic": "chaos", "acks": "all", "idempotent": True,
                    "config": {"delivery.timeout.ms": "50000"},
                    "records": [{"key": base64.b64encode(k).decode(), "value": base64.b64encode(v).decode(),
                                 "partition": p} for k, v, p in recs]}
            r = subprocess.run([str(DRIVER), "--bootstrap", bootstrap, "produce", json.dumps(args)],
                               capture_output=True, text=True, timeout=90)
            if r.returncode == 0:
                out = json.loads(r.stdout)["records"]
                with lock:
                    for (k, v, _), res in zip(recs, out):
                        if res["error"] is None:
                            h.acked(name, "chaos", res["partition"], res["offset"], k, v)
                        else:
                            errors.append("%s: %s" % (name, res["error"]))
            else:
                errors.append("%s: driver exit %d: %s" % (name, r.returncode, r.stderr[-500:]))
            chunk += 1

    delivered = set()
    consumers_done = threading.Event()

    def group_consumer(name):
        c = Consumer({"bootstrap.servers": bootstrap, "group.id": "chaos-group", "auto.offset.reset": "earliest",
                      "enable.auto.commit": True, "auto.commit.interval.ms": 500, "session.timeout.ms": 10000})
        c.subscribe(["chaos"])
        try:
            while not consumers_done.is_set():
                m = c.poll(0.2)
                if m is None or m.error():
                    continue
                with lock:
                    h.delivered(name, m.topic(), m.partition(), m.offset(), m.key(), m.value())
                    delivered.add((m.partition(), m.offset()))
        finally:
            c.close()

    threads = [threading.Thread(target=confluent_producer), threading.Thread(target=franz_producer)]
    readers = [threading.Thread(target=group_consumer, args=("consumer-%d" % i,)) for i in range(2)]
    for t in threads + readers:
        t.start()
    started = time.monotonic()
    try:
        time.sleep(2)
        for k in range(KILLS):
            victim = brokers[k % 3]
            if k % 4 == 3:  # its partitions and groups move to the others, then come back
                port = victim.port
                victim.kill()
                time.sleep(SESSION_MS / 1000 + 1)
                victim.start(port=port)
            else:
                victim.restart(9)  # SIGKILL, then at once on its port
            time.sleep(2.5)
    finally:
        stop.set()
        for t in threads:
            t.join(180)
    run_s = time.monotonic() - started
    assert not any(t.is_alive() for t in threads), "a producer did not finish"

    # The group reads on until it has every acknowledged record (at least once).
    want = {(p, o) for _, _, p, o, _, _ in h.acks}
    deadline = time.monotonic() + 60
    while True:
        with lock:
            missing = len(want - delivered)
        if missing == 0 or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    consumers_done.set()
    for t in readers:
        t.join(30)

    # Read every partition back from the start, through one broker.
    c = Consumer({"bootstrap.servers": brokers[0].bootstrap, "group.id": "chaos-check",
                  "enable.auto.commit": False})
    for p in range(PARTITIONS):
        low, high = c.get_watermark_offsets(TopicPartition("chaos", p), timeout=20)
        recs = []
        c.assign([TopicPartition("chaos", p, low)])
        deadline = time.monotonic() + 60
        while (recs[-1][0] + 1 if recs else low) < high and time.monotonic() < deadline:
            m = c.poll(0.5)
            if m is not None and not m.error():
                recs.append((m.offset(), m.key(), m.value()))
        h.read_back("chaos", p, recs)
    c.close()

    problems = h.check()
    h.dump(tmp_path / "history.jsonl")
    summary = "%s; %d kills in %.0f s; %d produce errors (retried or unacknowledged): %s" % (
        h.summary(), KILLS, run_s, len(errors), errors[:5])
    print(summary)
    assert problems == [], "\n".join([summary] + problems)
    producers = {prod.split("-")[0] for prod, *_ in h.acks}
    assert producers == {"confluent", "franz"}, "both clients had records acknowledged"
    assert len(h.acks) > 2000, summary
