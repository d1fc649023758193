#include "share/coordinator.h"

#include <charconv>

namespace ketch::share {

coordinator::coordinator(settings s, meta::share_store* store, topics_fn topics, configs_fn configs, clock_fn clock)
    : settings_(s),
      store_(store),
      topics_(std::move(topics)),
      configs_(std::move(configs)),
      clock_(std::move(clock)),
      leased_(store && store->leased()) {}

std::optional<std::string> coordinator::load() {
    // Leased: a partition's state is read when its lease is taken (hold).
    if (!store_ || leased_) return std::nullopt;
    auto rows = store_->load();
    if (!rows.ok()) return rows.error().message;
    lock_guard l(mu_);
    for (auto& r : *rows) restore_row(r);
    return std::nullopt;
}

int32_t coordinator::config_int(const meta::config_map& c, const char* key, int32_t dflt) const {
    auto it = c.find(key);
    if (it == c.end()) return dflt;
    int32_t v = 0;
    auto [p, ec] = std::from_chars(it->second.data(), it->second.data() + it->second.size(), v);
    return ec == std::errc{} ? v : dflt;
}

partition_limits coordinator::limits(const std::string& group) {
    auto cfg = configs_(group);
    partition_limits l;
    l.lock_duration_ms = config_int(cfg, "share.record.lock.duration.ms", int32_t(settings_.record_lock_duration_ms));
    l.delivery_count_limit = config_int(cfg, "share.delivery.count.limit", settings_.delivery_count_limit);
    l.max_record_locks = config_int(cfg, "share.partition.max.record.locks", settings_.max_record_locks);
    auto renew = cfg.find("share.renew.acknowledge.enable");
    l.renew_enabled = renew == cfg.end() || renew->second != "false";
    return l;
}

void coordinator::release_member(const std::string& group, const std::string& member) {
    auto lim = limits(group);
    for (auto it = partitions_.lower_bound({group, uuid{}, INT32_MIN});
         it != partitions_.end() && std::get<0>(it->first) == group; ++it) {
        if (it->second.release_member(member, lim) > 0)
            persist(group, std::get<1>(it->first), std::get<2>(it->first), it->second);
    }
}

void coordinator::persist(const std::string& group, const uuid& topic, int32_t partition, const partition_state&) {
    if (!store_) return;
    dirty_.insert({group, topic, partition});
    change_seq_.fetch_add(1);
}

void coordinator::sync_dirty() {
    if (!store_) return;
    const uint64_t want = change_seq_.load();
    lock_guard w(store_mu_);
    if (durable_seq_ >= want) return;  // a writer that took its turn meanwhile wrote it
    std::vector<meta::stored_share_partition> rows;
    uint64_t upto = 0;
    {
        lock_guard l(mu_);
        upto = change_seq_.load();
        for (auto& key : dirty_) {
            auto it = partitions_.find(key);
            if (it == partitions_.end()) continue;  // removed since (its row went with it)
            auto& row = rows.emplace_back();
            row.group = std::get<0>(key);
            row.topic_id = std::get<1>(key);
            row.partition = std::get<2>(key);
            row.start_offset = it->second.start_offset();
            for (auto& b : it->second.snapshot())
                row.batches.push_back({b.first_offset, b.last_offset, int8_t(b.state), b.delivery_count});
        }
        dirty_.clear();
    }
    // A failed write leaves the previous state on disk: after a restart the
    // records since are delivered again (at least once), never lost.
    // Leased (cluster mode), the partitions of a failed write are dropped:
    // what this broker holds must be what is stored, and hold_of tells the
    // requests that waited for the write.
    if (!rows.empty() && !store_->put(rows).ok() && leased_) drop_unwritten(rows);
    durable_seq_ = upto;
}

void coordinator::tick() {
    durable_on_return durable(*this);
    lock_guard l(mu_);
    int64_t now = clock_();
    complete_initializations();
    for (auto& [id, g] : groups_) {
        std::vector<std::string> expired;
        for (auto& [mid, m] : g.members)
            if (m.session_deadline_ms <= now) expired.push_back(mid);
        for (auto& mid : expired) {
            remove_member(g, mid);
            sessions_.erase({id, mid});
        }
    }
    for (auto& [key, p] : partitions_) {
        if (p.next_lock_deadline() > now) continue;
        if (p.expire_locks(now, limits(std::get<0>(key))) > 0)
            persist(std::get<0>(key), std::get<1>(key), std::get<2>(key), p);
    }
}

}  // namespace ketch::share
