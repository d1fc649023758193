// A topic as the metadata store knows it.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "base/uuid.h"

namespace ketch::meta {

// Explicit per-topic config overrides (key -> value exactly as the client sent
// it). Keys not present take the broker default; see broker_defaults.h.
using config_map = std::map<std::string, std::string>;

struct topic {
    std::string name;
    uuid id;                         // random v4, never zero, kept for the topic's life
    int32_t partition_count = 0;     // partitions are 0 .. partition_count-1
    int16_t replication_factor = 0;  // as requested (after resolving -1 to the default)
    config_map configs;              // explicit overrides only
    int64_t created_ms = 0;          // wall clock, ms since the Unix epoch

    friend bool operator==(const topic&, const topic&) = default;
};

}  // namespace ketch::meta
