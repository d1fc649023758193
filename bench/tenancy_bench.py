#!/usr/bin/env python3
"""Tenancy benchmark (not a test), issue 25's performance section (`make bench-tenancy`):

1. the cost of tenancy: with --tenancy off and on in the same run, two SASL/PLAIN users
   (alice and bob: two tenants when on; super user root) each produce to their own topic at
   once (bench-driver produce, franz-go, acks=1, 1 KiB records, --seconds), then each consumes
   what it produced, then each runs produce-to-consume latency at --rate-mib MiB/s (p50/p99);
   the broker's CPU time per MiB is recorded for each step (steadier than rates on a shared
   host). The modes alternate round by round (--rounds); medians per mode and the ratios
   on/off are reported, with the load average and the CPU stolen by the host;
2. Metadata latency for one tenant's topics with 0 other tenants and with --tenants other
   tenants x --topics-per-tenant topics each (created by the super user under their
   internal names), --metadata-repeats calls each, median and p99 (confluent-kafka; --tenants 0
   skips it); and on the same broker the two tenants' produce and consume throughput (as in 1)
   before and after the others were created;
3. the noisy neighbour (--neighbour-rounds, 0 skips it): with tenancy on and alice limited to
   --neighbour-rate-mib MiB/s (producer_byte_rate in ketch.toml [[tenants]]), bob produces
   alone, and bob produces while alice produces flat out and is throttled (the order turns
   each round; the dirty pages written back before each run); bob's rate beside the
   throttled alice over bob's rate alone (medians of the rounds; issue 25: "within noise").

    .venv/bin/python bench/tenancy_bench.py [--ketch build/ketch] [--rounds 3] [--seconds 6]
        [--rate-mib 5] [--tenants 1000] [--topics-per-tenant 10] [--metadata-repeats 200]
        [--neighbour-rounds 3] [--neighbour-rate-mib 1] [--out FILE]   (--rounds 0: no cost part)

Needs Go (bench/driver is built into a temporary directory). Prints one JSON object (and
writes it to --out); the data directories are removed afterwards."""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from confluent_kafka.admin import AdminClient, NewTopic

from benchlib import cpu_ticks, load, write_result

HERE = os.path.dirname(os.path.abspath(__file__))
USERS = {"alice": "alice-pw", "bob": "bob-pw", "root": "root-pw"}
TENANTS = ("alice", "bob")


class broker:
    def __init__(self, ketch, tenancy, toml_extra=""):
        self.dir = tempfile.mkdtemp(prefix="ketch-tbench-")
        toml = os.path.join(self.dir, "ketch.toml")
        with open(toml, "w") as f:
            f.write("".join('[[users]]\nname = "%s"\npassword = "%s"\n' % kv for kv in USERS.items()) + toml_extra)
        data, ready = os.path.join(self.dir, "data"), os.path.join(self.dir, "ready")
        args = [ketch, "--listen", "127.0.0.1:0", "--data-dir", data, "--ready-file", ready, "--config", toml,
                "--schema-registry=false", "--console=false", "--super-users", "User:root", "--log-level", "warn",
                "--listener", "SASL_PLAINTEXT=SASL_PLAINTEXT://127.0.0.1:0"] + (["--tenancy"] if tenancy else [])
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        while not os.path.exists(ready) or not open(ready).read().strip():
            if self.proc.poll() is not None:
                raise RuntimeError("ketch exited")
            time.sleep(0.02)
        listeners = json.load(open(os.path.join(data, "listeners.json")))["listeners"]
        self.bootstrap = listeners["SASL_PLAINTEXT"]["address"]

    def conf(self, user):
        return {"bootstrap.servers": self.bootstrap, "security.protocol": "SASL_PLAINTEXT",
                "sasl.mechanisms": "PLAIN", "sasl.username": user, "sasl.password": USERS[user]}

    def cpu_ms(self):
        """The broker's CPU time so far (user + system, /proc/PID/stat), in ms."""
        f = open("/proc/%d/stat" % self.proc.pid).read().rsplit(")", 1)[1].split()
        return (int(f[11]) + int(f[12])) * 1000.0 / os.sysconf("SC_CLK_TCK")

    def close(self):
        self.proc.terminate()
        self.proc.wait(30)
        shutil.rmtree(self.dir, ignore_errors=True)


def drive_all(drv, b, steps):
    """Runs bench-driver once per (user, args) in `steps` at the same time; their JSON answers."""
    procs = [subprocess.Popen([drv] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env={**os.environ, "BENCH_SASL_PLAIN": "%s:%s" % (u, USERS[u])})
             for u, args in steps]
    outs = []
    for p in procs:
        out, err = p.communicate()
        if p.returncode != 0:
            raise RuntimeError("bench-driver: " + err[-500:])
        outs.append(json.loads(out.strip().splitlines()[-1]))
    return outs


def settle():
    """Before a produce run: the previous runs' pages written back and, where permitted, dropped
    from the page cache. A run of ~5 GiB started over the previous one's pages ran at a third
    of the rate of the same run first on the broker, whichever ran second (2026-12-05: bob alone
    322 MiB/s second, 879-1021 first), the kernel reclaiming pages as the broker writes."""
    os.sync()
    try:
        with open("/proc/sys/vm/drop_caches", "w") as f:
            f.write("1\n")
    except OSError:
        pass  # not permitted here: the runs' order still turns


def cost_round(ketch, drv, mode, o):
    """One broker (tenancy `mode`): both users produce, then consume, then measure latency, at once."""
    b = broker(ketch, mode == "on")
    try:
        for u in TENANTS:
            for t in ("tp", "tl"):
                drive_all(drv, b, [(u, ["create-topic", b.bootstrap, "%s-%s" % (t, u), "1"])])
        settle()
        l0, (s0, a0), c0 = load(), cpu_ticks(), b.cpu_ms()
        p = drive_all(drv, b, [(u, ["produce", b.bootstrap, "tp-" + u, "-seconds", str(o.seconds), "-acks", "1"])
                               for u in TENANTS])
        c1 = b.cpu_ms()
        n = [x["bytes"] // 1024 for x in p]
        c = drive_all(drv, b, [(u, ["consume", b.bootstrap, "tp-" + u, str(k)]) for u, k in zip(TENANTS, n)])
        c2 = b.cpu_ms()
        lat = drive_all(drv, b, [(u, ["latency", b.bootstrap, "tl-" + u, "-rate-mib", str(o.rate_mib), "-seconds",
                                      str(o.seconds), "-acks", "1"]) for u in TENANTS])
        c3 = b.cpu_ms()
        s1, a1 = cpu_ticks()
        mib_p, mib_c = sum(x["bytes"] for x in p) / (1 << 20), sum(x["bytes"] for x in c) / (1 << 20)
        mib_l = sum(x["records_sent"] for x in lat) * 1024 / (1 << 20)
        return {"mode": mode, "produce_mib_s": round(sum(x["mib_s"] for x in p), 1),
                "consume_mib_s": round(sum(x["mib_s"] for x in c), 1),
                "lat_p50_ms": round(max(x["p50_ms"] for x in lat), 3),
                "lat_p99_ms": round(max(x["p99_ms"] for x in lat), 3),
                "ack_p99_ms": round(max(x["ack_p99_ms"] for x in lat), 3),
                "produce_cpu_ms_per_mib": round((c1 - c0) / mib_p, 3),
                "consume_cpu_ms_per_mib": round((c2 - c1) / mib_c, 3),
                "latency_run_cpu_ms_per_mib": round((c3 - c2) / mib_l, 3),
                "load_start": l0, "load_end": load(), "steal_pct": round(100.0 * (s1 - s0) / max(1, a1 - a0), 2)}
    finally:
        b.close()


KEYS = ("produce_mib_s", "consume_mib_s", "lat_p50_ms", "lat_p99_ms", "ack_p99_ms", "produce_cpu_ms_per_mib",
        "consume_cpu_ms_per_mib", "latency_run_cpu_ms_per_mib")


def run_cost(ketch, drv, o):
    runs = []
    for r in range(o.rounds):
        for mode in (("off", "on") if r % 2 == 0 else ("on", "off")):  # no mode always first
            runs.append(cost_round(ketch, drv, mode, o))
            print(json.dumps(runs[-1]), file=sys.stderr)
    med = {m: {k: statistics.median(r[k] for r in runs if r["mode"] == m) for k in KEYS} for m in ("off", "on")}
    med["on_vs_off"] = {k: round(med["on"][k] / med["off"][k], 3) for k in KEYS if med["off"][k] > 0}
    return {"medians": med, "runs": runs}


def create(b, user, names):
    a = AdminClient(b.conf(user))
    for i in range(0, len(names), 500):
        fs = a.create_topics([NewTopic(n, 1, 1) for n in names[i:i + 500]], request_timeout=120)
        for f in fs.values():
            f.result(120)


def metadata_latency(b, repeats):
    a = AdminClient(b.conf("alice"))
    a.list_topics(timeout=30)
    times = []
    for _ in range(repeats):
        t0 = time.monotonic()
        a.list_topics(timeout=30)
        times.append((time.monotonic() - t0) * 1000)
    times.sort()
    return {"median_ms": round(statistics.median(times), 3), "p99_ms": round(times[int(len(times) * 0.99) - 1], 3)}


def list_groups_latency(b, repeats):
    """ListGroups for alice: the other tenants have no groups here, so this shows the
    cost of the listing itself (the topics' cost is Metadata's)."""
    a = AdminClient(b.conf("alice"))
    times = []
    for _ in range(repeats):
        t0 = time.monotonic()
        a.list_consumer_groups(request_timeout=30).result(30)
        times.append((time.monotonic() - t0) * 1000)
    times.sort()
    return {"median_ms": round(statistics.median(times), 3), "p99_ms": round(times[int(len(times) * 0.99) - 1], 3)}


def throughput(b, drv, o, tag):
    """alice and bob produce at once (--seconds), then each consumes what it produced: MiB/s summed."""
    for u in TENANTS:
        drive_all(drv, b, [(u, ["create-topic", b.bootstrap, "%s-%s" % (tag, u), "1"])])
    settle()
    p = drive_all(drv, b, [(u, ["produce", b.bootstrap, "%s-%s" % (tag, u), "-seconds", str(o.seconds), "-acks", "1"])
                           for u in TENANTS])
    c = drive_all(drv, b, [(u, ["consume", b.bootstrap, "%s-%s" % (tag, u), str(x["bytes"] // 1024)])
                           for u, x in zip(TENANTS, p)])
    return {"produce_mib_s": round(sum(x["mib_s"] for x in p), 1), "consume_mib_s": round(sum(x["mib_s"] for x in c), 1)}


def run_metadata(ketch, drv, o):
    """Metadata latency and the two tenants' throughput, alone and beside --tenants others (same broker)."""
    b = broker(ketch, True)
    out = {}
    try:
        create(b, "alice", ["own-%d" % i for i in range(o.topics_per_tenant)])
        out["metadata_alone"] = metadata_latency(b, o.metadata_repeats)
        out["throughput_alone"] = throughput(b, drv, o, "alone")
        t0 = time.monotonic()
        create(b, "root", ["t%04d~topic-%d" % (t, i) for t in range(o.tenants) for i in range(o.topics_per_tenant)])
        out["create_others_s"] = round(time.monotonic() - t0, 1)
        out["metadata_beside_%d_tenants" % o.tenants] = metadata_latency(b, o.metadata_repeats)
        out["list_groups_beside_%d_tenants" % o.tenants] = list_groups_latency(b, o.metadata_repeats)
        beside = out["throughput_beside_%d_tenants" % o.tenants] = throughput(b, drv, o, "beside")
        out["throughput_beside_vs_alone"] = {k: round(beside[k] / out["throughput_alone"][k], 3)
                                             for k in beside if out["throughput_alone"][k] > 0}
    finally:
        b.close()
    return out


def neighbour_round(ketch, drv, o, beside_first):
    """bob alone and bob beside alice throttled at --neighbour-rate-mib (in the order given):
    their produce rates, each run on its own topic and after settle()."""
    limit = int(o.neighbour_rate_mib * (1 << 20))
    b = broker(ketch, True, '[[tenants]]\nname = "alice"\nproducer_byte_rate = %d\n' % limit)
    try:
        for topic, u in (("np-alone", "bob"), ("np-beside", "bob"), ("np-alice", "alice")):
            drive_all(drv, b, [(u, ["create-topic", b.bootstrap, topic, "1"])])
        produce = lambda u, t: (u, ["produce", b.bootstrap, t, "-seconds", str(o.seconds), "-acks", "1"])
        l0 = load()
        runs = {}
        for step in (["beside", "alone"] if beside_first else ["alone", "beside"]):
            settle()
            if step == "alone":
                (runs["alone"],) = drive_all(drv, b, [produce("bob", "np-alone")])
            else:
                runs["beside"], runs["alice"] = drive_all(drv, b, [produce("bob", "np-beside"),
                                                                   produce("alice", "np-alice")])
        return {"bob_alone_mib_s": round(runs["alone"]["mib_s"], 1),
                "bob_beside_mib_s": round(runs["beside"]["mib_s"], 1),
                "alice_throttled_mib_s": round(runs["alice"]["mib_s"], 2), "beside_first": beside_first,
                "load_start": l0, "load_end": load()}
    finally:
        b.close()


def run_neighbour(ketch, drv, o):
    runs = []
    for i in range(o.neighbour_rounds):
        runs.append(neighbour_round(ketch, drv, o, beside_first=i % 2 == 1))
        print(json.dumps(runs[-1]), file=sys.stderr)
    ratios = [r["bob_beside_mib_s"] / r["bob_alone_mib_s"] for r in runs if r["bob_alone_mib_s"] > 0]
    return {"alice_limit_mib_s": o.neighbour_rate_mib, "runs": runs,
            "bob_beside_vs_alone": round(statistics.median(ratios), 3) if ratios else None,
            "alice_throttled_mib_s": statistics.median(r["alice_throttled_mib_s"] for r in runs) if runs else None}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ketch", default=os.path.join(HERE, "..", "build", "ketch"))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=6)
    ap.add_argument("--rate-mib", type=float, default=5)
    ap.add_argument("--tenants", type=int, default=1000)
    ap.add_argument("--topics-per-tenant", type=int, default=10)
    ap.add_argument("--metadata-repeats", type=int, default=200)
    ap.add_argument("--neighbour-rounds", type=int, default=3)
    ap.add_argument("--neighbour-rate-mib", type=float, default=1)
    ap.add_argument("--out")
    o = ap.parse_args()
    out = {"started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "load_start": load()}
    tmp = tempfile.mkdtemp(prefix="ketch-tbench-drv-")
    try:
        drv = os.path.join(tmp, "bench-driver")
        subprocess.run(["go", "build", "-o", drv, "."], cwd=os.path.join(HERE, "driver"), check=True)
        if o.rounds > 0:
            out["cost"] = run_cost(o.ketch, drv, o)
        if o.tenants > 0:
            out.update(run_metadata(o.ketch, drv, o))
        if o.neighbour_rounds > 0:
            out["neighbour"] = run_neighbour(o.ketch, drv, o)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    out["load_end"] = load()
    write_result(out, o.out)


if __name__ == "__main__":
    main()
