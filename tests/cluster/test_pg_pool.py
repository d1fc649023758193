"""The broker's pool of PostgreSQL connections (cluster/pg_pool.h) against a
real PostgreSQL (tests/cluster/pg_pool_check.cc): at most its bound open (a
take past it waits, then fails naming --cluster-pg-connections), a waiting
take gets a connection given back, idle connections past the floor are
closed, a connection the server ended is not handed out, a nested take is
counted; the sessions counted in pg_stat_activity by application_name."""

import os
import subprocess

import pytest


def test_pg_pool_against_postgres(postgres):
    path = os.environ.get("KETCH_PG_POOL_CHECK")
    if not path or not os.path.exists(path):
        pytest.fail("KETCH_PG_POOL_CHECK must name the pg_pool_check binary (ctest sets it)")
    r = subprocess.run([path, postgres.url()], capture_output=True, text=True, timeout=120)
    lines = r.stdout.strip().splitlines()
    assert r.returncode == 0 and lines and lines[-1] == "ok" and not any(line.startswith("FAIL") for line in lines), \
        r.stdout + r.stderr
