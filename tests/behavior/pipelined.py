"""A script of pipelined requests for one connection (tests/behavior/test_pipelined_produce.py,
test_sasl_wire.py): acks=all Produce to two partitions, with acks=1 Produce and ApiVersions
between them, written back to back; and the check that the answers are what a
one-request-at-a-time broker gives: in request order (correlation ids), every Produce without
error, each partition's base offsets consecutive in request order."""

import struct

from kafka_wire import api_versions_request, parse_produce_response, produce_request, read_frame, record_batch


def script(topic, requests=60):
    """(the requests' bytes, what each answers: (correlation id, kind, partition))."""
    wire = bytearray()
    expected = []
    for i in range(requests):
        cid = 1000 + i
        if i % 10 == 9:
            wire += api_versions_request(3, cid)
            expected.append((cid, "api_versions", None))
            continue
        partition = i % 2
        acks = 1 if i % 7 == 3 else -1
        batch = record_batch([(b"k%d" % i, b"v%d" % i)])
        wire += produce_request(topic, partition, batch, cid, acks=acks)
        expected.append((cid, "produce", partition))
    return bytes(wire), expected


def send_and_check(sock, topic):
    """Writes the script on `sock` without reading, then reads and checks every answer."""
    wire, expected = script(topic)
    sock.sendall(wire)
    answers = [read_frame(sock) for _ in expected]
    next_offset = {0: 0, 1: 0}
    for (cid, kind, partition), payload in zip(expected, answers):
        (got_cid,) = struct.unpack(">i", payload[:4])
        assert got_cid == cid, "answers out of request order"
        if kind == "produce":
            error, base = parse_produce_response(payload)
            assert error == 0
            assert base == next_offset[partition], "partition %d appended out of request order" % partition
            next_offset[partition] += 1
    assert next_offset == {p: sum(1 for e in expected if e[2] == p) for p in (0, 1)}
