// security::ip_connection_rate: the `ip` connection_creation_rate quota
// (KIP-612), as Kafka's ConnectionQuotas.recordIpConnectionMaybeThrottle
// enforces it. Each new connection is recorded in its IP's rate (a
// sampled_rate over quota.window.num windows of quota.window.size.seconds);
// when that puts the rate over the IP's quota, the connection is not
// accepted: it is un-recorded and the caller keeps the socket unserved for
// the returned throttle time (QuotaUtils.boundedThrottleTime, at most one
// quota window), then closes it (Kafka's Acceptor DelayedCloseSocket).
//
// The quota of an IP: its own ip entity, else the default ip entity, else
// none (unlimited). Thread-safe.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>

#include "security/quota_config.h"
#include "security/sampled_rate.h"

namespace ketch::security {

class ip_connection_rate {
public:
    ip_connection_rate(const quota_config& cfg, quota_window w) : cfg_(cfg), window_(w) {}

    // Records a connection from `ip` at now_ms; 0 when it is accepted, else
    // how long (ms) to hold it before closing it.
    int64_t record_connection(const std::string& ip, int64_t now_ms);

    // The connection_creation_rate quota that applies to `ip`, if any.
    std::optional<double> quota_for(const std::string& ip) const;

private:
    const quota_config& cfg_;
    quota_window window_;
    std::mutex mu_;
    std::unordered_map<std::string, sampled_rate> rates_;
    int64_t last_sweep_ms_ = 0;
};

}  // namespace ketch::security
