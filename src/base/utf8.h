// UTF-8 as Java reads it: Kafka is written in Java, so where a limit or an
// order depends on a string's characters (String.length(), hashCode(),
// equalsIgnoreCase) ketch decodes the bytes the way a Java String would hold them.
//
// Malformed input (a stray continuation byte, a truncated or overlong
// sequence, a surrogate, a value past U+10FFFF) decodes to U+FFFD and
// consumes one byte. Java's decoder does the same, except that it can take a
// truncated sequence's valid prefix as one U+FFFD where this takes one per
// byte; no name a client sends is malformed, so the difference is only ever
// seen by hostile input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace ketch {

inline constexpr uint32_t k_replacement_character = 0xfffd;

// Decodes the code point at s[i] (i < s.size()) and advances i past it.
constexpr uint32_t next_code_point(std::string_view s, size_t& i) {
    const auto c = static_cast<unsigned char>(s[i]);
    const size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
    if (len == 1) return ++i, c;
    if (len == 0 || i + len > s.size()) return ++i, k_replacement_character;
    uint32_t cp = c & (0x7fu >> len);
    for (size_t k = 1; k < len; ++k) {
        const auto b = static_cast<unsigned char>(s[i + k]);
        if ((b & 0xc0) != 0x80) return ++i, k_replacement_character;
        cp = (cp << 6) | (b & 0x3f);
    }
    constexpr uint32_t smallest[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < smallest[len] || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) return ++i, k_replacement_character;
    i += len;
    return cp;
}

// True when s is well-formed UTF-8 (U+FFFD itself, written out, is fine).
constexpr bool is_valid_utf8(std::string_view s) {
    for (size_t i = 0; i < s.size();) {
        const size_t at = i;
        if (next_code_point(s, i) == k_replacement_character && s.substr(at, i - at) != "\xef\xbf\xbd") return false;
    }
    return true;
}

// Java's String.length() of UTF-8 text: UTF-16 code units (two for a code
// point past U+FFFF). Kafka measures names and config values this way.
constexpr size_t utf16_length(std::string_view s) {
    size_t n = 0;
    for (size_t i = 0; i < s.size();) n += next_code_point(s, i) >= 0x10000 ? 2 : 1;
    return n;
}

// The largest prefix of s of at most max_bytes that does not cut a UTF-8
// sequence in two.
constexpr std::string_view utf8_prefix(std::string_view s, size_t max_bytes) {
    if (s.size() <= max_bytes) return s;
    size_t cut = max_bytes;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xc0) == 0x80) --cut;
    return s.substr(0, cut);
}

}  // namespace ketch
