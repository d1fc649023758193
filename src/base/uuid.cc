#include "base/uuid.h"

#include <cstring>
#include <random>

#include "base/base64.h"

namespace ketch {

namespace {
constexpr char k_alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
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
    // 22 characters of the URL-safe alphabet: 132 bits, the 16 bytes and 4 left over.
    if (s.size() != 22 || s.find_first_not_of(k_alphabet) != std::string_view::npos) return std::nullopt;
    auto raw = base64_decode(s);
    if (!raw || raw->size() != 16) return std::nullopt;
    uuid u;
    std::memcpy(u.b.data(), raw->data(), 16);
    return u;
}

}  // namespace ketch
