"""SaslHandshake / SaslAuthenticate on the wire (non-flexible versions: Handshake
v0-1, Authenticate v0-1) and a SCRAM client written from RFC 5802 with the Python
standard library, independent of ketch's C++ implementation."""

import base64
import hashlib
import hmac
import os
import struct

from kafka_wire import Reader, frame, read_frame, request_header

SASL_HANDSHAKE = 17
SASL_AUTHENTICATE = 36
PRODUCE = 0
METADATA = 3


def handshake_request(mechanism, version=1, correlation_id=1):
    m = mechanism.encode()
    return frame(request_header(SASL_HANDSHAKE, version, correlation_id, False) + struct.pack(">h", len(m)) + m)


def parse_handshake_response(payload):
    r = Reader(payload)
    corr, err, n = r.take(">i"), r.take(">h"), r.take(">i")
    mechs = []
    for _ in range(max(n, 0)):
        ln = r.take(">h")
        mechs.append(payload[r.pos:r.pos + ln].decode())
        r.pos += ln
    return corr, err, mechs


def authenticate_request(token, version=1, correlation_id=2):
    return frame(request_header(SASL_AUTHENTICATE, version, correlation_id, False) + struct.pack(">i", len(token)) + token)


def parse_authenticate_response(payload, version=1):
    """(correlation_id, error_code, error_message, auth_bytes, session_lifetime_ms)"""
    r = Reader(payload)
    corr, err = r.take(">i"), r.take(">h")
    ln = r.take(">h")
    msg = None if ln < 0 else payload[r.pos:r.pos + ln].decode()
    r.pos += max(ln, 0)
    bl = r.take(">i")
    auth = payload[r.pos:r.pos + bl]
    r.pos += bl
    lifetime = r.take(">q") if version >= 1 else None
    return corr, err, msg, auth, lifetime


def metadata_request_v1(correlation_id=9):
    """Metadata v1 for no topics (null array: all topics)."""
    return frame(request_header(METADATA, 1, correlation_id, False) + struct.pack(">i", -1))


def produce_request_v3(correlation_id=5):
    """A Produce v3 header with an empty body: the broker must not read past the key."""
    return frame(request_header(PRODUCE, 3, correlation_id, False) + struct.pack(">hhii", -1, 1, 1000, 0))


def plain_token(user, password, authzid=""):
    return ("%s\0%s\0%s" % (authzid, user, password)).encode()


class ScramClient:
    """RFC 5802 client side: first(), final(server_first), verify(server_final)."""

    def __init__(self, mechanism, user, password):
        self.hash = {"SCRAM-SHA-256": hashlib.sha256, "SCRAM-SHA-512": hashlib.sha512}[mechanism]
        self.user, self.password = user, password
        self.nonce = base64.b64encode(os.urandom(18)).decode().replace("=", "")

    def first(self):
        self.bare = "n=%s,r=%s" % (self.user.replace("=", "=3D").replace(",", "=2C"), self.nonce)
        return ("n,," + self.bare).encode()

    def final(self, server_first):
        sf = server_first.decode()
        attrs = dict(a.split("=", 1) for a in sf.split(","))
        assert attrs["r"].startswith(self.nonce)
        salted = hashlib.pbkdf2_hmac(self.hash().name, self.password.encode(), base64.b64decode(attrs["s"]),
                                     int(attrs["i"]))
        client_key = hmac.new(salted, b"Client Key", self.hash).digest()
        stored_key = self.hash(client_key).digest()
        without_proof = "c=biws,r=" + attrs["r"]
        auth_message = ",".join([self.bare, sf, without_proof]).encode()
        signature = hmac.new(stored_key, auth_message, self.hash).digest()
        proof = bytes(a ^ b for a, b in zip(client_key, signature))
        server_key = hmac.new(salted, b"Server Key", self.hash).digest()
        self.expected_server_final = "v=" + base64.b64encode(
            hmac.new(server_key, auth_message, self.hash).digest()).decode()
        return (without_proof + ",p=" + base64.b64encode(proof).decode()).encode()


def exchange(sock, payload):
    sock.sendall(payload)
    return read_frame(sock)
