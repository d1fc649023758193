#!/usr/bin/env python3
"""bench/idle_connections.py — what an idle client connection costs ketch (issue 24), ketch only.

    bench/idle_connections.py [--connections 10000] [--ketch build/ketch]

Starts ketch on an empty data dir, then opens CONNECTIONS TCP connections, each sending one
ApiVersions v0 and reading its answer (so the broker has set up its per-connection state), and
keeps them open and idle. Records the broker's RSS and open fds before and after, the RSS per
connection, the accept rate (connections answered per second), and then the p50/p99 of
ApiVersions on one more connection while all the others are idle. Writes
bench/results/idle-connections-<UTC date>.json. Raises this process's fd limit to the hard limit
(the broker inherits it); a hard limit below CONNECTIONS + 100 is an error.
"""

import argparse
import json
import os
import resource
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def api_versions(corr):
    body = struct.pack(">hhih", 18, 0, corr, 5) + b"bench"
    return struct.pack(">i", len(body)) + body


def read_answer(s):
    head = b""
    while len(head) < 4:
        chunk = s.recv(4 - len(head))
        if not chunk:
            raise ConnectionError("closed")
        head += chunk
    n = struct.unpack(">i", head)[0]
    got = 0
    while got < n:
        chunk = s.recv(n - got)
        if not chunk:
            raise ConnectionError("closed")
        got += len(chunk)


def status(pid, key):
    for line in open("/proc/%d/status" % pid):
        if line.startswith(key + ":"):
            return int(line.split()[1])
    return 0


def fds(pid):
    return len(os.listdir("/proc/%d/fd" % pid))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--connections", type=int, default=int(os.environ.get("IDLE_CONNECTIONS", "10000")))
    ap.add_argument("--ketch", default=os.environ.get("KETCH_BIN", str(ROOT / "build" / "ketch")))
    ap.add_argument("--samples", type=int, default=2000)
    a = ap.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < a.connections + 100:
        sys.exit("fd hard limit %d is below %d connections + 100" % (hard, a.connections))
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    work = Path(tempfile.mkdtemp(prefix="ketch-idle-"))
    ready = work / "ready"
    log = open(work / "ketch.log", "wb")
    proc = subprocess.Popen([a.ketch, "--listen", "127.0.0.1:0", "--data-dir", str(work / "data"),
                             "--ready-file", str(ready), "--log-level", "warn"], stdout=log, stderr=log)
    conns = []
    try:
        deadline = time.monotonic() + 60
        while not (ready.exists() and ready.read_text().strip()):
            if proc.poll() is not None or time.monotonic() > deadline:
                sys.exit("ketch did not start; log in %s" % work)
            time.sleep(0.02)
        host, _, port = ready.read_text().strip().rpartition(":")
        addr = (host, int(port))
        probe = socket.create_connection(addr)
        probe.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        probe.sendall(api_versions(1))
        read_answer(probe)
        time.sleep(1)
        rss0, fds0 = status(proc.pid, "VmRSS"), fds(proc.pid)
        t0 = time.monotonic()
        for i in range(a.connections):
            s = socket.create_connection(addr)
            s.sendall(api_versions(i))
            read_answer(s)
            conns.append(s)
        accept_s = time.monotonic() - t0
        time.sleep(2)
        rss1, fds1 = status(proc.pid, "VmRSS"), fds(proc.pid)
        lat = []
        for i in range(a.samples):
            t = time.perf_counter()
            probe.sendall(api_versions(i))
            read_answer(probe)
            lat.append((time.perf_counter() - t) * 1000)
        lat.sort()
        out = {
            "connections": a.connections,
            "rss_before_kib": rss0, "rss_after_kib": rss1,
            "rss_per_connection_kib": round((rss1 - rss0) / a.connections, 2),
            "fds_before": fds0, "fds_after": fds1,
            "connect_and_answer_per_s": round(a.connections / accept_s, 1),
            "api_versions_p50_ms_while_idle": round(statistics.median(lat), 3),
            "api_versions_p99_ms_while_idle": round(lat[int(len(lat) * 0.99) - 1], 3),
            "load": open("/proc/loadavg").read().split()[:3],
            "ketch_bin": a.ketch,
        }
        print(json.dumps(out, indent=1))
        res = ROOT / "bench" / "results"
        res.mkdir(exist_ok=True)
        name = "idle-connections-%s.json" % datetime.now(timezone.utc).strftime("%Y-%m-%dT%H%MZ")
        (res / name).write_text(json.dumps(out, indent=1) + "\n")
        print("written", res / name)
    finally:
        for s in conns:
            s.close()
        proc.terminate()
        proc.wait(timeout=60)


if __name__ == "__main__":
    main()
