// Kafka's variable-length integers (protobuf style, little-endian base-128):
// unsigned varint (u32), zigzag varint (i32), zigzag varlong (i64), as used by
// the v2 record format and by flexible protocol versions.
//
// Decoders are bounds checked: they never read past `in`, and return nullopt
// for a truncated encoding or one longer than 5 (varint) / 10 (varlong) bytes.
// As Kafka's ByteUtils does, bits above 32 (resp. 64) in the last allowed
// byte are ignored rather than rejected.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "base/bytes.h"

namespace ketch {

inline constexpr size_t k_max_varint_size = 5;
inline constexpr size_t k_max_varlong_size = 10;

template <class T>
struct varint_decoded {
    T value;
    size_t size;  // bytes consumed
};

inline std::optional<varint_decoded<uint64_t>> decode_uvarint_n(byte_view in, size_t max_bytes) {
    uint64_t v = 0;
    for (size_t i = 0; i < max_bytes; ++i) {
        if (i >= in.size()) return std::nullopt;
        uint8_t b = in[i];
        v |= uint64_t(b & 0x7F) << (7 * i);
        if (!(b & 0x80)) return varint_decoded<uint64_t>{v, i + 1};
    }
    return std::nullopt;  // continuation bit set on the last allowed byte
}

inline std::optional<varint_decoded<uint32_t>> decode_uvarint(byte_view in) {
    auto d = decode_uvarint_n(in, k_max_varint_size);
    if (!d) return std::nullopt;
    return varint_decoded<uint32_t>{uint32_t(d->value), d->size};
}

inline std::optional<varint_decoded<uint64_t>> decode_uvarlong(byte_view in) {
    return decode_uvarint_n(in, k_max_varlong_size);
}

inline constexpr int32_t zigzag_decode32(uint32_t u) { return int32_t(u >> 1) ^ -int32_t(u & 1); }
inline constexpr int64_t zigzag_decode64(uint64_t u) { return int64_t(u >> 1) ^ -int64_t(u & 1); }
inline constexpr uint32_t zigzag_encode32(int32_t v) { return (uint32_t(v) << 1) ^ uint32_t(v >> 31); }
inline constexpr uint64_t zigzag_encode64(int64_t v) { return (uint64_t(v) << 1) ^ uint64_t(v >> 63); }

inline std::optional<varint_decoded<int32_t>> decode_varint(byte_view in) {
    auto d = decode_uvarint(in);
    if (!d) return std::nullopt;
    return varint_decoded<int32_t>{zigzag_decode32(d->value), d->size};
}

inline std::optional<varint_decoded<int64_t>> decode_varlong(byte_view in) {
    auto d = decode_uvarlong(in);
    if (!d) return std::nullopt;
    return varint_decoded<int64_t>{zigzag_decode64(d->value), d->size};
}

inline constexpr size_t size_of_uvarlong(uint64_t v) {
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        ++n;
    }
    return n;
}
inline constexpr size_t size_of_uvarint(uint32_t v) { return size_of_uvarlong(v); }
inline constexpr size_t size_of_varint(int32_t v) { return size_of_uvarlong(zigzag_encode32(v)); }
inline constexpr size_t size_of_varlong(int64_t v) { return size_of_uvarlong(zigzag_encode64(v)); }

// Encoders write into `out`, which must have room for k_max_varlong_size
// bytes (k_max_varint_size for the 32-bit forms); they return the size.
inline size_t encode_uvarlong(uint64_t v, uint8_t* out) {
    size_t n = 0;
    while (v >= 0x80) {
        out[n++] = uint8_t(v | 0x80);
        v >>= 7;
    }
    out[n++] = uint8_t(v);
    return n;
}
inline size_t encode_uvarint(uint32_t v, uint8_t* out) { return encode_uvarlong(v, out); }
inline size_t encode_varint(int32_t v, uint8_t* out) { return encode_uvarlong(zigzag_encode32(v), out); }
inline size_t encode_varlong(int64_t v, uint8_t* out) { return encode_uvarlong(zigzag_encode64(v), out); }

// Appending forms.
inline void append_uvarint(bytes& b, uint32_t v) {
    uint8_t tmp[k_max_varlong_size];
    b.insert(b.end(), tmp, tmp + encode_uvarint(v, tmp));
}
inline void append_varint(bytes& b, int32_t v) {
    uint8_t tmp[k_max_varlong_size];
    b.insert(b.end(), tmp, tmp + encode_varint(v, tmp));
}
inline void append_varlong(bytes& b, int64_t v) {
    uint8_t tmp[k_max_varlong_size];
    b.insert(b.end(), tmp, tmp + encode_varlong(v, tmp));
}

}  // namespace ketch
