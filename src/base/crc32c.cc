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

}  // namespace detail

#ifdef KETCH_CRC32C_X86
namespace {

// The crc32 instruction takes 3 cycles and a new one can start every cycle, so one dependent
// chain uses a third of it. Three chains over three adjacent blocks of `block` bytes run at
// once and are joined with the identity
//   reg(c, A ++ B) == zeros(reg(c, A), |B|) ^ reg(0, B)
// where zeros(r, n) is the register after n zero bytes: linear in r, so a table per byte of r.
using shift_table = std::array<std::array<uint32_t, 256>, 4>;

using matrix = std::array<uint32_t, 32>;  // column i: the image of register bit i

constexpr uint32_t times(const matrix& m, uint32_t v) {
    uint32_t r = 0;
    for (int i = 0; i < 32; ++i)
        if ((v >> i) & 1) r ^= m[i];
    return r;
}

// `block` a power of two: the one-zero-byte operator squared log2(block) times (few enough
// constant-evaluation steps for every compiler's limit).
constexpr shift_table make_shift(size_t block) {
    matrix basis{};  // zeros(1 << i, block)
    for (int i = 0; i < 32; ++i) {
        uint32_t c = uint32_t(1) << i;
        basis[i] = (c >> 8) ^ k_tables[0][c & 0xFF];
    }
    for (size_t n = 1; n < block; n *= 2) {
        matrix sq{};
        for (int i = 0; i < 32; ++i) sq[i] = times(basis, basis[i]);
        basis = sq;
    }
    shift_table t{};
    for (int k = 0; k < 4; ++k)
        for (uint32_t b = 0; b < 256; ++b)
            for (int j = 0; j < 8; ++j)
                if (b & (1u << j)) t[k][b] ^= basis[8 * k + j];
    return t;
}

constexpr size_t k_big_block = 4096, k_small_block = 256;
static_assert(std::has_single_bit(k_big_block) && std::has_single_bit(k_small_block));
constexpr shift_table k_shift_big = make_shift(k_big_block);
constexpr shift_table k_shift_small = make_shift(k_small_block);

uint32_t shift(const shift_table& t, uint32_t c) {
    return t[0][c & 0xFF] ^ t[1][(c >> 8) & 0xFF] ^ t[2][(c >> 16) & 0xFF] ^ t[3][c >> 24];
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) uint32_t three_chains(uint32_t crc, const uint8_t*& p, size_t& n, size_t block,
                                                        const shift_table& t) {
    while (n >= 3 * block) {
        uint64_t c0 = crc, c1 = 0, c2 = 0;
        for (size_t i = 0; i < block; i += 8) {
            uint64_t w0, w1, w2;
            std::memcpy(&w0, p + i, 8);
            std::memcpy(&w1, p + block + i, 8);
            std::memcpy(&w2, p + 2 * block + i, 8);
            c0 = _mm_crc32_u64(c0, w0);
            c1 = _mm_crc32_u64(c1, w1);
            c2 = _mm_crc32_u64(c2, w2);
        }
        crc = shift(t, shift(t, uint32_t(c0)) ^ uint32_t(c1)) ^ uint32_t(c2);
        p += 3 * block;
        n -= 3 * block;
    }
    return crc;
}
#endif

}  // namespace

namespace detail {

__attribute__((target("sse4.2"))) uint32_t crc32c_hw(uint32_t crc, const uint8_t* p, size_t n) {
#if defined(__x86_64__)
    crc = three_chains(crc, p, n, k_big_block, k_shift_big);
    crc = three_chains(crc, p, n, k_small_block, k_shift_small);
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
}  // namespace detail
#else
namespace detail {
uint32_t crc32c_hw(uint32_t crc, const uint8_t* p, size_t n) { return crc32c_sw(crc, p, n); }
bool crc32c_hw_available() { return false; }
}  // namespace detail
#endif

uint32_t crc32c_extend(uint32_t crc, byte_view data) {
    static const crc_fn impl = pick();
    return ~impl(~crc, data.data(), data.size());
}

uint32_t crc32c(byte_view data) { return crc32c_extend(0, data); }

}  // namespace ketch

// Not left to the next file of a unity batch (docs/design/README.md).
#undef KETCH_CRC32C_X86
