#include "base/uuid.h"

#include <random>

namespace ketch {

namespace {
constexpr char k_alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

int decode_char(char c) {
    for (int i = 0; i < 64; ++i)
        if (k_alphabet[i] == c) return i;
    return -1;
}
}  // namespace

uuid uuid::random() {
    static thread_local std::mt19937_64 rng{std::random_device{}()};
    for (;;) {
        uuid u;
        for (int i = 0; i < 16; i += 8) {
            uint64_t r = rng();
            for (int j = 0; j < 8; ++j) u.b[i + j] = uint8_t(r >> (8 * j));
        }
        u.b[6] = uint8_t((u.b[6] & 0x0f) | 0x40);  // version 4
        u.b[8] = uint8_t((u.b[8] & 0x3f) | 0x80);  // IETF variant
        // Kafka reserves the zero uuid and refuses ids whose string form
        // starts with '-' (ambiguous on command lines).
        if (u.is_zero() || u.to_base64()[0] == '-') continue;
        return u;
    }
}

std::string uuid::to_base64() const {
    std::string out;
    out.reserve(22);
    uint32_t acc = 0;
    int bits = 0;
    for (uint8_t x : b) {
        acc = (acc << 8) | x;
        bits += 8;
        while (bits >= 6) {
            bits -= 6;
            out.push_back(k_alphabet[(acc >> bits) & 63]);
        }
    }
    if (bits > 0) out.push_back(k_alphabet[(acc << (6 - bits)) & 63]);
    return out;
}

std::optional<uuid> uuid::from_base64(std::string_view s) {
    if (s.size() != 22) return std::nullopt;
    uuid u;
    uint32_t acc = 0;
    int bits = 0;
    size_t n = 0;
    for (char c : s) {
        int v = decode_char(c);
        if (v < 0) return std::nullopt;
        acc = (acc << 6) | uint32_t(v);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            if (n < 16) u.b[n++] = uint8_t(acc >> bits);
        }
    }
    return n == 16 ? std::optional<uuid>(u) : std::nullopt;
}

}  // namespace ketch
