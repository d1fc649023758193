#include "security/jwt.h"

#include <cmath>

#include "security/crypto.h"

namespace ketch::security {

namespace {

// `s` without its '=' padding, in the other alphabet: base64's "+/" and
// base64url's "-_" are its only two characters that differ.
std::string unpadded_swapped(std::string s, char from62, char from63, char to62, char to63) {
    while (!s.empty() && s.back() == '=') s.pop_back();
    for (char& c : s) {
        if (c == from62)
            c = to62;
        else if (c == from63)
            c = to63;
    }
    return s;
}

}  // namespace

std::optional<std::string> base64url_decode(std::string_view text) {
    std::string s = unpadded_swapped(std::string(text), '-', '_', '+', '/');
    if (s.size() % 4 == 1) return std::nullopt;
    s.append((4 - s.size() % 4) % 4, '=');
    return base64_decode(s);
}

std::string base64url_encode(std::string_view raw) { return unpadded_swapped(base64_encode(raw), '+', '/', '-', '_'); }

namespace {

std::optional<nlohmann::json> json_object(std::string_view b64) {
    auto raw = base64url_decode(b64);
    if (!raw) return std::nullopt;
    auto j = nlohmann::json::parse(*raw, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return std::nullopt;
    return j;
}

}  // namespace

jwt_parse parse_jwt(std::string_view compact, bool allow_empty_signature) {
    auto d1 = compact.find('.');
    auto d2 = d1 == std::string_view::npos ? d1 : compact.find('.', d1 + 1);
    if (d2 == std::string_view::npos || compact.find('.', d2 + 1) != std::string_view::npos)
        return {std::nullopt, "expected three sections (header, payload, and signature)"};
    auto h = compact.substr(0, d1), p = compact.substr(d1 + 1, d2 - d1 - 1), s = compact.substr(d2 + 1);
    if (h.empty() || p.empty()) return {std::nullopt, "header or payload section missing"};
    if (s.empty() && !allow_empty_signature) return {std::nullopt, "signature section missing"};
    jwt t;
    auto header = json_object(h);
    if (!header) return {std::nullopt, "malformed header (not base64url JSON object)"};
    auto claims = json_object(p);
    if (!claims) return {std::nullopt, "malformed payload (not base64url JSON object)"};
    auto sig = base64url_decode(s);
    if (!sig) return {std::nullopt, "malformed signature (not base64url)"};
    t.header = std::move(*header);
    t.claims = std::move(*claims);
    t.signing_input = std::string(compact.substr(0, d2));
    t.signature = std::move(*sig);
    return {std::move(t), {}};
}

std::optional<int64_t> claim_time_ms(const nlohmann::json& claims, const std::string& name, bool& bad) {
    auto it = claims.find(name);
    if (it == claims.end() || it->is_null()) return std::nullopt;
    if (!it->is_number()) {
        bad = true;
        return std::nullopt;
    }
    double seconds = it->get<double>();
    if (!std::isfinite(seconds) || std::fabs(seconds) > 9.2e12) {
        bad = true;
        return std::nullopt;
    }
    return int64_t(std::llround(seconds * 1000));
}

std::string trimmed(std::string_view s) {
    auto b = s.find_first_not_of(" \t\r\n"), e = s.find_last_not_of(" \t\r\n");
    return b == std::string_view::npos ? std::string{} : std::string(s.substr(b, e - b + 1));
}

}  // namespace ketch::security
