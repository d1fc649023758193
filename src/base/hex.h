// Lower-case hexadecimal text of bytes (two digits a byte), as the console,
// the group records' JSON view and the conformance tools show raw bytes.
#pragma once

#include <string>

#include "base/bytes.h"

namespace ketch {

inline std::string to_hex(byte_view b) {
    static constexpr char digits[] = "0123456789abcdef";
    std::string out;
    out.reserve(b.size() * 2);
    for (auto x : b) {
        out.push_back(digits[x >> 4]);
        out.push_back(digits[x & 15]);
    }
    return out;
}

}  // namespace ketch
