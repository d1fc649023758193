"""A request frame of several MiB (issue 3: franz-go sends Produce requests of many MiB) that
arrives in small pieces is read whole: its records are stored byte for byte, and the request
written right behind it on the same connection is read from the right place.

The broker allocates a frame once its size prefix is read, as Kafka's NetworkReceive does
(clients/src/main/java/org/apache/kafka/common/network/NetworkReceive.java: readFrom allocates
the buffer of the announced size, up to socket.request.max.bytes).
"""

import os
import socket

import pytest
from confluent_kafka import Consumer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from kafka_wire import (api_versions_request, parse_produce_response, parse_produce_response_partitions, produce_request,
                        produce_request_partitions, read_frame, record_batch)

pytestmark = pytest.mark.timeout(120)

VALUE_BYTES = 1024 * 1024
RECORDS = 3  # a frame of a little over 3 MiB


def test_a_multi_mib_produce_sent_in_pieces_is_stored_whole(broker):
    topic = "large-request"
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    admin.create_topics([NewTopic(topic, 1, 1, config={"max.message.bytes": str(8 * 1024 * 1024)})],
                        operation_timeout=30)[topic].result(30)
    values = [os.urandom(VALUE_BYTES) for _ in range(RECORDS)]
    big = produce_request(topic, 0, record_batch([(b"k%d" % i, v) for i, v in enumerate(values)]), 7, acks=1)
    assert len(big) > 3 * 1024 * 1024
    wire = big + api_versions_request(3, 8)

    with socket.create_connection((broker.host, broker.port), timeout=30) as sock:
        # The size prefix split in two, then 64 KiB pieces: the frame is filled as bytes arrive.
        sock.sendall(wire[:2])
        for at in range(2, len(wire), 64 * 1024):
            sock.sendall(wire[at:at + 64 * 1024])
        produced = read_frame(sock)
        after = read_frame(sock)

    assert int.from_bytes(produced[:4], "big") == 7
    assert parse_produce_response(produced) == (0, 0)
    assert int.from_bytes(after[:4], "big") == 8  # the next request, read from the frame's end
    assert int.from_bytes(after[4:6], "big") == 0  # ApiVersions error_code

    consumer = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": "large-request",
                         "enable.auto.commit": False, "fetch.max.bytes": 16 * 1024 * 1024})
    try:
        consumer.assign([TopicPartition(topic, 0, 0)])
        got = []
        while len(got) < RECORDS:
            msg = consumer.poll(10)
            assert msg is not None, "records not fetched back"
            assert msg.error() is None, msg.error()
            got.append((msg.key(), msg.value()))
    finally:
        consumer.close()
    assert got == [(b"k%d" % i, v) for i, v in enumerate(values)]


def test_a_large_request_over_several_partitions_is_answered_per_partition_and_in_order(broker):
    """A Produce request with a few hundred KiB of records or more is appended off the reactor,
    a job per partition (broker/produce_appends.h). Each partition is still answered for itself
    (a corrupt batch refused alone, an unknown partition refused alone: Kafka's
    ReplicaManager.appendToLocalLog answers per partition), and the request right behind it on
    the connection is handled only after every append of the first: its offsets follow."""
    topic = "large-request-partitions"
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    admin.create_topics([NewTopic(topic, 4, 1)], operation_timeout=30)[topic].result(30)
    first = {p: os.urandom(512 * 1024) for p in range(4)}
    second = {p: os.urandom(300 * 1024) for p in range(4)}
    corrupt = bytearray(record_batch([(b"k", first[3])]))
    corrupt[-10] ^= 0xFF  # a value byte: the CRC no longer matches
    req1 = produce_request_partitions(
        topic, [(0, record_batch([(b"k", first[0])])), (1, record_batch([(b"k", first[1])])),
                (2, record_batch([(b"k", first[2])])), (3, bytes(corrupt)), (9, record_batch([(b"k", b"v")]))],
        21, acks=-1)
    req2 = produce_request_partitions(topic, [(p, record_batch([(b"k2", second[p])])) for p in range(4)], 22, acks=1)

    with socket.create_connection((broker.host, broker.port), timeout=30) as sock:
        sock.sendall(req1 + req2)  # both on the wire at once
        r1, r2 = read_frame(sock), read_frame(sock)

    assert int.from_bytes(r1[:4], "big") == 21 and int.from_bytes(r2[:4], "big") == 22
    assert parse_produce_response_partitions(r1) == [(0, 0, 0), (1, 0, 0), (2, 0, 0), (3, 2, -1), (9, 3, -1)]
    assert parse_produce_response_partitions(r2) == [(0, 0, 1), (1, 0, 1), (2, 0, 1), (3, 0, 0)]

    consumer = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": topic, "enable.auto.commit": False,
                         "fetch.max.bytes": 16 * 1024 * 1024})
    try:
        consumer.assign([TopicPartition(topic, p, 0) for p in range(4)])
        got = {}
        while sum(len(v) for v in got.values()) < 7:
            msg = consumer.poll(10)
            assert msg is not None, "records not fetched back"
            assert msg.error() is None, msg.error()
            got.setdefault(msg.partition(), []).append((msg.offset(), msg.value()))
    finally:
        consumer.close()
    for p in range(3):
        assert got[p] == [(0, first[p]), (1, second[p])]
    assert got[3] == [(0, second[3])]
