"""request_percentage on the wire: a client id with a tiny request_percentage gets
throttle_time_ms > 0 in its answers and its connection is muted for that long, while
another client id on the same broker is never throttled; the metrics page counts each
throttled answer under ketch_quota_throttled_requests_total{quota="request_percentage"}.

Behaviour reference, Apache Kafka 4.3.1: core ClientRequestQuotaManager (request-handler
time as a percentage of one thread, throttle bounded by one quota window),
RequestHandlerHelper.sendResponseMaybeThrottle (ApiVersions included once the connection
is authenticated: KafkaApis.handleApiVersionsRequest), ClientQuotaManager.throttle (the
channel is muted for the throttle time, KIP-219). The arithmetic is pinned in
tests/unit/security/request_quota_test.cc.
"""

import socket
import struct
import time

import pytest

from kafka_wire import frame, read_frame, request_header
from test_metrics import metrics_url, scrape

API_VERSIONS = 18
ALTER_CLIENT_QUOTAS = 49
WINDOW_MS = 1000  # --quota-window-size-seconds 1: the most one request is throttled

pytestmark = pytest.mark.timeout(60)


def _string(s):
    b = s.encode()
    return struct.pack(">h", len(b)) + b


def set_request_percentage(address, client_id, value):
    """AlterClientQuotas v0: request_percentage for one client id; asserts it was accepted."""
    body = struct.pack(">i", 1) + struct.pack(">i", 1) + _string("client-id") + _string(client_id)
    body += struct.pack(">i", 1) + _string("request_percentage") + struct.pack(">d?", value, False)
    body += struct.pack(">?", False)
    with socket.create_connection(address, timeout=10) as s:
        s.sendall(frame(request_header(ALTER_CLIENT_QUOTAS, 0, 1, False, "admin") + body))
        answer = read_frame(s)
    # correlation id, throttle_time_ms, entries[0].error_code
    (n,) = struct.unpack_from(">i", answer, 8)
    (code,) = struct.unpack_from(">h", answer, 12)
    assert n == 1 and code == 0, answer


def api_versions_throttle(sock, client_id, correlation_id):
    """ApiVersions v2 (not flexible): returns its throttle_time_ms."""
    sock.sendall(frame(request_header(API_VERSIONS, 2, correlation_id, False, client_id)))
    answer = read_frame(sock)
    (cid, code, n) = struct.unpack_from(">ihi", answer, 0)
    assert cid == correlation_id and code == 0
    (throttle,) = struct.unpack_from(">i", answer, 10 + 6 * n)
    return throttle


THROTTLED = 'ketch_quota_throttled_requests_total{quota="%s"}'


@pytest.mark.ketch_args("--metrics-listen", "127.0.0.1:0")
def test_tiny_request_percentage_throttles_only_its_client(broker):
    address = (broker.host, broker.port)
    url = metrics_url(broker)
    # 0.001 % of a thread: 10 us of handler time per second, so a few requests
    # over the 10 s a fresh rate is measured across.
    set_request_percentage(address, "slow", 0.001)
    before = scrape(url)
    assert before[THROTTLED % "request_percentage"] == 0

    with socket.create_connection(address, timeout=10) as slow:
        throttle, sent = 0, 0
        deadline = time.monotonic() + 10
        while throttle == 0 and time.monotonic() < deadline:
            sent += 1
            throttle = api_versions_throttle(slow, "slow", sent)
        print("throttled after %d requests: %d ms" % (sent, throttle))
        assert 0 < throttle <= WINDOW_MS, "no throttle after %d requests" % sent
        # Muted: the next request is read only once the throttle time is over.
        start = time.monotonic()
        again = api_versions_throttle(slow, "slow", sent + 1)
        assert (time.monotonic() - start) * 1000 >= throttle * 0.9

    with socket.create_connection(address, timeout=10) as fast:
        throttles = [api_versions_throttle(fast, "fast", i) for i in range(1, 2 * sent + 50)]
        assert max(throttles) == 0

    # Every throttled answer, and only those, counted by its quota type (the
    # count is taken before the answer is sent).
    after = scrape(url)
    assert after[THROTTLED % "request_percentage"] == 1 + (again > 0)
    for other in ("producer_byte_rate", "consumer_byte_rate", "controller_mutation_rate"):
        assert after[THROTTLED % other] == 0
