// One API's duration histogram as the console's API gives it (Overview's
// request table): {api_key, api, count, mean_us, buckets: [{le_us, count}]},
// le_us "+Inf" for the last bucket; the buckets are not cumulative.
#pragma once

#include <string_view>

#include <nlohmann/json.hpp>

#include "base/duration_histogram.h"

namespace ketch::console {

inline nlohmann::json histogram_json(int api_key, std::string_view api, const duration_histogram& h) {
    const uint64_t count = h.count.load(std::memory_order_relaxed);
    const auto& bounds = duration_histogram::bounds_us;
    nlohmann::json buckets = nlohmann::json::array();
    for (size_t b = 0; b < h.buckets.size(); ++b)
        buckets.push_back({{"le_us", b < bounds.size() ? nlohmann::json(bounds[b]) : nlohmann::json("+Inf")},
                           {"count", h.buckets[b].load(std::memory_order_relaxed)}});
    return {{"api_key", api_key},
            {"api", api},
            {"count", count},
            {"mean_us", count ? h.sum_us.load(std::memory_order_relaxed) / count : 0},
            {"buckets", std::move(buckets)}};
}

}  // namespace ketch::console
