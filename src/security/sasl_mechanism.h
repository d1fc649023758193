// One SASL mechanism's server side (RFC 4422): fed the client's tokens in
// order, answers a challenge, completion or failure. Mechanisms see only
// tokens and credentials, never sockets or Kafka frames.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "meta/credential_store.h"
#include "security/token_login.h"

namespace ketch::security {

// Where a step's credential lookup may look: `any` may read what a cache
// lacks from the store behind it (cluster mode: PostgreSQL, which blocks),
// `cache` answers from memory alone (meta::credential_store::find_cached,
// token_credentials::find_cached).
enum class sasl_lookup { any, cache };

struct sasl_step {
    // needs_read (lookup cache only): the credential is not in memory; the
    // mechanism is as it was before the token, which is evaluated again with
    // lookup any.
    enum class outcome { challenge, complete, failed, needs_read };
    outcome what = outcome::failed;
    std::string response;  // token for the client (challenge or final)
    // On failure: the message Kafka gives the client when the mechanism names
    // one (SaslAuthenticationException); empty for the generic "invalid
    // credentials" message (SaslException), which the session builds.
    std::string client_message;
    std::string detail;  // why, for the broker's log only
    std::string user;    // on completion: the authenticated user name
    // On completion by delegation token (SCRAM tokenauth=true): the session
    // is token-authenticated and ends when the token expires (ms from now).
    bool token_authenticated = false;
    int64_t credential_lifetime_ms = -1;  // -1: the credential does not expire

    static sasl_step fail(std::string client_message, std::string detail) {
        return {outcome::failed, {}, std::move(client_message), std::move(detail), {}};
    }
};

class sasl_mechanism {
public:
    virtual ~sasl_mechanism() = default;
    virtual sasl_step evaluate(std::string_view token) = 0;
    // The lookups of the next evaluate calls (any until set).
    void set_lookup(sasl_lookup how) { lookup_ = how; }

protected:
    sasl_lookup lookup_ = sasl_lookup::any;
};

// The mechanisms ketch serves, in the order SaslHandshake lists them.
const std::vector<std::string>& supported_mechanisms();
// A server for `mechanism` (one of supported_mechanisms()), or nullptr.
// `tokens`: delegation tokens for SCRAM logins by token; null: none.
std::unique_ptr<sasl_mechanism> make_mechanism(const std::string& mechanism, const meta::credential_store& creds,
                                               token_credentials* tokens = nullptr);

}  // namespace ketch::security
