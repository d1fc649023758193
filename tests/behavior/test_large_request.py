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

from kafka_wire import api_versions_request, parse_produce_response, produce_request, read_frame, record_batch

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
