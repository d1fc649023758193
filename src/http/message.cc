#include "http/message.h"

#include <algorithm>
#include <cctype>

namespace ketch::http {

namespace {

int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

}  // namespace

std::optional<std::string> request::query_value(const std::string& name) const {
    auto it = query.find(name);
    if (it == query.end()) return std::nullopt;
    return it->second;
}

bool request::query_flag(const std::string& name) const {
    auto v = query_value(name);
    if (!v) return false;
    std::string s = *v;
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return s == "true";
}

std::optional<std::string> request::header(const std::string& lower_name) const {
    auto it = headers.find(lower_name);
    if (it == headers.end()) return std::nullopt;
    return it->second;
}

const std::string& request::param(const std::string& name) const {
    static const std::string empty;
    auto it = params.find(name);
    return it == params.end() ? empty : it->second;
}

std::string percent_decode(std::string_view s, bool plus_is_space) {
    std::string out;
    out.reserve(s.size());
    for (size_t i = 0; i < s.size(); ++i) {
        char c = s[i];
        if (c == '%' && i + 2 < s.size()) {
            int hi = hex_value(s[i + 1]), lo = hex_value(s[i + 2]);
            if (hi >= 0 && lo >= 0) {
                out.push_back(char(hi * 16 + lo));
                i += 2;
                continue;
            }
        }
        out.push_back(plus_is_space && c == '+' ? ' ' : c);
    }
    return out;
}

std::multimap<std::string, std::string> parse_query(std::string_view query) {
    std::multimap<std::string, std::string> out;
    size_t start = 0;
    while (start < query.size()) {
        size_t amp = query.find('&', start);
        std::string_view part =
            query.substr(start, amp == std::string_view::npos ? std::string_view::npos : amp - start);
        if (!part.empty()) {
            size_t eq = part.find('=');
            std::string_view k = part.substr(0, eq);
            std::string_view v = eq == std::string_view::npos ? std::string_view{} : part.substr(eq + 1);
            out.emplace(percent_decode(k, true), percent_decode(v, true));
        }
        if (amp == std::string_view::npos) break;
        start = amp + 1;
    }
    return out;
}

}  // namespace ketch::http
