"""The shared log's data path (shared/object_io.h) against PostgreSQL and moto:
flushes of real v2 batches written as immutable objects and committed in
PostgreSQL, an idempotent producer's retry answered its original offsets,
an object key never written twice, and reads that return each partition's
batches with contiguous offsets and leader epochs rewritten in their headers
and their CRCs intact (tests/cluster/shared_log_check.cc). Not yet behind
the partition service: no Kafka client reaches it (docs/cluster.md)."""

import os
import subprocess

import pytest


def test_objects_written_committed_and_read_back(postgres, s3, aws_env):
    path = os.environ.get("KETCH_SHARED_LOG_CHECK")
    if not path or not os.path.exists(path):
        pytest.fail("KETCH_SHARED_LOG_CHECK must name the shared_log_check binary (ctest sets it)")
    r = subprocess.run([path, postgres.url(), s3.url()], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stdout + r.stderr
    assert sorted(s3.keys("data/")) == ["data/f1", "data/f2"]
    assert postgres.psql("SELECT object_key FROM ketch_objects ORDER BY object_key") == ["data/f1", "data/f2"]
