"""Client quotas with a real client: user alice limited to 1 MiB/s of produce
(producer_byte_rate, set with AlterClientQuotas), user bob unlimited, both producing
flat out over SASL_PLAINTEXT + PLAIN. alice's client is held to its quota and sees
throttle_time_ms > 0; bob is not slowed.

Behaviour references: Kafka's ClientQuotaManager (rates per user / client-id,
precedence), QuotaUtils.throttleTime, KafkaApis.handleProduceRequest (the request's
bytes are recorded, the response carries throttle_time_ms and the channel is muted:
KIP-219). The broker runs with quota.window.num = 3 (Kafka's default is 11): the
algorithm is Kafka's, and with 3 one-second windows a 12 s measurement spans several
windows, so the initial burst Kafka allows (quota x (windows - 1) seconds) weighs
little. confluent-kafka is the client: librdkafka reports the throttle times it got.
"""

import json
import socket
import struct
import threading
import time
from types import SimpleNamespace

import pytest

from conftest import BrokerProcess, Driver, _ketch_binary, _missing

QUOTA = 1024 * 1024  # bytes per second
USERS = {"alice": "alice-secret", "bob": "bob-secret"}


def _string(s):
    b = s.encode()
    return struct.pack(">h", len(b)) + b


def _nullable_string(s):
    return struct.pack(">h", -1) if s is None else _string(s)


def alter_client_quotas(address, entries):
    """AlterClientQuotas v0 over a plain socket: entries are (entity dict, {key: value}).
    Returns the error codes of the answer."""
    body = struct.pack(">i", len(entries))
    for entity, ops in entries:
        body += struct.pack(">i", len(entity))
        for t, n in entity.items():
            body += _string(t) + _nullable_string(n)
        body += struct.pack(">i", len(ops))
        for k, v in ops.items():
            body += _string(k) + struct.pack(">d?", float(v), False)
    body += struct.pack(">?", False)
    header = struct.pack(">hhi", 49, 0, 7) + _string("quota-test")
    msg = header + body
    host, port = address.rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=10) as s:
        s.sendall(struct.pack(">i", len(msg)) + msg)
        size = struct.unpack(">i", _recv(s, 4))[0]
        payload = _recv(s, size)
    # correlation id, throttle_time_ms, entries: error_code, error_message, entity[]
    pos = 8
    (n,) = struct.unpack_from(">i", payload, pos)
    pos += 4
    codes = []
    for _ in range(n):
        (code, mlen) = struct.unpack_from(">hh", payload, pos)
        pos += 4 + max(mlen, 0)
        (ne,) = struct.unpack_from(">i", payload, pos)
        pos += 4
        for _ in range(ne):
            (tl,) = struct.unpack_from(">h", payload, pos)
            pos += 2 + tl
            (nl,) = struct.unpack_from(">h", payload, pos)
            pos += 2 + max(nl, 0)
        codes.append(code)
    return codes


def _recv(s, n):
    buf = b""
    while len(buf) < n:
        chunk = s.recv(n - len(buf))
        if not chunk:
            raise ConnectionError("closed")
        buf += chunk
    return buf


@pytest.fixture(scope="module")
def quota_broker(tmp_path_factory):
    run = tmp_path_factory.mktemp("quota-broker")
    toml = run / "ketch.toml"
    toml.write_text("".join('[[users]]\nname = "%s"\npassword = "%s"\n' % kv for kv in USERS.items()))
    (run / "data").mkdir()
    b = BrokerProcess(_ketch_binary(), run / "data", run, [
        "--config", str(toml), "--quota-window-num", "3",
        "--listener", "PLAINTEXT=PLAINTEXT://127.0.0.1:0",
        "--listener", "SASL_PLAINTEXT=SASL_PLAINTEXT://127.0.0.1:0"])
    b.start()
    listeners = json.loads((run / "data" / "listeners.json").read_text())["listeners"]
    b.addresses = {name: v["address"] for name, v in listeners.items()}
    yield b
    b.stop()


def sasl(user):
    return {"security.protocol": "SASL_PLAINTEXT", "sasl.mechanisms": "PLAIN",
            "sasl.username": user, "sasl.password": USERS[user]}


def test_a_throttled_user_is_held_to_its_quota_and_never_slows_another(quota_broker):
    why = _missing("confluent")
    if why:
        pytest.skip(why)
    assert alter_client_quotas(quota_broker.addresses["PLAINTEXT"],
                               [({"user": "alice"}, {"producer_byte_rate": QUOTA})]) == [0]
    drv = Driver("confluent", SimpleNamespace(bootstrap=quota_broker.addresses["SASL_PLAINTEXT"]))

    def flood(user, topic, ms):
        return drv("produce-flood", {"topic": topic, "duration_ms": ms, "value_size": 1000, "config": sasl(user)})

    bob_alone = flood("bob", "quota-bob-alone", 3000)
    out = {}
    threads = [threading.Thread(target=lambda: out.__setitem__("alice", flood("alice", "quota-alice", 14500))),
               threading.Thread(target=lambda: out.__setitem__("bob", flood("bob", "quota-bob", 3000)))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    alice, bob = out["alice"], out["bob"]

    # alice: 12 s from her first acknowledged record, i.e. four 3-window spans.
    slots = alice["acked_bytes_per_100ms"]
    first = next(i for i, n in enumerate(slots) if n > 0)
    measured = slots[first:first + 120]
    assert len(measured) == 120, "alice's run ended early: %s" % slots
    rate = sum(measured) / 12.0
    print("alice %.0f B/s, throttle max %s ms; bob %.0f B/s beside alice, %.0f B/s alone" % (rate, alice["throttle_time_ms_max"], bob["bytes"] / 3.0, bob_alone["bytes"] / 3.0))
    assert abs(rate - QUOTA) <= 0.10 * QUOTA, "alice produced %.0f B/s, quota %d B/s" % (rate, QUOTA)
    assert alice["throttle_time_ms_max"] > 0, alice["throttle_time_ms_max"]

    # bob: unthrottled, far above alice's quota, and not slowed by alice's throttling
    # (tolerant: the machine is shared; both runs last 3 s).
    assert bob["throttle_time_ms_max"] == 0 and bob_alone["throttle_time_ms_max"] == 0
    bob_rate, alone_rate = bob["bytes"] / 3.0, bob_alone["bytes"] / 3.0
    assert bob_rate > 5 * QUOTA, "bob produced only %.0f B/s" % bob_rate
    assert bob_rate >= 0.5 * alone_rate, "bob: %.0f B/s beside alice, %.0f B/s alone" % (bob_rate, alone_rate)


def test_a_consumer_over_its_byte_rate_is_slowed_and_still_reads_everything(quota_broker):
    """consumer_byte_rate for a client-id (no user quota applies: the client-id level
    does): each fetch asks for at most quota x (windows - 1) bytes, a fetch over the
    quota is answered empty with throttle_time_ms (KafkaApis.handleFetchRequest), so
    4 MiB at 1 MiB/s takes seconds longer than without the quota, and nothing is lost."""
    why = _missing("confluent")
    if why:
        pytest.skip(why)
    assert alter_client_quotas(quota_broker.addresses["PLAINTEXT"],
                               [({"client-id": "slow-consumer"}, {"consumer_byte_rate": QUOTA})]) == [0]
    drv = Driver("confluent", SimpleNamespace(bootstrap=quota_broker.addresses["SASL_PLAINTEXT"]))
    count = 4096
    out = drv("produce-generated", {"topic": "quota-fetch", "partition": 0, "count": count, "key_count": count,
                                    "value_size": 1024, "config": sasl("bob")})
    assert out["errors"] == {} and out["dense"], out

    def timed_consume(client_id):
        t0 = time.monotonic()
        got = drv("consume", {"topic": "quota-fetch", "partitions": [0], "from": "beginning", "max_records": count,
                              "timeout_ms": 30000, "config": {**sasl("bob"), "client.id": client_id}})
        return time.monotonic() - t0, [r["offset"] for r in got["records"]]

    free_s, free_offsets = timed_consume("free-consumer")
    slow_s, slow_offsets = timed_consume("slow-consumer")
    first = out["first_offset"]
    assert free_offsets == slow_offsets == list(range(first, first + count))
    print("consume 4 MiB: %.1f s without a quota, %.1f s at 1 MiB/s" % (free_s, slow_s))
    assert slow_s >= free_s + 1.0, "the quota did not slow the consumer: %.1f s vs %.1f s" % (slow_s, free_s)
