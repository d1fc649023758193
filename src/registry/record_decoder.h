// The console's seam to the registry: Confluent-framed record values (magic
// byte 0, a 4-byte big-endian schema id, for Protobuf the message indexes as
// zigzag varints — a count then the indexes, a count of 0 meaning [0] — then
// the payload) decoded through the registry into JSON text.
// Avro binary is decoded by Apache Avro's C library (avro-c), Protobuf by
// libprotobuf (DynamicMessage + its JSON printer), JSON Schema payloads are JSON.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "registry/registry.h"

namespace ketch::registry {

struct framing {
    int64_t schema_id = 0;
    size_t header_bytes = 5;  // where the payload starts (after the indexes for Protobuf)
};

// The magic byte and id; nullopt unless bytes start with 0 and hold 5 bytes.
std::optional<framing> decode_framing(std::string_view bytes);
// Protobuf's message indexes after the 5-byte header; advances f.header_bytes.
std::optional<std::vector<int>> decode_message_indexes(std::string_view bytes, framing& f);

struct decoded_record {
    int64_t schema_id = 0;
    schema_type type = schema_type::avro;
    std::string json;  // the value as JSON text
};

class record_decoder {
public:
    explicit record_decoder(const registry& reg) : reg_(reg) {}
    // 40403 for an unknown id, 42201 ("not Confluent-framed", "payload does not
    // match its schema") for bytes that do not decode.
    result_t<decoded_record> to_json(std::string_view value) const;

private:
    const registry& reg_;
};

// Per format (avro/avro_binary.cc, protobuf/proto_json.cc).
result_t<std::string> avro_binary_to_json(const stored_schema& s, const std::vector<dependency>& deps,
                                          std::string_view payload);
result_t<std::string> protobuf_to_json(const parsed_schema& s, const std::vector<int>& indexes,
                                       std::string_view payload);

}  // namespace ketch::registry
