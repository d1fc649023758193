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

namespace ketch::net {

class request_metrics {
public:
    static constexpr size_t k_max_api_key = 127;
    // Upper bounds of the duration buckets, in microseconds (+Inf after them).
    static constexpr std::array<int64_t, 14> k_bounds_us = {100,   250,   500,    1000,   2500,   5000,    10000,
                                                            25000, 50000, 100000, 250000, 500000, 1000000, 5000000};

    struct api {
        std::atomic<uint64_t> count{0};
        std::atomic<uint64_t> sum_us{0};
        std::array<std::atomic<uint64_t>, k_bounds_us.size() + 1> buckets{};  // not cumulative; last: +Inf
    };

    void record(int16_t api_key, std::chrono::steady_clock::duration took) {
        if (api_key < 0 || size_t(api_key) > k_max_api_key) return;
        const auto us = std::chrono::duration_cast<std::chrono::microseconds>(took).count();
        auto& a = apis_[size_t(api_key)];
        size_t b = 0;
        while (b < k_bounds_us.size() && us > k_bounds_us[b]) ++b;
        a.buckets[b].fetch_add(1, std::memory_order_relaxed);
        a.sum_us.fetch_add(uint64_t(us < 0 ? 0 : us), std::memory_order_relaxed);
        a.count.fetch_add(1, std::memory_order_relaxed);
    }

    const api& of(int16_t api_key) const { return apis_[size_t(api_key)]; }

private:
    std::array<api, k_max_api_key + 1> apis_;
};

}  // namespace ketch::net
