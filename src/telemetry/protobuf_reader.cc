#include "telemetry/protobuf_reader.h"

#include <cstring>

namespace ketch::telemetry {

void protobuf_reader::need(size_t n) const {
    if (n > in_.size() - pos_) throw wire_error("truncated at byte " + std::to_string(pos_));
}

uint64_t protobuf_reader::varint() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        need(1);
        uint8_t b = in_[pos_++];
        v |= uint64_t(b & 0x7f) << shift;
        if (!(b & 0x80)) return v;
    }
    throw wire_error("varint longer than 10 bytes at byte " + std::to_string(pos_));
}

uint64_t protobuf_reader::little_endian(size_t n) {
    need(n);
    uint64_t v = 0;
    for (size_t i = n; i-- > 0;) v = (v << 8) | in_[pos_ + i];
    pos_ += n;
    return v;
}

uint64_t protobuf_reader::fixed64() { return little_endian(8); }

uint32_t protobuf_reader::fixed32() { return uint32_t(little_endian(4)); }

double protobuf_reader::bits_to_double(uint64_t bits) {
    double d;
    std::memcpy(&d, &bits, sizeof d);
    return d;
}

void protobuf_reader::next(uint32_t& field, wire_type& type) {
    uint64_t tag = varint();
    field = uint32_t(tag >> 3);
    uint64_t t = tag & 7;
    if (field == 0 || tag >> 32) throw wire_error("bad field number at byte " + std::to_string(pos_));
    if (t != 0 && t != 1 && t != 2 && t != 5) throw wire_error("unsupported wire type " + std::to_string(t));
    type = wire_type(t);
}

byte_view protobuf_reader::slice() {
    uint64_t n = varint();
    if (n > in_.size() - pos_) throw wire_error("length " + std::to_string(n) + " past the end");
    byte_view out = in_.subspan(pos_, size_t(n));
    pos_ += size_t(n);
    return out;
}

std::string protobuf_reader::text(size_t max_len) {
    byte_view s = slice();
    return std::string(reinterpret_cast<const char*>(s.data()), std::min(s.size(), max_len));
}

void protobuf_reader::skip(wire_type type) {
    switch (type) {
        case wire_type::varint: varint(); return;
        case wire_type::fixed64:
            need(8);
            pos_ += 8;
            return;
        case wire_type::fixed32:
            need(4);
            pos_ += 4;
            return;
        case wire_type::len: slice(); return;
    }
}

}  // namespace ketch::telemetry
