// Cluster mode's share-partition leases (coordinator.h "cluster mode";
// docs/design/cluster.md "share groups"): a partition's share-partitions,
// of every group, are served by its leader while it holds the partition's
// lease in the store; taking it reads their state, a write refused or
// failed drops it.
#include "share/coordinator.h"

#include <atomic>
#include <chrono>

#include <spdlog/spdlog.h>

namespace ketch::share {

void coordinator::restore_row(const meta::stored_share_partition& r) {
    std::vector<state_batch> batches;
    for (auto& b : r.batches)
        batches.push_back({b.first_offset, b.last_offset, record_state(b.state), b.delivery_count});
    partitions_.insert_or_assign({r.group, r.topic_id, r.partition}, partition_state::restore(r.start_offset, batches));
}

bool coordinator::held(const topic_partition& tp) const {
    return !leased_ || held_.contains({tp.topic_id, tp.partition});
}

void coordinator::drop_partition(const topic_partition& tp) {
    std::erase_if(partitions_, [&tp](const auto& kv) {
        return std::get<1>(kv.first) == tp.topic_id && std::get<2>(kv.first) == tp.partition;
    });
}

void coordinator::drop_unwritten(std::span<const meta::stored_share_partition> rows) {
    lock_guard l(mu_);
    for (auto& r : rows) {
        topic_partition tp{r.topic_id, r.partition};
        if (held_.erase({tp.topic_id, tp.partition}) > 0) drop_partition(tp);
    }
}

uint64_t coordinator::hold_of(const topic_partition& tp) {
    if (!leased_) return 0;
    lock_guard l(mu_);
    auto it = held_.find({tp.topic_id, tp.partition});
    return it == held_.end() ? 0 : it->second;
}

bool coordinator::hold(const topic_partition& tp) {
    if (!leased_) return true;
    const std::pair<uuid, int32_t> key{tp.topic_id, tp.partition};
    if (leads_ && !leads_(tp)) {
        // Led by another broker now: its state here is stale from now on.
        lock_guard l(mu_);
        if (held_.erase(key) > 0) {
            drop_partition(tp);
            store_->forget(tp.topic_id, tp.partition);
        }
        return false;
    }
    {
        lock_guard l(mu_);
        if (held_.contains(key)) return true;
    }
    // One take or write at a time (store_mu_ before mu_): no write of the
    // old state runs between the take and the state it read replacing it.
    lock_guard w(store_mu_);
    {
        lock_guard l(mu_);
        if (held_.contains(key)) return true;
    }
    auto rows = store_->take(tp.topic_id, tp.partition);
    if (!rows.ok()) {
        // Not served until a take succeeds: the client only sees its fetch come back empty.
        // Its fetches retry at once: one line per second at most.
        static std::atomic<int64_t> last_warned{0};
        const auto now =
            std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now().time_since_epoch())
                .count();
        if (last_warned.exchange(now) != now)
            spdlog::warn("share: taking the lease of share-partition {}:{} failed: {}", tp.topic_id.to_base64(),
                         tp.partition, rows.error().message);
        return false;
    }
    lock_guard l(mu_);
    drop_partition(tp);
    for (auto& r : *rows) restore_row(r);
    held_[key] = ++holds_;
    return true;
}

}  // namespace ketch::share
