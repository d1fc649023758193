// A share group's target assignment and its share-partitions'
// initialization. Behaviour: GroupMetadataManager.shareGroupHeartbeat,
// maybeUpdateTargetAssignment, canComputeNextTargetAssignment,
// initializedAssignmentPending, subscribedTopicsChangeMap and
// initializeShareGroupState (Apache Kafka 4.3.1, group-coordinator):
//
// - a share-partition is assigned only once its state is initialized; the
//   heartbeat that first sees it subscribed asks for the initialization,
//   which completes after the answer (Kafka: the persister, then a
//   ShareGroupStatePartitionMetadata record; here: the next tick). A
//   heartbeat after that finds the initialized partitions unassigned and
//   bumps the group epoch. So a first member's join answers epoch 2 (a
//   group starts at 1) and no partitions, a later heartbeat epoch 3 and the
//   partitions;
// - a new target is computed when the group epoch is past the target's, at
//   most once per share.assignment.interval.ms; meanwhile a member keeps the
//   last target (and its epoch).
#include <algorithm>

#include "share/coordinator.h"

namespace ketch::share {

bool coordinator::metadata_changed(share_group& g, const std::vector<topic_info>& topics) const {
    auto subscribed = g.subscribed_topics();
    std::vector<std::tuple<std::string, uuid, int32_t>> now;
    for (auto& t : topics)
        if (std::binary_search(subscribed.begin(), subscribed.end(), t.name))
            now.emplace_back(t.name, t.id, t.partitions);
    std::sort(now.begin(), now.end());
    if (now == g.metadata) return false;
    g.metadata = std::move(now);
    return true;
}

// canComputeNextTargetAssignment: never computed, no interval, or the
// interval has passed since the last one.
static bool can_compute(int64_t last_ms, int32_t interval_ms, int64_t now) {
    return last_ms == 0 || interval_ms == 0 || now >= last_ms + interval_ms;
}

void coordinator::maybe_update_target(share_group& g, const std::vector<topic_info>& topics, int64_t now) {
    if (g.assignment_epoch >= g.group_epoch) return;
    auto interval = config_int(configs_(g.group_id), "share.assignment.interval.ms", settings_.assignment_interval_ms);
    if (!can_compute(g.assignment_timestamp_ms, interval, now)) return;
    auto subscribed = g.subscribed_topics();
    std::vector<assignable_topic> assignable;
    for (auto& t : topics) {
        auto init = g.initialized.find(t.id);
        if (init == g.initialized.end() || !std::binary_search(subscribed.begin(), subscribed.end(), t.name)) continue;
        assignable_topic a{t.name, t.id, {}};
        for (int32_t p : init->second.partitions)
            if (p < t.partitions) a.partitions.push_back(p);
        assignable.push_back(std::move(a));
    }
    targets_[g.group_id] = assign(g, assignable);
    g.assignment_epoch = g.group_epoch;
    g.assignment_timestamp_ms = now;
}

// maybeReconcile: share groups revoke nothing, so a member is at the
// target as soon as it is told; a changed subscription takes the target
// again even at the same epoch.
void coordinator::reconcile(share_group& g, share_member& m, bool subscription_changed) {
    if (!subscription_changed && m.member_epoch == g.assignment_epoch) return;
    m.member_epoch = g.assignment_epoch;
    auto& target = targets_[g.group_id];
    auto it = target.find(m.member_id);
    m.assigned = it == target.end() ? assignment{} : it->second;
}

bool coordinator::initialized_assignment_pending(const share_group& g) {
    if (g.members.empty() || g.initialized.empty()) return false;
    auto subscribed = g.subscribed_topics();
    if (subscribed.empty()) return false;
    std::map<uuid, std::set<int32_t>> assigned;
    for (auto& [member, a] : targets_[g.group_id])
        for (auto& [tid, parts] : a) assigned[tid].insert(parts.begin(), parts.end());
    for (auto& [tid, init] : g.initialized) {
        if (!std::binary_search(subscribed.begin(), subscribed.end(), init.name)) continue;
        auto it = assigned.find(tid);
        if (it == assigned.end() || it->second != init.partitions) return true;
    }
    return false;
}

// subscribedTopicsChangeMap + addInitializingTopicsRecords: every
// subscribed partition neither initialized nor initializing (for less than
// group.share.initialize.retry.interval.ms) starts initializing.
void coordinator::start_initialization(share_group& g, const std::vector<topic_info>& topics, int64_t now) const {
    auto subscribed = g.subscribed_topics();
    for (auto& t : topics) {
        if (!std::binary_search(subscribed.begin(), subscribed.end(), t.name)) continue;
        std::set<int32_t> already;
        if (auto i = g.initialized.find(t.id); i != g.initialized.end()) already = i->second.partitions;
        auto pending = g.initializing.find(t.id);
        if (pending != g.initializing.end() && now - pending->second.since_ms < settings_.initialize_retry_interval_ms)
            already.insert(pending->second.partitions.begin(), pending->second.partitions.end());
        if (!already.empty() && already.size() >= size_t(t.partitions)) continue;
        auto& entry = g.initializing[t.id];
        entry.name = t.name;
        entry.since_ms = now;
        for (int32_t p = 0; p < t.partitions; ++p)
            if (!already.count(p)) entry.partitions.insert(p);
    }
}

// initializeShareGroupState: what was asked is initialized.
void coordinator::complete_initializations() {
    for (auto& [id, g] : groups_) {
        for (auto& [tid, init] : g.initializing) {
            auto& done = g.initialized[tid];
            done.name = init.name;
            done.partitions.insert(init.partitions.begin(), init.partitions.end());
        }
        g.initializing.clear();
    }
}

// A group created again (after a restart or once empty and forgotten):
// its share-partitions with stored state are initialized already.
void coordinator::seed_initialized(share_group& g) {
    std::map<uuid, std::string> names;
    for (auto& t : topics_()) names[t.id] = t.name;
    for (auto it = partitions_.lower_bound({g.group_id, uuid{}, INT32_MIN});
         it != partitions_.end() && std::get<0>(it->first) == g.group_id; ++it) {
        auto& done = g.initialized[std::get<1>(it->first)];
        done.name = names[std::get<1>(it->first)];
        done.partitions.insert(std::get<2>(it->first));
    }
}

}  // namespace ketch::share
