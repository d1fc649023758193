#include "security/ip_connection_rate.h"

namespace ketch::security {

std::optional<double> ip_connection_rate::quota_for(const std::string& ip) const {
    if (!cfg_.has_key(k_connection_creation_rate)) return std::nullopt;
    if (auto v = cfg_.find({{k_ip, ip}}, k_connection_creation_rate)) return v;
    return cfg_.find({{k_ip, std::nullopt}}, k_connection_creation_rate);
}

int64_t ip_connection_rate::record_connection(const std::string& ip, int64_t now_ms) {
    auto quota = quota_for(ip);
    if (!quota) return 0;
    std::lock_guard lock(mu_);
    // An IP silent for all windows has a zero rate: its sensor can go (Kafka
    // expires inactive sensors too).
    const int64_t idle_ms = int64_t(window_.samples) * window_.window_ms;
    if (now_ms - last_sweep_ms_ >= idle_ms) {
        for (auto it = rates_.begin(); it != rates_.end();)
            it = now_ms - it->second.last_event_ms() >= idle_ms ? rates_.erase(it) : std::next(it);
        last_sweep_ms_ = now_ms;
    }
    auto [it, fresh] = rates_.try_emplace(ip, window_);
    sampled_rate& rate = it->second;
    rate.record(1.0, now_ms);
    double observed = rate.measure(now_ms);
    if (observed <= *quota) return 0;
    // Sensor.checkQuotas threw: throttle for at most one window; a positive
    // throttle time un-records the connection, zero accepts it.
    int64_t throttle = std::min(throttle_time_ms(observed, *quota, rate.window_size(now_ms)), window_.window_ms);
    if (throttle <= 0) return 0;
    rate.record(-1.0, now_ms);
    return throttle;
}

}  // namespace ketch::security
