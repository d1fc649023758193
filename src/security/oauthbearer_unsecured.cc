// Kafka's OAuthBearerUnsecuredValidatorCallbackHandler: an unsecured JWS
// (OAuthBearerUnsecuredJws) checked by OAuthBearerValidationUtils, in Kafka's
// order: the JWS itself (alg "none", no signature, exp and the principal
// claim present), then iat, exp, their consistency and the required scope.
#include <cstdio>
#include <stdexcept>

#include "base/split.h"
#include "security/jwt.h"
#include "security/oauthbearer_validator.h"

namespace ketch::security {

namespace {

std::string java_double(int64_t ms) {  // Java's %f of seconds
    char buf[64];
    std::snprintf(buf, sizeof buf, "%f", double(ms) / 1000.0);
    return buf;
}

std::string java_list(const std::vector<std::string>& v) {  // List.toString()
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + v[i];
    return s + "]";
}

// OAuthBearerUnsecuredJws.calculateScope: a string is one scope item, a list its non-blank items.
bool scope_of(const nlohmann::json& claims, const std::string& name, std::set<std::string>& out) {
    auto it = claims.find(name);
    if (it == claims.end() || it->is_null()) return true;
    if (it->is_string()) {
        if (auto v = trimmed(it->get<std::string>()); !v.empty()) out.insert(v);
        return true;
    }
    if (!it->is_array()) return false;
    for (auto& e : *it) {
        std::string v = trimmed(e.is_string() ? e.get<std::string>() : e.dump());
        if (!v.empty()) out.insert(v);
    }
    return true;
}

class unsecured_validator final : public oauthbearer_validator {
public:
    explicit unsecured_validator(unsecured_validator_options o) : o_(std::move(o)) {}
    oauthbearer_check validate(std::string_view token, int64_t now_ms) const override;

private:
    oauthbearer_check parse(std::string_view token) const;
    unsecured_validator_options o_;
};

oauthbearer_check unsecured_fail(std::string detail) {
    return {std::nullopt, "invalid_token", std::nullopt, std::move(detail)};
}

oauthbearer_check unsecured_validator::parse(std::string_view token) const {
    if (token.find("..") != std::string_view::npos)
        return unsecured_fail("Malformed compact serialization contains '..'");
    auto p = parse_jwt(token, true);
    if (!p.token)
        return unsecured_fail(
            "Unsecured JWS compact serializations must have 3 dot-separated Base64URL-encoded values: " + p.error);
    auto& t = *p.token;
    auto alg = t.header.find("alg");
    if (alg == t.header.end() || !alg->is_string() || alg->get<std::string>() != "none")
        return unsecured_fail("Unsecured JWS must have 'none' for an algorithm");
    if (!t.signature.empty()) return unsecured_fail("Unsecured JWS must not contain a digital signature");
    oauthbearer_token out;
    if (!scope_of(t.claims, o_.scope_claim, out.scope))
        return unsecured_fail("The '" + o_.scope_claim + "' claim was not of type List");
    bool bad = false;
    auto exp = claim_time_ms(t.claims, "exp", bad);
    if (bad) return unsecured_fail("The 'exp' claim was not of type Number");
    if (!exp) return unsecured_fail("No expiration time in JWT");
    out.expires_ms = *exp;
    auto sub = t.claims.find(o_.principal_claim);
    if (sub != t.claims.end() && !sub->is_null() && !sub->is_string())
        return unsecured_fail("The '" + o_.principal_claim + "' claim was not of type String");
    if (sub == t.claims.end() || !sub->is_string() || trimmed(sub->get<std::string>()).empty())
        return unsecured_fail("No principal name in JWT claim: " + o_.principal_claim);
    out.principal = sub->get<std::string>();
    out.issued_ms = claim_time_ms(t.claims, "iat", bad);
    if (bad) return unsecured_fail("The 'iat' claim was not of type Number");
    return {std::move(out), {}, std::nullopt, {}};
}

oauthbearer_check unsecured_validator::validate(std::string_view token, int64_t now_ms) const {
    auto c = parse(token);
    if (!c.token) return c;
    auto& t = *c.token;
    const int64_t skew = o_.clock_skew_ms;
    if (t.issued_ms && *t.issued_ms > now_ms + skew)
        return unsecured_fail("The Issued At value (" + java_double(*t.issued_ms) +
                              " seconds) was after the indicated time (" + std::to_string(now_ms) +
                              " ms) plus allowable clock skew (" + std::to_string(skew) + " ms)");
    if (now_ms - skew >= t.expires_ms)
        return unsecured_fail("The indicated time (" + std::to_string(now_ms) + " ms) minus allowable clock skew (" +
                              std::to_string(skew) + " ms) was on or after the Expiration Time value (" +
                              java_double(t.expires_ms) + " seconds)");
    if (t.issued_ms && t.expires_ms <= *t.issued_ms)
        return unsecured_fail("The Expiration Time time (" + java_double(t.expires_ms) +
                              " seconds) was not after the Issued At time (" + java_double(*t.issued_ms) + " seconds)");
    for (auto& s : o_.required_scope) {
        if (t.scope.count(s)) continue;
        std::vector<std::string> have(t.scope.begin(), t.scope.end());
        return {std::nullopt, "insufficient_scope", java_list(o_.required_scope),
                "The provided scope (" + java_list(have) + ") was missing a required scope (" + s +
                    ").  All required scope elements: " + java_list(o_.required_scope)};
    }
    return c;
}

}  // namespace

std::unique_ptr<oauthbearer_validator> make_unsecured_validator(unsecured_validator_options o) {
    return std::make_unique<unsecured_validator>(std::move(o));
}

std::vector<std::string> parse_scope(std::string_view space_delimited) {
    auto out = split_nonempty(space_delimited, ' ');
    for (const auto& item : out)
        for (unsigned char ch : item)  // [\x23-\x5B\x5D-\x7E\x21]+
            if (!(ch == 0x21 || (ch >= 0x23 && ch <= 0x5B) || (ch >= 0x5D && ch <= 0x7E)))
                throw std::invalid_argument("Invalid scope value: " + item);
    return out;
}

}  // namespace ketch::security
