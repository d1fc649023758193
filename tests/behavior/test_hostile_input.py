"""Bad input never takes the broker down.

Each test attacks a fresh ketch on its port, then checks the invariant: the
process is alive, a well-behaved client on another connection is answered
(ApiVersions v3), and the peak resident memory (VmHWM) grew by less than
MEMORY_SLACK_MIB over the attack.

What Kafka does with each input (and so what ketch must do) comes from:
- clients/.../network/NetworkReceive.java: a size prefix < 0 or above
  socket.request.max.bytes (100 MiB) raises InvalidReceiveException before any
  buffer is allocated; core/.../network/SocketServer.scala closes the channel.
- SocketServer.scala (Processor.processCompletedReceives / parseRequestHeader):
  a header that does not parse, an unknown API key, or a version the broker
  does not serve closes the connection without a response, except ApiVersions.
- clients/.../requests/ApiVersionsRequest.java (getErrorResponse) and KIP-511:
  ApiVersions at a version above the newest is answered in the v0 shape with
  UNSUPPORTED_VERSION and api_keys holding ApiVersions' own range.
- clients/.../requests/RequestContext.java (parseRequest): a body that does not
  parse raises InvalidRequestException and the connection is closed.
"""

import random
import selectors
import socket
import struct
import time
from pathlib import Path

import pytest

from kafka_wire import (API_VERSIONS, METADATA, UNSUPPORTED_VERSION, api_versions, api_versions_request, frame,
                        parse_api_versions_response, read_frame, request_header, schema_versions, uvarint)

MEMORY_SLACK_MIB = 50
MAX_REQUEST_BYTES = 100 * 1024 * 1024  # socket.request.max.bytes default, ketch's default too
CLOSE_TIMEOUT_S = 10.0

pytestmark = pytest.mark.timeout(300)


def memory_kib(pid):
    """{"VmRSS": kib, "VmHWM": kib} of a live process (VmHWM is the peak RSS)."""
    out = {}
    for line in Path("/proc/%d/status" % pid).read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            out[name] = int(value.split()[0])
    return out


class Attack:
    """Connections to the broker under attack, and the health check after it."""

    def __init__(self, broker):
        self.broker = broker
        self.pid = broker.proc.pid
        # One round trip first, so lazily built state is not counted as growth.
        self.assert_answers()
        self.before = memory_kib(self.pid)
        self.checked = False

    def connect(self):
        return socket.create_connection((self.broker.host, self.broker.port), timeout=CLOSE_TIMEOUT_S)

    def assert_answers(self, correlation_id=4711):
        corr, err, keys = api_versions(self.broker.host, self.broker.port, 3, correlation_id)
        assert (corr, err) == (correlation_id, 0)
        assert API_VERSIONS in keys and METADATA in keys

    def assert_healthy(self):
        self.checked = True
        assert self.broker.running(), "ketch died (exit code %s)" % self.broker.proc.poll()
        self.assert_answers(correlation_id=90210)
        after = memory_kib(self.pid)
        grown_mib = (after["VmHWM"] - self.before["VmHWM"]) / 1024
        assert grown_mib < MEMORY_SLACK_MIB, "peak RSS grew by %.1f MiB (before %s, after %s)" % (
            grown_mib, self.before, after)


def read_until_closed(sock, timeout=CLOSE_TIMEOUT_S):
    """Everything the broker sends until it closes the connection. Fails if the
    broker keeps the connection open for `timeout` seconds."""
    sock.settimeout(timeout)
    received = bytearray()
    try:
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                return bytes(received)
            received += chunk
    except ConnectionResetError:
        return bytes(received)
    except socket.timeout:
        pytest.fail("broker kept the connection open %.0f s after bad input (got %d bytes)" % (timeout, len(received)))


def send_then_half_close(sock, data):
    """Sends what it can: the broker may close the connection before all of
    `data` is written (that is a legitimate answer to bad input)."""
    try:
        sock.sendall(data)
        sock.shutdown(socket.SHUT_WR)
    except (BrokenPipeError, ConnectionResetError, OSError):
        pass


def assert_closed_without_answer(sock):
    assert read_until_closed(sock) == b""


@pytest.fixture
def attack(broker):
    a = Attack(broker)
    yield a
    if not a.checked:  # tests that do not check it themselves
        a.assert_healthy()


# ---------------------------------------------------------------- framing

def garbage(rng):
    """Random bytes whose first four (the size prefix) are either out of range
    or a small frame size, so that a garbage frame never announces many MiB:
    that case has its own test below."""
    if rng.random() < 0.5:
        prefix = struct.pack(">i", rng.choice([rng.randint(-2 ** 31, -1), rng.randint(MAX_REQUEST_BYTES + 1, 2 ** 31 - 1)]))
    else:
        prefix = struct.pack(">i", rng.randint(0, 65536))
    return prefix + rng.randbytes(rng.randint(0, 8192))


def test_random_garbage_then_half_close_is_survived(attack):
    rng = random.Random(20240601)
    for _ in range(40):
        with attack.connect() as s:
            send_then_half_close(s, garbage(rng))
            read_until_closed(s)  # whatever it was, the broker closes once input ends


@pytest.mark.parametrize("keep", [1, 4, 10, 30])
def test_truncated_frame_then_close(attack, keep):
    whole = api_versions_request(3, 1)
    with attack.connect() as s:
        s.sendall(whole[:keep])
    with attack.connect() as s:  # and with a reset instead of an orderly close
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        s.sendall(whole[:keep])


@pytest.mark.parametrize("size", [0x7FFFFFFF, MAX_REQUEST_BYTES + 1], ids=["2GiB", "100MiB+1"])
def test_oversized_length_prefix_closes_without_allocating(attack, size):
    with attack.connect() as s:
        s.sendall(struct.pack(">i", size) + b"\x00\x12\x00\x03")
        assert_closed_without_answer(s)  # refused on the prefix alone: no body was sent


@pytest.mark.parametrize("size", [-1, -(2 ** 31)])
def test_negative_length_prefix_closes(attack, size):
    with attack.connect() as s:
        s.sendall(struct.pack(">i", size))
        assert_closed_without_answer(s)


@pytest.mark.parametrize("size", [0, 3, 7])
def test_frame_shorter_than_a_header_closes(attack, size):
    with attack.connect() as s:
        s.sendall(struct.pack(">i", size) + b"\x00" * size)
        assert_closed_without_answer(s)


def test_announced_frame_is_not_committed_before_its_bytes_arrive(attack):
    # A frame of exactly socket.request.max.bytes is legal, but a peer that
    # announces one and sends 10 bytes must not cost 100 MiB: 200 such
    # connections would otherwise take 20 GiB. Synchronised on the close.
    with attack.connect() as s:
        s.sendall(struct.pack(">i", MAX_REQUEST_BYTES) + b"\x00\x03\x00\x0c" + b"\x00" * 6)
        s.shutdown(socket.SHUT_WR)
        read_until_closed(s)
    attack.assert_healthy()


# ---------------------------------------------------------------- header and version

@pytest.mark.parametrize("api_key", [999, 32767, -1, -32768])
def test_unknown_api_key_closes_without_answer(attack, api_key):
    with attack.connect() as s:
        s.sendall(frame(request_header(api_key, 0, 5, flexible=False) + b"\x00" * 16))
        assert_closed_without_answer(s)


def test_metadata_at_an_unsupported_version_closes_without_answer(attack):
    _, newest, flex = schema_versions("MetadataRequest")
    for version in (newest + 1, 32767, -1):
        with attack.connect() as s:
            body = b"\x00" * 8  # never read: the version is refused first
            s.sendall(frame(request_header(METADATA, version, 6, flexible=version >= flex) + body))
            assert_closed_without_answer(s)


def test_api_versions_above_newest_answers_unsupported_version_in_v0_shape(attack):
    oldest, newest, _ = schema_versions("ApiVersionsRequest")
    for version in (newest + 1, 1000):
        with attack.connect() as s:
            s.sendall(api_versions_request(version, 777))
            corr, err, keys = parse_api_versions_response(read_frame(s), 0)
        assert (corr, err) == (777, UNSUPPORTED_VERSION)
        assert keys == {API_VERSIONS: (oldest, newest)}


# ---------------------------------------------------------------- bodies

def test_metadata_array_longer_than_the_frame_closes_without_answer(attack):
    # Metadata v12 (flexible): topics is a compact array; announce 2^31 topics in a few bytes.
    with attack.connect() as s:
        s.sendall(frame(request_header(METADATA, 12, 8, flexible=True) + uvarint(2 ** 31) + b"\x00"))
        assert_closed_without_answer(s)


@pytest.mark.parametrize("api_key,version", [(METADATA, 1), (METADATA, 12), (API_VERSIONS, 3), (19, 7), (60, 1)])
def test_valid_header_with_garbage_body_is_survived(attack, api_key, version):
    """Random bodies: most do not decode (connection closed); one that happens to
    decode may be answered. Either way the broker lives on."""
    rng = random.Random(api_key * 100 + version)
    flexible = {METADATA: 9, API_VERSIONS: 3, 19: 5, 60: 0}[api_key] <= version
    for i in range(20):
        with attack.connect() as s:
            body = rng.randbytes(rng.randint(0, 512))
            send_then_half_close(s, frame(request_header(api_key, version, i, flexible) + body))
            read_until_closed(s)


def test_answer_to_a_good_request_precedes_the_close_for_a_bad_one(attack):
    with attack.connect() as s:
        s.sendall(api_versions_request(3, 31) + frame(request_header(999, 0, 32, flexible=False)))
        corr, err, _ = parse_api_versions_response(read_frame(s), 3)
        assert (corr, err) == (31, 0)
        assert_closed_without_answer(s)


# ---------------------------------------------------------------- many at once

def test_200_connections_of_garbage_at_once(attack):
    rng = random.Random(7)
    socks = [attack.connect() for _ in range(200)]
    try:
        for s in socks:  # half of them announce a plausible frame, half send noise
            if rng.random() < 0.5:
                payload = frame(request_header(rng.randint(0, 100), rng.randint(0, 20), 1, False)
                                + rng.randbytes(rng.randint(0, 2048)))
            else:
                payload = garbage(rng)
            send_then_half_close(s, payload)
        # Every connection must be closed by the broker, none left hanging.
        sel = selectors.DefaultSelector()
        for s in socks:
            s.setblocking(False)
            sel.register(s, selectors.EVENT_READ)
        open_socks = set(socks)
        deadline = time.monotonic() + 30
        while open_socks and time.monotonic() < deadline:
            for key, _ in sel.select(timeout=1.0):
                try:
                    data = key.fileobj.recv(65536)
                except ConnectionResetError:
                    data = b""
                if not data:
                    sel.unregister(key.fileobj)
                    open_socks.discard(key.fileobj)
        assert not open_socks, "%d of 200 connections still open after 30 s" % len(open_socks)
        attack.assert_answers()
    finally:
        for s in socks:
            s.close()
