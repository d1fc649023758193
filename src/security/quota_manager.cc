#include "security/quota_manager.h"

#include <algorithm>
#include <cmath>

namespace ketch::security {

namespace {

// Rates idle this long are dropped (ClientQuotaManager.InactiveSensorExpirationTimeSeconds).
constexpr int64_t k_inactive_rate_ms = 3600 * 1000;

quota_entity user_entity(std::optional<std::string> u) { return {{k_user, std::move(u)}}; }
quota_entity client_entity(std::optional<std::string> c) { return {{k_client_id, std::move(c)}}; }
quota_entity user_client_entity(std::optional<std::string> u, std::optional<std::string> c) {
    return {{k_user, std::move(u)}, {k_client_id, std::move(c)}};
}

}  // namespace

const char* quota_key(quota_type t) {
    switch (t) {
        case quota_type::produce: return k_producer_byte_rate;
        case quota_type::fetch: return k_consumer_byte_rate;
        case quota_type::request: return k_request_percentage;
        case quota_type::controller_mutation: return k_controller_mutation_rate;
    }
    return "";
}

quota_manager::resolved quota_manager::resolve(quota_type type, const std::string& user,
                                               const std::string& client_id) const {
    const std::string key = quota_key(type);
    resolved r{user, client_id, std::nullopt};
    if (!cfg_.has_key(key)) return r;  // no quota of this kind anywhere
    auto has = [&](const quota_entity& e) { return cfg_.find(e, key).has_value(); };
    // DefaultQuotaCallback.quotaMetricTags: the level the quota comes from.
    if (!has(user_client_entity(user, client_id)) && !has(user_client_entity(user, std::nullopt))) {
        r = {user, "", std::nullopt};
        if (!has(user_entity(user))) {
            r = {user, client_id, std::nullopt};
            if (!has(user_client_entity(std::nullopt, client_id)) &&
                !has(user_client_entity(std::nullopt, std::nullopt))) {
                r = {user, "", std::nullopt};
                if (!has(user_entity(std::nullopt))) r = {"", client_id, std::nullopt};
            }
        }
    }
    // DefaultQuotaCallback.quotaLimit: the bound for those tags.
    std::optional<double> q;
    if (!r.user_tag.empty() && !r.client_tag.empty()) {
        q = cfg_.find(user_client_entity(r.user_tag, r.client_tag), key);
        if (!q) q = cfg_.find(user_client_entity(r.user_tag, std::nullopt), key);
        if (!q) q = cfg_.find(user_client_entity(std::nullopt, r.client_tag), key);
        if (!q) q = cfg_.find(user_client_entity(std::nullopt, std::nullopt), key);
    } else if (!r.user_tag.empty()) {
        q = cfg_.find(user_entity(r.user_tag), key);
        if (!q) q = cfg_.find(user_entity(std::nullopt), key);
    } else if (!r.client_tag.empty()) {
        q = cfg_.find(client_entity(r.client_tag), key);
        if (!q) q = cfg_.find(client_entity(std::nullopt), key);
    }
    r.bound = q;
    return r;
}

std::string quota_manager::rate_key(quota_type type, const resolved& r) {
    std::string k(1, char('0' + int(type)));
    k += '\0';
    k += r.user_tag;
    k += '\0';
    k += r.client_tag;
    return k;
}

sampled_rate& quota_manager::rate_for(stripe& s, const std::string& key) {
    auto it = s.rates.find(key);
    if (it == s.rates.end()) it = s.rates.emplace(key, sampled_rate(window_)).first;
    return it->second;
}

void quota_manager::sweep(stripe& s, int64_t now_ms) {
    if (now_ms - s.last_sweep_ms < 60 * 1000) return;
    s.last_sweep_ms = now_ms;
    std::erase_if(s.rates, [&](auto& kv) { return now_ms - kv.second.last_event_ms() >= k_inactive_rate_ms; });
}

std::optional<double> quota_manager::limit(quota_type type, const std::string& user,
                                           const std::string& client_id) const {
    return resolve(type, user, client_id).bound;
}

int32_t quota_manager::record(quota_type type, const std::string& user, const std::string& client_id, double value,
                              int64_t now_ms, std::optional<double> bound) {
    auto r = resolve(type, user, client_id);
    if (!r.bound) return 0;
    if (bound) r.bound = bound;
    auto key = rate_key(type, r);
    auto& s = stripe_for(key);
    std::lock_guard lock(s.mu);
    sweep(s, now_ms);
    auto& rate = rate_for(s, key);
    rate.record(value, now_ms);
    // Sensor.record(checkQuotas = true): the value counts, then the bound is checked.
    double measured = rate.measure(now_ms);
    if (measured <= *r.bound) return 0;
    auto t = throttle_time_ms(measured, *r.bound, rate.window_size(now_ms));
    // ClientRequestQuotaManager.throttleTime: QuotaUtils.boundedThrottleTime,
    // at most one window (maxThrottleTimeMs = quota.window.size.seconds).
    if (type == quota_type::request) t = std::min<int64_t>(t, window_.window_ms);
    return int32_t(std::min<int64_t>(t, INT32_MAX));
}

void quota_manager::unrecord(quota_type type, const std::string& user, const std::string& client_id, double value,
                             int64_t now_ms) {
    auto r = resolve(type, user, client_id);
    if (!r.bound) return;
    auto key = rate_key(type, r);
    auto& s = stripe_for(key);
    std::lock_guard lock(s.mu);
    rate_for(s, key).record(-value, now_ms);
}

std::optional<double> quota_manager::max_value_in_window(quota_type type, const std::string& user,
                                                         const std::string& client_id,
                                                         std::optional<double> bound) const {
    auto b = limit(type, user, client_id);
    if (!b) return std::nullopt;
    if (bound) b = bound;
    return *b * double(window_.samples - 1) * (double(window_.window_ms) / 1000.0);
}

mutation_verdict quota_manager::record_mutation(const std::string& user, const std::string& client_id, double permits,
                                                bool strict, int64_t now_ms) {
    auto r = resolve(quota_type::controller_mutation, user, client_id);
    if (!r.bound) return {};
    const double quota = *r.bound;
    const double burst = double(window_.samples) * (double(window_.window_ms) / 1000.0) * quota;
    auto key = rate_key(quota_type::controller_mutation, r);
    auto& s = stripe_for(key);
    std::lock_guard lock(s.mu);
    auto [it, fresh] = s.buckets.try_emplace(key);
    auto& b = it->second;
    if (fresh) b = {burst, now_ms};  // TokenBucket starts full (its first refill covers the epoch)
    auto refill = [&] {
        b.tokens = std::min(burst, b.tokens + quota * double(now_ms - b.last_ms) / 1000.0);
        b.last_ms = now_ms;
    };
    auto debt_ms = [&] { return int32_t(std::llround(-b.tokens / quota * 1000.0)); };
    refill();
    if (strict) {
        if (b.tokens < 0) return {false, debt_ms()};  // checkQuotas before recording
        b.tokens = std::min(burst, b.tokens - permits);
        return {};
    }
    b.tokens = std::min(burst, b.tokens - permits);
    return {true, b.tokens < 0 ? debt_ms() : 0};
}

double quota_manager::rate(quota_type type, const std::string& user, const std::string& client_id, int64_t now_ms) {
    auto r = resolve(type, user, client_id);
    auto key = rate_key(type, r);
    auto& s = stripe_for(key);
    std::lock_guard lock(s.mu);
    return rate_for(s, key).measure(now_ms);
}

}  // namespace ketch::security
