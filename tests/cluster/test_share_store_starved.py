"""A share-partition store that cannot reach PostgreSQL (issue 26): the broker
says why, and serves the share group again once it can.

franz-go's share-group tests got no records from three brokers whose
PostgreSQL (max_connections 50) was full: each broker opens its stores'
connections as they are first used, so the share-partition store of a broker
whose other stores had taken the slots never connected. The share consumer's
fetches came back empty and AlterShareGroupOffsets answered
COORDINATOR_NOT_AVAILABLE, and the brokers logged nothing of it. (The stores
now share the broker's pool, bounded by --cluster-pg-connections:
test_pg_connections.py.)

Here PostgreSQL's free slots are taken (raw protocol connections, trust
authentication) and the broker's pooled sessions ended, after the topic and
the group were set up and before the share store first needs a connection:

- a share consumer's first fetch takes the share-partition's lease, which
  fails: the broker logs the PostgreSQL error for that share-partition (or,
  the stores sharing the pool, for the share group's lease, which the broker
  takes first when it does not hold it: `group ... not taken over`);
- AlterShareGroupOffsets fails (the admin client retries it): the broker logs
  the PostgreSQL error for that group;
- once the slots are freed, the consumer gets every record and the alter
  succeeds (the pool connects at the store's next use).

COORDINATOR_NOT_AVAILABLE is an error AlterShareGroupOffsets may answer
(Apache Kafka 4.3.1, clients/src/main/resources/common/message/
AlterShareGroupOffsetsResponse.json) and a retriable one
(clients/.../common/errors/CoordinatorNotAvailableException.java extends
RetriableException): the admin client retries it until the store connects."""

import json
import socket
import struct
import subprocess
import uuid

from json_lines import JsonLinesProcess
from test_shared_produce import FLUSH, create_topic, produce

import conftest

clients = conftest.clients
RECORDS = 20


def pg_connect(pg):
    """One PostgreSQL session (startup message, trust authentication): the socket once the server is
    ready for queries, or None when it refuses the connection (its slots are all taken)."""
    s = socket.create_connection(("127.0.0.1", pg.port), timeout=10)
    params = b"user\0%s\0database\0%s\0\0" % (pg.USER.encode(), pg.DATABASE.encode())
    s.sendall(struct.pack("!II", 8 + len(params), 196608) + params)
    while True:
        kind, body = read_message(s)
        if kind == b"E" or body is None:
            s.close()
            return None
        if kind == b"Z":
            return s


def read_message(s):
    """One message of the server: (its type byte, its body), (None, None) at the end of the stream."""
    head = recv_exactly(s, 5)
    if head is None:
        return None, None
    return head[:1], recv_exactly(s, struct.unpack("!I", head[1:])[0] - 4)


def recv_exactly(s, n):
    out = b""
    while len(out) < n:
        chunk = s.recv(n - len(out))
        if not chunk:
            return None
        out += chunk
    return out


def pg_query(s, sql):
    """The rows of `sql` run on session `s` (the simple query protocol), each a list of text values."""
    body = sql.encode() + b"\0"
    s.sendall(b"Q" + struct.pack("!I", 4 + len(body)) + body)
    rows, error = [], None
    while True:
        kind, payload = read_message(s)
        assert kind is not None, "PostgreSQL closed the session"
        if kind == b"D":
            row, pos = [], 2
            for _ in range(struct.unpack("!H", payload[:2])[0]):
                n = struct.unpack("!i", payload[pos:pos + 4])[0]
                row.append(None if n < 0 else payload[pos + 4:pos + 4 + n].decode())
                pos += 4 + max(n, 0)
            rows.append(row)
        elif kind == b"E":
            error = payload
        elif kind == b"Z":  # ready for the next query: the answer is complete
            assert error is None, error
            return rows


def take_every_slot(pg):
    held = []
    while (s := pg_connect(pg)) is not None:
        held.append(s)
    return held


def starve(pg, node):
    """Every connection slot of PostgreSQL held here and no session of the broker's pool left: the
    broker's next take from its pool must connect, and cannot. Its own sessions (heartbeat, LISTEN,
    commits) stay.

    Polled on one of the held sessions, so that no slot is let go: done when, every slot held,
    pg_stat_activity lists no session of the pool (those listed are ended, their slots taken again)
    and lists max_connections client backends (a backend still starting, perhaps the pool's, is not
    listed yet). psql, which this ran before, needed a slot let go, and the pool could get one: in
    the moment before take_every_slot took it back, or when psql's exiting backend still held it as
    take_every_slot was refused and freed it just after. The pool then kept that session, and the
    AlterShareGroupOffsets succeeded with nothing logged (a CI run under load: PostgreSQL's log had
    no refused connection of the broker for a minute, though the janitor and the transactions' reads
    connect every 10 to 20 s when the pool has no session)."""
    held = take_every_slot(pg)
    assert held, "PostgreSQL refused the first connection"
    held[0].settimeout(60)  # each session ended is waited for (up to 10 s)
    pool = "ketch-%d-pool" % node
    while True:
        [[ended, listed, slots]] = pg_query(
            held[0], "SELECT count(CASE WHEN application_name = '%s' THEN pg_terminate_backend(pid, 10000) END), "
            "count(*), current_setting('max_connections') FROM pg_stat_activity "
            "WHERE backend_type = 'client backend'" % pool)
        if ended == "0" and listed == slots:
            return held
        held += take_every_slot(pg)  # the slots of the sessions ended


def log_has(broker, *words):
    return any(all(w in line for w in words) for line in broker.log_text().splitlines())


def refused_for(broker, group, *what):
    """A line logging PostgreSQL's refusal for one of `what`, or for the group's lease."""
    return any(log_has(broker, w, "too many clients") for w in what) or \
        log_has(broker, "group '%s' not taken over" % group, "too many clients")


class ShareConsumer(JsonLinesProcess):
    """ShareConsumerMain consume (tests/clients/java): its records, collected."""

    def __init__(self, bootstrap, group, topic, log):
        super().__init__(clients.java_main("ShareConsumerMain", ["consume", bootstrap, group, topic, "ack"],
                                           stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log))

    def got(self):
        return {line["value"] for line in self.snapshot() if "value" in line}  # records; other lines are events


def setup_topic(start_broker):
    broker = start_broker(0, *FLUSH)
    topic, group = "starved-" + uuid.uuid4().hex[:8], "starved-group-" + uuid.uuid4().hex[:8]
    create_topic(broker, topic, 1)
    values = ["v%d" % i for i in range(RECORDS)]
    produce(broker, topic, [(None, v.encode()) for v in values], 1)
    # From the log's start (a share group starts at its end by default: share.auto.offset.reset latest).
    setup = clients.java_main("ShareConsumerMain", ["setup", broker.bootstrap, group, "share.auto.offset.reset=earliest"],
                              stdout=subprocess.PIPE, text=True)
    assert setup.communicate(timeout=90)[0].strip() == "ok"
    assert not log_has(broker, "share:")
    return broker, topic, group, set(values)


def test_a_starved_share_fetch_is_logged_and_served_once_the_store_connects(start_broker, postgres, tmp_path):
    broker, topic, group, values = setup_topic(start_broker)
    held = starve(postgres, 0)
    consumer = None
    try:
        consumer = ShareConsumer(broker.bootstrap, group, topic, open(tmp_path / "consumer.log", "w"))
        clients.wait_for(lambda: refused_for(broker, group, "share: taking the lease of share-partition"),
                         timeout=60, what="the failed lease take logged with PostgreSQL's reason")
        assert consumer.got() == set()
    finally:
        for s in held:
            s.close()
    try:
        clients.wait_for(lambda: consumer.got() == values, timeout=60, what="every record consumed")
    finally:
        consumer.close()


def test_a_starved_share_offsets_alter_is_logged_and_succeeds_once_the_store_connects(start_broker, postgres,
                                                                                      tmp_path):
    broker, topic, group, _ = setup_topic(start_broker)
    held = starve(postgres, 0)
    alter = None
    try:
        alter = clients.java_main("ShareConsumerMain", ["alter", broker.bootstrap, group, topic, "5"],
                                  stdout=subprocess.PIPE, stderr=open(tmp_path / "alter.log", "w"), text=True)
        clients.wait_for(lambda: refused_for(broker, group, "share: group %s: changing the stored state" % group),
                         timeout=60, what="the failed AlterShareGroupOffsets logged with PostgreSQL's reason")
    finally:
        for s in held:
            s.close()
    out, _ = alter.communicate(timeout=90)
    assert out.strip() == "ok"
    offsets = clients.java_main("ShareConsumerMain", ["offsets", broker.bootstrap, group, topic],
                                stdout=subprocess.PIPE, text=True)
    out, _ = offsets.communicate(timeout=90)
    assert json.loads(out)["start"] == 5
