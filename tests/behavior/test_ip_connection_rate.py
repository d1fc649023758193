"""The `ip` connection_creation_rate quota (KIP-612), set with AlterClientQuotas:
connections from an IP over its rate are not served; each is held open, unread,
for the throttle time (at most one quota window) and then closed, and it does not
count towards the rate. Other IPs and connections already open are unaffected.

Behaviour reference (Apache Kafka 4.3.1): core/.../network/SocketServer.scala,
ConnectionQuotas.recordIpConnectionMaybeThrottle (record, on a quota violation
un-record and throw ConnectionThrottledException with
QuotaUtils.boundedThrottleTime, bounded by quota.window.size.seconds) and
Acceptor.accept (a throttled socket goes to throttledSockets and is closed once
its throttle time has passed).

The broker runs with --quota-window-num 2, so the rate is measured over 1-2 s
(with 11 windows a new IP could first burst 10 s worth of connections).
"""

import socket
import threading
import time

import pytest

from kafka_wire import api_versions_request, parse_api_versions_response, read_frame

RATE = 5                 # connections per second for THROTTLED_IP
THROTTLED_IP = "127.0.0.2"
FREE_IP = "127.0.0.3"
COUNT = 3 * RATE

pytestmark = pytest.mark.timeout(60)


def _string(s):
    b = s.encode()
    return len(b).to_bytes(2, "big") + b


def set_ip_rate(address, ip, rate):
    """AlterClientQuotas v0: connection_creation_rate on the ip entity; returns the error code."""
    import struct
    body = struct.pack(">i", 1) + struct.pack(">i", 1) + _string("ip") + _string(ip)
    body += struct.pack(">i", 1) + _string("connection_creation_rate") + struct.pack(">d?", float(rate), False)
    body += struct.pack(">?", False)
    msg = struct.pack(">hhi", 49, 0, 7) + _string("ip-rate-test") + body
    with socket.create_connection(address, timeout=10) as s:
        s.sendall(struct.pack(">i", len(msg)) + msg)
        payload = read_frame(s)
    # correlation id, throttle_time_ms, entries[0].error_code
    return struct.unpack_from(">h", payload, 12)[0]


def connect(broker, source):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(5.0)
    s.bind((source, 0))
    s.connect((broker.host, broker.port))
    return s


def served(s, corr):
    """ApiVersions answered (True) or the connection closed without an answer (False)."""
    try:
        s.sendall(api_versions_request(3, corr))
        got, err, _ = parse_api_versions_response(read_frame(s), 3)
        assert (got, err) == (corr, 0)
        return True
    except (ConnectionError, OSError):
        return False


def open_served(broker, source, n):
    """Opens connections from `source` until n are served; returns (elapsed s, refused, sockets)."""
    held, refused = [], 0
    start = time.monotonic()
    while len(held) < n:
        s = connect(broker, source)
        if served(s, 100 + len(held)):
            held.append(s)
        else:
            refused += 1
            s.close()
        assert time.monotonic() - start < 20, "only %d of %d served from %s" % (len(held), n, source)
    return time.monotonic() - start, refused, held


@pytest.mark.ketch_args("--quota-window-num", "2")
def test_ip_over_its_connection_rate_waits_while_others_are_served(broker):
    assert set_ip_rate((broker.host, broker.port), THROTTLED_IP, RATE) == 0

    existing = connect(broker, "127.0.0.1")
    assert served(existing, 1)
    latencies, stop = [], threading.Event()

    def ping():
        corr = 2
        while not stop.is_set():
            t = time.monotonic()
            assert served(existing, corr)
            latencies.append(time.monotonic() - t)
            corr += 1
            stop.wait(0.05)

    pinger = threading.Thread(target=ping)
    pinger.start()
    try:
        elapsed, refused, held = open_served(broker, THROTTLED_IP, COUNT)
    finally:
        stop.set()
        pinger.join()
    for s in held:
        s.close()

    print("%d served from %s at %d/s in %.2f s (%d throttled); existing connection: %d answers, max %.1f ms"
          % (COUNT, THROTTLED_IP, RATE, elapsed, refused, len(latencies), 1000 * max(latencies or [0])))
    # 3N connections at N/s: the first second's worth at once, then N per second.
    assert elapsed >= 1.6, "%d connections from %s at %d/s took only %.2f s" % (COUNT, THROTTLED_IP, RATE, elapsed)
    assert elapsed < 8, elapsed
    assert refused > 0
    # The existing connection was answered all along, promptly.
    assert len(latencies) >= 10 and max(latencies) < 0.5, (len(latencies), max(latencies or [0]))

    # An IP without a quota opens as many at once.
    free_elapsed, free_refused, free_held = open_served(broker, FREE_IP, COUNT)
    for s in free_held:
        s.close()
    print("%d served from %s (no quota) in %.3f s" % (COUNT, FREE_IP, free_elapsed))
    assert free_refused == 0 and free_elapsed < 1.0, (free_refused, free_elapsed)
