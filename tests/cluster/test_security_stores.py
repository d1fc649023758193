"""Cluster mode's ACL, SCRAM credential, quota and delegation token stores
(shared/pg_acl_store.h, pg_credential_store.h, pg_quota_store.h,
pg_token_store.h) against a real PostgreSQL: what one store
writes another reads (byte-exact names, sorted ACLs, replaced and removed
rows), the credential cache answers the writer at once and another store
after its reload, and every change is announced on ketch_commit
(tests/cluster/security_store_check.cc)."""

import os
import subprocess

import pytest


def test_security_stores_against_postgres(postgres):
    path = os.environ.get("KETCH_SECURITY_STORE_CHECK")
    if not path or not os.path.exists(path):
        pytest.fail("KETCH_SECURITY_STORE_CHECK must name the security_store_check binary (ctest sets it)")
    r = subprocess.run([path, postgres.url()], capture_output=True, text=True, errors="replace", timeout=120)
    assert r.returncode == 0 and r.stdout.strip().splitlines()[-1:] == ["ok"], r.stdout + r.stderr  # after the log lines
    assert postgres.psql("SELECT count(*) FROM ketch_acls") == ["0"]
