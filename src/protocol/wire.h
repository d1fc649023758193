// Kafka wire primitives: the reader and writer the generated codec calls.
//
// Integers are big-endian; "compact" forms (flexible versions, KIP-482) use
// unsigned varints with length+1 so that 0 means null. The reader is bounds
// checked and throws decode_error; it never allocates more than the bytes it
// has left could describe.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "base/bytes.h"
#include "base/uuid.h"
#include "protocol/records.h"

namespace ketch::kafka {

struct decode_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};
struct encode_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// A tagged field the codec does not know (kept so a message round-trips).
struct raw_tagged_field {
    uint32_t tag = 0;
    bytes data;
    friend bool operator==(const raw_tagged_field&, const raw_tagged_field&) = default;
};
using tagged_fields = std::vector<raw_tagged_field>;

class reader {
public:
    reader(const uint8_t* p, size_t n, std::shared_ptr<const void> owner = nullptr)
        : p_(p), end_(p + n), owner_(std::move(owner)) {}
    explicit reader(const shared_bytes& b) : reader(b.data(), b.size(), b.owner()) {}

    size_t remaining() const { return size_t(end_ - p_); }
    const uint8_t* position() const { return p_; }

    int8_t i8();
    int16_t i16();
    int32_t i32();
    int64_t i64();
    uint16_t u16();
    uint32_t u32();
    double f64();
    bool boolean() { return i8() != 0; }
    uuid read_uuid();
    uint32_t uvarint();
    int32_t varint();
    int64_t varlong();

    // Length prefixes. Return -1 for null. Checked against remaining().
    int32_t string_length(bool compact);
    int32_t bytes_length(bool compact);
    int32_t array_length(bool compact);

    std::string string(bool compact);
    std::optional<std::string> nullable_string(bool compact);
    bytes read_bytes(bool compact);
    std::optional<bytes> nullable_bytes(bool compact);
    std::optional<records> nullable_records(bool compact);
    records read_records(bool compact);

    reader sub(size_t n);  // the next n bytes as their own reader (consumed here)
    bytes take(size_t n);
    void skip(size_t n);

private:
    template <class T>
    T fixed();  // a big-endian integer of sizeof(T) bytes
    void need(size_t n) const {
        if (remaining() < n) throw decode_error("truncated message");
    }
    const uint8_t* p_;
    const uint8_t* end_;
    std::shared_ptr<const void> owner_;
};

// The encoded form of a message: contiguous bytes plus file chunks spliced in
// at given positions (for sendfile). Most messages have no splices.
struct encoded_message {
    bytes buf;
    std::vector<std::pair<size_t, file_chunk>> splices;  // (position in buf, chunk)
    size_t size() const {
        size_t n = buf.size();
        for (auto& s : splices) n += s.second.length;
        return n;
    }
};

class writer {
public:
    writer() { out_.buf.reserve(256); }

    void i8(int8_t v) { out_.buf.push_back(uint8_t(v)); }
    void i16(int16_t v);
    void i32(int32_t v);
    void i64(int64_t v);
    void u16(uint16_t v);
    void u32(uint32_t v);
    void f64(double v);
    void boolean(bool v) { i8(v ? 1 : 0); }
    void write_uuid(const uuid& u) { raw(u.b.data(), u.b.size()); }
    void uvarint(uint32_t v);
    void varint(int32_t v);
    void varlong(int64_t v);

    void string(const std::string& s, bool compact);
    void nullable_string(const std::optional<std::string>& s, bool compact);
    void write_bytes(const bytes& b, bool compact);
    void nullable_bytes(const std::optional<bytes>& b, bool compact);
    void write_records(const records& r, bool compact);
    void nullable_records(const std::optional<records>& r, bool compact);
    void array_length(int32_t n, bool compact);  // -1 = null
    void null_array(bool compact) { array_length(-1, compact); }

    void raw(const uint8_t* p, size_t n) { out_.buf.insert(out_.buf.end(), p, p + n); }
    void raw(byte_view v) { raw(v.data(), v.size()); }

    size_t size() const { return out_.buf.size(); }
    bytes& buffer() { return out_.buf; }
    encoded_message take() { return std::move(out_); }
    // Contiguous bytes; only for writers with no file splices (tagged fields, tests).
    bytes take_bytes();

private:
    template <class T>
    void fixed(T v);  // big-endian
    void length_prefix(int32_t n, bool compact, bool int16_len);
    encoded_message out_;
};

}  // namespace ketch::kafka
