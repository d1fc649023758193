"""objstore::s3_client against moto's S3 server: HEAD bucket, a conditional PUT
(If-None-Match: *) that writes once and is refused with 412 the second time
(objects are never overwritten, docs/design/cluster.md), GET whole and ranged,
DELETE, and 404 for a missing bucket (tests/cluster/objstore_check.cc)."""

import os
import subprocess

import pytest


def check_binary():
    path = os.environ.get("KETCH_OBJSTORE_CHECK")
    if not path or not os.path.exists(path):
        pytest.fail("KETCH_OBJSTORE_CHECK must name the objstore_check binary (ctest sets it)")
    return path


def test_s3_client_against_moto(s3, aws_env):
    key = "objects/0001 a$b.bin"
    r = subprocess.run([check_binary(), s3.url(), key], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stdout + r.stderr
    assert key not in s3.keys()  # deleted at the end


def test_a_prefix_puts_keys_under_it(s3, aws_env):
    url = s3.url().replace("s3://%s?" % s3.bucket, "s3://%s/some/prefix?" % s3.bucket)
    r = subprocess.run([check_binary(), url, "k1"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr


def test_postgres_engine_answers(postgres):
    assert postgres.psql("SELECT current_user, current_database()") == ["ketch|ketch"]
