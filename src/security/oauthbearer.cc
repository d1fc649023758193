#include "security/oauthbearer.h"

#include <algorithm>
#include <cctype>

#include "base/clock.h"

namespace ketch::security {

namespace {

constexpr char k_sep = '\x01';

bool saslname_char_ok(std::string_view s, size_t& i) {  // [\x01-\x7F&&[^=,]] | =2C | =3D
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == '=') {
        if (s.substr(i, 3) != "=2C" && s.substr(i, 3) != "=3D") return false;
        i += 3;
        return true;
    }
    if (c < 0x01 || c > 0x7F || c == ',') return false;
    ++i;
    return true;
}

bool key_ok(std::string_view k) {
    if (k.empty()) return false;
    for (char c : k)
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'))) return false;
    return true;
}

bool value_ok(std::string_view v) {  // [\x21-\x7E \t\r\n]+
    if (v.empty()) return false;
    for (unsigned char c : v)
        if (!((c >= 0x21 && c <= 0x7E) || c == ' ' || c == '\t' || c == '\r' || c == '\n')) return false;
    return true;
}

// "Bearer <token>": (\w+)[ ]+([-_~+/.a-zA-Z0-9]+=*); nullopt unless it matches with scheme "bearer".
std::optional<std::string> bearer_token(std::string_view auth, std::string& error) {
    size_t i = 0;
    while (i < auth.size() && (std::isalnum(static_cast<unsigned char>(auth[i])) || auth[i] == '_')) ++i;
    std::string scheme(auth.substr(0, i));
    size_t spaces = i;
    while (i < auth.size() && auth[i] == ' ') ++i;
    std::string_view token = auth.substr(i);
    size_t j = 0;
    while (j < token.size() && (std::isalnum(static_cast<unsigned char>(token[j])) ||
                                std::string_view("-_~+/.").find(token[j]) != std::string_view::npos))
        ++j;
    size_t body = j;
    while (j < token.size() && token[j] == '=') ++j;
    if (scheme.empty() || i == spaces || body == 0 || j != token.size()) {
        error = "Invalid OAUTHBEARER client first message: invalid 'auth' format";
        return std::nullopt;
    }
    for (auto& c : scheme) c = char(std::tolower(static_cast<unsigned char>(c)));
    if (scheme != "bearer") {
        error = "Invalid scheme in OAUTHBEARER client first message";
        return std::nullopt;
    }
    return std::string(token);
}

}  // namespace

oauthbearer_parse parse_oauthbearer_initial_response(std::string_view m) {
    const oauthbearer_parse invalid{std::nullopt, "Invalid OAUTHBEARER client first message"};
    if (m.substr(0, 2) != "n,") return invalid;
    size_t i = 2;
    oauthbearer_initial_response r;
    if (m.substr(i, 2) == "a=") {
        size_t start = i += 2;
        while (i < m.size() && m[i] != ',')
            if (!saslname_char_ok(m, i)) return invalid;
        if (i == start) return invalid;
        r.authzid = std::string(m.substr(start, i - start));
    }
    if (m.substr(i, 2) != std::string{',', k_sep}) return invalid;
    i += 2;
    // (key=value^A)* ^A, the whole rest of the message
    if (m.size() < i + 1 || m.back() != k_sep) return invalid;
    std::string_view pairs = m.substr(i, m.size() - i - 1);
    std::optional<std::string> auth;
    while (!pairs.empty()) {
        auto end = pairs.find(k_sep);
        if (end == std::string_view::npos) return invalid;
        auto kv = pairs.substr(0, end);
        auto eq = kv.find('=');
        if (eq == std::string_view::npos || !key_ok(kv.substr(0, eq)) || !value_ok(kv.substr(eq + 1))) return invalid;
        std::string key(kv.substr(0, eq)), value(kv.substr(eq + 1));
        if (key == "auth")
            auth = value;
        else
            r.extensions[key] = value;
        pairs.remove_prefix(end + 1);
    }
    if (!auth) return {std::nullopt, "Invalid OAUTHBEARER client first message: 'auth' not specified"};
    std::string error;
    auto token = bearer_token(*auth, error);
    if (!token) return {std::nullopt, error};
    r.token = std::move(*token);
    return {std::move(r), {}};
}

std::string oauthbearer_error_json(const std::string& status, const std::optional<std::string>& scope) {
    std::string j = "{\"status\":\"" + status + "\"";
    if (scope) j += ", \"scope\":\"" + *scope + "\"";
    return j + "}";
}

oauthbearer_server::oauthbearer_server(std::shared_ptr<const oauthbearer_validator> validator,
                                       std::function<int64_t()> wall_ms)
    : validator_(std::move(validator)), wall_ms_(std::move(wall_ms)) {
    if (!wall_ms_) wall_ms_ = ketch::wall_ms;
}

sasl_step oauthbearer_server::evaluate(std::string_view token) {
    if (token.size() == 1 && token[0] == k_sep && !error_.empty()) return sasl_step::fail(error_, error_detail_);
    error_.clear();
    auto p = parse_oauthbearer_initial_response(token);
    if (!p.response) return sasl_step::fail({}, p.error);
    if (!validator_) return sasl_step::fail({}, "no OAUTHBEARER validator configured");
    const int64_t now = wall_ms_();
    auto check = validator_->validate(p.response->token, now);
    if (!check.token) {
        error_ = oauthbearer_error_json(check.status, check.scope);
        error_detail_ = check.detail;
        return {sasl_step::outcome::challenge, error_, {}, check.detail, {}};
    }
    auto& t = *check.token;
    if (!p.response->authzid.empty() && p.response->authzid != t.principal)
        return sasl_step::fail("Authentication failed: Client requested an authorization id (" + p.response->authzid +
                                   ") that is different from the token's principal name (" + t.principal + ")",
                               "authzid differs from the token's principal");
    sasl_step s{sasl_step::outcome::complete, {}, {}, {}, t.principal};
    s.credential_lifetime_ms = std::max<int64_t>(t.expires_ms - now, 0);  // zeroIfNegative (clock skew)
    return s;
}

}  // namespace ketch::security
