// DescribeShareGroupOffsets, AlterShareGroupOffsets, DeleteShareGroupOffsets,
// DeleteGroups of a share group. Behaviour: GroupCoordinatorService.
// describeShareGroupOffsets / alterShareGroupOffsets / deleteShareGroupOffsets
// / deleteGroups (Apache Kafka 4.3.1, group-coordinator; the share state goes
// with the group): altering or deleting needs an empty group.
#include "share/coordinator.h"

namespace ketch::share {

std::optional<std::vector<partition_progress>> coordinator::progress(const std::string& group) {
    lock_guard l(mu_);
    if (leased_) return stored_progress(group);
    std::vector<partition_progress> out;
    for (auto it = partitions_.lower_bound({group, uuid{}, INT32_MIN});
         it != partitions_.end() && std::get<0>(it->first) == group; ++it) {
        partition_progress p{{std::get<1>(it->first), std::get<2>(it->first)}, it->second.start_offset(), 0};
        p.done_in_flight = it->second.count(record_state::acknowledged) + it->second.count(record_state::archived);
        out.push_back(p);
    }
    if (out.empty() && !groups_.count(group)) return std::nullopt;
    return out;
}

error_code coordinator::alter_offsets(const std::string& group,
                                      const std::vector<std::pair<topic_partition, int64_t>>& to) {
    durable_on_return durable(*this);
    lock_guard l(mu_);
    auto g = groups_.find(group);
    if (g != groups_.end() && !g->second.members.empty()) return error_code::non_empty_group;
    if (leased_) {
        std::vector<std::pair<topic_partition, std::optional<int64_t>>> rows(to.begin(), to.end());
        return replace_stored(group, rows);
    }
    for (auto& [tp, offset] : to) {
        auto [it, added] = partitions_.try_emplace({group, tp.topic_id, tp.partition}, offset);
        if (!added) it->second.reset(offset);
        persist(group, tp.topic_id, tp.partition, it->second);
    }
    // Kafka initializes the share-partitions at the new offsets.
    if (g != groups_.end()) seed_initialized(g->second);
    return error_code::none;
}

error_code coordinator::delete_offsets(const std::string& group, const uuid& topic_id) {
    // Removals wait for a writer's turn: no row written after it comes back.
    lock_guard w(store_mu_);
    lock_guard l(mu_);
    auto g = groups_.find(group);
    if (g != groups_.end() && !g->second.members.empty()) return error_code::non_empty_group;
    if (leased_) {
        std::vector<std::pair<topic_partition, std::optional<int64_t>>> rows;
        for (auto& tp : stored_partitions(group, &topic_id)) rows.emplace_back(tp, std::nullopt);
        if (auto e = replace_stored(group, rows); e != error_code::none) return e;
    }
    for (auto it = partitions_.lower_bound({group, topic_id, INT32_MIN});
         it != partitions_.end() && std::get<0>(it->first) == group && std::get<1>(it->first) == topic_id;) {
        if (store_) (void)store_->remove(group, topic_id, std::get<2>(it->first));
        it = partitions_.erase(it);
    }
    // The topic's share-partitions are initialized again when next subscribed.
    if (g != groups_.end()) g->second.initialized.erase(topic_id);
    return error_code::none;
}

error_code coordinator::delete_group(const std::string& group) {
    // Removals wait for a writer's turn: no row written after it comes back.
    lock_guard w(store_mu_);
    lock_guard l(mu_);
    auto g = groups_.find(group);
    auto first = partitions_.lower_bound({group, uuid{}, INT32_MIN});
    bool has_state = first != partitions_.end() && std::get<0>(first->first) == group;
    std::vector<std::pair<topic_partition, std::optional<int64_t>>> stored;
    if (leased_)
        for (auto& tp : stored_partitions(group, nullptr)) stored.emplace_back(tp, std::nullopt);
    has_state |= !stored.empty();
    if (g == groups_.end() && !has_state) return error_code::group_id_not_found;
    if (g != groups_.end() && !g->second.members.empty()) return error_code::non_empty_group;
    if (leased_) {
        if (auto e = replace_stored(group, stored); e != error_code::none) return e;
        first = partitions_.lower_bound({group, uuid{}, INT32_MIN});  // replace_stored dropped some
    }
    for (auto it = first; it != partitions_.end() && std::get<0>(it->first) == group;) {
        if (store_) (void)store_->remove(group, std::get<1>(it->first), std::get<2>(it->first));
        it = partitions_.erase(it);
    }
    targets_.erase(group);
    if (g != groups_.end()) groups_.erase(g);
    return error_code::none;
}

}  // namespace ketch::share
