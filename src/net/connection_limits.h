// Kafka's ConnectionQuotas, reduced to one broker: a broker-wide connection
// cap (the acceptor waits for a free slot, as Kafka's does, or with the close
// policy a connection over it is closed after the per-IP check), a per-IP cap
// with overrides (the new connection is closed at once), and a broker-wide
// connection creation rate (accepting is delayed). Thread-safe: accepts run
// on one reactor, closes on any.
#pragma once

#include <chrono>
#include <deque>
#include <mutex>
#include <string>
#include <unordered_map>

#include "net/connection_stats.h"
#include "net/server_options.h"

namespace ketch::net {

class connection_limits {
public:
    using clock = std::chrono::steady_clock;
    connection_limits(limit_options opts, connection_stats& stats) : opts_(std::move(opts)), stats_(stats) {}

    // How long the acceptor must wait before its next accept (zero: accept
    // now): while max.connections are open, or while the creation rate is used up.
    clock::duration accept_delay(clock::time_point now);
    // Registers an accepted connection from `ip`. Anything but `admitted`
    // (counted by reason) means the caller closes the socket: the IP is at
    // its limit, or (close policy only) the broker is at max.connections.
    enum class admission { admitted, per_ip_limit, max_connections };
    admission admit(const std::string& ip, clock::time_point now);
    void release(const std::string& ip);

    int32_t limit_for(const std::string& ip) const;
    int64_t open() const;

private:
    limit_options opts_;
    connection_stats& stats_;
    mutable std::mutex mu_;
    int64_t total_ = 0;
    std::unordered_map<std::string, int32_t> per_ip_;
    std::deque<clock::time_point> recent_;  // accept times within the last second
    bool waiting_for_slot_ = false, waiting_for_rate_ = false;
};

}  // namespace ketch::net
