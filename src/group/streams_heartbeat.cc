// StreamsGroupHeartbeat (KIP-1071). Mirrors GroupCoordinatorService
// (throwIfStreamsGroupHeartbeatRequestIsInvalid, ...UsingUnsupportedFeatures)
// and GroupMetadataManager.streamsGroupHeartbeat (Apache Kafka 4.3.1):
//   1. the member is created or updated; a new member or a change of the
//      metadata the assignor reads (process id, endpoint, tags, rack,
//      topology epoch) bumps the group epoch;
//   2. the first member's topology initializes the group's; it is configured
//      against the topics (streams_topology.h) whenever their partition
//      counts change, which bumps the group epoch too; a topology that is not
//      ready answers its status (MISSING_SOURCE_TOPICS, MISSING_INTERNAL_TOPICS
//      with the topics for the broker to create, INCORRECTLY_PARTITIONED_TOPICS);
//   3. a group epoch above the target's recomputes the target with the
//      sticky assignor (streams_assignor.h);
//   4. the member reconciles towards its target (streams_reconcile.h).
//   The first target of a new group waits group.streams.initial.rebalance.delay.ms,
//   later ones group.streams.assignment.interval.ms (streams_target.cc).
// ketch difference: no static membership (Kafka 4.3.1 has none for streams
// groups either).
#include "group/coordinator.h"
#include "group/coordinator_internal.h"
#include "group/streams_reconcile.h"

namespace ketch::group {

namespace {

streams_heartbeat_result sh_error(error_code e, std::string message) {
    return streams_heartbeat_result{.error = e, .error_message = std::move(message)};
}

bool non_empty(const std::optional<task_set>& t) { return t && !t->empty(); }

// GroupCoordinatorService.throwIfStreamsGroupHeartbeatRequestIsUsingUnsupportedFeatures
// and throwIfStreamsGroupHeartbeatRequestIsInvalid.
std::optional<streams_heartbeat_result> invalid(const streams_heartbeat_args& a) {
    auto bad = [](std::string m) { return sh_error(error_code::invalid_request, std::move(m)); };
    if (a.topology && a.uses_source_topic_regex)
        return bad("Regular expressions for source topics are not supported yet.");
    if (blank(a.member_id)) return bad("MemberId can't be empty.");
    if (blank(a.group_id)) return bad("GroupId can't be empty.");
    if (blank(a.instance_id)) return bad("InstanceId can't be empty.");
    if (blank(a.rack_id)) return bad("RackId can't be empty.");
    if (a.member_epoch == 0) {
        if (a.rebalance_timeout_ms == -1) return bad("RebalanceTimeoutMs must be provided in first request.");
        if (non_empty(a.active_tasks)) return bad("ActiveTasks must be empty when (re-)joining.");
        if (non_empty(a.standby_tasks)) return bad("StandbyTasks must be empty when (re-)joining.");
        if (non_empty(a.warmup_tasks)) return bad("WarmupTasks must be empty when (re-)joining.");
        if (!a.topology) return bad("Topology must be non-null when (re-)joining.");
        if (auto m = invalid_topology(*a.topology)) return sh_error(error_code::streams_invalid_topology, *m);
    } else if (a.member_epoch == leave_group_static_member_epoch) {
        if (!a.instance_id) return bad("InstanceId can't be null.");
    } else if (a.member_epoch < leave_group_static_member_epoch) {
        return bad("MemberEpoch is " + std::to_string(a.member_epoch) + ", but must be greater than or equal to -2.");
    }
    if ((a.active_tasks || a.standby_tasks || a.warmup_tasks) && !(a.active_tasks && a.standby_tasks && a.warmup_tasks))
        return bad("If one task-type is non-null, all must be non-null.");
    if (a.member_epoch != 0 && a.topology) return bad("Topology can only be provided when (re-)joining.");
    return std::nullopt;
}

// throwIfStreamsGroupMemberEpochIsInvalid; epoch 0 is a rejoin.
std::optional<streams_heartbeat_result> epoch_invalid(const streams_member& m, const streams_heartbeat_args& a) {
    const int32_t received = a.member_epoch;
    if (received == 0 || received == m.member_epoch) return std::nullopt;
    const bool greater = received > m.member_epoch;
    if (!greater && received == m.previous_member_epoch && within(a.active_tasks, m.assigned.active) &&
        within(a.standby_tasks, m.assigned.standby) && within(a.warmup_tasks, m.assigned.warmup))
        return std::nullopt;
    return sh_error(error_code::fenced_member_epoch, fenced_epoch_message("streams", received, m.member_epoch));
}

// throwIfRequestContainsInvalidTasks
std::optional<streams_heartbeat_result> invalid_tasks(const configured_topology& c, const streams_heartbeat_args& a) {
    if (!c.ready()) return std::nullopt;
    for (const auto* ts : {&a.active_tasks, &a.standby_tasks, &a.warmup_tasks}) {
        if (!*ts) continue;
        for (const auto& [s, ps] : **ts) {
            auto it = c.subtopologies.find(s);
            if (it == c.subtopologies.end())
                return sh_error(error_code::invalid_request, "Subtopology " + s + " does not exist in the topology.");
            for (auto p : ps)
                if (p < 0 || p >= it->second.number_of_tasks)
                    return sh_error(error_code::invalid_request,
                                    "Task " + std::to_string(p) + " for subtopology " + s +
                                        " is invalid. Number of tasks for this subtopology: " +
                                        std::to_string(it->second.number_of_tasks));
        }
    }
    return std::nullopt;
}

// The member as this heartbeat updates it (StreamsGroupMember.Builder.maybeUpdate*).
streams_member updated_member(const streams_member& old, const streams_heartbeat_args& a) {
    streams_member m = old;
    if (a.rack_id) m.rack_id = a.rack_id;
    if (a.rebalance_timeout_ms != -1) m.rebalance_timeout_ms = a.rebalance_timeout_ms;
    if (a.topology) m.topology_epoch = a.topology->epoch;
    m.client_id = a.client_id;
    m.client_host = a.client_host;
    if (a.process_id) m.process_id = *a.process_id;
    if (a.user_endpoint) m.user_endpoint = a.user_endpoint;
    if (a.client_tags) m.client_tags = *a.client_tags;
    return m;
}

}  // namespace

streams_heartbeat_result group_coordinator::streams_heartbeat(const streams_heartbeat_args& args) {
    if (auto e = invalid(args)) return *e;
    if (too_long(args.group_id)) return sh_error(error_code::invalid_group_id, "");
    if (too_long(args.member_id) || too_long(args.instance_id) || too_long(args.rack_id) || too_long(args.process_id))
        return sh_error(error_code::invalid_request, "An id of the request is too long.");
    return heartbeat_on_slot(args, &group_slot::streams_heartbeat_locked);
}

streams_heartbeat_result group_slot::streams_heartbeat_locked(const streams_heartbeat_args& args, completions& out) {
    auto r = leaves_group(args.member_epoch) ? streams_leave(args, out) : streams_join_or_heartbeat(args, out);
    if (auto* g = find_streams(args.group_id)) persist_streams(*g, out);
    return r;
}

// getOrCreateStreamsGroup / getStreamsGroupOrThrow: an empty classic group
// without offsets is replaced; any other group of another type refuses.
result<streams_group*, streams_heartbeat_result> group_slot::streams_group_for(const std::string& id, bool create) {
    if (auto* g = find_streams(id)) return g;
    const bool other = find_consumer(id) != nullptr || (find(id) && !(find(id)->is(group_state::empty)));
    if (other) return failure{sh_error(error_code::group_id_not_found, "Group " + id + " is not a streams group.")};
    if (!create) return failure{sh_error(error_code::group_id_not_found, "Streams group " + id + " not found.")};
    classic_.reset();  // an Empty classic group (its offsets stay with the new group)
    streams_ = std::make_unique<streams_group>(id);
    return streams_.get();
}

// The fingerprint of the partition counts of every topic the topology names.
std::string group_slot::streams_fingerprint(const streams_topology& t) const {
    const auto topics = topics_by_name();
    std::string fp;
    for (const auto& name : topology_topics(t)) {
        auto it = topics.find(name);
        fp += name + "=" + (it == topics.end() ? "-" : std::to_string(it->second.partitions)) + ";";
    }
    return fp;
}

configured_topology group_slot::configure_streams(const streams_topology& t) const {
    const auto topics = topics_by_name();
    return configure_topics(t, [&topics](const std::string& name) -> std::optional<int32_t> {
        auto it = topics.find(name);
        if (it == topics.end()) return std::nullopt;
        return it->second.partitions;
    });
}

// The group's topology and its configured view as this heartbeat sees them,
// or the error that refuses it (maybeUpdateTopology, configureTopics).
std::optional<streams_heartbeat_result> group_slot::streams_topology_step(streams_group& g,
                                                                          const streams_heartbeat_args& a, bool& bump) {
    std::optional<streams_topology> topology = g.topology;
    if (a.topology) {
        if (!topology)
            topology = a.topology;
        else if (a.topology->epoch >= topology->epoch && !(*a.topology == *topology))
            return sh_error(error_code::invalid_request, "Topology updates are not supported yet.");
    }
    if (!topology)
        return sh_error(error_code::unknown_server_error, "The topology is null and the group topology is also null.");
    auto fp = streams_fingerprint(*topology);
    if (g.configured && g.topology && fp == g.metadata_fingerprint) return invalid_tasks(*g.configured, a);
    auto configured = configure_streams(*topology);
    if (configured.invalid) return sh_error(error_code::streams_invalid_topology, *configured.invalid);
    if (auto e = invalid_tasks(configured, a)) return e;
    if (!g.topology || fp != g.metadata_fingerprint) bump = true;
    g.topology = std::move(topology);
    g.configured = std::move(configured);
    g.metadata_fingerprint = std::move(fp);
    return std::nullopt;
}

streams_heartbeat_result group_slot::streams_join_or_heartbeat(const streams_heartbeat_args& a, completions& out) {
    const bool joining = a.member_epoch == 0;
    auto found = streams_group_for(a.group_id, joining);
    if (!found) return found.error();
    streams_group& g = **found;
    auto drop_if_new = [&]() REQUIRES(mu_) {
        if (g.empty() && !g.topology && offsets_.empty()) streams_.reset();
    };
    streams_member old;
    old.member_id = a.member_id;
    bool is_new = false;
    if (const auto* m = g.member(a.member_id)) {
        old = *m;
        if (auto e = epoch_invalid(old, a)) return *e;
    } else if (!joining) {
        return sh_error(error_code::unknown_member_id,
                        "Member " + a.member_id + " is not a member of group " + g.id() + ".");
    } else {
        is_new = true;
        if (int64_t(g.members.size()) >= config_.streams_max_size) {
            drop_if_new();
            return sh_error(error_code::group_max_size_reached,
                            "The streams group has reached its maximum capacity of " +
                                std::to_string(config_.streams_max_size) + " members.");
        }
    }
    if (a.instance_id) {
        drop_if_new();
        return sh_error(error_code::unknown_server_error, "Static members are not supported yet.");
    }
    streams_member upd = updated_member(old, a);
    std::vector<streams_status> status;
    // maybeSetTopologyStaleStatus, against the topology the group had before.
    if (g.topology && upd.topology_epoch < g.topology->epoch)
        status.push_back({streams_status_code::stale_topology,
                          "The member's topology epoch " + std::to_string(upd.topology_epoch) +
                              " is behind the group's topology epoch " + std::to_string(g.topology->epoch) + "."});
    bool bump = is_new || !upd.same_metadata(old);
    if (auto e = streams_topology_step(g, a, bump)) {
        drop_if_new();
        return *e;
    }
    // A changed num.standby.replicas (the group's config) bumps the epoch too.
    const int32_t standby = streams_num_standby_replicas();
    if (bump || g.last_num_standby != standby) {
        g.group_epoch += 1;
        g.last_num_standby = standby;
    }
    maybe_start_streams_initial_delay(g);  // before the member counts: the group may be empty
    g.members[upd.member_id] = upd;
    auto [target_epoch, target] = streams_target_for(g, upd.member_id, status);
    owned_tasks owned{a.active_tasks, a.standby_tasks, a.warmup_tasks};
    if (joining) owned = owned_tasks{task_set{}, task_set{}, task_set{}};
    auto next = reconcile_streams_member(g, upd, target_epoch, target, owned);
    g.members[upd.member_id] = next;
    if (next.state == streams_member_state::unrevoked_tasks)
        schedule_streams_rebalance_timeout(g.id(), next.member_id, next.member_epoch, next.rebalance_timeout_ms);
    else
        cancel_timer(streams_rebalance_key(g.id(), next.member_id));
    schedule_streams_session_timeout(g.id(), next.member_id);
    if (a.shutdown_application) g.shutdown_requested_by = next.member_id;
    (void)out;
    return streams_answer(g, a, old, next, std::move(status));
}

}  // namespace ketch::group
