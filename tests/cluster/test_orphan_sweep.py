"""The sweeper of orphan objects run by the brokers (docs/cluster.md "what
each engine holds", shared/sweeper.h): an object under data/ that no commit
recorded — what a broker killed between its PUT and its commit leaves,
written here straight into the bucket — is deleted once older than the
grace period, by one broker of the cluster; committed objects never are,
and every acknowledged record still reads back. The deleted key stays
claimed in ketch_objects, so a commit of it that came late would fail
instead of recording an object that is gone."""


import pytest

from conftest import clients
from test_shared_produce import FLUSH, consume_all, create_topic, produce

GRACE_MS = 5000
SWEEP = ["--cluster-sweep-interval-ms", "200", "--cluster-sweep-grace-ms", str(GRACE_MS)]
ORPHAN = "data/9-orphan-of-a-killed-broker-0"


def test_orphans_go_after_the_grace_period_and_committed_objects_stay(start_broker, postgres, s3):
    b1 = start_broker(1, *FLUSH, *SWEEP)
    b2 = start_broker(2, *FLUSH, *SWEEP)  # two sweepers: one sweeps at a time
    create_topic(b1, "swept", 2)
    records = [(b"k%d" % i, b"v%d" % i) for i in range(300)]
    acked = produce(b1, "swept", records, 2)
    assert len(acked) == len(records)
    s3.client().put_object(Bucket=s3.bucket, Key=ORPHAN, Body=b"batches whose commit never happened")
    committed = set(postgres.psql("SELECT object_key FROM ketch_objects WHERE NOT swept"))
    assert committed and committed <= set(s3.keys("data/"))

    clients.wait_for(lambda: ORPHAN not in s3.keys("data/"), timeout=60, what="the orphan was not swept")
    assert postgres.psql("SELECT swept FROM ketch_objects WHERE object_key = '%s'" % ORPHAN) == ["t"]
    assert set(s3.keys("data/")) == committed  # every committed object, nothing else
    assert "orphan object(s)" in b1.log_text() + b2.log_text()
    # A late commit of the swept key fails on it (commit_flush's INSERT).
    with pytest.raises(RuntimeError, match="duplicate key"):
        postgres.psql("INSERT INTO ketch_objects (object_key, size_bytes, node_id) VALUES ('%s', 1, 1)" % ORPHAN)
    # Everything acknowledged reads back, from either broker.
    assert consume_all(b2, "swept", 2, len(acked)) == acked
