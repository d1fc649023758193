#!/usr/bin/env python3
"""Cold reads benchmark (not a test), issue 24 (`make bench-cold-reads`), ketch only:

1. fills --gib GiB of 1 KiB records into partition 0 of topic `cold` (bench-driver fill,
   franz-go, acks=1), then syncs;
2. the disk's sequential read limit on the same files: their pages are evicted
   (POSIX_FADV_DONTNEED after fsync: only these files, see evict()) and the partition's .log
   files are read in order twice, with buffered 1 MiB reads and with O_DIRECT 4 MiB reads (dd);
   the faster is the limit;
3. a tailing consumer alone: produce-to-consume latency on topic `tail-alone` at --rate-mib
   MiB/s for --seconds (bench-driver latency), p50/p99;
4. the segments evicted again, a catch-up consumer reads all of `cold` from offset 0 (bench-driver
   consume, no group) while the same tailing latency run goes on topic `tail-during`: the
   catch-up MiB/s against the disk limit (goal >= 70%) and the tail's p99 against its p99
   alone (goal <= 2x).
Steps 3 and 4 repeat --rounds times (the segments evicted before each catch-up; --warm: not,
and read once into the cache before the first round, which tells the CPU's share of the tail's
wait from the disk's); medians. Each round also
records what the broker's /metrics counted during the catch-up: chunks paged in off the
reactors, the time their answers waited for them, reads ahead asked for (net/page_in.h; absent
from binaries that do not count them).

One franz-go consumer decoding one partition 1 MiB per fetch is itself a bound (the warm
catch-up is below the disk's limit too): --partitions N spreads the records over N partitions
(read by the one catch-up client, a fetch in flight per partition) and --fetch-mib the most each
partition gives a fetch, as a real catch-up consumer might be configured.

    .venv/bin/python bench/cold_reads.py [--ketch build/ketch] [--gib 10] [--rounds 3]
        [--seconds 10] [--rate-mib 5] [--partitions 1] [--fetch-mib 1] [--warm]
        [--ketch-arg=--flag ...] [--out FILE]

Needs Go (bench/driver is built into a temporary directory).
Prints one JSON object (and writes it to --out); the data directory is removed afterwards."""

import argparse
import glob
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

from benchlib import cpu_ticks, load, write_result

HERE = os.path.dirname(os.path.abspath(__file__))


def evict(files):
    """Drops these files' pages from the page cache (synced first: dirty pages stay). Only
    these files: dropping the whole cache (drop_caches) also evicts the broker's and the
    clients' own code, whose page faults then wait behind the catch-up's reads — a stall a
    broker with cold data but a warm binary does not have (docs/performance.md "Cold reads":
    the tail's p99 95 ms that way, 21 ms this way, same binary)."""
    for f in files:
        fd = os.open(f, os.O_RDONLY)
        try:
            os.fsync(fd)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)


class broker:
    def __init__(self, ketch, extra):
        self.dir = tempfile.mkdtemp(prefix="ketch-cold-")
        self.data = os.path.join(self.dir, "data")
        ready = os.path.join(self.dir, "ready")
        args = [ketch, "--listen", "127.0.0.1:0", "--data-dir", self.data, "--ready-file", ready,
                "--schema-registry=false", "--console=false", "--metrics-listen", "127.0.0.1:0",
                "--log-level", "warn"] + extra
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        while not os.path.exists(ready) or not open(ready).read().strip():
            if self.proc.poll() is not None:
                raise RuntimeError("ketch exited")
            time.sleep(0.02)
        listeners = json.load(open(os.path.join(self.data, "listeners.json")))
        self.bootstrap = next(iter(listeners["listeners"].values()))["address"]
        self.metrics_url = listeners.get("metrics")

    def segments(self, topic, partitions):
        found = []
        for p in range(partitions):
            mine = sorted(glob.glob(os.path.join(self.data, "**", "%s-%d" % (topic, p), "*.log"), recursive=True))
            if not mine:
                raise RuntimeError("no segments of %s-%d under %s" % (topic, p, self.data))
            found += mine
        return found

    def counters(self):
        """The page-in counters of /metrics (net/page_in.h), by short name; those missing are left out."""
        names = {"ketch_fetch_cold_chunks_paged_in_total": "paged_in",
                 "ketch_fetch_cold_chunk_wait_microseconds_total": "paged_in_wait_us",
                 "ketch_fetch_look_aheads_total": "look_aheads"}
        out = {}
        if not self.metrics_url:
            return out
        for line in urllib.request.urlopen(self.metrics_url, timeout=10).read().decode().splitlines():
            parts = line.split()
            if len(parts) == 2 and parts[0] in names:
                out[names[parts[0]]] = int(float(parts[1]))
        return out

    def close(self):
        self.proc.terminate()
        self.proc.wait(60)
        shutil.rmtree(self.dir, ignore_errors=True)


def drive(drv, *args):
    p = subprocess.run([drv] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        raise RuntimeError("bench-driver %s: %s" % (args[0], p.stderr[-500:]))
    return json.loads(p.stdout.strip().splitlines()[-1])


def disk_limit(files):
    """MiB/s reading `files` in order from a dropped cache: buffered 1 MiB, then O_DIRECT 4 MiB."""
    size = sum(os.path.getsize(f) for f in files)
    out = {}
    for name, flags in (("buffered_1m", ["bs=1M"]), ("direct_4m", ["bs=4M", "iflag=direct"])):
        evict(files)
        t0 = time.monotonic()
        for f in files:
            subprocess.run(["dd", "if=" + f, "of=/dev/null", "status=none"] + flags, check=True)
        out[name + "_mib_s"] = round(size / (1 << 20) / (time.monotonic() - t0), 1)
    out["limit_mib_s"] = max(out.values())
    out["bytes"] = size
    return out


def latency(drv, b, topic, o):
    drive(drv, "create-topic", b.bootstrap, topic, "1")
    return drive(drv, "latency", b.bootstrap, topic, "-rate-mib", str(o.rate_mib), "-seconds", str(o.seconds),
                 "-acks", "1")


def one_round(drv, b, records, r, o):
    alone = latency(drv, b, "tail-alone-%d" % r, o)
    drive(drv, "create-topic", b.bootstrap, "tail-during-%d" % r, "1")
    if not o.warm:
        evict(b.segments("cold", o.partitions))
    (s0, a0), l0, m0 = cpu_ticks(), load(), b.counters()
    catch_up = subprocess.Popen([drv, "consume", b.bootstrap, "cold", str(records), "900", "-fetch-mib=%d" % o.fetch_mib],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    during = drive(drv, "latency", b.bootstrap, "tail-during-%d" % r, "-rate-mib", str(o.rate_mib), "-seconds",
                   str(o.seconds), "-acks", "1")
    out, err = catch_up.communicate()
    if catch_up.returncode != 0:
        raise RuntimeError("catch-up consume: " + err[-500:])
    c = json.loads(out.strip().splitlines()[-1])
    s1, a1 = cpu_ticks()
    m1 = b.counters()
    pages = {k: m1[k] - m0.get(k, 0) for k in m1}
    if pages.get("paged_in") and "paged_in_wait_us" in pages:
        pages["paged_in_wait_ms_mean"] = round(pages["paged_in_wait_us"] / pages["paged_in"] / 1000, 2)
    return {"page_in": pages, "catch_up_mib_s": round(c["mib_s"], 1), "catch_up_s": round(c["seconds"], 1),
            "tail_alone_p50_ms": alone["p50_ms"], "tail_alone_p99_ms": alone["p99_ms"],
            "tail_during_p50_ms": during["p50_ms"], "tail_during_p99_ms": during["p99_ms"],
            "tail_during_max_ms": during["max_ms"], "load_start": l0, "load_end": load(),
            "steal_pct": round(100.0 * (s1 - s0) / max(1, a1 - a0), 2)}


def run(o):
    tmp = tempfile.mkdtemp(prefix="ketch-cold-drv-")
    b = None
    try:
        drv = os.path.join(tmp, "bench-driver")
        subprocess.run(["go", "build", "-o", drv, "."], cwd=os.path.join(HERE, "driver"), check=True)
        b = broker(o.ketch, o.ketch_arg)
        drive(drv, "create-topic", b.bootstrap, "cold", str(o.partitions))
        fill = drive(drv, "fill", b.bootstrap, "cold", "-gib", str(o.gib), "-partitions", str(o.partitions))
        print(json.dumps({"fill": fill}), file=sys.stderr)
        disk = disk_limit(b.segments("cold", o.partitions))
        print(json.dumps({"disk": disk}), file=sys.stderr)
        if o.warm:
            for f in b.segments("cold", o.partitions):
                subprocess.run(["dd", "if=" + f, "of=/dev/null", "bs=1M", "status=none"], check=True)
        rounds = []
        for r in range(o.rounds):
            rounds.append(one_round(drv, b, fill["records"], r, o))
            print(json.dumps(rounds[-1]), file=sys.stderr)
        med = {k: statistics.median(x[k] for x in rounds) for k in rounds[0] if k != "page_in"}
        return {"fill_mib_s": round(fill["mib_s"], 1), "disk": disk, "medians": med,
                "catch_up_vs_disk": round(med["catch_up_mib_s"] / disk["limit_mib_s"], 3),
                "tail_p99_during_vs_alone": round(med["tail_during_p99_ms"] / med["tail_alone_p99_ms"], 3),
                "rounds": rounds}
    finally:
        if b:
            b.close()
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ketch", default=os.path.join(HERE, "..", "build", "ketch"))
    ap.add_argument("--gib", type=float, default=10)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--rate-mib", type=float, default=5)
    ap.add_argument("--partitions", type=int, default=1, help="spread the records over N partitions")
    ap.add_argument("--fetch-mib", type=int, default=1, help="the most each partition gives a catch-up fetch")
    ap.add_argument("--ketch-arg", action="append", default=[])
    ap.add_argument("--warm", action="store_true", help="catch up with the cache warm (no drop): the CPU's share")
    ap.add_argument("--out")
    o = ap.parse_args()
    out = {"started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "load_start": load(),
           "args": vars(o)}
    out.update(run(o))
    out["load_end"] = load()
    write_result(out, o.out)


if __name__ == "__main__":
    main()
