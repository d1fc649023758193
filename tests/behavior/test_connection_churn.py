"""10,000 connections opened and closed in a loop under connection limits: the
limits hold throughout, and afterwards the broker holds no more file descriptors
than before and its resident memory is back near where it was.

Limits as Kafka's ConnectionQuotas (core/.../network/SocketServer.scala):
max.connections.per.ip refuses (closes at once) a connection over the IP's limit,
with per-IP overrides; max.connections makes the acceptor wait for a free slot, so
an extra connection is not served until another one closes.
Every connection sends ApiVersions v3 (raw wire) and reads the answer before it closes.
"""

import json
import socket
import time
import urllib.request
from pathlib import Path

import pytest

from kafka_wire import api_versions_request, parse_api_versions_response, read_frame

PER_IP = 20            # --max-connections-per-ip
OVERRIDE_IP, OVERRIDE = "127.0.0.2", 30
MAX_CONNECTIONS = 40   # --max-connections: 20 from 127.0.0.1 + 20 from 127.0.0.2 fill it
TOTAL = 10_000
RSS_SLACK_MIB = 16

pytestmark = pytest.mark.timeout(120)


def fd_count(pid):
    return len(list(Path("/proc/%d/fd" % pid).iterdir()))


def rss_kib(pid):
    for line in Path("/proc/%d/status" % pid).read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def connect(broker, source="127.0.0.1"):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(5.0)
    s.bind((source, 0))
    s.connect((broker.host, broker.port))
    return s


def answered(s, corr, timeout=5.0):
    """Sends ApiVersions and reads the answer: True if answered, False if the broker
    closed the connection (refused) or did not answer within `timeout`."""
    s.settimeout(timeout)
    try:
        s.sendall(api_versions_request(3, corr))
        got_corr, err, _ = parse_api_versions_response(read_frame(s), 3)
        assert (got_corr, err) == (corr, 0)
        return True
    except (ConnectionError, socket.timeout, OSError):
        return False


def active(broker):
    """The broker's ketch_connections_active gauge (its metrics page)."""
    url = json.loads((broker.data_dir / "listeners.json").read_text())["metrics"]
    with urllib.request.urlopen(url, timeout=5) as r:
        for line in r.read().decode().splitlines():
            if line.startswith("ketch_connections_active "):
                return int(float(line.split()[1]))
    raise AssertionError("no ketch_connections_active on " + url)


def settle(check, timeout=10.0):
    deadline = time.monotonic() + timeout
    while True:
        ok, detail = check()
        if ok:
            return detail
        if time.monotonic() > deadline:
            raise AssertionError(detail)
        time.sleep(0.05)


def fill(broker, n, source="127.0.0.1", timeout=10.0):
    """n served connections from `source`; refused attempts (the broker has not yet
    seen earlier connections close) are retried until `timeout`."""
    held, deadline = [], time.monotonic() + timeout
    while len(held) < n:
        s = connect(broker, source)
        if answered(s, 500 + len(held), timeout=2.0):
            held.append(s)
            continue
        s.close()
        assert time.monotonic() < deadline, "only %d of %d connections from %s served" % (len(held), n, source)
        time.sleep(0.02)
    return held


@pytest.mark.ketch_args("--metrics-listen", "127.0.0.1:0", "--max-connections-per-ip", str(PER_IP), "--max-connections", str(MAX_CONNECTIONS),
                        "--max-connections-per-ip-overrides", "%s:%d" % (OVERRIDE_IP, OVERRIDE))
def test_ten_thousand_connections_keep_limits_and_leak_nothing(broker):
    pid = broker.proc.pid
    # Warm up (lazily built state, allocator arenas), then take the baseline.
    for i in range(200):
        with connect(broker) as s:
            assert answered(s, i)
    time.sleep(0.2)
    fds_before, rss_before = fd_count(pid), rss_kib(pid)

    done = 0
    corr = 1000
    batches = 0
    while done < TOTAL:
        batches += 1
        if batches % 100 == 1:
            # Fill 127.0.0.1's allowance (closes of the previous batch may still be
            # in flight: a refused one is retried), then one more: closed at once.
            full = fill(broker, PER_IP)
            with connect(broker) as extra:
                assert not answered(extra, 7), "connection over max.connections.per.ip was served"
            done += len(full) + 1
            for s in full:
                s.close()
            # Twice the half-batch closes are now in flight: wait until the broker has
            # seen them, so the strict half-batches below stay within the allowance.
            settle(lambda: (active(broker) == 0, "connections active: %d" % active(broker)))
            continue
        # Half the allowance at a time, so closes still in flight never hit the limit.
        batch = [connect(broker) for _ in range(PER_IP // 2)]
        for s in batch:
            corr += 1
            assert answered(s, corr), "connection %d within the per-IP limit not served" % done
        done += len(batch)
        for s in batch:
            s.close()

    # max.connections: 20 from 127.0.0.1 and 20 from 127.0.0.2 (override 30) fill the
    # broker; a 41st connection waits until one of them closes.
    held = fill(broker, PER_IP) + fill(broker, PER_IP, OVERRIDE_IP)
    waiting = connect(broker, OVERRIDE_IP)
    waiting.settimeout(0.5)
    waiting.sendall(api_versions_request(3, 99))
    with pytest.raises(socket.timeout):
        read_frame(waiting)  # not accepted while the broker is full
    held.pop().close()
    waiting.settimeout(5.0)
    got_corr, err, _ = parse_api_versions_response(read_frame(waiting), 3)
    assert (got_corr, err) == (99, 0)
    waiting.close()
    for s in held:
        s.close()

    # Everything closed: the broker's descriptors are back to the baseline, and its
    # resident memory near it.
    settle(lambda: (fd_count(pid) <= fds_before, "fds: %d before, %d now" % (fds_before, fd_count(pid))))
    settle(lambda: (rss_kib(pid) - rss_before <= RSS_SLACK_MIB * 1024,
                    "RSS: %d KiB before, %d KiB now" % (rss_before, rss_kib(pid))))
    print("%d connections; fds %d -> %d; RSS %d -> %d KiB" % (done, fds_before, fd_count(pid), rss_before,
                                                             rss_kib(pid)))
    assert broker.running()
