"""The history checker (history.py) finds what it claims to find: a clean
history passes; a lost, duplicated, reordered, invented or undelivered
record, a gap in the offsets, a commit past records the group never got and
a redelivery below a committed offset are each reported. No broker needed."""

from history import History


def clean():
    h = History()
    for i in range(6):
        h.sent("p", b"k%d" % i, b"v%d" % i)
    for i in range(6):
        h.acked("p", "t", i % 2, i // 2, b"k%d" % i, b"v%d" % i)
    h.read_back("t", 0, [(0, b"k0", b"v0"), (1, b"k2", b"v2"), (2, b"k4", b"v4")])
    h.read_back("t", 1, [(0, b"k1", b"v1"), (1, b"k3", b"v3"), (2, b"k5", b"v5")])
    for i in range(6):
        h.delivered("c", "t", i % 2, i // 2, b"k%d" % i, b"v%d" % i)
    return h


def kinds(h):
    return sorted({p.split(":")[0] for p in h.check()})


def test_a_clean_history_holds(tmp_path):
    h = clean()
    assert h.check() == []
    h.dump(tmp_path / "h.jsonl")
    assert History.load(tmp_path / "h.jsonl").check() == []


def test_a_lost_record_and_a_gap_are_found():
    h = clean()
    h.read_back("t", 0, [(0, b"k0", b"v0"), (2, b"k4", b"v4")])
    assert kinds(h) == ["invented", "lost", "order"]  # the group got v2 at an offset the log lacks


def test_a_duplicate_is_found():
    h = clean()
    h.read_back("t", 1, [(0, b"k1", b"v1"), (1, b"k3", b"v3"), (2, b"k5", b"v5"), (3, b"k3", b"v3")])
    assert kinds(h) == ["duplicate"]
    h = clean()
    h.acked("p", "t", 1, 3, b"k3", b"v3")  # one record acknowledged twice
    assert "duplicate" in kinds(h)


def test_reordering_is_found():
    h = clean()
    h.acks = [a for a in h.acks if a[5] not in (b"v0", b"v2")]
    h.acked("p", "t", 0, 1, b"k0", b"v0")
    h.acked("p", "t", 0, 0, b"k2", b"v2")
    h.read_back("t", 0, [(0, b"k2", b"v2"), (1, b"k0", b"v0"), (2, b"k4", b"v4")])
    h.deliveries = []
    assert kinds(h) == ["reordered"]


def test_an_invented_or_corrupt_record_is_found():
    h = clean()
    h.read_back("t", 1, [(0, b"k1", b"v1"), (1, b"k3", b"v3"), (2, b"k5", b"v5"), (3, b"kx", b"never-sent")])
    assert kinds(h) == ["invented"]
    h = clean()
    h.delivered("c", "t", 0, 1, b"k2", b"not-v2")
    assert kinds(h) == ["invented"]


def test_an_unacknowledged_record_may_be_there_once():
    h = clean()
    h.sent("p", b"k6", b"v6")  # never acknowledged: present or not, both fine
    assert h.check() == []
    h.read_back("t", 0, [(0, b"k0", b"v0"), (1, b"k2", b"v2"), (2, b"k4", b"v4"), (3, b"k6", b"v6")])
    assert h.check() == []


def test_an_undelivered_record_is_found():
    h = clean()
    h.deliveries = h.deliveries[:-1]
    assert kinds(h) == ["undelivered"]


def test_a_commit_past_undelivered_records_is_found(tmp_path):
    h = clean()
    h.committed("c", "t", 0, 3)  # after every delivery: fine
    assert h.check() == []
    h.dump(tmp_path / "h.jsonl")
    again = History.load(tmp_path / "h.jsonl")
    assert again.check() == [] and again.final_commits() == {("t", 0): 3}
    h = clean()
    h.events.insert(1, ("committed", "c", "t", 0, 2, None, None))  # before offset 1 was delivered
    assert kinds(h) == ["commit gap", "redelivered"]  # offset 1, got after the commit, is below it


def test_a_redelivery_below_the_committed_offset_is_found():
    h = clean()
    h.committed("c", "t", 0, 2)
    h.delivered("c2", "t", 0, 2, b"k4", b"v4")  # at the committed offset: at-least-once, fine
    assert h.check() == []
    h.delivered("c2", "t", 0, 1, b"k2", b"v2")  # below it: the commit was lost
    assert kinds(h) == ["redelivered"]


def test_a_stale_offset_fetch_is_found():
    h = clean()
    h.committed("c", "t", 0, 2)
    h.assigned("c2", "t", 0, 2)  # what was committed: fine
    assert h.check() == []
    h.assigned("c2", "t", 0, -1)  # as if nothing had been committed
    assert kinds(h) == ["stale offset fetch"]
