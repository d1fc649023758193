#include "tenant/limits.h"

#include <algorithm>
#include <cmath>

namespace ketch::tenant {

bool is_limit_key(std::string_view key) {
    return std::find(limit_keys.begin(), limit_keys.end(), key) != limit_keys.end();
}

std::string check_limit(std::string_view key, double value) {
    if (!is_limit_key(key)) return "unknown limit '" + std::string(key) + "'";
    if (!std::isfinite(value) || value < 0) return std::string(key) + " must be a number >= 0";
    if (key != "request_percentage" && value != std::floor(value)) return std::string(key) + " must be a whole number";
    if (key == "request_percentage" && value <= 0) return "request_percentage must be > 0";
    if ((key == "producer_byte_rate" || key == "consumer_byte_rate") && value < 1)
        return std::string(key) + " must be at least 1";
    if (value > 9.2e18) return std::string(key) + " is too large";
    return {};
}

limits overlay(const limits& base, const limits& over) {
    limits out = base;
    for (auto& [k, v] : over.values) out.values[k] = v;
    return out;
}

}  // namespace ketch::tenant
