// Big-endian loads and stores (Kafka's wire order) for unaligned memory.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace ketch {

template <class U>
constexpr U byteswap(U u) {
    if constexpr (sizeof(U) == 2)
        return U(__builtin_bswap16(u));
    else if constexpr (sizeof(U) == 4)
        return U(__builtin_bswap32(u));
    else if constexpr (sizeof(U) == 8)
        return U(__builtin_bswap64(u));
    else
        return u;
}

template <class T>
inline T load_be(const uint8_t* p) {
    static_assert(std::is_integral_v<T>);
    std::make_unsigned_t<T> u;
    std::memcpy(&u, p, sizeof u);
    if constexpr (std::endian::native == std::endian::little && sizeof(T) > 1) u = byteswap(u);
    return T(u);
}

template <class T>
inline void store_be(uint8_t* p, T v) {
    static_assert(std::is_integral_v<T>);
    auto u = std::make_unsigned_t<T>(v);
    if constexpr (std::endian::native == std::endian::little && sizeof(T) > 1) u = byteswap(u);
    std::memcpy(p, &u, sizeof u);
}

}  // namespace ketch
