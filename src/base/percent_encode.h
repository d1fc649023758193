// Percent-encoding (RFC 3986 2.1) of URL path segments and query values.
#pragma once

#include <cctype>
#include <string>
#include <string_view>

namespace ketch {

// `s` with every byte but RFC 3986's unreserved characters (letters, digits,
// '-', '.', '_', '~') and those in `keep` written %XX (upper-case hex).
inline std::string percent_encode(std::string_view s, std::string_view keep = {}) {
    static constexpr char digits[] = "0123456789ABCDEF";
    std::string out;
    out.reserve(s.size());
    for (unsigned char c : s) {
        if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~' || keep.find(char(c)) != keep.npos) {
            out += char(c);
        } else {
            out += '%';
            out += digits[c >> 4];
            out += digits[c & 15];
        }
    }
    return out;
}

}  // namespace ketch
