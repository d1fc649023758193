"""The sweeper (shared/sweeper.h) against PostgreSQL and moto: objects under
the data prefix that no commit recorded are deleted once older than the
cutoff; recorded ones, younger ones and other prefixes stay
(tests/cluster/sweeper_check.cc)."""

import os
import subprocess

import pytest


def test_orphan_objects_are_swept(postgres, s3, aws_env):
    path = os.environ.get("KETCH_SWEEPER_CHECK")
    if not path or not os.path.exists(path):
        pytest.fail("KETCH_SWEEPER_CHECK must name the sweeper_check binary (ctest sets it)")
    r = subprocess.run([path, postgres.url(), s3.url()], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stdout + r.stderr
    assert sorted(s3.keys()) == ["data/committed", "other/untouched"]
