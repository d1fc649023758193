"""How fetches read objects (docs/design/cluster.md, "the fetch path"):
ranged GETs coalesced per object, whole small objects, one GET shared by
concurrent reads of the same bytes, and the optional disk cache.

object_reader_check drives shared::object_reader and shared::disk_cache
against moto behind faulty_s3.py's proxy, which records every request (method,
path, Range); the binary waits at each step, so the requests are counted per
step. Then brokers: a broker reading with --cluster-cache-dir, restarted (its
memory cache empty), reads everything again without a single GET, and its
directory stays within --cluster-cache-dir-bytes."""

import os
import subprocess
import time

import pytest

from faulty_s3 import FaultyS3
from test_shared_produce import FLUSH, TIMING, consume_all, create_topic, produce, wait_for_topic


def check_binary():
    path = os.environ.get("KETCH_OBJECT_READER_CHECK")
    if not path or not os.path.exists(path):
        pytest.fail("KETCH_OBJECT_READER_CHECK must name the object_reader_check binary (ctest sets it)")
    return path


def test_ranges_coalesced_whole_small_objects_shared_gets_and_the_disk_cache(s3, aws_env, tmp_path):
    proxy = FaultyS3(s3.port)
    prefix = "reads-%d/" % time.monotonic_ns()
    big, small = "/%s/%sbig" % (s3.bucket, prefix), "/%s/%ssmall" % (s3.bucket, prefix)
    p = subprocess.Popen([check_binary(), proxy.url(s3.bucket), prefix, str(tmp_path / "cache")],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    seen, out = {}, []
    try:
        deadline = time.monotonic() + 120
        for line in p.stdout:
            out.append(line)
            assert time.monotonic() < deadline, "".join(out)
            if line.startswith("STEP "):
                step = line.split()[1]
                seen[step] = len(proxy.requests)
                if step == "hang-then-read":
                    proxy.set_mode("hang")
                p.stdin.write("go\n")
                p.stdin.flush()
            elif line.strip() == "WAITING":  # three reads wait on the fourth's GET, held by the proxy
                proxy.set_mode("pass")
                p.stdin.write("go\n")
                p.stdin.flush()
        assert p.wait(60) == 0, "".join(out)
    finally:
        if p.poll() is None:
            p.kill()
        proxy.close()
    assert out[-1].strip() == "ok", "".join(out)

    def gets(first, last):
        return [(path, rng) for method, path, rng in proxy.requests[seen[first]:seen[last]] if method == "GET"]

    assert gets("coalesced", "cached") == [(big, "bytes=0-299"), (big, "bytes=2097152-2097251")]
    assert gets("cached", "whole") == []
    assert gets("whole", "hang-then-read") == [(small, None)]
    assert gets("hang-then-read", "disk-fill") == [(big, "bytes=1048576-1052671")]
    assert gets("disk-fill", "disk-hit") == [(big, "bytes=0-102399"), (big, "bytes=1048576-1150975")]
    assert gets("disk-hit", "disk-corrupt") == []
    assert gets("disk-corrupt", "disk-bound") == [(big, "bytes=10-1009"), (big, "bytes=1048581-1049580")]
    assert len(gets("disk-bound", "end")) == 21


def data_gets(s3):
    return s3.log.read_text(errors="replace").count('"GET /%s/data/' % s3.bucket)


def test_a_restarted_broker_reads_from_its_disk_cache_without_a_get(start_broker, s3, tmp_path):
    # Broker 1 writes every object, then leaves: broker 2 has none of them in memory.
    b1 = start_broker(1, *FLUSH, *TIMING)
    create_topic(b1, "disk-cached", 3)
    acked = produce(b1, "disk-cached", [(b"k%d" % i, b"v%05d" % i * 20) for i in range(3000)], 3)
    b1.stop()
    cache, bound = tmp_path / "cache", 8 << 20
    args = (*FLUSH, *TIMING, "--cluster-cache-dir", str(cache), "--cluster-cache-dir-bytes", str(bound))
    b2 = start_broker(2, *args)
    wait_for_topic(b2, "disk-cached", 3)
    before = data_gets(s3)
    assert consume_all(b2, "disk-cached", 3, len(acked)) == acked
    assert data_gets(s3) > before, "broker 2 read nothing from the object store"
    files = sorted(cache.iterdir())
    assert files and sum(f.stat().st_size for f in files) <= bound
    b2.stop()
    b2.start(port=b2.port)  # memory cache empty; the files remain
    wait_for_topic(b2, "disk-cached", 3)
    before = data_gets(s3)
    assert consume_all(b2, "disk-cached", 3, len(acked)) == acked
    assert data_gets(s3) == before, "a GET although every range was in the disk cache"


def test_the_disk_cache_stays_within_its_bound(start_broker, s3, tmp_path):
    b1 = start_broker(1, *FLUSH, *TIMING)
    create_topic(b1, "disk-bound", 2)
    acked = {}
    for _ in range(10):  # ten rounds, ten objects or more of about 200 KB: each fits the bound, not all together
        acked.update(produce(b1, "disk-bound", [(b"k%d" % i, os.urandom(1000)) for i in range(200)], 2))
    b1.stop()
    cache, bound = tmp_path / "cache", 256 << 10  # far less than the ~2 MB read
    b2 = start_broker(2, *FLUSH, *TIMING, "--cluster-cache-dir", str(cache), "--cluster-cache-dir-bytes", str(bound))
    wait_for_topic(b2, "disk-bound", 2)
    assert consume_all(b2, "disk-bound", 2, len(acked)) == acked
    files = list(cache.iterdir())
    assert files and sum(f.stat().st_size for f in files) <= bound
    assert not [f for f in files if f.name.endswith(".tmp")]
