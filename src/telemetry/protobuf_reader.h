// The protobuf wire format, read field by field: a tag (field number and
// wire type) then a varint, a fixed 64- or 32-bit value or a length-delimited
// slice. Reading past the end or a malformed varint throws wire_error; the
// caller (otlp_metrics.cc) turns it into an error value.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "base/bytes.h"

namespace ketch::telemetry {

struct wire_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

enum class wire_type : uint8_t { varint = 0, fixed64 = 1, len = 2, fixed32 = 5 };

class protobuf_reader {
public:
    explicit protobuf_reader(byte_view in) : in_(in) {}

    bool done() const { return pos_ >= in_.size(); }
    // The next field's number and wire type (groups and unknown types: wire_error).
    void next(uint32_t& field, wire_type& type);
    uint64_t varint();
    uint64_t fixed64();
    uint32_t fixed32();
    double as_double() { return bits_to_double(fixed64()); }
    byte_view slice();                 // a length-delimited field's bytes
    std::string text(size_t max_len);  // a length-delimited field as a string, cut at max_len
    void skip(wire_type type);

    static double bits_to_double(uint64_t bits);

private:
    void need(size_t n) const;
    // The next n bytes (at most 8) as a little-endian number.
    uint64_t little_endian(size_t n);

    byte_view in_;
    size_t pos_ = 0;
};

}  // namespace ketch::telemetry
