// A histogram of request durations in relaxed atomics, with the broker's
// bucket bounds: ketch_request_duration_seconds (net::request_metrics, per
// API) and ketch_tenant_request_duration_seconds (tenant::usage) share it.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace ketch {

struct duration_histogram {
    // Upper bounds of the buckets in microseconds (+Inf after them).
    static constexpr std::array<int64_t, 14> bounds_us = {100,   250,   500,    1000,   2500,   5000,    10000,
                                                          25000, 50000, 100000, 250000, 500000, 1000000, 5000000};

    std::atomic<uint64_t> count{0};
    std::atomic<uint64_t> sum_us{0};
    std::array<std::atomic<uint64_t>, bounds_us.size() + 1> buckets{};  // not cumulative; last: +Inf

    void record(int64_t us) {
        size_t b = 0;
        while (b < bounds_us.size() && us > bounds_us[b]) ++b;
        buckets[b].fetch_add(1, std::memory_order_relaxed);
        sum_us.fetch_add(uint64_t(us < 0 ? 0 : us), std::memory_order_relaxed);
        count.fetch_add(1, std::memory_order_relaxed);
    }
};

}  // namespace ketch
