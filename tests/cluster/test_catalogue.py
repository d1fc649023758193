"""The shared log's catalogue (cluster/catalogue.h) against a real PostgreSQL:
offsets assigned contiguously from the high watermark in one transaction per
flush, idempotent retries answered with their original offsets, fenced epochs
and sequence gaps refused, the batch index, and four writers committing to
the same partitions at once without a duplicate offset, a gap or a deadlock
(tests/cluster/catalogue_check.cc). The sequence rules are Kafka 4.3.1's
ProducerAppendInfo (docs/design/producer_state.md)."""

import os
import subprocess

import pytest


def test_catalogue_commits_against_postgres(postgres):
    path = os.environ.get("KETCH_CATALOGUE_CHECK")
    if not path or not os.path.exists(path):
        pytest.fail("KETCH_CATALOGUE_CHECK must name the catalogue_check binary (ctest sets it)")
    r = subprocess.run([path, postgres.url()], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stdout + r.stderr
    # What the check committed is in the tables, as PostgreSQL itself reads them.
    assert postgres.psql("SELECT partition, high_watermark FROM ketch_partitions WHERE topic_id = 't2' "
                         "ORDER BY partition") == ["0|250", "1|250"]
