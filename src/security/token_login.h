// What a SCRAM login by delegation token (client-first extension
// tokenauth=true) needs from the token cache: Kafka's ScramServerCallbackHandler
// with a DelegationTokenCredentialCallback. The token id is the SCRAM user
// name, base64(HMAC) the password; the principal is the token's owner.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "meta/credential_store.h"

namespace ketch::security {

struct token_login {
    meta::scram_credential credential;  // made from base64(HMAC), 4096 iterations
    std::string owner_name;             // the owner principal's name: the session's "User:<name>"
    int64_t lifetime_ms = 0;            // until the token's expiry: the session ends then (KIP-368)
};

class token_credentials {
public:
    virtual ~token_credentials() = default;
    // The credential of a live token; nullopt for an unknown or expired one.
    // Not const: a cache may read a token it lacks through to its store.
    virtual std::optional<token_login> find(const std::string& token_id, const std::string& mechanism) = 0;
    // find from memory alone: never a read of the store behind the cache.
    virtual std::optional<token_login> find_cached(const std::string& token_id, const std::string& mechanism) const = 0;
};

}  // namespace ketch::security
