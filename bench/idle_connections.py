#!/usr/bin/env python3
"""bench/idle_connections.py — what client connections cost ketch (issue 24), ketch only.

    bench/idle_connections.py [--connections 10000] [--active 1000] [--ketch build/ketch]

Starts ketch on an empty data dir and measures, in order:
  1. produce latency alone: bench/tools/rawwire latency (one producer connection, acks=1, 1 KiB
     records, 4 per batch, LAT_RATE MiB/s; one consumer connection), ack and end-to-end p50/p99;
  2. CONNECTIONS TCP connections opened one after another, each sending one ApiVersions v0 and
     reading its answer (so the broker has set up its per-connection state), then kept idle:
     the broker's RSS and open fds before and after, the RSS per connection, the accept rate
     (connections set up and answered per second, one client);
  3. ApiVersions p50/p99 on one more connection while all the others are idle;
  4. the produce latency of step 1 again while the CONNECTIONS others are idle;
  5. ACTIVE of the idle connections made active for ACTIVE_SECONDS (a forked process keeps one
     ApiVersions in flight on each, a new one as soon as the answer is in), with the produce
     latency measured at the same time: requests/s over the active ones, RSS while they are
     active, and after (idle again).
With --tls the connections of steps 2, 3 and 5 are TLS (an SSL listener with ketch's own
self-signed certificate; the handshake is part of setting one up): what an idle TLS connection
costs. The produce latency runs stay on PLAINTEXT. Results then go to idle-connections-tls-<date>.json.
Writes bench/results/idle-connections-<UTC date>.json. Raises this process's fd limit to the
hard limit (the broker inherits it); a hard limit below CONNECTIONS + 100 is an error. Knobs:
--connections (IDLE_CONNECTIONS), --active (ACTIVE_CONNECTIONS), --active-seconds, --lat-seconds,
--lat-rate (MiB/s); --connections 1000 --active 100 for a quick run.
"""

import argparse
import json
import os
import resource
import selectors
import socket
import ssl
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


def create_topic(addr, name):
    """CreateTopics v2 of one topic with one partition (the answer is not checked: the latency
    run fails on a topic that is not there)."""
    t = name.encode()
    body = struct.pack(">hhih", 19, 2, 1, 5) + b"bench" + struct.pack(">ih", 1, len(t)) + t + \
        struct.pack(">ihiiib", 1, 1, 0, 0, 30000, 0)
    with socket.create_connection(addr) as s:
        s.sendall(struct.pack(">i", len(body)) + body)
        read_answer(s)


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


def rawwire_latency(tool, addr, topic, a):
    """One rawwire latency run (acks=1): its JSON (ack_p50_ms, ack_p99_ms, p50_ms, p99_ms, ...)."""
    create_topic(addr, topic)
    out = subprocess.run([str(tool), "latency", addr[0], str(addr[1]), topic, "1", str(a.lat_seconds),
                          str(a.lat_rate), "1024", "4", "1", "1"], capture_output=True, text=True, timeout=300)
    if out.returncode != 0:
        sys.exit("rawwire latency failed: " + out.stderr)
    r = json.loads(out.stdout)
    return {k: round(r[k], 3) for k in ("ack_p50_ms", "ack_p99_ms", "p50_ms", "p99_ms", "achieved_mib_s")}


def keep_active(socks, seconds, wfd):
    """In a forked child: one ApiVersions in flight on each of socks for `seconds`; writes the
    number of answers to wfd."""
    sel = selectors.DefaultSelector()
    req = api_versions(7)
    for s in socks:
        s.setblocking(False)
        sel.register(s, selectors.EVENT_READ, bytearray())
        s.send(req)
    done = 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        for key, _ in sel.select(timeout=0.1):
            s, buf = key.fileobj, key.data
            try:
                chunk = s.recv(65536)
            except ssl.SSLWantReadError:  # a TLS record not whole yet
                continue
            if not chunk:
                raise ConnectionError("closed")
            buf += chunk
            while len(buf) >= 4 and len(buf) >= 4 + struct.unpack(">i", buf[:4])[0]:
                del buf[:4 + struct.unpack(">i", buf[:4])[0]]
                done += 1
                s.send(req)
    os.write(wfd, str(done).encode())


def active_phase(pid, conns, a, tool, addr):
    """ACTIVE connections busy while the produce latency is measured; RSS sampled meanwhile."""
    rfd, wfd = os.pipe()
    child = os.fork()
    if child == 0:
        try:
            keep_active(conns[:a.active], a.active_seconds, wfd)
        finally:
            os._exit(0)
    os.close(wfd)
    time.sleep(min(1.0, a.active_seconds / 4))
    lat = rawwire_latency(tool, addr, "lat-active", a)
    rss = status(pid, "VmRSS")
    os.waitpid(child, 0)
    answers = int(os.read(rfd, 64) or b"0")
    os.close(rfd)
    # Answers still in flight when the child stopped stay unread: the connections are idle again.
    return {"active_connections": a.active, "active_requests_per_s": round(answers / a.active_seconds, 1),
            "rss_while_active_kib": rss, "produce_while_active": lat}


def start_ketch(a, work):
    ready = work / "ready"
    log = open(work / "ketch.log", "wb")
    tls = ["--listener", "SSL=SSL://127.0.0.1:0"] if a.tls else []
    proc = subprocess.Popen([a.ketch, "--listen", "127.0.0.1:0", "--data-dir", str(work / "data"),
                             "--ready-file", str(ready), "--log-level", "warn", *tls], stdout=log, stderr=log)
    deadline = time.monotonic() + 60
    while not (ready.exists() and ready.read_text().strip()):
        if proc.poll() is not None or time.monotonic() > deadline:
            sys.exit("ketch did not start; log in %s" % work)
        time.sleep(0.02)
    host, _, port = ready.read_text().strip().rpartition(":")
    return proc, (host, int(port))


def client_connector(a, work, addr):
    """connect() -> a socket to the listener the idle connections use: PLAINTEXT at addr, or with
    --tls the SSL listener (listeners.json), handshaken, the certificate not verified."""
    if not a.tls:
        return lambda: socket.create_connection(addr)
    listeners = json.loads((work / "data" / "listeners.json").read_text())["listeners"]
    host, _, port = listeners["SSL"]["address"].rpartition(":")
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    return lambda: ctx.wrap_socket(socket.create_connection((host, int(port))))


def probe_latency(probe, samples):
    lat = []
    for i in range(samples):
        t = time.perf_counter()
        probe.sendall(api_versions(i))
        read_answer(probe)
        lat.append((time.perf_counter() - t) * 1000)
    lat.sort()
    return round(statistics.median(lat), 3), round(lat[int(len(lat) * 0.99) - 1], 3)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--connections", type=int, default=int(os.environ.get("IDLE_CONNECTIONS", "10000")))
    ap.add_argument("--active", type=int, default=int(os.environ.get("ACTIVE_CONNECTIONS", "1000")))
    ap.add_argument("--active-seconds", type=float, default=8)
    ap.add_argument("--lat-seconds", type=float, default=5)
    ap.add_argument("--lat-rate", type=float, default=1, help="MiB/s of the produce latency runs")
    ap.add_argument("--ketch", default=os.environ.get("KETCH_BIN", str(ROOT / "build" / "ketch")))
    ap.add_argument("--samples", type=int, default=2000)
    ap.add_argument("--tls", action="store_true", help="TLS client connections (an SSL listener)")
    a = ap.parse_args()
    a.active = min(a.active, a.connections)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < a.connections + 100:
        sys.exit("fd hard limit %d is below %d connections + 100" % (hard, a.connections))
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    work = Path(tempfile.mkdtemp(prefix="ketch-idle-"))
    tool = work / "rawwire"
    subprocess.run(["cc", "-O2", "-o", str(tool), str(HERE / "tools" / "rawwire.c")], check=True)
    steal0 = cpu_steal()
    proc, addr = start_ketch(a, work)
    connect = client_connector(a, work, addr)
    conns = []
    try:
        lat_alone = rawwire_latency(tool, addr, "lat-alone", a)
        probe = connect()
        probe.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        probe.sendall(api_versions(1))
        read_answer(probe)
        time.sleep(1)
        rss0, fds0 = status(proc.pid, "VmRSS"), fds(proc.pid)
        t0 = time.monotonic()
        for i in range(a.connections):
            s = connect()
            s.sendall(api_versions(i))
            read_answer(s)
            conns.append(s)
        accept_s = time.monotonic() - t0
        time.sleep(2)
        rss1, fds1 = status(proc.pid, "VmRSS"), fds(proc.pid)
        p50, p99 = probe_latency(probe, a.samples)
        lat_idle = rawwire_latency(tool, addr, "lat-idle", a)
        active = active_phase(proc.pid, conns, a, tool, addr) if a.active > 0 else {}
        time.sleep(2)
        out = {
            "tls": a.tls,
            "connections": a.connections,
            "rss_before_kib": rss0, "rss_after_kib": rss1,
            "rss_per_connection_kib": round((rss1 - rss0) / a.connections, 2),
            "fds_before": fds0, "fds_after": fds1,
            "connect_and_answer_per_s": round(a.connections / accept_s, 1),
            "api_versions_p50_ms_while_idle": p50,
            "api_versions_p99_ms_while_idle": p99,
            "produce_alone": lat_alone,
            "produce_while_idle": lat_idle,
            **active,
            "rss_after_active_kib": status(proc.pid, "VmRSS"),
            "steal_pct": cpu_steal_pct(steal0),
            "load": open("/proc/loadavg").read().split()[:3],
            "ketch_bin": a.ketch,
        }
        print(json.dumps(out, indent=1))
        res = ROOT / "bench" / "results"
        res.mkdir(exist_ok=True)
        name = "idle-connections-%s%s.json" % ("tls-" if a.tls else "", datetime.now(timezone.utc).strftime("%Y-%m-%dT%H%MZ"))
        (res / name).write_text(json.dumps(out, indent=1) + "\n")
        print("written", res / name)
    finally:
        for s in conns:
            s.close()
        proc.terminate()
        proc.wait(timeout=60)


def cpu_steal():
    f = open("/proc/stat").readline().split()
    return int(f[8]), sum(int(x) for x in f[1:9])


def cpu_steal_pct(before):
    s, t = cpu_steal()
    return round(100.0 * (s - before[0]) / max(1, t - before[1]), 2)


if __name__ == "__main__":
    main()
