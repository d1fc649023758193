"""Just enough of the Kafka wire format to attack a broker and to check it still
answers: size-prefixed frames, request header v1/v2, ApiVersions request and
response parsing, and the version ranges of the pinned schemas (so the tests
follow schemas/kafka instead of hard-coding Kafka's numbers)."""

import json
import re
import socket
import struct
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SCHEMAS = REPO / "schemas" / "kafka"

API_VERSIONS = 18
METADATA = 3
UNSUPPORTED_VERSION = 35  # Errors.UNSUPPORTED_VERSION


def schema_versions(message):
    """(min, max, first flexible or None) of e.g. "ApiVersionsRequest"."""
    text = (SCHEMAS / (message + ".json")).read_text()
    spec = json.loads(re.sub(r"^\s*//.*$", "", text, flags=re.M))
    lo, _, hi = spec["validVersions"].partition("-")
    flex = spec.get("flexibleVersions", "none")
    return int(lo), int(hi or lo), (None if flex == "none" else int(flex.rstrip("+")))


def uvarint(n):
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def compact_string(s):
    b = s.encode()
    return uvarint(len(b) + 1) + b


def request_header(api_key, version, correlation_id, flexible, client_id="hostile-test"):
    """Request header v1 (v2 when flexible): client_id is a non-compact nullable string in both."""
    cid = client_id.encode()
    head = struct.pack(">hhih", api_key, version, correlation_id, len(cid)) + cid
    return head + (b"\x00" if flexible else b"")


def frame(payload):
    return struct.pack(">i", len(payload)) + payload


def api_versions_request(version, correlation_id):
    """A complete ApiVersions frame; v3+ carries client software name and version."""
    flexible = version >= schema_versions("ApiVersionsRequest")[2]
    body = b""
    if version >= 3:
        body = compact_string("ketch-hostile-test") + compact_string("1.0") + b"\x00"
    return frame(request_header(API_VERSIONS, version, correlation_id, flexible) + body)


def recv_exactly(sock, n):
    buf = bytearray()
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise ConnectionError("connection closed after %d of %d bytes" % (len(buf), n))
        buf += chunk
    return bytes(buf)


def read_frame(sock):
    (size,) = struct.unpack(">i", recv_exactly(sock, 4))
    return recv_exactly(sock, size)


class Reader:
    def __init__(self, data):
        self.data, self.pos = data, 0

    def take(self, fmt):
        (v,) = struct.unpack_from(fmt, self.data, self.pos)
        self.pos += struct.calcsize(fmt)
        return v

    def string(self):
        """A nullable string with an int16 length (None for -1)."""
        n = self.take(">h")
        if n < 0:
            return None
        s = self.data[self.pos:self.pos + n].decode()
        self.pos += n
        return s

    def uvarint(self):
        shift = value = 0
        while True:
            b = self.data[self.pos]
            self.pos += 1
            value |= (b & 0x7F) << shift
            if not b & 0x80:
                return value
            shift += 7


def parse_api_versions_response(payload, version):
    """(correlation_id, error_code, {api_key: (min, max)}). The response header is
    v0 at every version (KIP-511); the body is parsed at `version`."""
    r = Reader(payload)
    correlation_id = r.take(">i")
    error_code = r.take(">h")
    flexible = version >= 3
    n = r.uvarint() - 1 if flexible else r.take(">i")
    keys = {}
    for _ in range(max(n, 0)):
        key, lo, hi = r.take(">h"), r.take(">h"), r.take(">h")
        if flexible:
            for _ in range(r.uvarint()):  # tagged fields of the entry
                r.uvarint()
                r.pos += r.uvarint()
        keys[key] = (lo, hi)
    return correlation_id, error_code, keys


def api_versions(host, port, version=3, correlation_id=4711, timeout=10.0):
    """Sends ApiVersions on a new connection and returns the parsed answer."""
    with socket.create_connection((host, port), timeout=timeout) as s:
        s.sendall(api_versions_request(version, correlation_id))
        return parse_api_versions_response(read_frame(s), version)


# --- Produce (v3, non-flexible) with a hand-built v2 record batch -----------------

PRODUCE = 0


def zigzag_varint(n):
    return uvarint((n << 1) ^ (n >> 63))


def record_batch(records, producer_id=-1, producer_epoch=-1, base_sequence=-1, timestamp=1_700_000_000_000,
                 attributes=0):
    """One uncompressed v2 RecordBatch of (key, value) byte pairs, base offset 0, CRC-32C
    filled in (DefaultRecordBatch layout); attributes 0x10: transactional."""
    import crc32c  # tests/clients/requirements.txt

    body = bytearray()
    for i, (key, value) in enumerate(records):
        rec = b"\x00" + zigzag_varint(i) + zigzag_varint(i)  # attributes, timestamp delta, offset delta
        rec += zigzag_varint(len(key)) + key + zigzag_varint(len(value)) + value + uvarint(0)  # no headers
        body += zigzag_varint(len(rec)) + rec
    after_crc = struct.pack(">hiqqqhii", attributes, len(records) - 1, timestamp, timestamp + len(records) - 1,
                            producer_id, producer_epoch, base_sequence, len(records)) + bytes(body)
    crc = crc32c.crc32c(after_crc)
    tail = struct.pack(">ibI", 0, 2, crc) + after_crc  # partition leader epoch, magic, crc
    return struct.pack(">qi", 0, len(tail)) + tail


def nullable_string(s):
    if s is None:
        return struct.pack(">h", -1)
    b = s.encode()
    return struct.pack(">h", len(b)) + b


def produce_request(topic, partition, batch, correlation_id, acks=-1, timeout_ms=30000, transactional_id=None):
    """A complete Produce v3 frame for one partition."""
    t = topic.encode()
    body = nullable_string(transactional_id) + struct.pack(">hi", acks, timeout_ms)
    body += struct.pack(">ih", 1, len(t)) + t + struct.pack(">iii", 1, partition, len(batch)) + batch
    return frame(request_header(PRODUCE, 3, correlation_id, False, "behavior-test") + body)


def produce_request_partitions(topic, batches, correlation_id, acks=-1, timeout_ms=30000):
    """A Produce v3 frame for several partitions of one topic: [(partition, batch), ...]."""
    t = topic.encode()
    body = nullable_string(None) + struct.pack(">hi", acks, timeout_ms) + struct.pack(">ih", 1, len(t)) + t
    body += struct.pack(">i", len(batches))
    for partition, batch in batches:
        body += struct.pack(">ii", partition, len(batch)) + batch
    return frame(request_header(PRODUCE, 3, correlation_id, False, "behavior-test") + body)


def parse_produce_response_partitions(payload):
    """[(partition, error_code, base_offset), ...] of a one-topic Produce v3 response."""
    r = Reader(payload)
    r.take(">i")  # correlation id
    assert r.take(">i") == 1
    n = r.take(">h")  # topic name
    r.pos += n
    out = []
    for _ in range(r.take(">i")):
        partition, error, base = r.take(">i"), r.take(">h"), r.take(">q")
        r.take(">q")  # log append time (v2+); v3 has no log start offset
        out.append((partition, error, base))
    return out


def parse_produce_response(payload):
    """(error_code, base_offset) of the only partition of a Produce v3 response."""
    partitions = parse_produce_response_partitions(payload)
    assert len(partitions) == 1, partitions
    _, error, base = partitions[0]
    return error, base


def produce(sock, topic, partition, batch, correlation_id):
    sock.sendall(produce_request(topic, partition, batch, correlation_id))
    return parse_produce_response(read_frame(sock))


# --- Metadata (v1, non-flexible) of named topics, asked of one broker ---------------


def metadata_request(topics, correlation_id):
    body = struct.pack(">i", len(topics))
    for t in topics:
        body += struct.pack(">h", len(t.encode())) + t.encode()
    return frame(request_header(METADATA, 1, correlation_id, False) + body)


def parse_metadata_response(payload):
    """{topic: (error_code, {partition: leader})} of a Metadata v1 response."""
    r = Reader(payload)
    r.take(">i")  # correlation id
    for _ in range(r.take(">i")):  # brokers: node id, host, port, rack
        r.take(">i"), r.string(), r.take(">i"), r.string()
    r.take(">i")  # controller id
    topics = {}
    for _ in range(r.take(">i")):
        error, name, _internal = r.take(">h"), r.string(), r.take(">?")
        partitions = {}
        for _ in range(r.take(">i")):
            _perr, index, leader = r.take(">h"), r.take(">i"), r.take(">i")
            for _ in range(2):  # replicas, isr
                count = r.take(">i")
                r.pos += 4 * count
            partitions[index] = leader
        topics[name] = (error, partitions)
    return topics


def metadata_brokers(host, port, timeout=10.0):
    """{node id: (host, port)} of the brokers this broker's Metadata v1 lists (no topics asked)."""
    with socket.create_connection((host, port), timeout=timeout) as s:
        s.sendall(metadata_request([], 4713))
        r = Reader(read_frame(s))
    r.take(">i")  # correlation id
    brokers = {}
    for _ in range(r.take(">i")):
        node, host_, port_, _rack = r.take(">i"), r.string(), r.take(">i"), r.string()
        brokers[node] = (host_, port_)
    return brokers


def metadata(host, port, topics, timeout=10.0):
    """Metadata of `topics` from this broker alone (a client library may ask any broker it knows)."""
    with socket.create_connection((host, port), timeout=timeout) as s:
        s.sendall(metadata_request(topics, 4712))
        return parse_metadata_response(read_frame(s))


DESCRIBE_CLIENT_QUOTAS = 48
MATCH_EXACT, MATCH_DEFAULT, MATCH_ANY = 0, 1, 2  # DescribeClientQuotasRequest's MatchType


def describe_client_quotas_request(components, strict, correlation_id):
    """A complete DescribeClientQuotas v0 frame; components are (entity type, match type, match)."""
    body = struct.pack(">i", len(components))
    for entity_type, match_type, match in components:
        body += nullable_string(entity_type) + struct.pack(">b", match_type) + nullable_string(match)
    body += struct.pack(">?", strict)
    return frame(request_header(DESCRIBE_CLIENT_QUOTAS, 0, correlation_id, False) + body)


def describe_client_quotas(host, port, components, strict=False, timeout=10.0):
    """DescribeClientQuotas v0 answered by this broker alone (an admin client may ask any broker it
    knows): (error code, {((type, name), ...) sorted: {key: value}}), None for entries on an error."""
    with socket.create_connection((host, port), timeout=timeout) as s:
        s.sendall(describe_client_quotas_request(components, strict, 4714))
        r = Reader(read_frame(s))
    r.take(">i"), r.take(">i")  # correlation id, throttle time
    error, _message = r.take(">h"), r.string()
    count = r.take(">i")
    if count < 0:
        return error, None
    entries = {}
    for _ in range(count):
        entity = tuple(sorted((r.string(), r.string()) for _ in range(r.take(">i"))))
        entries[entity] = {r.string(): r.take(">d") for _ in range(r.take(">i"))}
    return error, entries
