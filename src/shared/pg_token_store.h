// Cluster mode's delegation tokens (docs/cluster.md "Security"): the tokens
// in PostgreSQL (ketch_delegation_tokens), shared by every broker. Each
// change ends its transaction with NOTIFY ketch_commit 'tokens'; the brokers
// that hear it reload their security::delegation_tokens (its cache answers
// logins by token). The HMAC is not stored: every broker computes it from
// the token id and its delegation.token.secret.key, which must be the same
// on every broker (docs/design/cluster.md "Security").
#pragma once

#include <memory>
#include <string>

#include "cluster/pg_pool.h"
#include "meta/token_store.h"

namespace ketch::shared {

// The payload of the NOTIFY a token change sends on ketch_commit.
inline constexpr const char* k_tokens_changed = "tokens";

// The store of the cluster's delegation tokens.
std::unique_ptr<meta::token_store> make_pg_token_store(cluster::pg_pool& pool);

}  // namespace ketch::shared
