"""The console of one broker shows the whole cluster's traffic (docs/cluster.md
"The console", docs/design/console.md "Cluster-wide traffic and clients"):
its traffic listing merges every live broker's inspector ring, each row
naming the broker that served it (node_id); an exchange another broker served
is opened there (?node=); a broker that does not answer within the console's
3 s budget is named in "unreached_brokers" and the page answers with the
others. The brokers ask each other over ConsolePeer, ketch's private request
on the inter-broker listener: never advertised in ApiVersions, and refused
(CLUSTER_AUTHORIZATION_FAILED) to a principal without CLUSTER_ACTION on the
cluster, Kafka's rule for its broker-to-broker APIs (AclAuthorizer checks of
KafkaApis.handleLeaderAndIsrRequest / handleWriteTxnMarkersRequest:
authHelper.authorizeClusterOperation(request, CLUSTER_ACTION))."""

import json
import signal
import struct
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "behavior"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from conftest import clients  # noqa: E402
from group_wire import live_brokers, wait_for  # noqa: E402
from kafka_wire import read_frame, request_header  # noqa: E402

# A stopped broker stays live for 30 s: the window in which the other's console must name it.
TIMING = ["--cluster-heartbeat-ms", "250", "--cluster-session-timeout-ms", "30000"]
CONSOLE_PEER = 10000  # ketch-internal key (broker/console_peer.h)


def get(broker, path, timeout_s=30):
    """The broker's console: (status, JSON); a page that does not answer within timeout_s fails."""
    url = json.loads((broker.data_dir / "listeners.json").read_text())["console"].rstrip("/") + path
    try:
        with urllib.request.urlopen(url, timeout=timeout_s) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def wire(broker, api_key, version, body, client_id):
    """One request on a connection of its own to `broker`; the response past its correlation id."""
    import socket
    with socket.create_connection((broker.host, broker.port), timeout=30) as sock:
        payload = request_header(api_key, version, 7, False, client_id) + body
        sock.sendall(struct.pack(">i", len(payload)) + payload)
        return read_frame(sock)[4:]


def advertised_keys(broker):
    """ApiVersions v0: the API keys the broker advertises."""
    r = wire(broker, 18, 0, b"", "console-traffic-versions")
    err, n = struct.unpack_from(">hi", r, 0)
    assert err == 0
    return {struct.unpack_from(">h", r, 6 + 6 * i)[0] for i in range(n)}


def console_peer(broker, path, query=""):
    """ConsolePeer v0 (string path, query, principal) from a client: (error_code, status, body)."""
    enc = b"".join(struct.pack(">h", len(s)) + s for s in (path.encode(), query.encode(), b"User:ANONYMOUS"))
    r = wire(broker, CONSOLE_PEER, 0, enc, "console-traffic-peer")
    err, status, size = struct.unpack_from(">hhi", r, 0)
    return err, status, r[8:8 + size]


def positions(cursor):
    """A traffic listing's cursor, "1:815,2:301": {node id: last sequence number}."""
    return {int(n): int(seq) for n, seq in (p.split(":") for p in cursor.split(","))}


def two_consoles(start_broker, *extra):
    brokers = {n: start_broker(n, *TIMING, *extra, console=True) for n in (1, 2)}
    for n, x in brokers.items():
        wait_for(lambda: live_brokers(x) == 2, "broker %d does not list both" % n)
    return brokers[1], brokers[2]


def test_one_console_lists_the_requests_every_broker_served(start_broker):
    a, b = two_consoles(start_broker)
    client = "traffic-both-%d" % time.monotonic_ns()

    def watching():  # watching starts recording on both, once broker 1 reaches broker 2
        status, page = get(a, "/api/v1/traffic?client_id=" + client)
        assert status == 200, page
        return page if sorted(positions(page["cursor"])) == [1, 2] else None
    first = wait_for(watching, "broker 1's console does not reach broker 2")
    assert first["unreached_brokers"] == [] and first["exchanges"] == [], first
    cursor = first["cursor"]

    # Not Kafka's: never advertised to a client.
    assert CONSOLE_PEER not in advertised_keys(b)
    wire(b, 18, 0, b"", client)  # ApiVersions served by broker 2, then one by broker 1
    wire(a, 18, 0, b"", client)

    def both():
        status, page = get(a, "/api/v1/traffic?client_id=%s&cursor=%s" % (client, cursor))
        assert status == 200, page
        return page if len(page["exchanges"]) == 2 else None
    page = wait_for(both, "broker 1's console does not list the ApiVersions both brokers served")
    rows = page["exchanges"]
    assert sorted(r["node_id"] for r in rows) == [1, 2], rows
    assert rows == sorted(rows, key=lambda r: (r["time_ms"], r["node_id"])), rows  # in time order
    assert all(r["api"] == "ApiVersions" and r["client_id"] == client for r in rows), rows
    assert page["unreached_brokers"] == []
    on_b = next(r for r in rows if r["node_id"] == 2)

    # Broker 2's row is the one its ring holds (its local page, as broker 1 asked it).
    err, status, body = console_peer(b, "traffic", "client_id=" + client)
    assert (err, status) == (0, 200)
    assert [(r["seq"], r["connection"]) for r in json.loads(body)["exchanges"]] == [(on_b["seq"], on_b["connection"])]
    # Opened through broker 1, at broker 2.
    status, x = get(a, "/api/v1/traffic/%d?node=2" % on_b["seq"])
    assert status == 200 and x["node_id"] == 2 and x["client_id"] == client and x["response"] is not None, x
    # The cursor moved on: nothing new after it.
    status, later = get(a, "/api/v1/traffic?client_id=%s&cursor=%s" % (client, page["cursor"]))
    assert status == 200 and later["exchanges"] == [], later
    # Connection events of both brokers, each naming its broker.
    status, ev = get(a, "/api/v1/traffic/connections")
    assert status == 200 and {e["node_id"] for e in ev["events"]} == {1, 2}, ev

    # Broker 2 stopped (SIGSTOP: its connections open, no answer): broker 1's
    # pages answer within the budget (3 s; 10 s allowed here) naming it.
    # clients.sigstop returns once every thread is stopped: kill() returns before that, and under
    # load broker 2 went on answering broker 1 (3 of 6 runs failed beside three busy loops).
    clients.sigstop(b.proc)
    try:
        for path in ("/api/v1/traffic?cursor=" + page["cursor"], "/api/v1/traffic/connections", "/api/v1/clients"):
            status, p = get(a, path, timeout_s=10)
            assert status == 200, p
            assert [u["node_id"] for u in p["unreached_brokers"]] == [2], p
        status, p = get(a, "/api/v1/traffic?cursor=" + page["cursor"], timeout_s=10)
        assert positions(p["cursor"])[2] == positions(page["cursor"])[2], p  # resumes where it was
        status, err = get(a, "/api/v1/traffic/%d?node=2" % on_b["seq"], timeout_s=10)
        assert status == 503 and "broker 2" in err["message"], err
    finally:
        b.proc.send_signal(signal.SIGCONT)
    assert a.running()


def test_console_peer_needs_cluster_action(start_broker):
    """With --authorizer and no ACL the brokers' PLAINTEXT principal (User:ANONYMOUS)
    may not CLUSTER_ACTION: a client's ConsolePeer is refused, and so is the other
    broker's console, whose page answers naming the broker that refused."""
    a, b = two_consoles(start_broker, "--authorizer")
    err, status, _ = console_peer(b, "traffic")
    assert err == 31 and status == 403  # CLUSTER_AUTHORIZATION_FAILED
    status, page = get(a, "/api/v1/traffic", timeout_s=10)
    assert status == 200 and [u["node_id"] for u in page["unreached_brokers"]] == [2], page
    assert "CLUSTER_AUTHORIZATION_FAILED" in page["unreached_brokers"][0]["error"], page
    assert {r["node_id"] for r in page["exchanges"]} <= {1}


def test_console_peer_answers_a_principal_with_cluster_action(start_broker):
    """Without --authorizer (every principal authorized, as Kafka without
    authorizer.class.name) ConsolePeer answers the page; any other path is 404."""
    a, b = two_consoles(start_broker)
    err, status, body = console_peer(b, "traffic")
    assert err == 0 and status == 200 and "exchanges" in json.loads(body)
    err, status, body = console_peer(b, "topics")
    assert err == 0 and status == 404, body
