// Cluster mode's delegation tokens (docs/cluster.md "Security"): the tokens
// in PostgreSQL (ketch_delegation_tokens), shared by every broker. Each
// change ends its transaction with NOTIFY ketch_commit 'tokens'; the brokers
// that hear it reload their security::delegation_tokens (its cache answers
// logins by token). The HMAC is not stored: every broker computes it from
// the token id and its delegation.token.secret.key, which must be the same
// on every broker (docs/design/cluster.md "Security").
#pragma once

#include <string>
#include <vector>

#include "meta/token_store.h"
#include "shared/pg_session.h"

namespace ketch::shared {

// The payload of the NOTIFY a token change sends on ketch_commit.
inline constexpr const char* k_tokens_changed = "tokens";

class pg_token_store final : public meta::token_store {
public:
    explicit pg_token_store(std::string url) : session_(std::move(url), "delegation tokens") {}

    result<std::vector<meta::delegation_token>, meta::store_error> load() override;
    status<meta::store_error> upsert(const meta::delegation_token& t) override;
    status<meta::store_error> remove(const std::string& token_id) override;
    result<bool, meta::store_error> set_expiry(const std::string& token_id, int64_t expiry_ms) override;

private:
    pg_session session_;
};

}  // namespace ketch::shared
