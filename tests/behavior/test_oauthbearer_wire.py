"""SASL/OAUTHBEARER on the wire, unsecured JWTs (--sasl-oauthbearer-unsecured): the
mechanism list, the session lifetime of a token (KIP-368), and a refused token's
exchange: the RFC 7628 error JSON as the first SaslAuthenticate's auth_bytes, the
client's ^A, then SASL_AUTHENTICATION_FAILED (58) with the JSON as the message and
the connection closed.

Behaviour references (Kafka, clients/src/main/java/org/apache/kafka/common/security/):
oauthbearer/internals/OAuthBearerSaslServer.evaluateResponse,
authenticator/SaslServerAuthenticator (ReauthInfo, handleSaslToken; enabledMechanisms
in HashSet order).
"""

import base64
import json
import time

import pytest

import sasl_wire as sw
from test_sasl_wire import closed_by_peer, connect, start_broker


def b64url(raw):
    return base64.urlsafe_b64encode(raw).rstrip(b"=")


def first_message(claims):
    token = b64url(b'{"alg":"none"}') + b"." + b64url(json.dumps(claims).encode()) + b"."
    return b"n,,\x01auth=Bearer " + token + b"\x01\x01"


@pytest.fixture
def oauth_broker(tmp_path, request):
    b = start_broker(tmp_path, request, "--sasl-oauthbearer-unsecured")
    yield b
    b.stop()


def handshake(sock, mechanism="OAUTHBEARER"):
    return sw.parse_handshake_response(sw.exchange(sock, sw.handshake_request(mechanism)))


def test_oauthbearer_is_listed_last_as_kafka_lists_it(oauth_broker):
    with connect(oauth_broker.sasl_addr) as s:
        _, err, mechs = handshake(s, "GSSAPI")
        assert err == 33  # UNSUPPORTED_SASL_MECHANISM
        assert mechs == ["PLAIN", "SCRAM-SHA-512", "SCRAM-SHA-256", "OAUTHBEARER"]


def test_a_valid_token_logs_in_for_its_remaining_lifetime(oauth_broker):
    with connect(oauth_broker.sasl_addr) as s:
        assert handshake(s)[1] == 0
        exp = int(time.time()) + 60
        _, err, msg, auth, lifetime = sw.parse_authenticate_response(
            sw.exchange(s, sw.authenticate_request(first_message({"sub": "alice", "exp": exp}))))
        assert (err, auth) == (0, b""), msg
        assert 50000 < lifetime <= 60000
        answer = sw.exchange(s, sw.metadata_request_v1())
        assert int.from_bytes(answer[:4], "big") == 9  # served: its correlation id


def test_an_expired_token_gets_the_error_json_then_sasl_authentication_failed(oauth_broker):
    with connect(oauth_broker.sasl_addr) as s:
        assert handshake(s)[1] == 0
        expired = first_message({"sub": "alice", "exp": int(time.time()) - 10})
        _, err, msg, auth, _ = sw.parse_authenticate_response(sw.exchange(s, sw.authenticate_request(expired)))
        assert (err, auth) == (0, b'{"status":"invalid_token"}')
        _, err, msg, auth, _ = sw.parse_authenticate_response(
            sw.exchange(s, sw.authenticate_request(b"\x01", correlation_id=3)))
        assert (err, msg) == (58, '{"status":"invalid_token"}')
        assert closed_by_peer(s)


def test_a_malformed_first_message_fails_with_kafkas_generic_message(oauth_broker):
    with connect(oauth_broker.sasl_addr) as s:
        assert handshake(s)[1] == 0
        _, err, msg, _, _ = sw.parse_authenticate_response(sw.exchange(s, sw.authenticate_request(b"n,,auth=x")))
        assert err == 58
        assert msg == ("Authentication failed during authentication due to invalid credentials with SASL "
                       "mechanism OAUTHBEARER")
