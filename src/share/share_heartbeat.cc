// ShareGroupHeartbeat, ShareGroupDescribe, ListGroups' share rows.
// Behaviour: GroupMetadataManager.shareGroupHeartbeat and
// throwIfShareGroupHeartbeatRequestIsInvalid (Apache Kafka 4.3.1,
// group-coordinator); the target assignment and the share-partitions'
// initialization are share_target.cc's.
#include <algorithm>

#include "share/coordinator.h"

namespace ketch::share {

namespace {
heartbeat_answer refuse(error_code e, std::string msg) {
    heartbeat_answer a;
    a.error = e;
    a.error_message = std::move(msg);
    return a;
}
}  // namespace

heartbeat_answer coordinator::heartbeat(const heartbeat_request& req) {
    if (req.group_id.empty()) return refuse(error_code::invalid_request, "GroupId can't be empty.");
    if (req.member_id.empty()) return refuse(error_code::invalid_request, "MemberId can't be empty.");
    if (req.member_epoch < -1) return refuse(error_code::invalid_request, "MemberEpoch is invalid.");
    if (req.member_epoch == 0 && (!req.subscribed_topic_names || req.subscribed_topic_names->empty()))
        return refuse(error_code::invalid_request, "SubscribedTopicNames must be set in first request.");
    durable_on_return durable(*this);
    lock_guard l(mu_);
    int64_t now = clock_();
    auto it = groups_.find(req.group_id);
    if (req.member_epoch == -1) {
        // shareGroupLeave: the member goes, the others get a new assignment.
        if (it == groups_.end() || !it->second.members.count(req.member_id))
            return refuse(error_code::unknown_member_id, "");
        remove_member(it->second, req.member_id);
        heartbeat_answer a;
        a.member_id = req.member_id;
        a.member_epoch = -1;
        return a;
    }
    if (it == groups_.end()) {
        if (req.member_epoch != 0) return refuse(error_code::unknown_member_id, "");
        it = groups_.emplace(req.group_id, share_group{}).first;
        it->second.group_id = req.group_id;
        seed_initialized(it->second);
    }
    auto& g = it->second;
    auto m = g.members.find(req.member_id);
    if (req.member_epoch > 0) {
        if (m == g.members.end())
            return refuse(error_code::unknown_member_id, "Member " + req.member_id + " is not a member of the group.");
        if (m->second.member_epoch != req.member_epoch)
            return refuse(error_code::fenced_member_epoch, "The share group member has a smaller member epoch (" +
                                                               std::to_string(req.member_epoch) +
                                                               ") than the one known by the group coordinator (" +
                                                               std::to_string(m->second.member_epoch) + ").");
    }
    return join_or_update(g, req, now);
}

heartbeat_answer coordinator::join_or_update(share_group& g, const heartbeat_request& req, int64_t now) {
    auto cfg = configs_(g.group_id);
    auto [m, added] = g.members.try_emplace(req.member_id);
    auto& mem = m->second;
    if (added) mem.member_id = req.member_id;
    // hasMemberSubscriptionChanged: only the subscription bumps the epoch.
    bool bump = false;
    if (req.subscribed_topic_names) {
        auto subs = *req.subscribed_topic_names;
        std::sort(subs.begin(), subs.end());
        subs.erase(std::unique(subs.begin(), subs.end()), subs.end());
        if (subs != mem.subscribed_topic_names) {
            mem.subscribed_topic_names = std::move(subs);
            bump = true;
        }
    }
    if (req.rack_id) mem.rack_id = *req.rack_id;
    mem.client_id = req.client_id;
    mem.client_host = req.client_host;
    mem.session_deadline_ms = now + config_int(cfg, "share.session.timeout.ms", settings_.session_timeout_ms);
    const bool subscription_changed = bump;
    // Partitions initialized since the last target: assign them.
    if (g.assignment_epoch >= g.group_epoch) bump |= initialized_assignment_pending(g);
    auto topics = topics_();
    // Subscribed topics created, deleted or grown (the metadata hash).
    bump |= metadata_changed(g, topics);
    if (bump) ++g.group_epoch;
    maybe_update_target(g, topics, now);
    auto before = mem.assigned;
    reconcile(g, mem, subscription_changed);
    heartbeat_answer a;
    a.member_id = mem.member_id;
    a.member_epoch = mem.member_epoch;
    a.heartbeat_interval_ms = config_int(cfg, "share.heartbeat.interval.ms", settings_.heartbeat_interval_ms);
    // The assignment goes to a joining member, a full request (one with its
    // subscription) and a member whose assignment changed.
    if (req.member_epoch == 0 || req.subscribed_topic_names || mem.assigned != before) a.assigned = mem.assigned;
    // The subscribed partitions without state are initialized after the
    // answer (GroupCoordinatorService, asynchronously): assigned later.
    start_initialization(g, topics, now);
    return a;
}

void coordinator::remove_member(share_group& g, const std::string& member) {
    g.members.erase(member);
    targets_[g.group_id].erase(member);
    // shareGroupFenceMember: a new epoch; the others get the new target at
    // their next heartbeat.
    ++g.group_epoch;
    (void)metadata_changed(g, topics_());
    release_member(g.group_id, member);
}

std::vector<described_group> coordinator::describe(const std::vector<std::string>& ids) {
    lock_guard l(mu_);
    std::vector<described_group> out;
    for (auto& id : ids) {
        auto& d = out.emplace_back();
        d.group_id = id;
        auto it = groups_.find(id);
        if (it == groups_.end()) {
            // GroupCoordinatorService.shareGroupDescribe: an unknown group.
            d.error = error_code::group_id_not_found;
            d.error_message = "Group " + id + " not found.";
            d.state = "Dead";
            continue;
        }
        auto& g = it->second;
        d.state = g.state();
        d.group_epoch = g.group_epoch;
        d.assignment_epoch = g.assignment_epoch;
        for (auto& [mid, m] : g.members) d.members.push_back(m);
    }
    return out;
}

std::vector<std::pair<std::string, std::string>> coordinator::list() {
    lock_guard l(mu_);
    std::vector<std::pair<std::string, std::string>> out;
    for (auto& [id, g] : groups_) out.emplace_back(id, g.state());
    return out;
}

bool coordinator::is_share_group(const std::string& id) {
    lock_guard l(mu_);
    return groups_.count(id) > 0;
}

}  // namespace ketch::share
