#!/usr/bin/env python3
"""Schema registry benchmark (not a test): registration and lookup latency
(p50/p99) and id lookups per second, against a ketch started here.

    .venv/bin/python bench/registry_bench.py [--ketch build/ketch] [--schemas 500] [--seconds 10] [--procs 4]

- registration: POST /subjects/s-i/versions of distinct Avro schemas, one at a time
  (each is a new id: parse, compatibility, one SQLite commit);
- lookup: POST /subjects/s-i (parse + canonical match) for the registered ones;
- id lookups: GET /schemas/ids/{id} through confluent-kafka's own REST client
  (SchemaRegistryClient's _rest_client, so its schema cache is not in the way),
  one client per process, --procs processes, for --seconds; the same with
  plain keep-alive http.client connections; and, where ApacheBench is installed
  (Debian's apache2-utils; Python saturates this machine's cores first), `ab -k`
  with 8 connections, which measures the server rather than the client.
Prints one JSON object with the figures."""

import argparse
import http.client
import json
import multiprocessing
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse


def schema(i):
    return json.dumps({"type": "record", "name": "R%d" % i, "namespace": "bench",
                       "fields": [{"name": "a", "type": "int"}, {"name": "s%d" % i, "type": "string", "default": ""}]})


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(len(xs) * p))] * 1000


def timed_posts(conn, paths_bodies):
    out = []
    for path, body in paths_bodies:
        t = time.perf_counter()
        conn.request("POST", path, body=body, headers={"Content-Type": "application/vnd.schemaregistry.v1+json"})
        r = conn.getresponse()
        r.read()
        assert r.status == 200, r.status
        out.append(time.perf_counter() - t)
    return out


def http_worker(args):
    url, ids, seconds = args
    u = urllib.parse.urlparse(url)
    conn = http.client.HTTPConnection(u.hostname, u.port)
    n, lat, end = 0, [], time.monotonic() + seconds
    while time.monotonic() < end:
        t = time.perf_counter()
        conn.request("GET", "/schemas/ids/%d" % ids[n % len(ids)])
        r = conn.getresponse()
        r.read()
        lat.append(time.perf_counter() - t)
        n += 1
    return n, lat


def client_worker(args):
    url, ids, seconds = args
    from confluent_kafka.schema_registry import SchemaRegistryClient
    rest = SchemaRegistryClient({"url": url})._rest_client
    n, lat, end = 0, [], time.monotonic() + seconds
    while time.monotonic() < end:
        t = time.perf_counter()
        rest.get("schemas/ids/%d" % ids[n % len(ids)])
        lat.append(time.perf_counter() - t)
        n += 1
    return n, lat


def run_pool(worker, url, ids, seconds, procs):
    with multiprocessing.Pool(procs) as pool:
        results = pool.map(worker, [(url, ids, seconds)] * procs)
    n = sum(r[0] for r in results)
    lat = [x for r in results for x in r[1]]
    return {"per_second": round(n / seconds), "p50_ms": round(pct(lat, 0.5), 3), "p99_ms": round(pct(lat, 0.99), 3)}


def run_ab(url, ids, n=100000):
    """ApacheBench against one id; None when ab is not installed."""
    if not shutil.which("ab"):
        return None
    out = subprocess.run(["ab", "-q", "-k", "-c", "8", "-n", str(n), "%s/schemas/ids/%d" % (url, ids[0])],
                         capture_output=True, text=True).stdout
    fig = {}
    for line in out.splitlines():
        if line.startswith("Requests per second:"):
            fig["per_second"] = round(float(line.split()[3]))
        if line.strip().startswith(("50%", "99%")):
            fig["p%s_ms" % line.split()[0].rstrip("%")] = int(line.split()[1])
        if line.startswith("Failed requests:"):
            fig["failed"] = int(line.split()[2])
    return fig


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ketch", default=os.path.join(os.path.dirname(__file__), "..", "build", "ketch"))
    ap.add_argument("--schemas", type=int, default=500)
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--procs", type=int, default=4)
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="ketch-srbench-")
    ready = os.path.join(tmp, "ready")
    proc = subprocess.Popen([a.ketch, "--listen", "127.0.0.1:0", "--data-dir", tmp + "/data", "--ready-file", ready,
                             "--schema-registry-addr", "127.0.0.1:0", "--log-level", "warn"])
    try:
        while not os.path.exists(ready):
            time.sleep(0.01)
        url = json.load(open(tmp + "/data/listeners.json"))["schema_registry"]
        u = urllib.parse.urlparse(url)
        conn = http.client.HTTPConnection(u.hostname, u.port)
        reg = timed_posts(conn, [("/subjects/s-%d/versions" % i, json.dumps({"schema": schema(i)})) for i in range(a.schemas)])
        look = timed_posts(conn, [("/subjects/s-%d" % i, json.dumps({"schema": schema(i)})) for i in range(a.schemas)])
        conn.request("GET", "/schemas?subjectPrefix=s-")
        ids = [s["id"] for s in json.loads(conn.getresponse().read())]
        out = {
            "schemas": a.schemas, "procs": a.procs, "seconds": a.seconds, "cores": os.cpu_count(),
            "register": {"p50_ms": round(pct(reg, 0.5), 3), "p99_ms": round(pct(reg, 0.99), 3)},
            "lookup": {"p50_ms": round(pct(look, 0.5), 3), "p99_ms": round(pct(look, 0.99), 3)},
            "id_lookup_http": run_pool(http_worker, url, ids, a.seconds, a.procs),
            "id_lookup_confluent_client": run_pool(client_worker, url, ids, a.seconds, a.procs),
            "id_lookup_ab": run_ab(url, ids),
        }
        print(json.dumps(out, indent=1))
    finally:
        proc.terminate()
        proc.wait()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
