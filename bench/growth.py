#!/usr/bin/env python3
"""bench/growth.py — growth curves, ketch beside Apache Kafka 4.3.1 in one run (issue 24).

    bench/growth.py [--quick] [--brokers ketch,kafka] [--dimensions partitions,connections,...]
    (or `make bench-growth`, `make bench-growth GROWTH_ARGS=--quick`)

For each dimension, at each point, against each broker (started afresh, on an empty data dir,
for each dimension), with franz-go (bench/driver) as the client:
  partitions   one topic of N partitions (10 .. 10,000): produce rate (1 KiB records, acks=1,
               one client, sticky partitioner), produce-to-consume p99 at 5 MiB/s, broker RSS
  connections  N idle connections (10 .. 10,000; each sent one ApiVersions, then kept open)
               beside the same produce rate and p99 on a 6-partition topic, broker RSS
  consumers    one group of N members (1 .. 100, classic protocol, cooperative-sticky) reading
               everything of a 100-partition topic filled just before (256 MiB, 1 GiB): consume
               rate from the first record to the last (later rebalances included), time to the first record
               (the group's first assignment; the "p99" panel shows it), broker RSS
  record_size  100 B .. 1 MiB records on a 6-partition topic: produce rate, p99 at 5 MiB/s,
               broker RSS
Each figure is one sample (the curves are about shape; `make bench` has the repeated medians).
The CPU stolen by the host over each broker's part is recorded. Writes
bench/results/growth-<UTC date>.json (every number) and .png (throughput, p99 and RSS against
each dimension, log-log), plus each curve's growth exponent between its first and last point
(0: O(1), 1: O(n)). Needs matplotlib: `make bench-growth` installs bench/requirements.txt into
build/bench-venv.
"""

import argparse
import json
import math
import os
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
from idle_connections import api_versions, read_answer, status  # noqa: E402

FULL = {"partitions": [10, 100, 1000, 10000], "connections": [10, 100, 1000, 10000],
        "consumers": [1, 3, 10, 30, 100], "record_size": [100, 1024, 10240, 102400, 1048576]}
QUICK = {"partitions": [10, 100, 1000], "connections": [10, 100, 1000],
         "consumers": [1, 4, 16], "record_size": [100, 10240, 1048576]}
BIG = 2 << 20  # max.message.bytes and franz-go's batch limit for the largest records
LABELS = {"mib_s": "throughput (MiB/s)", "p99_ms": "p99 produce to consume (ms)", "rss_mib": "broker RSS (MiB)"}


def say(*a):
    print("[growth %s]" % time.strftime("%H:%M:%S"), *a, file=sys.stderr, flush=True)


def cpu_steal():
    f = open("/proc/stat").readline().split()
    return int(f[8]), sum(int(x) for x in f[1:9])


class Broker:
    """A broker private to the run: ketch from the binary, or Kafka through kafka.sh."""

    def __init__(self, name, work, ketch_bin):
        self.name, self.work, self.ketch_bin, self.proc = name, work / name, ketch_bin, None
        self.work.mkdir(parents=True)  # WORK/DIMENSION/BROKER
        self.env = dict(os.environ, KAFKA_REF_RUN=str(self.work / "kafka"))

    def start(self):
        if self.name == "kafka":
            out = subprocess.run([str(ROOT / "conformance/reference/kafka.sh"), "start"], env=self.env,
                                 check=True, capture_output=True, text=True).stdout
            self.bootstrap = out.strip().splitlines()[-1]
            self.pid = int((self.work / "kafka" / "kafka.pid").read_text())
            return
        ready = self.work / "ready"
        log = open(self.work / "ketch.log", "wb")
        self.proc = subprocess.Popen([self.ketch_bin, "--listen", "127.0.0.1:0", "--data-dir",
                                      str(self.work / "data"), "--ready-file", str(ready), "--log-level", "warn"],
                                     stdout=log, stderr=log)
        deadline = time.monotonic() + 60
        while not (ready.exists() and ready.read_text().strip()):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                sys.exit("ketch did not start; log in %s" % self.work)
            time.sleep(0.02)
        self.bootstrap, self.pid = ready.read_text().strip(), self.proc.pid

    def stop(self):
        if self.name == "kafka":
            subprocess.run([str(ROOT / "conformance/reference/kafka.sh"), "stop"], env=self.env,
                           capture_output=True)
        elif self.proc:
            self.proc.terminate()
            self.proc.wait(timeout=60)

    def rss_mib(self):
        return round(status(self.pid, "VmRSS") / 1024, 1)


class PointFailed(Exception):
    """A point the broker could not run (the driver's error): recorded, the dimension's larger
    points skipped, the run goes on."""


class Run:
    def __init__(self, driver, quick):
        self.driver, self.quick, self.seq = driver, quick, 0
        self.seconds = 2 if quick else 3
        self.group_bytes = (256 if quick else 1024) << 20

    def drv(self, cmd, b, topic, *args, timeout=300):
        try:
            out = subprocess.run([self.driver, cmd, b.bootstrap, topic, *map(str, args)],
                                 capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise PointFailed("%s %s: not done after %d s" % (cmd, topic, timeout))
        if out.returncode != 0:
            raise PointFailed("%s %s: %s" % (cmd, topic, out.stderr.strip()[-300:]))
        return json.loads(out.stdout.strip().splitlines()[-1])

    def topic(self, b, partitions, *configs):
        self.seq += 1
        t = "growth-%d-%d" % (self.seq, partitions)
        self.drv("create-topic", b, t, partitions, *configs, timeout=900)
        return t

    def produce_and_latency(self, b, partitions, size=1024, *configs):
        """The produce rate into one fresh topic, then the p99 on another (its consumer reads
        from the start and takes each record's first bytes as its send time)."""
        batch = ["-max-batch-bytes", BIG] if size > 512 * 1024 else []
        t1, t2 = self.topic(b, partitions, *configs), self.topic(b, partitions, *configs)
        p = self.drv("produce", b, t1, "-record-size", size, "-seconds", self.seconds, *batch)
        lat = self.drv("latency", b, t2, "-rate-mib", 5, "-record-size", max(size, 8), "-seconds",
                       self.seconds + 1, "-warmup-s", 1, *batch)
        point = {"mib_s": round(p["mib_s"], 2), "p99_ms": round(lat["p99_ms"], 3), "rss_mib": b.rss_mib()}
        self.drop(b, t1, t2)
        return point

    def drop(self, b, *topics):
        """Deletes a point's topics (the disk holds a run only if each point gives its data back)."""
        for t in topics:
            self.drv("delete-topic", b, t)

    def partitions(self, b, n):
        return self.produce_and_latency(b, n)

    def record_size(self, b, n):
        # 1 MiB records need more than either broker's default max.message.bytes (1 MiB + 12)
        return self.produce_and_latency(b, 6, n, "max.message.bytes=%d" % BIG)

    def connections(self, b, n):
        host, _, port = b.bootstrap.rpartition(":")
        conns = []
        try:
            for i in range(n):
                s = socket.create_connection((host, int(port)))
                s.sendall(api_versions(i))
                read_answer(s)
                conns.append(s)
            return self.produce_and_latency(b, 6)
        finally:
            for s in conns:
                s.close()

    def consumers(self, b, n):
        topic = self.topic(b, 100)
        # the same data for both brokers, enough to take the members some seconds to read
        p = self.drv("produce", b, topic, "-record-size", 1024, "-seconds", 60, "-bytes", self.group_bytes)
        got = self.drv("group-consume", b, topic, "-records", p["bytes"] // 1024, "-members", n)
        # from the first record on: the first join's delay (Kafka's group.initial.rebalance.delay.ms
        # is 3 s, ketch's 200 ms) is the time-to-first-record figure, not the rate's
        point = {"mib_s": round(got["mib_s"], 2),
                 "p99_ms": round(got["first_record_s"] * 1000, 1), "rss_mib": b.rss_mib()}
        self.drop(b, topic)
        return point


def exponent(points, key):
    """The growth exponent k of value ~ x^k between the first and last point (log-log slope)."""
    (x0, v0), (x1, v1) = (points[0]["x"], points[0][key]), (points[-1]["x"], points[-1][key])
    if v0 <= 0 or v1 <= 0:
        return None
    return round(math.log(v1 / v0) / math.log(x1 / x0), 2)


def plot(result, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    dims = [d for d in result["dimensions"] if any(result["curves"].get(b, {}).get(d) for b in result["brokers"])]
    fig, axes = plt.subplots(3, len(dims), figsize=(4.2 * len(dims), 9.5), squeeze=False)
    for col, d in enumerate(dims):
        for row, key in enumerate(LABELS):
            ax = axes[row][col]
            for b in result["brokers"]:
                pts = result["curves"].get(b, {}).get(d, [])
                ax.plot([p["x"] for p in pts], [p[key] for p in pts], marker="o", label=b)
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlabel(d.replace("_", " ") + (" (bytes)" if d == "record_size" else ""))
            ax.set_ylabel("time to the first record (ms)" if (d, key) == ("consumers", "p99_ms") else LABELS[key])
            ax.grid(True, which="both", alpha=0.3)
            ax.legend()
    fig.suptitle("ketch growth curves, %s, commit %s" % (result["date"], result["commit"]))
    fig.tight_layout()
    fig.savefig(path, dpi=90)


def measure(result, run, work, ketch_bin):
    """Every point of every dimension against each broker in turn; a fresh broker (its own
    data dir) for each dimension, so that one dimension's RSS does not carry the last's."""
    points = result["points"]
    for name in result["brokers"]:
        steal0, all0 = cpu_steal()
        curves = result["curves"].setdefault(name, {})
        for d in result["dimensions"]:
            b = Broker(name, work / d, ketch_bin)
            say("starting", name, "for", d)
            b.start()
            curves[d] = []
            try:
                for x in points[d]:
                    try:
                        curves[d].append(dict(getattr(run, d)(b, x), x=x))
                    except PointFailed as e:
                        say(name, d, x, "failed:", e)
                        result.setdefault("failed", {}).setdefault(name, {})[d] = {"x": x, "error": str(e)}
                        break
                say(name, d, curves[d])
            finally:
                b.stop()
            if len(curves[d]) >= 2:
                result["exponents"].setdefault(name, {})[d] = {k: exponent(curves[d], k) for k in LABELS}
        steal1, all1 = cpu_steal()
        result["steal_pct"][name] = round(100 * (steal1 - steal0) / max(1, all1 - all0), 2)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="fewer, smaller points (a few minutes)")
    ap.add_argument("--brokers", default=os.environ.get("GROWTH_BROKERS", "ketch,kafka"))
    ap.add_argument("--dimensions", default=",".join(FULL))
    ap.add_argument("--ketch", default=os.environ.get("KETCH_BIN", str(ROOT / "build" / "ketch")))
    a = ap.parse_args()
    points = QUICK if a.quick else FULL
    dims = a.dimensions.split(",")
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # the brokers inherit it
    work = Path(tempfile.mkdtemp(prefix="ketch-growth-"))
    driver = str(work / "bench-driver")
    subprocess.run(["go", "build", "-o", driver, "."], cwd=HERE / "driver", check=True)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                            text=True).stdout.strip()
    result = {"date": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H%MZ"), "commit": commit,
              "quick": a.quick, "brokers": a.brokers.split(","), "dimensions": dims, "points": points,
              "fd_limit": hard, "load_start": open("/proc/loadavg").read().split()[:3],
              "curves": {}, "exponents": {}, "steal_pct": {}}
    try:
        measure(result, Run(driver, a.quick), work, a.ketch)
    finally:  # what was measured is kept, also when a broker failed the run
        shutil.rmtree(work, ignore_errors=True)
        write(result, a.quick)


def write(result, quick):
    result["load_end"] = open("/proc/loadavg").read().split()[:3]
    res = ROOT / "bench" / "results"
    res.mkdir(exist_ok=True)
    base = res / ("growth-%s%s" % (result["date"], "-quick" if quick else ""))
    base.with_suffix(".json").write_text(json.dumps(result, indent=1) + "\n")
    plot(result, base.with_suffix(".png"))
    print(json.dumps(result["exponents"], indent=1))
    print("written", base.with_suffix(".json"), base.with_suffix(".png"))


if __name__ == "__main__":
    main()
