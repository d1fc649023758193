#include "inspect/traffic_ring.h"

#include <algorithm>

namespace ketch::inspect {

namespace {

size_t held(const exchange& e) { return e.request.size() + e.response.size(); }

}  // namespace

bool traffic_ring::redact_api(int16_t api_key) {
    switch (api_key) {
        case 36:  // SaslAuthenticate: SCRAM messages, PLAIN passwords, OAuth tokens
        case 38:  // CreateDelegationToken
        case 39:  // RenewDelegationToken
        case 40:  // ExpireDelegationToken
        case 41:  // DescribeDelegationToken
        case 51:  // AlterUserScramCredentials: salted passwords
            return true;
        default: return false;
    }
}

void traffic_ring::watch(int64_t now_ms) {
    std::lock_guard l(mu_);
    watch_until_ = now_ms + k_watch_ms;
    active_.store(true, std::memory_order_relaxed);
}

void traffic_ring::expire(int64_t now_ms) {
    if (now_ms > watch_until_) active_.store(false, std::memory_order_relaxed);
}

void traffic_ring::trim() {
    while (exchanges_.size() > k_exchanges) {
        kept_ -= held(exchanges_.front());
        exchanges_.pop_front();
        if (bare_ > 0) --bare_;
    }
    // Bodies go oldest first: the first bare_ exchanges hold none, and are not
    // walked again on every record once the budget is reached.
    bare_ = std::min(bare_, exchanges_.size());
    for (auto it = exchanges_.begin() + long(bare_); kept_ > budget_ && it != exchanges_.end(); ++it, ++bare_) {
        if (it->request.empty() && it->response.empty()) continue;
        kept_ -= held(*it);
        it->request = {};
        it->response = {};
        if (it->withheld.empty()) it->withheld = "bodies dropped: the inspector's memory budget was reached";
    }
}

void traffic_ring::record(exchange e, int64_t now_ms) {
    std::lock_guard l(mu_);
    expire(now_ms);
    e.seq = next_seq_++;
    kept_ += held(e);
    exchanges_.push_back(std::move(e));
    trim();
}

void traffic_ring::record(connection_event e, int64_t now_ms) {
    std::lock_guard l(mu_);
    expire(now_ms);
    e.seq = next_seq_++;
    events_.push_back(std::move(e));
    while (events_.size() > k_events) events_.pop_front();
}

std::vector<exchange> traffic_ring::exchanges_after(uint64_t after, size_t max) const {
    std::lock_guard l(mu_);
    std::vector<exchange> out;
    // Newest max of those after `after`, returned oldest first.
    size_t n = 0;
    auto it = exchanges_.rbegin();
    for (; it != exchanges_.rend() && it->seq > after && n < max; ++it) ++n;
    out.reserve(n);
    for (auto f = it.base(); f != exchanges_.end(); ++f) out.push_back(*f);
    return out;
}

std::optional<exchange> traffic_ring::find(uint64_t seq) const {
    std::lock_guard l(mu_);
    for (auto& e : exchanges_)
        if (e.seq == seq) return e;
    return std::nullopt;
}

std::vector<connection_event> traffic_ring::events() const {
    std::lock_guard l(mu_);
    return {events_.begin(), events_.end()};
}

size_t traffic_ring::kept_bytes() const {
    std::lock_guard l(mu_);
    return kept_;
}

}  // namespace ketch::inspect
