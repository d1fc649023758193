// security::quota_manager: enforces the client quotas of quota_config the way
// Kafka's ClientQuotaManager does (core: ClientQuotaManager,
// server-common: QuotaUtils).
//
// The quota of a (user, client-id) pair is the first one set, in this order:
//   /config/users/<user>/clients/<client-id>
//   /config/users/<user>/clients/<default>
//   /config/users/<user>
//   /config/users/<default>/clients/<client-id>
//   /config/users/<default>/clients/<default>
//   /config/users/<default>
//   /config/clients/<client-id>
//   /config/clients/<default>
// Usage is measured per quota key (Kafka's metric tags: the user, the
// client-id or both, whichever level the quota came from), so principals
// sharing one quota entity (e.g. the default user) share one rate, and a
// principal over its quota never changes another's rate or throttle.
// A request that takes the rate over the bound is answered with the time
// that brings the rate back to the bound, and nothing else is delayed here:
// the caller puts it in throttle_time_ms and mutes the connection (KIP-219).
//
// Thread-safe: rates live in 16 lock stripes chosen by quota key; the lock
// is held only to update one rate.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "security/quota_config.h"
#include "security/sampled_rate.h"

namespace ketch::security {

enum class quota_type { produce, fetch, request, controller_mutation };
inline constexpr quota_type all_quota_types[] = {quota_type::produce, quota_type::fetch, quota_type::request,
                                                 quota_type::controller_mutation};

// One controller mutation's verdict (ControllerMutationQuotaManager).
struct mutation_verdict {
    bool allowed = true;      // false: THROTTLING_QUOTA_EXCEEDED (strict only)
    int32_t throttle_ms = 0;  // the time until the bucket is out of debt
};

// Kafka's quota config name of the type (producer_byte_rate, ...).
const char* quota_key(quota_type t);

class quota_manager {
public:
    explicit quota_manager(const quota_config& cfg, quota_window w = {}) : cfg_(cfg), window_(w) {}

    // False when no entity sets a quota of `type` (cheap: no allocation).
    bool enforced(quota_type type) const { return cfg_.has_key(quota_key(type)); }

    // The bound that applies to (user, client_id) for `type`, if any.
    // `user` is the principal's name without "User:".
    std::optional<double> limit(quota_type type, const std::string& user, const std::string& client_id) const;

    // Records `value` (bytes, or request time) and returns the throttle time
    // in ms, 0 when within quota or when no quota applies
    // (ClientQuotaManager.maybeRecordAndGetThrottleTimeMs). `bound`, when
    // set, replaces the bound of the quota that applies (cluster mode's share
    // of a tenant's rate, tenant/cluster_usage.h); no quota: still 0.
    int32_t record(quota_type type, const std::string& user, const std::string& client_id, double value, int64_t now_ms,
                   std::optional<double> bound = std::nullopt);
    // Takes back a recorded value (a throttled fetch answers no data:
    // ClientQuotaManager.unrecordQuotaSensor).
    void unrecord(quota_type type, const std::string& user, const std::string& client_id, double value, int64_t now_ms);
    // The most one request may carry without certain throttling:
    // bound * (samples - 1) * window (getMaxValueInQuotaWindow); nullopt: no quota.
    std::optional<double> max_value_in_window(quota_type type, const std::string& user, const std::string& client_id,
                                              std::optional<double> bound = std::nullopt) const;

    // controller_mutation_rate: a token bucket per quota key holding at most
    // quota x samples x window seconds of permits (partitions created,
    // added or deleted), refilled at the quota rate (clients: TokenBucket).
    // Strict (CreateTopics v6+, CreatePartitions v3+, DeleteTopics v5+): a
    // mutation while the bucket is in debt is refused, nothing recorded
    // (StrictControllerMutationQuota); permissive (older versions): always
    // recorded, a debt only throttles (PermissiveControllerMutationQuota).
    // Throttle time: -tokens / quota seconds. Charged per request through security::mutation_quota.
    mutation_verdict record_mutation(const std::string& user, const std::string& client_id, double permits, bool strict,
                                     int64_t now_ms);

    // Responses throttled by a quota of `type` (the /metrics page): counted
    // by the caller that puts the throttle time in a response
    // (broker/quota_accounting). Relaxed atomics: counts, ordered with nothing.
    void count_throttled(quota_type type) { throttled_[size_t(type)].fetch_add(1, std::memory_order_relaxed); }
    uint64_t throttled(quota_type type) const { return throttled_[size_t(type)].load(std::memory_order_relaxed); }

    // The current rate of the quota key (user, client_id) falls under; tests.
    double rate(quota_type type, const std::string& user, const std::string& client_id, int64_t now_ms);

private:
    struct resolved {
        std::string user_tag, client_tag;  // Kafka's metric tags
        std::optional<double> bound;
    };
    struct stripe {
        std::mutex mu;
        std::unordered_map<std::string, sampled_rate> rates;
        struct bucket {
            double tokens = 0;
            int64_t last_ms = 0;
        };
        std::unordered_map<std::string, bucket> buckets;
        int64_t last_sweep_ms = 0;
    };
    resolved resolve(quota_type type, const std::string& user, const std::string& client_id) const;
    sampled_rate& rate_for(stripe& s, const std::string& key);
    stripe& stripe_for(const std::string& key) { return stripes_[std::hash<std::string>{}(key) % stripes_.size()]; }
    static std::string rate_key(quota_type type, const resolved& r);
    void sweep(stripe& s, int64_t now_ms);

    const quota_config& cfg_;
    quota_window window_;
    std::array<stripe, 16> stripes_;
    std::array<std::atomic<uint64_t>, std::size(all_quota_types)> throttled_{};
};

}  // namespace ketch::security
