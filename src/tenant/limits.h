// A tenant's limits (docs/tenancy.md "Limits"): counts (topics, partitions,
// storage bytes, connections) and rates (produce and fetch bytes per second,
// request time in percent of one thread), each unset (no limit) or a value.
// A tenant's effective limits are its own overrides over the defaults
// (ketch.toml [tenants.default], or set through the admin API).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace ketch::tenant {

// The limit keys, as ketch.toml, the admin API and the CLI name them. The
// rates are Kafka's client quota config names.
inline constexpr std::array<std::string_view, 7> limit_keys = {
    "max_topics",         "max_partitions",     "max_storage_bytes",  "max_connections",
    "producer_byte_rate", "consumer_byte_rate", "request_percentage",
};

struct limits {
    std::map<std::string, double, std::less<>> values;  // key -> value; an absent key: not limited

    std::optional<double> get(std::string_view key) const {
        auto it = values.find(key);
        return it == values.end() ? std::nullopt : std::optional<double>(it->second);
    }
    std::optional<int64_t> count(std::string_view key) const {
        auto v = get(key);
        return v ? std::optional<int64_t>(int64_t(*v)) : std::nullopt;
    }
    bool operator==(const limits&) const = default;
};

// Empty when `value` may be set for `key`, else why not (an unknown key, a
// negative value, a fraction where a whole number is needed).
std::string check_limit(std::string_view key, double value);
bool is_limit_key(std::string_view key);

// `over`'s values over `base`'s.
limits overlay(const limits& base, const limits& over);

}  // namespace ketch::tenant
