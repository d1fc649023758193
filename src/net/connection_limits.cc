#include "net/connection_limits.h"

#include <algorithm>

namespace ketch::net {

std::string_view to_string(security_protocol p) {
    switch (p) {
        case security_protocol::plaintext: return "PLAINTEXT";
        case security_protocol::ssl: return "SSL";
        case security_protocol::sasl_plaintext: return "SASL_PLAINTEXT";
        case security_protocol::sasl_ssl: return "SASL_SSL";
    }
    return "?";
}

bool parse_security_protocol(std::string_view s, security_protocol& out) {
    std::string up(s);
    std::transform(up.begin(), up.end(), up.begin(), [](unsigned char c) { return char(std::toupper(c)); });
    for (auto p : {security_protocol::plaintext, security_protocol::ssl, security_protocol::sasl_plaintext,
                   security_protocol::sasl_ssl})
        if (up == to_string(p)) {
            out = p;
            return true;
        }
    return false;
}

connection_limits::clock::duration connection_limits::accept_delay(clock::time_point now) {
    std::lock_guard lock(mu_);
    if (total_ >= opts_.max_connections && !opts_.close_when_full) {
        if (!waiting_for_slot_) stats_.throttled_max_connections.fetch_add(1, std::memory_order_relaxed);
        waiting_for_slot_ = true;
        return std::chrono::milliseconds(5);
    }
    waiting_for_slot_ = false;
    while (!recent_.empty() && now - recent_.front() >= std::chrono::seconds(1)) recent_.pop_front();
    if (int64_t(recent_.size()) >= opts_.max_connection_creation_rate) {
        if (!waiting_for_rate_) stats_.throttled_creation_rate.fetch_add(1, std::memory_order_relaxed);
        waiting_for_rate_ = true;
        return recent_.front() + std::chrono::seconds(1) - now;
    }
    waiting_for_rate_ = false;
    return clock::duration::zero();
}

int32_t connection_limits::limit_for(const std::string& ip) const {
    auto it = opts_.per_ip_overrides.find(ip);
    return it != opts_.per_ip_overrides.end() ? it->second : opts_.max_connections_per_ip;
}

connection_limits::admission connection_limits::admit(const std::string& ip, clock::time_point now) {
    std::lock_guard lock(mu_);
    if (opts_.max_connection_creation_rate != std::numeric_limits<int32_t>::max()) recent_.push_back(now);
    int32_t& n = per_ip_[ip];
    auto refuse = [&](std::atomic<uint64_t>& counter, admission why) {
        if (n == 0) per_ip_.erase(ip);
        counter.fetch_add(1, std::memory_order_relaxed);
        return why;
    };
    if (n >= limit_for(ip)) return refuse(stats_.refused_per_ip, admission::per_ip_limit);
    if (opts_.close_when_full && total_ >= opts_.max_connections)
        return refuse(stats_.refused_max_connections, admission::max_connections);
    ++n;
    ++total_;
    stats_.accepted.fetch_add(1, std::memory_order_relaxed);
    stats_.active.fetch_add(1, std::memory_order_relaxed);
    return admission::admitted;
}

void connection_limits::release(const std::string& ip) {
    std::lock_guard lock(mu_);
    auto it = per_ip_.find(ip);
    if (it != per_ip_.end() && --it->second <= 0) per_ip_.erase(it);
    --total_;
    stats_.active.fetch_sub(1, std::memory_order_relaxed);
}

int64_t connection_limits::open() const {
    std::lock_guard lock(mu_);
    return total_;
}

}  // namespace ketch::net
