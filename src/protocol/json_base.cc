#include "protocol/json_base.h"

#include <stdexcept>

namespace ketch::kafka {

static constexpr char k_b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string base64_encode(byte_view b) {
    std::string out;
    out.reserve((b.size() + 2) / 3 * 4);
    size_t i = 0;
    for (; i + 2 < b.size(); i += 3) {
        uint32_t v = uint32_t(b[i]) << 16 | uint32_t(b[i + 1]) << 8 | b[i + 2];
        for (int k = 18; k >= 0; k -= 6) out.push_back(k_b64[(v >> k) & 63]);
    }
    if (i < b.size()) {
        uint32_t v = uint32_t(b[i]) << 16 | (i + 1 < b.size() ? uint32_t(b[i + 1]) << 8 : 0);
        out.push_back(k_b64[(v >> 18) & 63]);
        out.push_back(k_b64[(v >> 12) & 63]);
        out.push_back(i + 1 < b.size() ? k_b64[(v >> 6) & 63] : '=');
        out.push_back('=');
    }
    return out;
}

bytes base64_decode(const std::string& s) {
    bytes out;
    uint32_t acc = 0;
    int bits = 0;
    for (char c : s) {
        if (c == '=') break;
        const char* p = std::char_traits<char>::find(k_b64, 64, c);
        if (!p) throw std::invalid_argument("bad base64");
        acc = (acc << 6) | uint32_t(p - k_b64);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out.push_back(uint8_t(acc >> bits));
        }
    }
    return out;
}

uuid uuid_from_json(const nlohmann::json& j) {
    auto u = uuid::from_base64(j.get<std::string>());
    if (!u) throw std::invalid_argument("bad uuid");
    return *u;
}

}  // namespace ketch::kafka
