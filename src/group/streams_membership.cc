// Streams groups (KIP-1071) beyond the heartbeat's main path: the answer,
// the target assignment, leaving, fencing and the session and rebalance
// timeouts, StreamsGroupDescribe (GroupMetadataManager.streamsGroupLeave,
// streamsGroupFenceMember, scheduleStreamsGroup*Timeout,
// maybeUpdateStreamsTargetAssignment, streamsGroupDescribe; Kafka 4.3.1).
#include "group/coordinator.h"
#include "group/coordinator_internal.h"
#include "group/streams_reconcile.h"

namespace ketch::group {

namespace {

// EndpointToPartitionsManager: the partitions of the source and repartition
// source topics of each member's active and standby tasks, by endpoint.
std::vector<streams_endpoint_partitions> endpoint_partitions(const streams_group& g) {
    std::vector<streams_endpoint_partitions> out;
    if (!g.configured || !g.configured->ready()) return out;
    auto add = [&g](const task_set& ts, std::map<std::string, std::set<int32_t>>& into) {
        for (const auto& [s, ps] : ts) {
            auto it = g.configured->subtopologies.find(s);
            if (it == g.configured->subtopologies.end()) continue;
            for (const auto& topic : it->second.source_topics) into[topic].insert(ps.begin(), ps.end());
        }
    };
    for (const auto& [id, m] : g.members) {
        if (!m.user_endpoint) continue;
        auto& e = out.emplace_back();
        e.endpoint = *m.user_endpoint;
        add(m.assigned.active, e.active);
        add(m.assigned.standby, e.standby);
    }
    return out;
}

}  // namespace

streams_group* group_slot::find_streams(const std::string& group_id) {
    return group_id == id_ ? streams_.get() : nullptr;
}

bool group_coordinator::is_streams_group(const std::string& group_id) {
    auto ref = use_slot(group_id, false);
    if (!ref) return false;
    group_slot& s = *ref;
    ketch::lock_guard lock(s.mu_);
    return s.find_streams(group_id) != nullptr;
}

// The response of streamsGroupHeartbeat once the member is reconciled.
streams_heartbeat_result group_slot::streams_answer(streams_group& g, const streams_heartbeat_args& a,
                                                    const streams_member& old, const streams_member& next,
                                                    std::vector<streams_status> status) {
    streams_heartbeat_result r;
    r.member_id = next.member_id;
    r.member_epoch = next.member_epoch;
    r.heartbeat_interval_ms = streams_heartbeat_interval_ms();
    if (a.member_epoch == 0 || next.assigned != old.assigned) {
        r.assignment = next.assigned;
        // The endpoint information changes only when a member that serves
        // interactive queries (a user endpoint) gets other tasks: Kafka keeps
        // epoch 0 for members without one (conformance/recordings/
        // streams-groups.json).
        if (next.user_endpoint && (a.member_epoch != 0 || !next.assigned.empty())) g.endpoint_information_epoch += 1;
    }
    if (g.endpoint_information_epoch != a.endpoint_information_epoch) r.partitions_by_endpoint = endpoint_partitions(g);
    r.endpoint_information_epoch = g.endpoint_information_epoch;
    if (g.configured && g.configured->status) {
        status.push_back(*g.configured->status);
        r.topics_to_create = g.configured->topics_to_create;
    }
    if (g.shutdown_requested_by)
        status.push_back({streams_status_code::shutdown_application,
                          "Streams group member " + *g.shutdown_requested_by +
                              " encountered a fatal error and requested a shutdown for the entire application."});
    if (!status.empty()) r.status = std::move(status);
    return r;
}

// streamsGroupLeave
streams_heartbeat_result group_slot::streams_leave(const streams_heartbeat_args& a, completions& out) {
    auto found = streams_group_for(a.group_id, false);
    if (!found) return found.error();
    streams_group& g = **found;
    if (a.instance_id)
        return streams_heartbeat_result{.error = error_code::unknown_server_error,
                                        .error_message = "Static members are not supported in streams groups."};
    if (!g.member(a.member_id))
        return streams_heartbeat_result{
            .error = error_code::unknown_member_id,
            .error_message = "Member " + a.member_id + " is not a member of group " + g.id() + "."};
    fence_streams_member(g, a.member_id, out);
    return streams_heartbeat_result{.member_id = a.member_id, .member_epoch = leave_group_member_epoch};
}

// streamsGroupFenceMember: the member goes, the group epoch is bumped; the
// shutdown request ends with the last member.
void group_slot::fence_streams_member(streams_group& g, const std::string& member_id, completions& out) {
    g.members.erase(member_id);
    g.target.erase(member_id);
    cancel_timer(streams_session_key(g.id(), member_id));
    cancel_timer(streams_rebalance_key(g.id(), member_id));
    g.group_epoch += 1;
    if (g.members.empty()) g.shutdown_requested_by.reset();
    persist_streams(g, out);
}

void group_slot::schedule_streams_session_timeout(const std::string& group_id, const std::string& member_id) {
    schedule_timer(streams_session_key(group_id, member_id), streams_session_timeout_ms(),
                   [this, group_id, member_id](completions& o) REQUIRES(mu_) {
                       auto* g = find_streams(group_id);
                       if (g && g->member(member_id)) fence_streams_member(*g, member_id, o);
                   });
}

// A member still revoking tasks at the end of its rebalance timeout is fenced.
void group_slot::schedule_streams_rebalance_timeout(const std::string& group_id, const std::string& member_id,
                                                    int32_t epoch, int32_t timeout_ms) {
    schedule_timer(streams_rebalance_key(group_id, member_id), std::max(timeout_ms, 0),
                   [this, group_id, member_id, epoch](completions& o) REQUIRES(mu_) {
                       auto* g = find_streams(group_id);
                       const auto* m = g ? g->member(member_id) : nullptr;
                       if (m && m->member_epoch == epoch && m->state == streams_member_state::unrevoked_tasks)
                           fence_streams_member(*g, member_id, o);
                   });
}

std::vector<described_streams_group> group_coordinator::streams_describe(const std::vector<std::string>& group_ids) {
    return describe_each<described_streams_group>(
        group_ids,
        [this](const std::string&) { return env_.stopped ? error_code::coordinator_not_available : error_code::none; },
        [](group_slot& s, described_streams_group& d) {
            ketch::lock_guard lock(s.mu_);
            s.describe_streams(d);
        });
}

void group_slot::describe_streams(described_streams_group& d) {
    const auto& id = id_;
    auto* g = streams_.get();
    if (!g) {
        d.error = error_code::group_id_not_found;
        d.error_message =
            classic_ || consumer_ ? "Group " + id + " is not a streams group." : "Group " + id + " not found.";
        return;
    }
    d.group_state = std::string(streams_state_name(g->state()));
    d.group_epoch = g->group_epoch;
    d.assignment_epoch = g->assignment_epoch;
    d.topology = g->topology;
    for (const auto& [mid, m] : g->members) {
        auto& dm = d.members.emplace_back();
        dm.describe(mid, m);
        dm.topology_epoch = m.topology_epoch;
        dm.process_id = m.process_id;
        dm.user_endpoint = m.user_endpoint;
        dm.client_tags = m.client_tags;
        dm.assignment = m.assigned;
        dm.target_assignment = g->target_of(mid);
    }
}

}  // namespace ketch::group
