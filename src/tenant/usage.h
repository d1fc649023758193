// What a tenant did, for the metrics page (docs/metrics.md, the `tenant`
// label): requests, bytes in and out, responses throttled by its limits and
// by client quotas, connections and refusals by reason. Relaxed atomics: counts, ordered with nothing; a
// tenant's counters live as long as the broker (a deleted tenant's stop
// growing).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <string_view>

#include "base/duration_histogram.h"

namespace ketch::tenant {

// Why a tenant's request or connection was refused by a limit.
enum class refusal { max_topics, max_partitions, max_storage_bytes, max_connections };
inline constexpr std::array<std::string_view, 4> refusal_names = {"max_topics", "max_partitions", "max_storage_bytes",
                                                                  "max_connections"};
// The rate limits that throttle (the client quota names).
enum class rate { produce, fetch, request };
inline constexpr std::array<std::string_view, 3> rate_names = {"producer_byte_rate", "consumer_byte_rate",
                                                               "request_percentage"};
// The client quotas (by user / client id) that throttle a tenant's principals,
// in security::quota_type's order.
inline constexpr std::array<std::string_view, 4> client_quota_names = {
    "producer_byte_rate", "consumer_byte_rate", "request_percentage", "controller_mutation_rate"};

// The APIs whose durations are kept per tenant (ketch_tenant_request_duration_seconds):
// Produce and Fetch, by their Kafka API key.
inline constexpr std::array<std::string_view, 2> timed_api_names = {"Produce", "Fetch"};
struct usage {
    std::atomic<uint64_t> requests{0};
    std::atomic<uint64_t> errors{0};      // responses whose top-level or first error code was not 0
    std::atomic<uint64_t> bytes_in{0};    // produced record batch bytes
    std::atomic<uint64_t> bytes_out{0};   // Fetch and ShareFetch response bytes
    std::atomic<int64_t> connections{0};  // open now (counted at their first request)
    // Grows when the tenant is deleted (at the start and the end of the
    // deletion): a connection of the tenant made before is closed at its
    // next request (broker/tenant_scoping.cc).
    std::atomic<uint64_t> deletions{0};
    std::array<std::atomic<uint64_t>, rate_names.size()> throttled{};                // by the tenant's limits
    std::array<std::atomic<uint64_t>, client_quota_names.size()> quota_throttled{};  // by a client quota
    std::array<std::atomic<uint64_t>, refusal_names.size()> refused{};
    // Produce (api key 0) and Fetch (1): the time from the request's parse to
    // its response, waits included (as ketch_request_duration_seconds).
    std::array<duration_histogram, timed_api_names.size()> timed{};

    void add(std::atomic<uint64_t>& c, uint64_t n = 1) { c.fetch_add(n, std::memory_order_relaxed); }
    void refuse(refusal r) { add(refused[size_t(r)]); }
    void throttle(rate r) { add(throttled[size_t(r)]); }
    void quota_throttle(size_t client_quota) { add(quota_throttled[client_quota]); }
    // A request of API `api_key` took `us`; kept for the timed APIs only.
    void time_request(int16_t api_key, int64_t us) {
        if (api_key >= 0 && size_t(api_key) < timed.size()) timed[size_t(api_key)].record(us);
    }
};

}  // namespace ketch::tenant
