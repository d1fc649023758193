// A JSON Web Token in compact serialization (RFC 7519 / RFC 7515):
// header.payload.signature, each base64url. Parsing only; what the claims
// must say is the validators' business (oauthbearer_validator.h).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace ketch::security {

// base64url (RFC 4648 section 5) without padding, as JWTs carry it; padding
// and the standard alphabet ('+', '/') are accepted too. nullopt when `text`
// is not base64.
std::optional<std::string> base64url_decode(std::string_view text);
std::string base64url_encode(std::string_view raw);

struct jwt {
    nlohmann::json header;      // a JSON object
    nlohmann::json claims;      // a JSON object
    std::string signing_input;  // "header.payload", what the signature covers
    std::string signature;      // raw bytes (empty for an unsecured JWS)
};

struct jwt_parse {
    std::optional<jwt> token;
    std::string error;  // why not, when !token
};

// Three dot-separated sections; header and payload decode to JSON objects.
// `allow_empty_signature`: an unsecured JWS ("alg":"none") has none.
jwt_parse parse_jwt(std::string_view compact, bool allow_empty_signature);

// A NumericDate claim (seconds since the epoch, possibly fractional) in
// milliseconds, rounded as Kafka's Math.round(seconds * 1000); nullopt when
// the claim is absent. `bad` is set when it is present but not a number.
std::optional<int64_t> claim_time_ms(const nlohmann::json& claims, const std::string& name, bool& bad);

// `s` without its leading and trailing blanks (" \t\r\n"): a token or claim as both validators compare it.
std::string trimmed(std::string_view s);

}  // namespace ketch::security
