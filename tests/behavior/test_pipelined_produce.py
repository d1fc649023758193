"""acks=all pipelining (issue 3, latency): a connection reads and appends a producer's next
request while the previous acks=all Produce waits for its fsync; the answers must still
come back exactly as a one-request-at-a-time broker gives them.

- On a PLAINTEXT and on an SSL listener (on TLS the connection reads the next request while
  it writes an answer through the same TLS connection: net/tls_socket.h); after a SASL login
  in test_sasl_wire.py. The script and its check: pipelined.py.
- 60 requests written back to back on one connection without reading — acks=all Produce to
  two partitions, with acks=1 Produce and ApiVersions between them — are answered in
  request order (correlation ids), every Produce without error, each partition's base
  offsets consecutive in request order (so appends happened in request order too).

Behaviour reference, Apache Kafka 4.3.1: the broker answers a connection's requests in the
order they were sent (clients match answers to in-flight requests by order and
correlation id): clients/src/main/java/org/apache/kafka/common/network/KafkaChannel.java
(one receive at a time), core/src/main/scala/kafka/network/SocketServer.scala
(Processor: mute after a receive, unmute after its response is sent).
"""

import json
import socket
import ssl

import pytest
from confluent_kafka.admin import AdminClient, NewTopic

import pipelined

pytestmark = pytest.mark.timeout(120)


def connect(broker, listener):
    if listener == "PLAINTEXT":
        return socket.create_connection((broker.host, broker.port), timeout=30)
    listeners = json.loads((broker.data_dir / "listeners.json").read_text())["listeners"]
    host, _, port = listeners["SSL"]["address"].rpartition(":")
    ctx = ssl.create_default_context()
    ctx.check_hostname, ctx.verify_mode = False, ssl.CERT_NONE  # ketch's own self-signed certificate
    return ctx.wrap_socket(socket.create_connection((host, int(port)), timeout=30))


@pytest.mark.ketch_args("--listener", "SSL=SSL://127.0.0.1:0")
@pytest.mark.parametrize("listener", ["PLAINTEXT", "SSL"])
def test_pipelined_produce_answers_in_request_order(broker, listener):
    topic = "pipelined"
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    admin.create_topics([NewTopic(topic, 2, 1)], operation_timeout=30)[topic].result(30)
    with connect(broker, listener) as sock:
        pipelined.send_and_check(sock, topic)
