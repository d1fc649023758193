#include "registry/record_decoder.h"

#include <nlohmann/json.hpp>

namespace ketch::registry {

std::optional<framing> decode_framing(std::string_view b) {
    if (b.size() < 5 || b[0] != 0) return std::nullopt;
    framing f;
    f.schema_id = int64_t(uint8_t(b[1])) << 24 | int64_t(uint8_t(b[2])) << 16 | int64_t(uint8_t(b[3])) << 8 |
                  int64_t(uint8_t(b[4]));
    return f;
}

namespace {

// A zigzag varint at b[pos]; advances pos.
std::optional<int64_t> zigzag(std::string_view b, size_t& pos) {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (pos >= b.size()) return std::nullopt;
        uint8_t byte = uint8_t(b[pos++]);
        v |= uint64_t(byte & 0x7f) << shift;
        if (!(byte & 0x80)) return int64_t(v >> 1) ^ -int64_t(v & 1);
    }
    return std::nullopt;
}

}  // namespace

std::optional<std::vector<int>> decode_message_indexes(std::string_view b, framing& f) {
    size_t pos = f.header_bytes;
    auto count = zigzag(b, pos);
    if (!count || *count < 0 || *count > 64) return std::nullopt;
    std::vector<int> out;
    for (int64_t i = 0; i < *count; ++i) {
        auto v = zigzag(b, pos);
        if (!v || *v < 0 || *v > INT32_MAX) return std::nullopt;
        out.push_back(int(*v));
    }
    if (out.empty()) out.push_back(0);
    f.header_bytes = pos;
    return out;
}

result_t<decoded_record> record_decoder::to_json(std::string_view value) const {
    auto f = decode_framing(value);
    if (!f) return failure{errors::invalid_schema("not a Confluent-framed record (magic byte 0 and a schema id)")};
    auto stored = reg_.schema_by_id(f->schema_id);
    if (!stored) return failure{stored.error()};
    auto parsed = reg_.parsed_by_id(f->schema_id);
    if (!parsed) return failure{parsed.error()};
    decoded_record out{f->schema_id, stored->type, {}};
    switch (stored->type) {
        case schema_type::json: {
            auto j = nlohmann::json::parse(value.substr(f->header_bytes), nullptr, false);
            if (j.is_discarded()) return failure{errors::invalid_schema("the payload is not JSON")};
            out.json = j.dump();
            return out;
        }
        case schema_type::protobuf: {
            auto idx = decode_message_indexes(value, *f);
            if (!idx) return failure{errors::invalid_schema("bad Protobuf message indexes")};
            auto j = protobuf_to_json(**parsed, *idx, value.substr(f->header_bytes));
            if (!j) return failure{j.error()};
            out.json = std::move(*j);
            return out;
        }
        case schema_type::avro: {
            auto deps = reg_.dependencies_of(f->schema_id);
            if (!deps) return failure{deps.error()};
            auto j = avro_binary_to_json(*stored, *deps, value.substr(f->header_bytes));
            if (!j) return failure{j.error()};
            out.json = std::move(*j);
            return out;
        }
    }
    return out;
}

}  // namespace ketch::registry
