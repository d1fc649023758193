"""The object stores bench/cluster_bench.py runs cluster mode on, on loopback in a temporary directory.

BENCH_OBJECT_STORE=minio|moto picks one; unset, MinIO when its binary is there (`make bench-cluster` builds it
from the version pinned in bench/minio/go.mod into build/bench/minio; BENCH_MINIO_BIN another) and moto
otherwise. moto (tests/cluster/engines.py, what the tests use) is a Python server: on the 2-core VM it spent
4-5 CPU ms per MiB produced, more than the brokers (docs/cluster.md "What it costs"), so a cluster figure
measured on it is partly moto's. Every store is refused unless it answers a conditional PUT
(If-None-Match: *) of an existing key with 412, which ketch's data objects rely on.

A store has url() (what `ketch --object-store` takes), port, bucket, close(), and requests(method): the
requests so far with that method under the bucket's data/ prefix (moto: its request log; MinIO: its
Prometheus counters (metrics v3), by S3 API, which count every key: during produce and consume, ketch writes and reads
data/ objects only). put_rate() measures a store's raw PUT rate: the "machine limit" row.
"""

import json
import os
import subprocess
import time
import urllib.request
from pathlib import Path

import engines  # tests/cluster, on sys.path (cluster_bench.py puts it there)

ROOT = Path(__file__).resolve().parents[1]
MINIO_BIN = Path(os.environ.get("BENCH_MINIO_BIN", ROOT / "build" / "bench" / "minio"))


class Moto(engines.MotoS3):
    name = "moto"

    def requests(self, method, prefix="data/"):
        return self.log.read_text(errors="replace").count('"%s /%s/%s' % (method, self.bucket, prefix))


class MinIO(engines.S3Server):
    """`minio server` (single drive, in memory under /dev/shm when there is one: moto holds objects in memory
    too) with the credentials the bench passes to ketch (engines.CREDENTIALS); the console off. --no-compat
    (MinIO's hidden flag for performance tests): ETags are random, not the MD5 of the body, which saves MinIO
    about a fifth of its CPU per MiB on this VM; ketch does not read ETags. Real S3 spends that CPU elsewhere."""

    name = "minio"
    READY_PATH = "/minio/health/ready"
    TEMP_PARENT = "/dev/shm" if Path("/dev/shm").is_dir() else None
    API = {"PUT": "PutObject", "GET": "GetObject"}

    def command(self):
        return [str(MINIO_BIN), "server", str(self.dir / "data"), "--quiet", "--no-compat", "--address",
                "127.0.0.1:%d" % self.port]

    def environment(self):
        return dict(os.environ, MINIO_ROOT_USER=engines.CREDENTIALS["AWS_ACCESS_KEY_ID"],
                    MINIO_ROOT_PASSWORD=engines.CREDENTIALS["AWS_SECRET_ACCESS_KEY"], MINIO_BROWSER="off",
                    MINIO_UPDATE="off", MINIO_PROMETHEUS_AUTH_TYPE="public", MINIO_REGION=self.REGION)

    def requests(self, method, prefix="data/"):
        assert prefix == "data/", "MinIO's counters are per API, not per key prefix"
        # Metrics v3 (v2's are cached for 10 s).
        text = urllib.request.urlopen(self.endpoint + "/minio/metrics/v3/api/requests", timeout=10).read().decode()
        want = 'name="%s"' % self.API[method]
        return sum(int(float(line.rsplit(" ", 1)[1])) for line in text.splitlines()
                   if line.startswith("minio_api_requests_total{") and want in line)


def check_conditional_put(store):
    """Raises unless the store writes a new key under If-None-Match: * and answers 412 for an existing one."""
    from botocore.exceptions import ClientError

    c, key = store.client(), "_bench/conditional-%d" % time.time_ns()
    c.put_object(Bucket=store.bucket, Key=key, Body=b"first", IfNoneMatch="*")
    try:
        c.put_object(Bucket=store.bucket, Key=key, Body=b"second", IfNoneMatch="*")
        status = 200
    except ClientError as e:
        status = e.response["ResponseMetadata"]["HTTPStatusCode"]
    body = c.get_object(Bucket=store.bucket, Key=key)["Body"].read()
    c.delete_object(Bucket=store.bucket, Key=key)
    if status != 412 or body != b"first":
        raise RuntimeError("%s answered a conditional PUT of an existing key with %d (object now %r), not 412: "
                           "ketch's data objects rely on it" % (store.name, status, body))


def kind():
    """The store BENCH_OBJECT_STORE names; unset, minio if its binary is there, else moto."""
    chosen = os.environ.get("BENCH_OBJECT_STORE") or ("minio" if MINIO_BIN.exists() else "moto")
    if chosen not in ("minio", "moto"):
        raise SystemExit("BENCH_OBJECT_STORE: minio or moto, not %r" % chosen)
    if chosen == "minio" and not MINIO_BIN.exists():
        raise SystemExit("no MinIO at %s: `make bench-minio` builds it (Go)" % MINIO_BIN)
    return chosen


def open_store(name=None):
    """A started store (BENCH_OBJECT_STORE's unless name says), checked for conditional PUTs."""
    store = (MinIO if (name or kind()) == "minio" else Moto)()
    try:
        check_conditional_put(store)
    except BaseException:
        store.close()
        raise
    return store


def cpu_s(procs):
    """CPU seconds (user + system) the processes have used so far (/proc/PID/stat)."""
    total = 0
    for proc in procs:
        try:
            fields = open("/proc/%d/stat" % proc.pid).read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
        except (OSError, AttributeError):
            pass
    return total / os.sysconf("SC_CLK_TCK")


def put_rate(driver, name=None, conns=4, size=1 << 20, seconds=8):
    """A fresh store's raw PUT rate: one client (bench/driver s3-put, Go), `conns` PUTs of `size` bytes in flight
    (a broker's max_puts_in_flight, src/shared/shared_engine.h), signed and conditional as ketch's; with the
    1-minute load average at the start and the end, and the store's CPU milliseconds per MiB PUT."""
    store = open_store(name)
    try:
        load_at_start, cpu_at_start = os.getloadavg()[0], cpu_s([store.proc])
        res = subprocess.run([driver, "s3-put", store.endpoint, store.bucket, "-conns", str(conns), "-size", str(size),
                              "-seconds", str(seconds)], check=True, capture_output=True, text=True,
                             env=dict(os.environ, **engines.CREDENTIALS))
        out = json.loads(res.stdout.strip().splitlines()[-1])
        out.update(store=store.name, loadavg_1m=[load_at_start, os.getloadavg()[0]],
                   store_cpu_ms_per_mib=1000 * (cpu_s([store.proc]) - cpu_at_start) / (out["puts"] * size / (1 << 20)))
        return out
    finally:
        store.close()
