"""Fetch sessions (KIP-227) at the raw wire, with Fetch v11 (topic names, not flexible).

- A full fetch with epoch 0 gets a session id (non-zero); epoch -1 gets none (0).
- An incremental fetch (the session id, epoch 1, 2, ...) reads every partition of the
  session and answers only those with something new (records, a new high watermark
  or log start offset, an error); with nothing new the answer has no partitions.
- A parked incremental fetch is woken by an append to any partition of its session,
  also one the request does not name.
- The wrong epoch is INVALID_FETCH_SESSION_EPOCH (71) and an unknown session id
  FETCH_SESSION_ID_NOT_FOUND (70), both with session id 0 and no partitions; the
  refused request does not move the session's epoch.
- A session made by names (v12 and older) is not continued by topic ids (v13+):
  FETCH_SESSION_TOPIC_ID_ERROR (106).
- A session outlives its connection (sessions are keyed by id); forgetting every
  partition closes it.

Behaviour reference, Apache Kafka 4.3.1: server/src/main/java/org/apache/kafka/server/
FetchManager.java (newContext), FetchContext.java (FullFetchContext,
IncrementalFetchContext, SessionErrorContext), FetchSession.java
(CachedPartition.maybeUpdateResponseData), clients/.../requests/FetchMetadata.java.
"""

import socket
import struct
import threading
import time

import pytest
from confluent_kafka.admin import AdminClient, NewTopic

from kafka_wire import Reader, frame, produce, read_frame, record_batch, request_header, uvarint

FETCH = 1
VERSION = 11
FETCH_SESSION_ID_NOT_FOUND = 70
INVALID_FETCH_SESSION_EPOCH = 71
FETCH_SESSION_TOPIC_ID_ERROR = 106
TOPIC = "sessions"
PARTITIONS = 3

pytestmark = pytest.mark.timeout(120)


def fetch_request(corr, session_id, epoch, parts, forgotten=(), max_wait_ms=0):
    """Fetch v11: parts is [(partition, offset)] of TOPIC, forgotten [partition]."""
    name = TOPIC.encode()
    body = struct.pack(">iiiibii", -1, max_wait_ms, 1, 1 << 20, 0, session_id, epoch)
    if parts:
        body += struct.pack(">ih", 1, len(name)) + name + struct.pack(">i", len(parts))
        for p, offset in parts:
            body += struct.pack(">iiqqi", p, -1, offset, -1, 1 << 20)
    else:
        body += struct.pack(">i", 0)
    if forgotten:
        body += struct.pack(">ih", 1, len(name)) + name + struct.pack(">i", len(forgotten))
        body += b"".join(struct.pack(">i", p) for p in forgotten)
    else:
        body += struct.pack(">i", 0)
    body += struct.pack(">h", 0)  # rack id
    return frame(request_header(FETCH, VERSION, corr, False, "session-test") + body)


def parse(payload):
    """(error, session_id, {partition: (error, high watermark, records bytes)})."""
    r = Reader(payload)
    r.take(">i")  # correlation id
    r.take(">i")  # throttle
    error = r.take(">h")
    session_id = r.take(">i")
    parts = {}
    for _ in range(r.take(">i")):
        name_len = r.take(">h")  # (not `r.pos += r.take(..)`: that adds to the old position)
        r.pos += name_len  # topic name
        for _ in range(r.take(">i")):
            p, perr, hw = r.take(">i"), r.take(">h"), r.take(">q")
            r.take(">q")  # last stable offset
            r.take(">q")  # log start offset
            aborted = r.take(">i")
            r.pos += max(aborted, 0) * 16  # aborted transactions
            r.take(">i")  # preferred read replica
            size = r.take(">i")
            r.pos += max(size, 0)
            parts[p] = (perr, hw, max(size, 0))
    return error, session_id, parts


class Conn:
    def __init__(self, broker):
        host, port = broker.bootstrap.split(":")
        self.sock = socket.create_connection((host, int(port)), timeout=30)
        self.corr = 0

    def fetch(self, *args, **kw):
        self.corr += 1
        self.sock.sendall(fetch_request(self.corr, *args, **kw))
        return parse(read_frame(self.sock))

    def produce(self, partition, n=1):
        self.corr += 1
        batch = record_batch([(b"k", b"v%d" % i) for i in range(n)])
        assert produce(self.sock, TOPIC, partition, batch, self.corr)[0] == 0

    def close(self):
        self.sock.close()


@pytest.fixture
def conn(broker):
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    admin.create_topics([NewTopic(TOPIC, PARTITIONS, 1)], operation_timeout=30)[TOPIC].result(30)
    c = Conn(broker)
    yield c
    c.close()


def test_full_then_incremental_fetches_answer_only_what_changed(conn):
    conn.produce(0, 2)
    conn.produce(1, 1)
    err, sid, parts = conn.fetch(0, 0, [(0, 0), (1, 0), (2, 0)])
    assert err == 0 and sid != 0
    assert parts[0][1] == 2 and parts[0][2] > 0
    assert parts[1][1] == 1 and parts[1][2] > 0
    assert parts[2] == (0, 0, 0)  # a full answer carries every partition

    # Positions moved on p0 and p1: nothing new anywhere, so nothing answered.
    err, sid2, parts = conn.fetch(sid, 1, [(0, 2), (1, 1)])
    assert (err, sid2, parts) == (0, sid, {})

    conn.produce(2, 1)
    err, _, parts = conn.fetch(sid, 2, [])  # names no partition: the session's are read
    assert err == 0 and list(parts) == [2] and parts[2][1] == 1 and parts[2][2] > 0

    # The session's fetch offset of p2 is still 0 (not updated): the same records again.
    err, _, parts = conn.fetch(sid, 3, [])
    assert list(parts) == [2] and parts[2][2] > 0
    err, _, parts = conn.fetch(sid, 4, [(2, 1)])
    assert (err, parts) == (0, {})


def test_a_parked_incremental_fetch_wakes_on_any_session_partition(conn, broker):
    err, sid, _ = conn.fetch(0, 0, [(0, 0), (1, 0), (2, 0)])
    assert sid != 0
    other = Conn(broker)
    timer = threading.Timer(0.3, other.produce, args=(1,))
    start = time.monotonic()
    timer.start()
    err, _, parts = conn.fetch(sid, 1, [], max_wait_ms=30000)
    elapsed = time.monotonic() - start
    timer.join()
    other.close()
    assert err == 0 and list(parts) == [1] and parts[1][2] > 0
    assert elapsed < 15, "woken by the append, not by max_wait_ms (30 s)"


def test_session_errors_leave_the_session_usable(conn):
    err, sid, _ = conn.fetch(0, 0, [(0, 0)])
    assert sid != 0
    assert conn.fetch(sid, 5, []) == (INVALID_FETCH_SESSION_EPOCH, 0, {})
    assert conn.fetch(sid ^ 0x10000, 1, [(0, 0)]) == (FETCH_SESSION_ID_NOT_FOUND, 0, {})
    assert conn.fetch(0, 3, []) == (FETCH_SESSION_ID_NOT_FOUND, 0, {})
    assert conn.fetch(sid, 1, []) == (0, sid, {})
    assert conn.fetch(sid, 1, []) == (INVALID_FETCH_SESSION_EPOCH, 0, {})  # epoch 1 was used
    assert conn.fetch(sid, 2, []) == (0, sid, {})


def test_a_session_outlives_its_connection_and_ends_when_everything_is_forgotten(conn, broker):
    err, sid, _ = conn.fetch(0, 0, [(0, 0), (1, 0)])
    conn.close()
    again = Conn(broker)
    try:
        assert again.fetch(sid, 1, []) == (0, sid, {})
        err, sid2, parts = again.fetch(sid, 2, [], forgotten=[0, 1])
        assert (err, sid2, parts) == (0, 0, {})  # answered sessionless: the session is gone
        assert again.fetch(sid, 3, []) == (FETCH_SESSION_ID_NOT_FOUND, 0, {})
        # A full fetch with epoch -1 opens no session.
        err, sid3, parts = again.fetch(0, -1, [(0, 0)])
        assert (err, sid3, list(parts)) == (0, 0, [0])
    finally:
        again.close()


def incremental_v13(corr, session_id, epoch):
    """A flexible Fetch v13 continuing a session, naming no partitions."""
    body = struct.pack(">iiiibii", -1, 0, 1, 1 << 20, 0, session_id, epoch)
    body += uvarint(1) + uvarint(1) + uvarint(1) + uvarint(0)  # no topics, none forgotten, rack "", no tags
    return frame(request_header(FETCH, 13, corr, True, "session-test") + body)


def test_a_session_of_names_is_not_continued_by_topic_ids(conn):
    err, sid, _ = conn.fetch(0, 0, [(0, 0)])
    assert sid != 0
    conn.sock.sendall(incremental_v13(99, sid, 1))
    r = Reader(read_frame(conn.sock))
    assert r.take(">i") == 99
    r.uvarint()  # response header tags
    r.take(">i")  # throttle
    assert (r.take(">h"), r.take(">i")) == (FETCH_SESSION_TOPIC_ID_ERROR, 0)
    assert conn.fetch(sid, 1, []) == (0, sid, {})  # the session is as it was
