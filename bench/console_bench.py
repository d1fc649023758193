#!/usr/bin/env python3
"""Console benchmark (not a test), issue 22's performance section:

1. the inspector's cost: produce throughput and produce-to-consume p99 with the console off
   (--console=false: no inspector at all), on and idle (no page open: the dispatcher checks
   one atomic per request), and on with a page watching Traffic (a client polling
   GET /api/v1/traffic?after=SEQ&limit=500 and /api/v1/traffic/connections once a second,
   as src/console/assets/traffic.js does, so every exchange is recorded and decoded);
   the three modes interleaved round by round, --rounds times, medians reported;
2. the message browser on a large topic (--browse-gib, default 10): one partition filled
   with 1 KiB records (timestamps one millisecond apart), then GET
   /api/v1/topics/{t}/messages?partition=0&offset=N&limit=100 and ...&timestamp=T at
   several positions, each timed --browse-repeats times; before the first call of each, the
   topic's files are dropped from the page cache (posix_fadvise; --warm: not), so the first
   call reads the disk and the others the page cache.
   The data directory is removed afterwards.

    .venv/bin/python bench/console_bench.py [--ketch build/ketch] [--rounds 3] [--seconds 8]
        [--browse-gib 10] [--skip-inspector] [--skip-browse] [--out FILE]

Every step records the load average and the CPU stolen by the host (/proc/stat).
Prints one JSON object."""

import argparse
import http.client
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

from benchlib import cpu_ticks

HERE = os.path.dirname(os.path.abspath(__file__))


class machine:
    def __enter__(self):
        self.load0 = float(open("/proc/loadavg").read().split()[0])
        self.t0 = cpu_ticks()
        return self

    def __exit__(self, *a):
        s1, a1 = cpu_ticks()
        self.fig = {"load_start": self.load0, "load_end": float(open("/proc/loadavg").read().split()[0]),
                    "steal_pct": round(100.0 * (s1 - self.t0[0]) / max(1, a1 - self.t0[1]), 2)}


class broker:
    def __init__(self, ketch, console, data_root):
        self.dir = tempfile.mkdtemp(prefix="ketch-cbench-", dir=data_root)
        ready = os.path.join(self.dir, "ready")
        args = [ketch, "--listen", "127.0.0.1:0", "--data-dir", self.dir + "/data", "--ready-file", ready,
                "--schema-registry=false", "--log-level", "warn"]
        args += ["--console-addr", "127.0.0.1:0"] if console else ["--console=false"]
        self.proc = subprocess.Popen(args)
        deadline = time.monotonic() + 30
        while not os.path.exists(ready):
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise RuntimeError("ketch did not start")
            time.sleep(0.01)
        ls = json.load(open(self.dir + "/data/listeners.json"))
        self.bootstrap = next(iter(ls["listeners"].values()))["address"]
        self.console = ls.get("console")

    def cpu_ms(self):
        """The broker's CPU time so far (user + system, /proc/PID/stat), in ms."""
        f = open("/proc/%d/stat" % self.proc.pid).read().rsplit(")", 1)[1].split()
        return (int(f[11]) + int(f[12])) * 1000.0 / os.sysconf("SC_CLK_TCK")

    def stop(self):
        self.proc.terminate()
        self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


def get(url, path, timeout=30):
    u = urllib.parse.urlparse(url)
    c = http.client.HTTPConnection(u.hostname, u.port, timeout=timeout)
    c.request("GET", path)
    r = c.getresponse()
    body = r.read()
    c.close()
    return r.status, body


class watcher(threading.Thread):
    """The Traffic page's polling loop (traffic.js poll()): once a second."""

    def __init__(self, url):
        super().__init__(daemon=True)
        self.url, self.stop_flag, self.polls, self.exchanges, self.last = url, threading.Event(), 0, 0, 0

    def run(self):
        u = urllib.parse.urlparse(self.url)
        c = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
        while not self.stop_flag.is_set():
            c.request("GET", "/api/v1/traffic?after=%d&limit=500" % self.last)
            j = json.loads(c.getresponse().read())
            self.last = j.get("last_seq", self.last)
            self.exchanges += len(j.get("exchanges", []))
            c.request("GET", "/api/v1/traffic/connections")
            c.getresponse().read()
            self.polls += 1
            self.stop_flag.wait(1.0)


def drive(drv, args):
    out = subprocess.run([drv] + args, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError("bench-driver %s: %s" % (args[0], out.stderr[-500:]))
    return json.loads(out.stdout.strip().splitlines()[-1])


def inspector_round(ketch, drv, mode, seconds, data_root):
    b = broker(ketch, mode != "off", data_root)
    w = None
    try:
        drive(drv, ["create-topic", b.bootstrap, "tp", "1"])
        drive(drv, ["create-topic", b.bootstrap, "tl", "1"])
        if mode == "watched":
            w = watcher(b.console)
            w.start()
            time.sleep(1.5)  # the first poll has switched recording on
        with machine() as m:
            c0 = b.cpu_ms()
            p = drive(drv, ["produce", b.bootstrap, "tp", "-seconds", str(seconds), "-acks", "1"])
            c1 = b.cpu_ms()
            lat = drive(drv, ["latency", b.bootstrap, "tl", "-rate-mib", "5", "-seconds", str(seconds), "-acks", "1"])
            c2 = b.cpu_ms()
        # Broker CPU per MiB: far steadier than rates on a shared host (other processes take
        # cores from the clients and the broker alike, but not CPU time from the broker's work).
        lat_mib = lat["records_sent"] * 1024 / (1 << 20)
        fig = {"mode": mode, "produce_mib_s": round(p["mib_s"], 1), "lat_p50_ms": round(lat["p50_ms"], 3),
               "lat_p99_ms": round(lat["p99_ms"], 3), "ack_p99_ms": round(lat["ack_p99_ms"], 3),
               "produce_cpu_ms_per_mib": round((c1 - c0) / (p["bytes"] / (1 << 20)), 3),
               "latency_run_cpu_ms_per_mib": round((c2 - c1) / lat_mib, 3)}
        fig.update(m.fig)
        if w:
            w.stop_flag.set()
            w.join()
            fig.update({"polls": w.polls, "exchanges_seen": w.exchanges})
        return fig
    finally:
        if w:
            w.stop_flag.set()
        b.stop()


def run_inspector(ketch, drv, rounds, seconds, data_root):
    runs = []
    modes = ["off", "idle", "watched"]
    for r in range(rounds):
        for mode in (modes if r % 2 == 0 else modes[::-1]):  # alternate the order: no mode always first
            runs.append(inspector_round(ketch, drv, mode, seconds, data_root))
            print(json.dumps(runs[-1]), file=sys.stderr)
    med = {}
    for mode in modes:
        rs = [r for r in runs if r["mode"] == mode]
        keys = ("produce_mib_s", "lat_p50_ms", "lat_p99_ms", "produce_cpu_ms_per_mib", "latency_run_cpu_ms_per_mib")
        med[mode] = {k: statistics.median(r[k] for r in rs) for k in keys}
    for mode in ("idle", "watched"):
        for k, name in (("produce_mib_s", "produce_vs_off"), ("lat_p99_ms", "p99_vs_off"),
                        ("produce_cpu_ms_per_mib", "produce_cpu_vs_off"),
                        ("latency_run_cpu_ms_per_mib", "latency_run_cpu_vs_off")):
            med[mode][name] = round(med[mode][k] / med["off"][k], 3)
    return {"medians": med, "runs": runs}


def evict(directory):
    """Drops the files under directory from the page cache (posix_fadvise DONTNEED; the
    data is on disk: the broker flushed it or the kernel wrote it back, else nothing is
    dropped), so the next read is a cold one, without touching anyone else's cache."""
    subprocess.run(["sync", "-f", directory])
    n = 0
    for root, _, files in os.walk(directory):
        for f in files:
            try:
                fd = os.open(os.path.join(root, f), os.O_RDONLY)
            except OSError:
                continue
            try:
                os.fdatasync(fd)
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
                n += 1
            finally:
                os.close(fd)
    return n


def cached_bytes(directory):
    """Bytes of the files under directory in the page cache (mincore through fincore, when
    util-linux has it; None otherwise)."""
    if not shutil.which("fincore"):
        return None
    out = subprocess.run(["fincore", "-b", "-n", "-o", "RES", "-r"] +
                         [os.path.join(r, f) for r, _, fs in os.walk(directory) for f in fs],
                         capture_output=True, text=True).stdout.split()
    return sum(int(x) for x in out if x.isdigit())


def run_browse(ketch, drv, gib, repeats, data_root, cold=True):
    b = broker(ketch, True, data_root)
    try:
        drive(drv, ["create-topic", b.bootstrap, "big", "1"])
        t0 = time.monotonic()
        with machine() as m:
            fill = drive(drv, ["fill", b.bootstrap, "big", "-gib", str(gib)])
        fill.update(m.fig)
        fill["seconds"] = round(time.monotonic() - t0, 1)
        st, body = get(b.console, "/api/v1/topics/big")
        info = json.loads(body)
        du = subprocess.run(["du", "-sb", b.dir + "/data"], capture_output=True, text=True).stdout.split()[0]
        n, ts0, step = fill["records"], fill["first_timestamp_ms"], fill["timestamp_step_ms"]
        points = []
        for frac in (0.0, 0.25, 0.5, 0.75, 0.999):
            off = int((n - 100) * frac)
            for kind, q in (("offset", "offset=%d" % off), ("timestamp", "timestamp=%d" % (ts0 + off * step))):
                times, got, first = [], None, None
                cached = None
                if cold:  # the first call reads the disk: the topic's files are out of the page cache
                    evict(b.dir + "/data")
                    cached = cached_bytes(b.dir + "/data")
                for i in range(repeats):
                    t = time.perf_counter()
                    st, body = get(b.console, "/api/v1/topics/big/messages?partition=0&limit=100&" + q)
                    dt = (time.perf_counter() - t) * 1000
                    if st != 200:
                        raise RuntimeError("browse %s: %d %s" % (q, st, body[:200]))
                    j = json.loads(body)
                    recs = j.get("messages", [])
                    got = (len(recs), recs[0]["offset"] if recs else None)
                    if i == 0:
                        first = dt
                    times.append(dt)
                points.append({"position": frac, "by": kind, "query": q, "records": got[0], "first_offset": got[1],
                               "cached_bytes_before_first_call": cached,
                               "expected_first_offset": off, "first_call_ms": round(first, 2),
                               "median_ms": round(statistics.median(times), 2), "max_ms": round(max(times), 2)})
                print(json.dumps(points[-1]), file=sys.stderr)
        return {"gib": gib, "fill": fill, "data_dir_bytes": int(du), "topic": info, "points": points,
                "worst_median_ms": max(p["median_ms"] for p in points),
                "worst_first_call_ms": max(p["first_call_ms"] for p in points)}
    finally:
        b.stop()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ketch", default=os.path.join(HERE, "..", "build", "ketch"))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=8)
    ap.add_argument("--browse-gib", type=float, default=10)
    ap.add_argument("--browse-repeats", type=int, default=5)
    ap.add_argument("--data-root", default=None, help="where the data directories go (default: $TMPDIR)")
    ap.add_argument("--skip-inspector", action="store_true")
    ap.add_argument("--skip-browse", action="store_true")
    ap.add_argument("--warm", action="store_true", help="browse without evicting the topic from the page cache first")
    ap.add_argument("--out")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="ketch-cbench-bin-")
    try:
        drv = os.path.join(tmp, "bench-driver")
        subprocess.run(["go", "build", "-o", drv, "."], cwd=os.path.join(HERE, "driver"), check=True)
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=HERE).stdout.strip()
        out = {"started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "commit": commit,
               "kernel": os.uname().release, "cores": os.cpu_count(), "seconds": a.seconds, "rounds": a.rounds}
        with machine() as whole:
            if not a.skip_inspector:
                out["inspector"] = run_inspector(a.ketch, drv, a.rounds, a.seconds, a.data_root)
            if not a.skip_browse:
                out["browse"] = run_browse(a.ketch, drv, a.browse_gib, a.browse_repeats, a.data_root, not a.warm)
        out["machine"] = whole.fig
        print(json.dumps(out, indent=1))
        if a.out:
            with open(a.out, "w") as f:
                json.dump(out, f, indent=1)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
