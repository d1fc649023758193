// Cluster mode: every broker must have the same --delegation-token-secret-key
// (a token's password is an HMAC under it, computed by whichever broker a
// client logs in at: docs/cluster.md "Security"). PostgreSQL keeps a verifier
// of the key — the HMAC-SHA256 of a fixed text under it, never the key — in
// ketch_secret_verifiers: the first broker with a key writes it, every other
// broker with a key must match it. A broker without a key checks nothing (it
// serves no token).
#pragma once

#include <string>

#include "cluster/pg_pool.h"

namespace ketch::app {

// The verifier of `key` (raw bytes).
std::string token_secret_verifier(const std::string& key);

// Throws std::runtime_error (the broker exits with code 1) when PostgreSQL
// holds another key's verifier, or cannot be reached. Nothing when `key` is
// empty.
void check_token_secret(cluster::pg_pool& pool, const std::string& key);

}  // namespace ketch::app
