// JSON <-> Kafka frames through ketch's generated codec: a scenario names an
// API and version and gives the request body as JSON (to_json's snake_case
// form); responses come back as JSON in the same form.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "base/bytes.h"
#include "base/hex.h"
#include "protocol/messages/api_table.h"

namespace ketch::conform {

using json = nlohmann::ordered_json;

// The API called `name` (Kafka's name, e.g. "CreateTopics"); throws
// std::invalid_argument for a name this Kafka release does not define.
const kafka::api_info& api_by_name(std::string_view name);
const kafka::api_info& api_by_key(int16_t key);

// A complete request frame (4-byte size first): header for `version`, then
// the body built from `body` (fields it omits keep Kafka's defaults).
bytes encode_request(const kafka::api_info& api, int16_t version, int32_t correlation_id,
                     const std::optional<std::string>& client_id, const json& body);

struct decoded_response {
    int32_t correlation_id = 0;
    json body;  // to_json of the response; "_trailing_bytes" added if bytes were left over
};

// Decodes a response frame body (without the size) for `api` at `version`.
// Throws kafka::decode_error when it does not parse.
decoded_response decode_response(const kafka::api_info& api, int16_t version, byte_view frame);

// Reads just the correlation id (first 4 bytes); nullopt for a shorter frame.
std::optional<int32_t> peek_correlation_id(byte_view frame);

bytes from_hex(std::string_view hex);  // whitespace ignored; throws on bad digits

}  // namespace ketch::conform
