// Per-API request counts and durations, for the metrics page: a Prometheus
// histogram per API key (the time from a request's parse to its response,
// long-poll and fsync waits included, as Kafka's RequestMetrics TotalTimeMs).
// Recorded by the dispatcher with relaxed atomics from any reactor; read at
// scrape time (a scrape may see a count one ahead of its buckets, as any
// lock-free Prometheus client).
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>

#include "base/duration_histogram.h"

namespace ketch::net {

class request_metrics {
public:
    static constexpr size_t k_max_api_key = 127;
    using api = duration_histogram;

    void record(int16_t api_key, std::chrono::steady_clock::duration took) {
        if (api_key < 0 || size_t(api_key) > k_max_api_key) return;
        apis_[size_t(api_key)].record(std::chrono::duration_cast<std::chrono::microseconds>(took).count());
    }

    const api& of(int16_t api_key) const { return apis_[size_t(api_key)]; }

private:
    std::array<api, k_max_api_key + 1> apis_;
};

}  // namespace ketch::net
