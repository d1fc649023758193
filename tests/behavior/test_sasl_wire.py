"""SASL and connection limits on the wire, against a ketch with a SASL_PLAINTEXT
listener and users from ketch.toml.

Behaviour references (Apache Kafka 4.3.1):
- clients/.../security/authenticator/SaslServerAuthenticator.java: before
  authentication only ApiVersions and SaslHandshake (anything else: the connection
  is closed); SASL_AUTHENTICATION_FAILED with the mechanism's message or "Authentication
  failed during authentication due to invalid credentials with SASL mechanism M";
  UNSUPPORTED_SASL_MECHANISM then close; SaslHandshake v0 then bare tokens;
  sasl.server.max.receive.size (524288) before authentication.
- clients/.../security/plain/internals/PlainSaslServer.java, scram/internals/ScramSaslServer.java.
- clients/.../network/KafkaChannel.java (KIP-368): an expired session is closed on its next request.
- core/.../network/SocketServer.scala ConnectionQuotas: max.connections.per.ip closes the new connection.
"""

import json
import socket
import struct
import time

import pytest
from confluent_kafka.admin import AdminClient, NewTopic

import kafka_wire as kw
import pipelined
import sasl_wire as sw
from conftest import _clients

USERS = {"alice": "alice-secret", "bob": "bob-secret"}
TIMEOUT = 10.0


def start_broker(tmp_path, request, *extra):
    toml = tmp_path / "ketch.toml"
    toml.write_text("".join('[[users]]\nname = "%s"\npassword = "%s"\n' % kv for kv in USERS.items()))
    (tmp_path / "data").mkdir()
    args = ["--config", str(toml), "--listener", "SASL=SASL_PLAINTEXT://127.0.0.1:0", *extra]
    b = _clients.BrokerProcess(_clients._ketch_binary(), tmp_path / "data", tmp_path, args)
    request.node.ketch_brokers = [b]
    b.start()
    listeners = json.loads((tmp_path / "data" / "listeners.json").read_text())["listeners"]
    host, _, port = listeners["SASL"]["address"].rpartition(":")
    b.sasl_addr = (host, int(port))
    return b


@pytest.fixture
def sasl_broker(tmp_path, request):
    b = start_broker(tmp_path, request)
    yield b
    b.stop()


def connect(addr):
    return socket.create_connection(addr, timeout=TIMEOUT)


def closed_by_peer(sock):
    """True when the broker closed the connection (EOF or reset) without sending anything."""
    try:
        return sock.recv(1) == b""
    except ConnectionResetError:
        return True


def login_plain(sock, user, password):
    _, err, _ = sw.parse_handshake_response(sw.exchange(sock, sw.handshake_request("PLAIN")))
    assert err == 0
    return sw.parse_authenticate_response(sw.exchange(sock, sw.authenticate_request(sw.plain_token(user, password))))


def test_produce_before_authentication_closes_the_connection(sasl_broker):
    with connect(sasl_broker.sasl_addr) as s:
        s.sendall(sw.produce_request_v3())
        assert closed_by_peer(s)


def test_metadata_after_api_versions_before_handshake_closes(sasl_broker):
    with connect(sasl_broker.sasl_addr) as s:
        s.sendall(kw.api_versions_request(3, 1))
        corr, err, keys = kw.parse_api_versions_response(kw.read_frame(s), 3)
        assert err == 0 and sw.SASL_HANDSHAKE in keys and sw.SASL_AUTHENTICATE in keys
        s.sendall(sw.metadata_request_v1())
        assert closed_by_peer(s)


def test_authenticate_before_handshake_closes(sasl_broker):
    with connect(sasl_broker.sasl_addr) as s:
        s.sendall(sw.authenticate_request(sw.plain_token("alice", USERS["alice"])))
        assert closed_by_peer(s)


def test_plain_login_then_requests_are_served(sasl_broker):
    with connect(sasl_broker.sasl_addr) as s:
        corr, err, mechs = sw.parse_handshake_response(sw.exchange(s, sw.handshake_request("PLAIN")))
        assert (corr, err) == (1, 0)
        assert mechs == ["PLAIN", "SCRAM-SHA-512", "SCRAM-SHA-256"]  # Kafka 4.3.1's order
        corr, err, msg, auth, lifetime = sw.parse_authenticate_response(
            sw.exchange(s, sw.authenticate_request(sw.plain_token("alice", USERS["alice"]))))
        assert (corr, err, auth, lifetime) == (2, 0, b"", 0)
        reply = sw.exchange(s, sw.metadata_request_v1())
        assert struct.unpack_from(">i", reply)[0] == 9


def test_plain_wrong_password_and_unknown_user_fail_with_kafkas_message(sasl_broker):
    for user, password in (("alice", "wrong"), ("nobody", "whatever")):
        with connect(sasl_broker.sasl_addr) as s:
            _, err, msg, _, _ = login_plain(s, user, password)
            assert err == 58  # SASL_AUTHENTICATION_FAILED
            assert msg == "Authentication failed: Invalid username or password"
            assert closed_by_peer(s)


@pytest.mark.parametrize("mechanism", ["SCRAM-SHA-256", "SCRAM-SHA-512"])
def test_scram_login_verifies_the_server_signature(sasl_broker, mechanism):
    with connect(sasl_broker.sasl_addr) as s:
        assert sw.parse_handshake_response(sw.exchange(s, sw.handshake_request(mechanism)))[1] == 0
        c = sw.ScramClient(mechanism, "bob", USERS["bob"])
        _, err, _, server_first, _ = sw.parse_authenticate_response(sw.exchange(s, sw.authenticate_request(c.first())))
        assert err == 0
        _, err, msg, server_final, lifetime = sw.parse_authenticate_response(
            sw.exchange(s, sw.authenticate_request(c.final(server_first), correlation_id=3)))
        assert (err, lifetime) == (0, 0), msg
        assert server_final.decode() == c.expected_server_final
        assert struct.unpack_from(">i", sw.exchange(s, sw.metadata_request_v1()))[0] == 9


def test_requests_pipelined_after_a_login_are_answered_in_order(sasl_broker):
    """A logged-in SASL connection pipelines acks=all Produce as PLAINTEXT does
    (net/connection.cc serve); the answers are a one-at-a-time broker's."""
    topic = "pipelined-sasl"
    admin = AdminClient({"bootstrap.servers": sasl_broker.bootstrap})
    admin.create_topics([NewTopic(topic, 2, 1)], operation_timeout=30)[topic].result(30)
    with connect(sasl_broker.sasl_addr) as s:
        assert login_plain(s, "alice", USERS["alice"])[1] == 0
        pipelined.send_and_check(s, topic)


@pytest.mark.parametrize("user,password", [("bob", "wrong"), ("nobody", "x")])
def test_scram_failures_answer_the_generic_message(sasl_broker, user, password):
    with connect(sasl_broker.sasl_addr) as s:
        assert sw.parse_handshake_response(sw.exchange(s, sw.handshake_request("SCRAM-SHA-512")))[1] == 0
        c = sw.ScramClient("SCRAM-SHA-512", user, password)
        _, err, msg, server_first, _ = sw.parse_authenticate_response(sw.exchange(s, sw.authenticate_request(c.first())))
        if err == 0:  # a known user fails at the proof
            _, err, msg, _, _ = sw.parse_authenticate_response(
                sw.exchange(s, sw.authenticate_request(c.final(server_first), correlation_id=3)))
        assert err == 58
        assert msg == ("Authentication failed during authentication due to invalid credentials with SASL "
                       "mechanism SCRAM-SHA-512")
        assert closed_by_peer(s)


def test_unsupported_mechanism_answers_33_then_closes(sasl_broker):
    with connect(sasl_broker.sasl_addr) as s:
        corr, err, mechs = sw.parse_handshake_response(sw.exchange(s, sw.handshake_request("GSSAPI")))
        assert err == 33 and "PLAIN" in mechs
        assert closed_by_peer(s)


def test_handshake_v0_takes_bare_tokens(sasl_broker):
    with connect(sasl_broker.sasl_addr) as s:
        assert sw.parse_handshake_response(sw.exchange(s, sw.handshake_request("PLAIN", version=0)))[1] == 0
        assert sw.exchange(s, kw.frame(sw.plain_token("alice", USERS["alice"]))) == b""
        assert struct.unpack_from(">i", sw.exchange(s, sw.metadata_request_v1()))[0] == 9


def test_handshake_on_the_plaintext_listener_is_illegal_sasl_state(sasl_broker):
    with connect((sasl_broker.host, sasl_broker.port)) as s:
        corr, err, mechs = sw.parse_handshake_response(sw.exchange(s, sw.handshake_request("PLAIN")))
        assert (err, mechs) == (34, [])


def test_large_frame_before_authentication_closes(sasl_broker):
    with connect(sasl_broker.sasl_addr) as s:
        s.sendall(struct.pack(">i", 524289) + b"\0" * 1024)
        assert closed_by_peer(s)


def test_session_lifetime_is_announced_and_an_expired_session_is_closed(tmp_path, request):
    b = start_broker(tmp_path, request, "--connections-max-reauth-ms", "300")
    try:
        with connect(b.sasl_addr) as s:
            _, err, _, _, lifetime = login_plain(s, "alice", USERS["alice"])
            assert (err, lifetime) == (0, 300)
            assert struct.unpack_from(">i", sw.exchange(s, sw.metadata_request_v1()))[0] == 9
            time.sleep(0.5)  # the session's lifetime passes: the subject of this test
            s.sendall(sw.metadata_request_v1())
            assert closed_by_peer(s)
    finally:
        b.stop()


def test_unauthenticated_connection_is_closed_after_the_auth_timeout(tmp_path, request):
    b = start_broker(tmp_path, request, "--auth-timeout-ms", "300")
    try:
        with connect(b.sasl_addr) as s:
            t0 = time.monotonic()
            assert closed_by_peer(s)
            assert time.monotonic() - t0 < TIMEOUT
    finally:
        b.stop()


def test_per_ip_limit_closes_the_extra_connection_and_idle_ones_are_closed(tmp_path, request):
    b = start_broker(tmp_path, request, "--max-connections-per-ip", "2", "--connections-max-idle-ms", "400")
    try:
        addr = (b.host, b.port)
        a1, a2 = connect(addr), connect(addr)
        for s in (a1, a2):  # both served
            s.sendall(kw.api_versions_request(3, 1))
            assert kw.parse_api_versions_response(kw.read_frame(s), 3)[1] == 0
        a3 = connect(addr)
        assert closed_by_peer(a3)
        # idle connections are closed (connections.max.idle.ms), freeing the slots
        assert closed_by_peer(a1) and closed_by_peer(a2)
        for s in (a1, a2, a3):
            s.close()

        def served():  # the slots free as the broker finishes closing them
            try:
                assert kw.api_versions(*addr)[1] == 0
            except (ConnectionError, OSError) as e:
                raise AssertionError(e)
        _clients.eventually(served, timeout=5)
    finally:
        b.stop()
