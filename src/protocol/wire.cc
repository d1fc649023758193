#include "protocol/wire.h"

#include <bit>
#include <cstring>

#include "base/endian.h"

namespace ketch::kafka {

template <class T>
T reader::fixed() {
    need(sizeof(T));
    auto v = load_be<T>(p_);
    p_ += sizeof(T);
    return v;
}

template <class T>
void writer::fixed(T v) {
    uint8_t b[sizeof(T)];
    store_be(b, v);
    raw(b, sizeof(T));
}

int8_t reader::i8() {
    need(1);
    return int8_t(*p_++);
}
int16_t reader::i16() { return fixed<int16_t>(); }
int32_t reader::i32() { return fixed<int32_t>(); }
int64_t reader::i64() { return fixed<int64_t>(); }
uint16_t reader::u16() { return fixed<uint16_t>(); }
uint32_t reader::u32() { return fixed<uint32_t>(); }
double reader::f64() { return std::bit_cast<double>(uint64_t(i64())); }

uuid reader::read_uuid() {
    need(16);
    uuid u;
    std::memcpy(u.b.data(), p_, 16);
    p_ += 16;
    return u;
}

uint32_t reader::uvarint() {
    uint32_t v = 0;
    for (int shift = 0; shift < 35; shift += 7) {
        need(1);
        uint8_t b = *p_++;
        if (shift == 28 && (b & 0xf0)) throw decode_error("varint too long");
        v |= uint32_t(b & 0x7f) << shift;
        if (!(b & 0x80)) return v;
    }
    throw decode_error("varint too long");
}

int32_t reader::varint() {
    uint32_t u = uvarint();
    return int32_t((u >> 1) ^ (~(u & 1) + 1));
}

int64_t reader::varlong() {
    uint64_t v = 0;
    for (int shift = 0; shift < 70; shift += 7) {
        need(1);
        uint8_t b = *p_++;
        if (shift == 63 && (b & 0xfe)) throw decode_error("varlong too long");
        v |= uint64_t(b & 0x7f) << shift;
        if (!(b & 0x80)) return int64_t((v >> 1) ^ (~(v & 1) + 1));
    }
    throw decode_error("varlong too long");
}

static int32_t checked_len(int64_t n, size_t remaining, const char* what) {
    if (n < -1) throw decode_error(std::string("negative ") + what + " length");
    if (n > int64_t(remaining)) throw decode_error(std::string(what) + " length exceeds the message");
    return int32_t(n);
}

int32_t reader::string_length(bool compact) {
    int64_t n = compact ? int64_t(uvarint()) - 1 : int64_t(i16());
    return checked_len(n, remaining(), "string");
}
int32_t reader::bytes_length(bool compact) {
    int64_t n = compact ? int64_t(uvarint()) - 1 : int64_t(i32());
    return checked_len(n, remaining(), "bytes");
}
int32_t reader::array_length(bool compact) {
    int64_t n = compact ? int64_t(uvarint()) - 1 : int64_t(i32());
    return checked_len(n, remaining(), "array");
}

std::string reader::string(bool compact) {
    int32_t n = string_length(compact);
    if (n < 0) throw decode_error("non-nullable string is null");
    std::string s(reinterpret_cast<const char*>(p_), size_t(n));
    p_ += n;
    return s;
}

std::optional<std::string> reader::nullable_string(bool compact) {
    int32_t n = string_length(compact);
    if (n < 0) return std::nullopt;
    std::string s(reinterpret_cast<const char*>(p_), size_t(n));
    p_ += n;
    return s;
}

bytes reader::take(size_t n) {
    need(n);
    bytes b(p_, p_ + n);
    p_ += n;
    return b;
}

bytes reader::read_bytes(bool compact) {
    int32_t n = bytes_length(compact);
    if (n < 0) throw decode_error("non-nullable bytes is null");
    return take(size_t(n));
}

std::optional<bytes> reader::nullable_bytes(bool compact) {
    int32_t n = bytes_length(compact);
    if (n < 0) return std::nullopt;
    return take(size_t(n));
}

std::optional<records> reader::nullable_records(bool compact) {
    int32_t n = bytes_length(compact);
    if (n < 0) return std::nullopt;
    records r;
    if (owner_) {
        r.data = shared_bytes(owner_, p_, size_t(n));
    } else {
        r.data = shared_bytes(bytes(p_, p_ + n));
    }
    p_ += n;
    return r;
}

records reader::read_records(bool compact) {
    auto r = nullable_records(compact);
    if (!r) throw decode_error("non-nullable records is null");
    return std::move(*r);
}

reader reader::sub(size_t n) {
    need(n);
    reader r(p_, n, owner_);
    p_ += n;
    return r;
}

void reader::skip(size_t n) {
    need(n);
    p_ += n;
}

// ---- writer ----

void writer::i16(int16_t v) { fixed(v); }
void writer::i32(int32_t v) { fixed(v); }
void writer::i64(int64_t v) { fixed(v); }
void writer::u16(uint16_t v) { fixed(v); }
void writer::u32(uint32_t v) { fixed(v); }
void writer::f64(double v) { i64(int64_t(std::bit_cast<uint64_t>(v))); }

void writer::uvarint(uint32_t v) {
    while (v >= 0x80) {
        out_.buf.push_back(uint8_t(v | 0x80));
        v >>= 7;
    }
    out_.buf.push_back(uint8_t(v));
}

void writer::varint(int32_t v) { uvarint((uint32_t(v) << 1) ^ uint32_t(v >> 31)); }

void writer::varlong(int64_t v) {
    uint64_t u = (uint64_t(v) << 1) ^ uint64_t(v >> 63);
    while (u >= 0x80) {
        out_.buf.push_back(uint8_t(u | 0x80));
        u >>= 7;
    }
    out_.buf.push_back(uint8_t(u));
}

void writer::length_prefix(int32_t n, bool compact, bool int16_len) {
    if (compact)
        uvarint(uint32_t(n + 1));
    else if (int16_len)
        i16(int16_t(n));
    else
        i32(n);
}

void writer::string(const std::string& s, bool compact) {
    if (!compact && s.size() > 0x7fff) throw encode_error("string longer than 32767 bytes");
    length_prefix(int32_t(s.size()), compact, true);
    raw(reinterpret_cast<const uint8_t*>(s.data()), s.size());
}

void writer::nullable_string(const std::optional<std::string>& s, bool compact) {
    if (!s)
        length_prefix(-1, compact, true);
    else
        string(*s, compact);
}

void writer::write_bytes(const bytes& b, bool compact) {
    length_prefix(int32_t(b.size()), compact, false);
    raw(b.data(), b.size());
}

void writer::nullable_bytes(const std::optional<bytes>& b, bool compact) {
    if (!b)
        length_prefix(-1, compact, false);
    else
        write_bytes(*b, compact);
}

void writer::write_records(const records& r, bool compact) {
    length_prefix(int32_t(r.size()), compact, false);
    raw(r.data.view());
    for (auto& c : r.chunks) out_.splices.emplace_back(out_.buf.size(), c);
}

void writer::nullable_records(const std::optional<records>& r, bool compact) {
    if (!r)
        length_prefix(-1, compact, false);
    else
        write_records(*r, compact);
}

void writer::array_length(int32_t n, bool compact) { length_prefix(n, compact, false); }

bytes writer::take_bytes() {
    if (!out_.splices.empty()) throw encode_error("message has file chunks; cannot flatten here");
    return std::move(out_.buf);
}

}  // namespace ketch::kafka
