"""Every broker of a cluster must have the same --delegation-token-secret-key
(docs/cluster.md "Security"; app/cluster_secret.h): a token's password is an
HMAC under it, computed by whichever broker the client logs in at, so a
broker with another key would refuse (or mint other passwords for) every
token made through the others. PostgreSQL keeps a verifier of the key — an
HMAC-SHA256 of a fixed text under it, never the key — written by the first
broker started with one; a broker started with another key refuses to start
(exit code 1) and says why. Kafka asks the same of its brokers
(DelegationTokenManager: one delegation.token.secret.key on every broker) but
does not check it."""

import hashlib
import hmac

import pytest

KEY = "the-cluster-token-secret"
VERIFIED_TEXT = b"ketch delegation-token-secret-key verifier v1"  # app/cluster_secret.cc


def test_a_broker_with_another_token_secret_refuses_to_start(start_broker, postgres):
    start_broker(1, "--delegation-token-secret-key", KEY)
    stored = postgres.psql("SELECT name || '=' || encode(verifier, 'hex') FROM ketch_secret_verifiers")
    assert stored == ["delegation-token-secret-key=" + hmac.new(KEY.encode(), VERIFIED_TEXT, hashlib.sha256).hexdigest()]
    assert KEY.encode().hex() not in stored[0]

    with pytest.raises(RuntimeError, match="ketch exited with 1 before it was ready") as refused:
        start_broker(2, "--delegation-token-secret-key", "another-secret")
    assert "--delegation-token-secret-key differs from the one the cluster's other brokers use" in str(refused.value)

    # The same key starts; so does a broker without one (it serves no token).
    start_broker(3, "--delegation-token-secret-key", KEY)
    start_broker(4)
    assert postgres.psql("SELECT count(*) FROM ketch_secret_verifiers") == ["1"]
