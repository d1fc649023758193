#include "base/crc32c.h"

#include <array>
#include <bit>
#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <nmmintrin.h>
#define KETCH_CRC32C_X86 1
#endif

namespace ketch {
namespace {

constexpr uint32_t k_poly = 0x82F63B78u;  // reflected Castagnoli polynomial

// tables[k][b]: CRC of byte b followed by k zero bytes (slicing-by-8).
constexpr std::array<std::array<uint32_t, 256>, 8> make_tables() {
    std::array<std::array<uint32_t, 256>, 8> t{};
    for (uint32_t b = 0; b < 256; ++b) {
        uint32_t c = b;
        for (int i = 0; i < 8; ++i) c = (c & 1) ? (c >> 1) ^ k_poly : c >> 1;
        t[0][b] = c;
    }
    for (size_t k = 1; k < 8; ++k)
        for (uint32_t b = 0; b < 256; ++b) t[k][b] = (t[k - 1][b] >> 8) ^ t[0][t[k - 1][b] & 0xFF];
    return t;
}

constexpr auto k_tables = make_tables();

using crc_fn = uint32_t (*)(uint32_t, const uint8_t*, size_t);

crc_fn pick() { return detail::crc32c_hw_available() ? detail::crc32c_hw : detail::crc32c_sw; }

}  // namespace

namespace detail {

// `crc` here is the raw register (already inverted); callers invert.
uint32_t crc32c_sw(uint32_t crc, const uint8_t* p, size_t n) {
    while (n >= 8) {
        uint64_t w;
        std::memcpy(&w, p, 8);
        if constexpr (std::endian::native == std::endian::big) w = __builtin_bswap64(w);
        w ^= crc;
        crc = k_tables[7][w & 0xFF] ^ k_tables[6][(w >> 8) & 0xFF] ^ k_tables[5][(w >> 16) & 0xFF] ^
              k_tables[4][(w >> 24) & 0xFF] ^ k_tables[3][(w >> 32) & 0xFF] ^ k_tables[2][(w >> 40) & 0xFF] ^
              k_tables[1][(w >> 48) & 0xFF] ^ k_tables[0][w >> 56];
        p += 8;
        n -= 8;
    }
    while (n--) crc = (crc >> 8) ^ k_tables[0][(crc ^ *p++) & 0xFF];
    return crc;
}

#ifdef KETCH_CRC32C_X86
__attribute__((target("sse4.2"))) uint32_t crc32c_hw(uint32_t crc, const uint8_t* p, size_t n) {
#if defined(__x86_64__)
    uint64_t c = crc;
    while (n >= 8) {
        uint64_t w;
        std::memcpy(&w, p, 8);
        c = _mm_crc32_u64(c, w);
        p += 8;
        n -= 8;
    }
    crc = uint32_t(c);
#endif
    while (n >= 4) {
        uint32_t w;
        std::memcpy(&w, p, 4);
        crc = _mm_crc32_u32(crc, w);
        p += 4;
        n -= 4;
    }
    while (n--) crc = _mm_crc32_u8(crc, *p++);
    return crc;
}

bool crc32c_hw_available() { return __builtin_cpu_supports("sse4.2"); }
#else
uint32_t crc32c_hw(uint32_t crc, const uint8_t* p, size_t n) { return crc32c_sw(crc, p, n); }
bool crc32c_hw_available() { return false; }
#endif

}  // namespace detail

uint32_t crc32c_extend(uint32_t crc, byte_view data) {
    static const crc_fn impl = pick();
    return ~impl(~crc, data.data(), data.size());
}

uint32_t crc32c(byte_view data) { return crc32c_extend(0, data); }

}  // namespace ketch
