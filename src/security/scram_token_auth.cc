// SCRAM's credential lookup, by user or by delegation token: Kafka's
// ScramSaslServer.evaluateResponse (RECEIVE_CLIENT_FIRST_MESSAGE) with
// ScramServerCallbackHandler and DelegationTokenCache.
#include <algorithm>
#include <cctype>

#include "security/scram.h"

namespace ketch::security {

bool scram_token_auth_requested(std::string_view extensions) {
    while (!extensions.empty()) {
        auto comma = extensions.find(',');
        std::string_view kv = extensions.substr(0, comma);
        extensions = comma == std::string_view::npos ? std::string_view{} : extensions.substr(comma + 1);
        auto eq = kv.find('=');
        if (eq == std::string_view::npos || kv.substr(0, eq) != "tokenauth") continue;
        std::string_view v = kv.substr(eq + 1);
        return v.size() == 4 && std::equal(v.begin(), v.end(), "true",
                                           [](char a, char b) { return std::tolower((unsigned char)a) == b; });
    }
    return false;
}

std::optional<sasl_step> scram_server::find_credential(std::string_view extensions) {
    const bool cache_only = lookup_ == sasl_lookup::cache;
    if (!scram_token_auth_requested(extensions)) {
        auto cred = cache_only ? creds_.find_cached(user_, mechanism_) : creds_.find(user_, mechanism_);
        if (!cred && cache_only) return sasl_step{sasl_step::outcome::needs_read};
        if (!cred) return sasl_step::fail({}, "unknown user " + user_);
        cred_ = std::move(*cred);
        return std::nullopt;
    }
    // "Token Authentication failed: Invalid tokenId" (a SaslException: the
    // client gets the generic message). An expired token is refused here too.
    std::optional<token_login> login;
    if (tokens_) login = cache_only ? tokens_->find_cached(user_, mechanism_) : tokens_->find(user_, mechanism_);
    if (!login && cache_only && tokens_) return sasl_step{sasl_step::outcome::needs_read};
    if (!login) return sasl_step::fail({}, "token authentication failed: unknown or expired token id " + user_);
    cred_ = std::move(login->credential);
    user_ = std::move(login->owner_name);
    token_auth_ = true;
    token_lifetime_ms_ = std::max<int64_t>(0, login->lifetime_ms);
    return std::nullopt;
}

}  // namespace ketch::security
