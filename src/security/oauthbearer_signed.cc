// Kafka's OAuthBearerValidatorCallbackHandler with its default
// ValidatorAccessTokenValidator: SerializedJwt, then jose4j's JwtConsumer
// (alg "none" refused, the key from the JWKS by kid, the signature, exp and
// iat required, exp / nbf with the clock skew, aud and iss as configured),
// then ClaimValidationUtils (scope, sub). Every failure is "invalid_token";
// the reason goes to the broker log only. Messages follow jose4j's.
#include <algorithm>

#include "security/jwt.h"
#include "security/oauthbearer_validator.h"

namespace ketch::security {

namespace {

oauthbearer_check signed_fail(std::string detail) {
    return {std::nullopt, "invalid_token", std::nullopt, "Could not validate the access token: " + std::move(detail)};
}

class signed_validator final : public oauthbearer_validator {
public:
    explicit signed_validator(signed_validator_options o) : o_(std::move(o)) {}
    oauthbearer_check validate(std::string_view token, int64_t now_ms) const override;

private:
    std::string verify_signature(const jwt& t) const;
    std::string check_times(const jwt& t, int64_t now_ms, oauthbearer_token& out) const;
    std::string check_audience_issuer(const nlohmann::json& claims) const;
    std::string take_sub_scope(const nlohmann::json& claims, oauthbearer_token& out) const;
    signed_validator_options o_;
};

std::string signed_validator::verify_signature(const jwt& t) const {
    auto alg = t.header.find("alg");
    std::string a = alg != t.header.end() && alg->is_string() ? alg->get<std::string>() : "";
    if (a == "none" || a.empty())
        return "'" + (a.empty() ? std::string("(missing)") : a) + "' is not a permitted algorithm";
    if (!supported_jws_alg(a)) return "'" + a + "' is not a supported algorithm (RS256, ES256)";
    auto kid_it = t.header.find("kid");
    std::string kid = kid_it != t.header.end() && kid_it->is_string() ? kid_it->get<std::string>() : "";
    auto keys = o_.keys ? o_.keys->get() : nullptr;
    if (!keys) return "no JWKS loaded";
    std::string why;
    const jwk* k = keys->find(kid, a, why);
    if (!k) {
        if (!kid.empty()) o_.keys->request_refresh();
        return why;
    }
    if (!verify_jws(a, k->key.get(), t.signing_input, t.signature)) return "JWS signature is invalid";
    return {};
}

std::string signed_validator::check_times(const jwt& t, int64_t now_ms, oauthbearer_token& out) const {
    bool bad = false;
    auto exp = claim_time_ms(t.claims, "exp", bad);
    auto iat = claim_time_ms(t.claims, "iat", bad);
    auto nbf = claim_time_ms(t.claims, "nbf", bad);
    if (bad) return "a NumericDate claim (exp, iat, nbf) is not a number";
    if (!exp) return "No Expiration Time (exp) claim present.";
    if (!iat) return "No Issued At (iat) claim present.";
    const int64_t skew_ms = o_.clock_skew_s * 1000;
    const std::string leeway =
        " (even when providing " + std::to_string(o_.clock_skew_s) + " seconds of leeway to account for clock skew).";
    if (now_ms >= *exp + skew_ms)
        return "The JWT is no longer valid - the evaluation time " + std::to_string(now_ms / 1000) +
               " is on or after the Expiration Time (exp=" + std::to_string(*exp / 1000) + ") claim value" + leeway;
    if (nbf && now_ms + skew_ms < *nbf)
        return "The JWT is not yet valid as the evaluation time " + std::to_string(now_ms / 1000) +
               " is before the Not Before (nbf=" + std::to_string(*nbf / 1000) + ") claim time" + leeway;
    if (*exp < 0) return "exp value must be non-negative";
    if (*iat < 0) return "iat value must be null or non-negative";
    out.expires_ms = *exp;
    out.issued_ms = iat;
    return {};
}

std::string signed_validator::check_audience_issuer(const nlohmann::json& claims) const {
    auto aud = claims.find("aud");
    std::vector<std::string> auds;
    if (aud != claims.end() && aud->is_string())
        auds.push_back(aud->get<std::string>());
    else if (aud != claims.end() && aud->is_array())
        for (auto& a : *aud)
            if (a.is_string()) auds.push_back(a.get<std::string>());
    // jose4j's default AudValidator: an aud claim must name an expected audience, even with none configured.
    if (aud == claims.end() && !o_.audiences.empty()) return "No Audience (aud) claim present.";
    if (aud != claims.end()) {
        bool ok = std::any_of(auds.begin(), auds.end(), [&](const std::string& a) {
            return std::find(o_.audiences.begin(), o_.audiences.end(), a) != o_.audiences.end();
        });
        if (!ok)
            return "Audience (aud) claim " + aud->dump() +
                   (o_.audiences.empty() ? " present in the JWT but no expected audience value(s) were provided"
                                         : " doesn't contain an acceptable identifier.");
    }
    if (o_.issuer.empty()) return {};
    auto iss = claims.find("iss");
    if (iss == claims.end() || !iss->is_string()) return "No Issuer (iss) claim present but was expecting " + o_.issuer;
    if (iss->get<std::string>() != o_.issuer)
        return "Issuer (iss) claim value (" + iss->get<std::string>() + ") doesn't match expected value of " +
               o_.issuer;
    return {};
}

std::string signed_validator::take_sub_scope(const nlohmann::json& claims, oauthbearer_token& out) const {
    auto sub = claims.find(o_.sub_claim);
    if (sub != claims.end() && !sub->is_null() && !sub->is_string())
        return "Could not extract the '" + o_.sub_claim + "' claim from the access token";
    std::string s = sub != claims.end() && sub->is_string() ? sub->get<std::string>() : "";
    if (sub == claims.end() || sub->is_null()) return o_.sub_claim + " value must be non-null";
    if (s.empty()) return o_.sub_claim + " value must be non-empty";
    if (trimmed(s).empty()) return o_.sub_claim + " value must not contain only whitespace";
    out.principal = trimmed(s);
    auto scope = claims.find(o_.scope_claim);
    std::vector<std::string> items;
    if (scope != claims.end() && scope->is_string())
        items.push_back(scope->get<std::string>());
    else if (scope != claims.end() && scope->is_array())
        for (auto& e : *scope) items.push_back(e.is_string() ? e.get<std::string>() : e.dump());
    for (auto& i : items) {
        auto v = trimmed(i);
        if (v.empty()) return o_.scope_claim + " value must be non-empty";
        if (!out.scope.insert(v).second)
            return o_.scope_claim + " value must not contain duplicates - " + v + " already present";
    }
    return {};
}

oauthbearer_check signed_validator::validate(std::string_view token, int64_t now_ms) const {
    auto p = parse_jwt(trimmed(token), false);
    if (!p.token) return signed_fail("Malformed JWT provided; " + p.error);
    oauthbearer_token out;
    if (auto why = verify_signature(*p.token); !why.empty()) return signed_fail(why);
    if (auto why = check_times(*p.token, now_ms, out); !why.empty()) return signed_fail(why);
    if (auto why = check_audience_issuer(p.token->claims); !why.empty()) return signed_fail(why);
    if (auto why = take_sub_scope(p.token->claims, out); !why.empty()) return signed_fail(why);
    return {std::move(out), {}, std::nullopt, {}};
}

}  // namespace

std::unique_ptr<oauthbearer_validator> make_signed_validator(signed_validator_options o) {
    return std::make_unique<signed_validator>(std::move(o));
}

}  // namespace ketch::security
