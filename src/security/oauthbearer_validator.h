// Who an OAUTHBEARER token says the client is, and whether to believe it:
// Kafka's two server-side validators.
//   - unsecured: OAuthBearerUnsecuredValidatorCallbackHandler (unsecured JWS,
//     "alg":"none", for development only; OAuthBearerUnsecuredJws and
//     OAuthBearerValidationUtils rules).
//   - signed: OAuthBearerValidatorCallbackHandler (a JWS signed RS256 or
//     ES256 by a key of a JWKS; ValidatorAccessTokenValidator over jose4j's
//     JwtConsumer: exp and iat required, nbf, aud, iss, clock skew).
// Validators are immutable (the signed one reads its keys from a jwks_keys),
// so one serves every connection on any thread.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "security/jwks.h"

namespace ketch::security {

// A validated token (Kafka's OAuthBearerToken).
struct oauthbearer_token {
    std::string principal;
    int64_t expires_ms = 0;  // exp, ms since the epoch (lifetimeMs)
    std::optional<int64_t> issued_ms;
    std::set<std::string> scope;
};

struct oauthbearer_check {
    std::optional<oauthbearer_token> token;
    // On failure, the RFC 7628 error status and scope the client is told.
    std::string status = "invalid_token";  // or "insufficient_scope"
    std::optional<std::string> scope;
    std::string detail;  // why, for the broker's log only
};

class oauthbearer_validator {
public:
    virtual ~oauthbearer_validator() = default;
    // `now_ms`: wall-clock ms since the epoch.
    virtual oauthbearer_check validate(std::string_view token, int64_t now_ms) const = 0;
};

// unsecuredValidator* JAAS options of Kafka's unsecured validator.
struct unsecured_validator_options {
    std::string principal_claim = "sub";      // unsecuredValidatorPrincipalClaimName
    std::string scope_claim = "scope";        // unsecuredValidatorScopeClaimName
    std::vector<std::string> required_scope;  // unsecuredValidatorRequiredScope
    int64_t clock_skew_ms = 0;                // unsecuredValidatorAllowableClockSkewMs
};
std::unique_ptr<oauthbearer_validator> make_unsecured_validator(unsecured_validator_options o);

// sasl.oauthbearer.* broker settings of Kafka's validator.
struct signed_validator_options {
    std::shared_ptr<const jwks_keys> keys;  // sasl.oauthbearer.jwks.endpoint.url's keys
    std::vector<std::string> audiences;     // sasl.oauthbearer.expected.audience
    std::string issuer;                     // sasl.oauthbearer.expected.issuer ("": any)
    int64_t clock_skew_s = 30;              // sasl.oauthbearer.clock.skew.seconds
    std::string sub_claim = "sub";          // sasl.oauthbearer.sub.claim.name
    std::string scope_claim = "scope";      // sasl.oauthbearer.scope.claim.name
};
std::unique_ptr<oauthbearer_validator> make_signed_validator(signed_validator_options o);

// A space-delimited scope as Kafka's OAuthBearerScopeUtils.parseScope reads
// it; throws std::invalid_argument on an invalid item.
std::vector<std::string> parse_scope(std::string_view space_delimited);

}  // namespace ketch::security
