"""The metrics page (--metrics-listen, Prometheus text at /metrics) counts what the
listeners refuse and close, by reason — issue 7's "metrics count refusals by
reason" — and the HTTP server survives bad input without touching the Kafka port.

Kafka's counterparts are JMX metrics (SocketServer / ConnectionQuotas:
connection-creation-rate, failed-authentication-total, ...); ketch names its own.
"""

import json
import socket
import struct
import time
import urllib.error
import urllib.request

import pytest

from kafka_wire import api_versions_request, parse_api_versions_response, read_frame

pytestmark = pytest.mark.timeout(60)

PER_IP = 2
IDLE_MS = 300


def metrics_url(broker):
    return json.loads((broker.data_dir / "listeners.json").read_text())["metrics"]


def scrape(url):
    """{'name{labels}': value} of every sample; checks each family has HELP and TYPE."""
    with urllib.request.urlopen(url, timeout=5) as r:
        assert r.status == 200
        assert r.headers["Content-Type"].startswith("text/plain; version=0.0.4")
        text = r.read().decode()
    samples, typed = {}, set()
    for line in text.splitlines():
        if line.startswith("# TYPE "):
            typed.add(line.split()[2])
            continue
        if line.startswith("#") or not line:
            continue
        key, value = line.rsplit(" ", 1)
        name = key.split("{")[0]
        family = next((name[:-len(sfx)] for sfx in ("_bucket", "_sum", "_count") if name.endswith(sfx)), name)
        assert name in typed or family in typed, "sample before its TYPE line: " + line
        samples[key] = float(value)
    return samples


def connect(broker):
    s = socket.create_connection((broker.host, broker.port), timeout=5)
    return s


def served(s, corr):
    try:
        s.sendall(api_versions_request(3, corr))
        return parse_api_versions_response(read_frame(s), 3)[:2] == (corr, 0)
    except (ConnectionError, socket.timeout, OSError):
        return False


def closed_by_broker(s, timeout=5.0):
    s.settimeout(timeout)
    try:
        return s.recv(1) == b""
    except ConnectionResetError:
        return True


def delta(after, before, key):
    return after.get(key, 0) - before.get(key, 0)


@pytest.mark.ketch_args("--metrics-listen", "127.0.0.1:0", "--max-connections-per-ip", str(PER_IP),
                        "--max-request-bytes", "4096", "--connections-max-idle-ms", str(IDLE_MS))
def test_refusals_and_closes_are_counted_by_reason(broker):
    url = metrics_url(broker)
    before = scrape(url)
    assert before["ketch_connections_active"] == 0

    # max.connections.per.ip: two served, the third closed at once.
    held = [connect(broker) for _ in range(PER_IP)]
    for i, s in enumerate(held):
        assert served(s, i + 1)
    extra = connect(broker)
    assert closed_by_broker(extra)
    mid = scrape(url)
    assert delta(mid, before, 'ketch_connections_refused_total{reason="max_connections_per_ip"}') == 1
    assert delta(mid, before, "ketch_connections_accepted_total") == PER_IP
    assert mid["ketch_connections_active"] == PER_IP
    for s in held + [extra]:
        s.close()

    # A frame over --max-request-bytes: the connection is closed. Fresh connections
    # may be refused until the broker has seen the earlier ones close: retry.
    def fresh():
        for _ in range(100):
            s = connect(broker)
            if served(s, 99):
                return s
            s.close()
        raise AssertionError("no connection served after the earlier ones closed")

    big = fresh()
    big.sendall(struct.pack(">i", 1 << 20))
    assert closed_by_broker(big)
    big.close()

    # connections.max.idle.ms: a silent connection is closed by the broker.
    idle = fresh()
    assert closed_by_broker(idle, timeout=IDLE_MS / 1000 * 20)
    idle.close()

    after = scrape(url)
    assert delta(after, before, 'ketch_connections_closed_total{reason="oversize_request"}') == 1
    assert delta(after, before, 'ketch_connections_closed_total{reason="idle"}') == 1
    # Every ApiVersions answered above is in its histogram; buckets are cumulative
    # and the +Inf bucket equals the count.
    count = 'ketch_request_duration_seconds_count{api="ApiVersions"}'
    assert delta(after, before, count) == PER_IP + 2
    buckets = [(k, v) for k, v in after.items()
               if k.startswith('ketch_request_duration_seconds_bucket{api="ApiVersions"')]
    assert [v for _, v in buckets] == sorted(v for _, v in buckets)
    assert buckets[-1] == ('ketch_request_duration_seconds_bucket{api="ApiVersions",le="+Inf"}', after[count])
    for key, value in after.items():  # counters never go down
        if key.split("{")[0].endswith("_total"):
            assert value >= before.get(key, 0), key


def connect_from(broker, source):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(5)
    s.bind((source, 0))
    s.connect((broker.host, broker.port))
    return s


@pytest.mark.ketch_args("--metrics-listen", "127.0.0.1:0", "--max-connections", "3",
                        "--max-connections-per-ip", str(PER_IP), "--max-connections-policy", "close")
def test_close_policy_closes_connections_over_the_total_after_the_per_ip_check(broker):
    """--max-connections-policy close (not Kafka's default, which keeps a connection
    waiting in the accept queue): at max.connections a new connection is closed at
    once; the IP's own limit is checked first, so a connection over both is counted
    as max_connections_per_ip."""
    url = metrics_url(broker)
    before = scrape(url)
    held = [connect_from(broker, "127.0.0.1") for _ in range(PER_IP)] + [connect_from(broker, "127.0.0.2")]
    for i, s in enumerate(held):
        assert served(s, i + 1)
    over_both = connect_from(broker, "127.0.0.1")
    assert closed_by_broker(over_both)
    over_total = connect_from(broker, "127.0.0.3")
    assert closed_by_broker(over_total)  # closed, not left waiting
    mid = scrape(url)
    assert delta(mid, before, 'ketch_connections_refused_total{reason="max_connections_per_ip"}') == 1
    assert delta(mid, before, 'ketch_connections_refused_total{reason="max_connections"}') == 1
    assert delta(mid, before, 'ketch_connections_throttled_total{reason="max_connections"}') == 0
    assert mid["ketch_connections_active"] == 3
    held.pop().close()
    for s in (over_both, over_total):
        s.close()

    deadline = time.monotonic() + 10
    while scrape(url)["ketch_connections_active"] > 2:
        assert time.monotonic() < deadline, "the broker did not see the close"
        time.sleep(0.02)
    with connect_from(broker, "127.0.0.3") as s:
        assert served(s, 42)
    for s in held:
        s.close()


@pytest.mark.ketch_args("--metrics-listen", "127.0.0.1:0")
def test_bad_http_input_is_answered_and_the_broker_keeps_serving(broker):
    url = metrics_url(broker)
    base = url.rsplit("/", 1)[0]
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(base + "/nope", timeout=5)
    assert e.value.code == 404
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(urllib.request.Request(url, data=b"x", method="POST"), timeout=5)
    assert e.value.code == 405

    host, port = base[len("http://"):].split(":")
    for junk in (b"GARBAGE\r\n\r\n", b"GET /metrics HTTP/1.1\r\nX: " + b"a" * 20000 + b"\r\n\r\n"):
        with socket.create_connection((host, int(port)), timeout=5) as s:
            s.sendall(junk)
            assert s.recv(64).startswith(b"HTTP/1.1 400")
    with socket.create_connection((host, int(port)), timeout=5) as s:
        s.sendall(b"GET /metr")  # half a request, then gone
    assert "ketch_connections_active" in scrape(url)
    with connect(broker) as s:
        assert served(s, 7)
