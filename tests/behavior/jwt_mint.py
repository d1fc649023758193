"""JWTs signed at test time (RS256 / ES256) and the JWKS entries that verify
them, for brokers started with --sasl-oauthbearer-jwks (docs/security.md):
tests/clients/test_oauthbearer.py, tests/cluster/test_inter_broker_oauthbearer.py.
Needs the `cryptography` package; keys are made by the tests, none committed."""

import base64
import json

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature


def b64url(raw):
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def int_bytes(n, size=None):
    return n.to_bytes(size or (n.bit_length() + 7) // 8, "big")


def jwk(key, kid):
    """The public JWK of an RSA or P-256 private key."""
    pub = key.public_key().public_numbers()
    if isinstance(key, rsa.RSAPrivateKey):
        return {"kty": "RSA", "kid": kid, "use": "sig", "alg": "RS256", "n": b64url(int_bytes(pub.n)),
                "e": b64url(int_bytes(pub.e))}
    return {"kty": "EC", "kid": kid, "use": "sig", "crv": "P-256", "x": b64url(int_bytes(pub.x, 32)),
            "y": b64url(int_bytes(pub.y, 32))}


def signed_jwt(key, kid, claims):
    """A compact JWS of `claims` signed by `key` (RS256 for RSA, ES256 for P-256)."""
    alg = "RS256" if isinstance(key, rsa.RSAPrivateKey) else "ES256"
    head = b64url(json.dumps({"alg": alg, "typ": "JWT", "kid": kid}).encode())
    body = b64url(json.dumps(claims).encode())
    data = ("%s.%s" % (head, body)).encode()
    if alg == "RS256":
        sig = key.sign(data, padding.PKCS1v15(), hashes.SHA256())
    else:
        r, s = decode_dss_signature(key.sign(data, ec.ECDSA(hashes.SHA256())))
        sig = int_bytes(r, 32) + int_bytes(s, 32)
    return "%s.%s.%s" % (head, body, b64url(sig))
