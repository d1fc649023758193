"""A tenant's connections and byte rates counted for the cluster (docs/cluster.md
"Tenants", docs/design/cluster.md "Tenants' limits for the cluster"): every
--cluster-heartbeat-ms each broker publishes in ketch_tenant_usage what each
tenant uses on it (connections open, produce and fetch bytes per second) and
reads the other live brokers' sums; it admits a connection while its own plus
the others' stay within max_connections, and bounds a tenant's byte rate by
the limit less the others' rate (never below limit / live brokers).

Three brokers with --tenancy and SASL.

Connections: tenant team with max_connections 4 holds two through broker 1
and two through broker 2; broker 3, which holds none of them, refuses a fifth
once it has read the others' counts (as a single node refuses: the connection
closed at its first request), and so do brokers 1 and 2. One closed through
broker 1, broker 3 admits one, and then nobody admits a fifth again.

Byte rate: tenant rate with producer_byte_rate LIMIT produces BURST bytes
through each broker (under LIMIT x the rate window on each broker alone, so no
broker alone ever throttles it: broker 1's burst, produced before the others',
is answered throttle_time_ms 0 throughout); the three bursts together are over
the limit, and each broker then answers the tenant's next Produce with a
throttle_time_ms (which it would never do counting its own bytes alone)."""

import socket
import struct
import time

from confluent_kafka.admin import AdminClient, NewTopic

from conftest import clients
from test_shared_security import login
from test_shared_tenants import described, start_tenancy_brokers

# tests/behavior, on the path through test_shared_tenants
from kafka_wire import parse_produce_response, produce_request, read_frame, record_batch  # noqa: E402
from sasl_wire import exchange, metadata_request_v1  # noqa: E402

USERS = {"root": "root-pw", "team": "team-pw", "rate": "rate-pw"}
# A short rate window keeps the test short; 11 samples of 3 s: rates are measured over at least 30 s.
WINDOW = ["--quota-window-num", "11", "--quota-window-size-seconds", "3"]
WINDOW_S = 30
LIMIT = 20_000  # producer_byte_rate, bytes per second
VALUE = b"v" * 10_000
BURST = 45  # batches of about 10 KB per broker: 450 KB, 15 KB/s over the window, under LIMIT alone


def start_three(start_broker, tmp_path):
    return start_tenancy_brokers(start_broker, tmp_path, (1, 2, 3), USERS, *WINDOW)


def create_tenant(brokers, name, limits):
    status, _ = brokers[0].rest.post("/api/v1/tenants", {"name": name, "limits": limits})
    assert status == 201
    for b in brokers:
        clients.wait_for(lambda: described(b, name) == (limits, []), what="broker %s knows tenant %s" % (b.address, name))


def create_topic(b, user, name):
    admin = AdminClient({"bootstrap.servers": b.address, "security.protocol": "SASL_PLAINTEXT",
                         "sasl.mechanisms": "PLAIN", "sasl.username": user, "sasl.password": USERS[user]})
    admin.create_topics([NewTopic(name, 1, 1)])[name].result(timeout=30)


def connect(b, user):
    """A connection of `user` to b past its first request (when a tenant's connection is counted), or None
    when b closed it there (over max_connections)."""
    sock = login(b, user, USERS[user])
    assert sock is not None
    try:
        exchange(sock, metadata_request_v1())
        return sock
    except (ConnectionError, socket.timeout, OSError):
        sock.close()
        return None


def refuses(b, user):
    """True when b refuses `user` another connection; an admitted one is closed again at once."""
    sock = connect(b, user)
    if sock is None:
        return True
    sock.close()
    return False


def test_a_tenants_connections_are_counted_for_the_cluster(start_broker, tmp_path):
    b1, b2, b3 = start_three(start_broker, tmp_path)
    create_tenant([b1, b2, b3], "team", {"max_connections": 4})
    held = {1: [connect(b1, "team"), connect(b1, "team")], 2: [connect(b2, "team"), connect(b2, "team")]}
    assert all(s is not None for socks in held.values() for s in socks), "four within the limit"

    clients.wait_for(lambda: refuses(b3, "team"), timeout=30, what="broker 3 refuses a fifth")
    clients.wait_for(lambda: refuses(b1, "team"), timeout=30, what="broker 1 refuses a fifth")
    clients.wait_for(lambda: refuses(b2, "team"), timeout=30, what="broker 2 refuses a fifth")

    held[1].pop().close()
    third = clients.wait_for(lambda: connect(b3, "team"), timeout=30, what="broker 3 admits one once one closed")
    for b in (b1, b2, b3):
        clients.wait_for(lambda: refuses(b, "team"), timeout=30, what="%s refuses a fifth again" % b.address)
    third.close()
    for socks in held.values():
        for s in socks:
            s.close()


class Writer:
    """Tenant rate's raw Produce v3 requests to one broker: the throttle_time_ms of each answer. A throttled
    connection is muted by the broker for that long (KIP-219), so the next request goes on a new one."""

    def __init__(self, b):
        self.b, self.sock, self.correlation = b, None, 100

    def produce(self, value):
        if self.sock is None:
            self.sock = connect(self.b, "rate")
            assert self.sock is not None
        self.correlation += 1
        batch = record_batch([(b"k", value)], timestamp=int(time.time() * 1000))
        self.sock.sendall(produce_request("data", 0, batch, self.correlation))
        answer = read_frame(self.sock)
        error, _ = parse_produce_response(answer)
        assert error == 0, error
        (throttle_ms,) = struct.unpack(">i", answer[-4:])  # Produce v1+: after the responses
        if throttle_ms > 0:
            self.sock.close()
            self.sock = None
        return throttle_ms


def test_a_tenants_produce_rate_is_counted_for_the_cluster(start_broker, tmp_path):
    brokers = start_three(start_broker, tmp_path)
    create_tenant(brokers, "rate", {"producer_byte_rate": LIMIT})
    create_topic(brokers[0], "rate", "data")
    assert BURST * len(VALUE) < LIMIT * WINDOW_S  # no broker alone passes the limit
    writers = [Writer(b) for b in brokers]

    first = [writers[0].produce(VALUE) for _ in range(BURST)]
    assert first == [0] * BURST, "broker 1 alone, under the limit"
    for w in writers[1:]:
        for _ in range(BURST):
            w.produce(VALUE)
    # Together over the limit: each broker throttles the tenant once it has read the others' rates.
    for w in writers:
        clients.wait_for(lambda: w.produce(b"x") > 0, timeout=20, interval=0.1,
                         what="%s throttles the tenant" % w.b.address)
