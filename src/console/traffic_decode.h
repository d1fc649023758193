// The inspector's exchanges as JSON, decoded on demand from the kept bytes
// with the generated codec's JSON form. Record payloads become sizes and
// counts ({"bytes", "batches", "records"}); fields that can carry secrets
// (auth bytes, salts, salted passwords, HMACs, tokens) are replaced by
// "<redacted>" whatever the API — besides the ring keeping no bytes of the
// APIs that carry them.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "inspect/traffic_ring.h"

namespace ketch::console {

struct decoded_exchange {
    nlohmann::json request;              // null when not kept or not decodable
    nlohmann::json response;             // null when not kept or not decodable
    std::vector<std::string> topics;     // named in the request (or a Fetch/Produce answer)
    std::vector<std::string> topic_ids;  // topic ids named (base64), for requests by id
    std::vector<int16_t> errors;         // non-zero error codes anywhere in the response
    std::string problem;                 // why something could not be decoded
};

decoded_exchange decode_exchange(const inspect::exchange& e);

// The records of a Produce request, each as the message browser shows one.
nlohmann::json produce_records(const inspect::exchange& e);

}  // namespace ketch::console
