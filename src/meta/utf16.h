// Java's String.length() of UTF-8 text: Kafka measures names and config
// values in UTF-16 code units.
#pragma once

#include <cstddef>
#include <string_view>

namespace ketch::meta {

// A well-formed 4-byte UTF-8 sequence counts 2, any other sequence 1; a stray
// byte counts 1 (Java's decoder turns it into one U+FFFD).
inline size_t utf16_length(std::string_view s) {
    size_t n = 0;
    for (size_t i = 0; i < s.size();) {
        auto c = static_cast<unsigned char>(s[i]);
        size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 1;
        if (i + len > s.size()) len = 1;
        for (size_t j = 1; j < len; ++j)
            if ((static_cast<unsigned char>(s[i + j]) & 0xc0) != 0x80) len = 1;
        n += len == 4 ? 2 : 1;
        i += len;
    }
    return n;
}

}  // namespace ketch::meta
