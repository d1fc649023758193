"""The faults of the chaos test (test_chaos.py), planned from a seed.

plan(seed, kills, engine_faults) is the run's list of faults, in order:
`kills` broker kills (SIGKILL; the victim restarted at once on its port, or,
one time in four, only once the others no longer list it, so that its
partitions and groups move away and back) and `engine_faults` faults of the
engines, each kind (ENGINE_KINDS) as often as the others: PostgreSQL
restarted (pg_ctl stop -m fast or immediate, down for a while, started
again), the object store answering half of all requests with errors
("flaky": 503 SlowDown, 503 after the request was carried out, 429), every
request with 503 ("down"), or holding every request unanswered ("hang", past
the broker's 10 s request timeout at times). An engine fault may catch a
broker kill inside it (restarted once the engine is back: a broker does not
start without its engines). The seed fixes the faults, their order, victims
and lengths; not the clients' timing against them.

Chaos(brokers, postgres, proxy).run(fault) carries one out."""

import random
import time

from confluent_kafka.admin import AdminClient

ENGINE_KINDS = ("pg-restart", "s3-flaky", "s3-down", "s3-hang")


def plan(seed, kills, engine_faults):
    rng = random.Random(seed)
    faults = []
    for k in range(kills):
        faults.append({"kind": "kill", "victim": rng.randrange(3), "late": k % 4 == 3})
    for k in range(engine_faults):
        kind = ENGINE_KINDS[k % len(ENGINE_KINDS)]
        f = {"kind": kind, "down_s": round(rng.uniform(1.0, 4.0), 1)}
        if kind == "pg-restart":
            f["mode"] = rng.choice(["fast", "immediate"])
        if kind == "s3-hang":
            f["down_s"] = round(rng.uniform(3.0, 12.0), 1)
        if rng.random() < 0.3:
            f["kill_inside"] = rng.randrange(3)
        faults.append(f)
    rng.shuffle(faults)
    for f in faults:
        f["gap_s"] = round(rng.uniform(0.5, 2.0), 1)
    return faults


def describe(f):
    extra = {k: v for k, v in f.items() if k != "kind"}
    return "%s %s" % (f["kind"], " ".join("%s=%s" % kv for kv in sorted(extra.items())))


class Chaos:
    def __init__(self, brokers, postgres, proxy, pace):
        self.brokers, self.postgres, self.proxy = brokers, postgres, proxy
        self.pace = pace  # pace(seconds): a pacing gap, cut short when the run stops

    def run(self, f):
        if f["kind"] == "kill":
            return self._kill(self.brokers[f["victim"]], f["late"])
        victim = self.brokers[f["kill_inside"]] if "kill_inside" in f else None
        if f["kind"] == "pg-restart":
            self.postgres.stop(f["mode"])
        else:
            self.proxy.set_mode(f["kind"][3:])
        try:
            if victim is not None:
                self.pace(f["down_s"] / 2)  # pacing: the kill lands inside the fault
                victim.kill()
                self.pace(f["down_s"] / 2)
            else:
                self.pace(f["down_s"])  # pacing: how long the engine is out
        finally:
            if f["kind"] == "pg-restart":
                self.postgres.start()
            else:
                self.proxy.set_mode("pass")
        if victim is not None:
            victim.start(port=victim.port)

    def _kill(self, victim, late):
        if not late:
            victim.restart(9)  # SIGKILL, then at once on its port
            return
        port = victim.port
        victim.kill()
        others = [b for b in self.brokers if b is not victim]
        wait_until_gone(others[0], port)
        victim.start(port=port)


def wait_until_gone(broker, port, timeout_s=30):
    """Metadata from `broker` no longer lists a broker on `port` (its session timed out)."""
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    deadline = time.monotonic() + timeout_s
    while True:
        md = admin.list_topics(timeout=10)
        if all(b.port != port for b in md.brokers.values()):
            return
        assert time.monotonic() < deadline, "broker on port %d still listed %d s after its kill" % (port, timeout_s)
        time.sleep(0.2)
