#include "group/current_assignment.h"

namespace ketch::group {

namespace {

// Kafka's ownsRevokedPartitions: without a report the member still owns them.
bool owns_any(const std::optional<topic_partitions>& owned, const topic_partitions& revoking) {
    if (!owned) return true;
    for (const auto& [topic, ps] : *owned) {
        auto it = revoking.find(topic);
        if (it == revoking.end()) continue;
        for (int32_t p : ps)
            if (it->second.count(p)) return true;
    }
    return false;
}

consumer_member next_consumer_assignment(const consumer_member& m, int32_t member_epoch, int32_t target_epoch,
                                         const topic_partitions& target, const partition_epoch_fn& partition_epoch,
                                         const std::optional<topic_partitions>& owned,
                                         const std::set<uuid>& subscribed) {
    bool unreleased = false;
    topic_partitions assigned, revoking, pending;
    std::set<uuid> topics;
    for (const auto& [t, ps] : target) topics.insert(t);
    for (const auto& [t, ps] : m.assigned) topics.insert(t);
    static const std::set<int32_t> none;
    for (const auto& topic : topics) {
        auto ti = target.find(topic);
        const auto& want = (ti == target.end() || !subscribed.count(topic)) ? none : ti->second;
        auto ai = m.assigned.find(topic);
        const auto& have = ai == m.assigned.end() ? none : ai->second;
        auto ri = m.pending_revocation.find(topic);
        const auto& was_revoking = ri == m.pending_revocation.end() ? none : ri->second;
        for (int32_t p : have) (want.count(p) ? assigned : revoking)[topic].insert(p);
        for (int32_t p : want) {
            if (have.count(p)) continue;
            // Owned by another member (not this one, giving it up): not yet.
            if (partition_epoch(topic, p) != -1 && !was_revoking.count(p)) {
                unreleased = true;
                continue;
            }
            pending[topic].insert(p);
        }
    }
    consumer_member next = m;
    // Kafka's Builder.updateMemberEpoch: the previous epoch is the one the
    // member had before this step, even when it does not change.
    auto set_epoch = [&](int32_t e) {
        next.previous_member_epoch = next.member_epoch;
        next.member_epoch = e;
    };
    if (!revoking.empty() && owns_any(owned, revoking)) {
        next.state = member_state::unrevoked_partitions;
        set_epoch(member_epoch);
        next.assigned = std::move(assigned);
        next.pending_revocation = std::move(revoking);
        return next;
    }
    for (auto& [t, ps] : pending) assigned[t].insert(ps.begin(), ps.end());
    next.state = unreleased ? member_state::unreleased_partitions : member_state::stable;
    set_epoch(target_epoch);
    next.assigned = std::move(assigned);
    next.pending_revocation.clear();
    return next;
}

// KIP-1251: a partition the member keeps (assigned or pending revocation)
// keeps the epoch it was assigned at; a newly assigned one gets the target's.
void carry_assignment_epochs(const consumer_member& m, consumer_member& next, int32_t target_epoch) {
    std::map<uuid, std::map<int32_t, int32_t>> epochs;
    for (const auto* parts : {&next.assigned, &next.pending_revocation})
        for (const auto& [t, ps] : *parts)
            for (int32_t p : ps) {
                const bool had = (m.assigned.count(t) && m.assigned.at(t).count(p)) ||
                                 (m.pending_revocation.count(t) && m.pending_revocation.at(t).count(p));
                epochs[t][p] = had ? m.assignment_epoch_of(t, p).value_or(m.member_epoch) : target_epoch;
            }
    next.assignment_epochs = std::move(epochs);
}

consumer_member reconcile_sets(const consumer_member& m, int32_t target_epoch, const topic_partitions& target,
                               const partition_epoch_fn& partition_epoch, const std::optional<topic_partitions>& owned,
                               const std::set<uuid>& subscribed) {
    switch (m.state) {
        case member_state::stable:
            if (m.member_epoch == target_epoch) return m;
            return next_consumer_assignment(m, m.member_epoch, target_epoch, target, partition_epoch, owned,
                                            subscribed);
        case member_state::unrevoked_partitions:
            if (owns_any(owned, m.pending_revocation)) return m;
            return next_consumer_assignment(m, m.member_epoch, target_epoch, target, partition_epoch, owned,
                                            subscribed);
        case member_state::unreleased_partitions:
            return next_consumer_assignment(m, m.member_epoch, target_epoch, target, partition_epoch, owned,
                                            subscribed);
    }
    return m;
}

}  // namespace

consumer_member reconcile(const consumer_member& m, int32_t target_epoch, const topic_partitions& target,
                          const partition_epoch_fn& partition_epoch, const std::optional<topic_partitions>& owned,
                          const std::set<uuid>& subscribed) {
    consumer_member next = reconcile_sets(m, target_epoch, target, partition_epoch, owned, subscribed);
    if (next != m) carry_assignment_epochs(m, next, target_epoch);
    return next;
}

}  // namespace ketch::group
