// Config values in a console request body: {"retention.ms": "3600000",
// "segment.bytes": 1048576}, as topic creation and config changes take them.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "console/reply.h"

namespace ketch::console {

// ConfigResource.Type TOPIC, the resource type of a topic's configs in the requests.
inline constexpr int8_t k_topic_resource = 2;

// The (name, value) pairs of the object `b[key]`, a number as its JSON text;
// none when `key` is absent. 400 when it is not an object (`not_object`
// says so) or a value is neither a string nor a number.
inline std::vector<std::pair<std::string, std::string>> config_values(const json& b, const std::string& key,
                                                                      const std::string& not_object) {
    std::vector<std::pair<std::string, std::string>> out;
    if (!b.contains(key)) return out;
    if (!b[key].is_object()) throw api_error(400, not_object);
    for (auto& [k, v] : b[key].items()) {
        if (!v.is_string() && !v.is_number()) throw api_error(400, "config " + k + ": the value must be a string");
        out.emplace_back(k, v.is_string() ? v.get<std::string>() : v.dump());
    }
    return out;
}

}  // namespace ketch::console
