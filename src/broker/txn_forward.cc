#include "broker/txn_forward.h"

#include <algorithm>
#include <utility>

namespace ketch::broker {

bool added_partitions_cache::contains(int64_t producer_id, int16_t epoch, const txn::topic_partition& tp) const {
    std::lock_guard l(mu_);
    auto it = by_producer_.find(producer_id);
    if (it == by_producer_.end() || it->second.epoch != epoch) return false;
    auto& ps = it->second.partitions;
    return std::find(ps.begin(), ps.end(), tp) != ps.end();
}

void added_partitions_cache::insert(int64_t producer_id, int16_t epoch, const std::vector<txn::topic_partition>& tps) {
    std::lock_guard l(mu_);
    if (by_producer_.size() >= k_max && !by_producer_.contains(producer_id)) by_producer_.clear();
    auto& e = by_producer_[producer_id];
    if (e.epoch != epoch) {
        e.epoch = epoch;
        e.partitions.clear();
    }
    for (auto& tp : tps)
        if (std::find(e.partitions.begin(), e.partitions.end(), tp) == e.partitions.end()) e.partitions.push_back(tp);
}

namespace {

std::mutex remotes_mu;
std::vector<std::pair<const broker_context*, remote_txn_coordinator*>> remotes;  // one per broker in the process

}  // namespace

void set_remote_txns(const broker_context& b, remote_txn_coordinator* r) {
    std::lock_guard l(remotes_mu);
    std::erase_if(remotes, [&b](auto& p) { return p.first == &b; });
    if (r) remotes.emplace_back(&b, r);
}

remote_txn_coordinator* remote_txns_of(const broker_context& b) {
    std::lock_guard l(remotes_mu);
    for (auto& [ctx, r] : remotes)
        if (ctx == &b) return r;
    return nullptr;
}

}  // namespace ketch::broker
