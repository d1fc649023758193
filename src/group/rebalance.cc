// The classic rebalance state machine: preparing a rebalance, completing the
// join phase, the sync phase, session and rebalance timeouts. Each function
// mirrors the GroupMetadataManager method named in its comment (Kafka 4.3.1).
// All run with the group's slot locked (group_slot.h).
#include "group/coordinator.h"
#include "group/coordinator_internal.h"

namespace ketch::group {

classic_group* group_slot::find(const std::string& group_id) { return group_id == id_ ? classic_.get() : nullptr; }

classic_group& group_slot::get_or_create(const std::string& group_id) {
    if (!classic_) classic_ = std::make_unique<classic_group>(group_id, clock_.now_ms());
    return *classic_;
}

void group_slot::remove_group(const std::string& group_id, completions& out) {
    cancel_group_timers(group_id);
    if (auto* g = find(group_id)) {
        std::vector<std::string> ids;
        for (const auto& [id, m] : g->members()) ids.push_back(id);
        for (const auto& id : ids) g->remove(id, out);
        g->transition_to(group_state::dead, clock_.now_ms());
        classic_.reset();
    }
    offsets_.clear();
}

// rescheduleClassicGroupMemberHeartbeat
void group_slot::reschedule_heartbeat(classic_group& g, classic_member& m, int64_t timeout_ms) {
    schedule_timer(heartbeat_key(g.id(), m.member_id), timeout_ms,
                   [this, gid = g.id(), mid = m.member_id](completions& out)
                       REQUIRES(mu_) { expire_heartbeat(gid, mid, out); });
}

// expireClassicGroupMemberHeartbeat
void group_slot::expire_heartbeat(const std::string& group_id, const std::string& member_id, completions& out) {
    auto* g = find(group_id);
    if (!g || g->is(group_state::dead)) return;
    if (g->is_pending(member_id)) {
        // removePendingMemberAndUpdateClassicGroup
        g->remove(member_id, out);
        if (g->is(group_state::preparing_rebalance) && g->has_all_members_joined()) complete_join(*g, out);
        return;
    }
    if (!g->has_member(member_id)) return;
    if (!g->member(member_id).has_satisfied_heartbeat()) remove_member_and_update(*g, member_id, out);
}

// removeMemberAndUpdateClassicGroup
void group_slot::remove_member_and_update(classic_group& g, const std::string& member_id, completions& out) {
    // A parked JoinGroup is answered UNKNOWN_MEMBER_ID so that the client rejoins.
    g.remove(member_id, out);
    if (g.is(group_state::stable) || g.is(group_state::completing_rebalance))
        maybe_prepare_rebalance_or_complete_join(g, out);
    else if (g.is(group_state::preparing_rebalance) && g.has_all_members_joined())
        complete_join(g, out);
}

// maybePrepareRebalanceOrCompleteJoin
void group_slot::maybe_prepare_rebalance_or_complete_join(classic_group& g, completions& out) {
    if (g.can_rebalance())
        prepare_rebalance(g, out);
    else
        maybe_complete_join_phase(g, out);
}

// prepareRebalance
void group_slot::prepare_rebalance(classic_group& g, completions& out) {
    // Members awaiting their assignment must rejoin instead.
    if (g.is(group_state::completing_rebalance)) reset_and_propagate_error(g, error_code::rebalance_in_progress, out);
    g.clear_pending_sync();
    cancel_timer(sync_key(g.id()));

    const bool initial = g.is(group_state::empty);
    if (initial) {
        // A new group: give more members time to join (group.initial.rebalance.delay.ms).
        int32_t delay = config_.initial_rebalance_delay_ms;
        int32_t remaining = std::max(g.rebalance_timeout_ms() - delay, 0);
        schedule_timer(join_key(g.id()), delay, [this, gid = g.id(), delay, remaining](completions& o) REQUIRES(mu_) {
            try_complete_initial_rebalance(gid, delay, remaining, o);
        });
    }
    g.transition_to(group_state::preparing_rebalance, clock_.now_ms());
    if (!initial) maybe_complete_join_else_schedule(g, out);
}

// maybeCompleteJoinElseSchedule
void group_slot::maybe_complete_join_else_schedule(classic_group& g, completions& out) {
    if (g.has_all_members_joined()) {
        complete_join(g, out);
        return;
    }
    schedule_timer(join_key(g.id()), g.rebalance_timeout_ms(), [this, gid = g.id()](completions& o) REQUIRES(mu_) {
        if (auto* grp = find(gid)) complete_join(*grp, o);
    });
}

// tryCompleteInitialRebalanceElseSchedule
void group_slot::try_complete_initial_rebalance(const std::string& group_id, int32_t delay_ms, int32_t remaining_ms,
                                                completions& out) {
    auto* g = find(group_id);
    if (!g) return;
    if (g->new_member_added() && remaining_ms != 0) {
        // Someone joined during the delay: extend it, within the rebalance timeout.
        g->set_new_member_added(false);
        int32_t new_delay = std::min(config_.initial_rebalance_delay_ms, remaining_ms);
        int32_t new_remaining = std::max(remaining_ms - delay_ms, 0);
        schedule_timer(join_key(group_id), new_delay,
                       [this, group_id, new_delay, new_remaining](completions& o)
                           REQUIRES(mu_) { try_complete_initial_rebalance(group_id, new_delay, new_remaining, o); });
    } else {
        complete_join(*g, out);
    }
}

// maybeCompleteJoinPhase
void group_slot::maybe_complete_join_phase(classic_group& g, completions& out) {
    if (!g.is(group_state::preparing_rebalance)) return;
    if (g.previous_state() == group_state::empty) return;  // the initial rebalance waits for its delay
    if (!g.has_all_members_joined()) return;
    complete_join(g, out);
}

// completeClassicGroupJoin
void group_slot::complete_join(classic_group& g, completions& out) {
    cancel_timer(join_key(g.id()));
    // Dynamic members that did not rejoin are dropped; static ones are kept.
    std::vector<std::string> gone;
    for (const auto& [id, m] : g.members())
        if (!m.is_awaiting_join() && !m.is_static()) gone.push_back(id);
    for (const auto& id : gone) {
        g.remove(id, out);
        cancel_timer(heartbeat_key(g.id(), id));
    }
    if (g.is(group_state::dead)) return;
    if (!g.maybe_elect_new_joined_leader() && g.size() != 0) {
        // No member rejoined: wait another rebalance timeout for session
        // timeouts to remove the silent ones.
        schedule_timer(join_key(g.id()), g.rebalance_timeout_ms(), [this, gid = g.id()](completions& o) REQUIRES(mu_) {
            if (auto* grp = find(gid)) complete_join(*grp, o);
        });
        return;
    }
    const int64_t now = clock_.now_ms();
    g.init_next_generation(now);
    if (g.is(group_state::empty)) {
        // Only an Empty generation is stored here; one with members is stored
        // when its SyncGroup completes, so a restart before that reloads the
        // last stable generation with its members, as Kafka's coordinator
        // reloads __consumer_offsets after a failover.
        out.group_rows.push_back(meta::stored_group{g.id(), g.protocol_type().value_or(""), g.generation(), now, {}});
        return;
    }
    for (auto& [id, m] : g.members()) {
        join_result r;
        if (g.is_leader(id)) r.members = g.current_members();
        r.member_id = id;
        r.generation_id = g.generation();
        r.protocol_name = g.protocol_name().value_or("");
        r.protocol_type = g.protocol_type();
        r.leader = g.leader_or_empty();
        g.complete_join(m, std::move(r), out);
        reschedule_heartbeat(g, m, m.session_timeout_ms);
        m.is_new = false;
        g.add_pending_sync(id);
    }
    schedule_pending_sync(g);
}

// schedulePendingSync
void group_slot::schedule_pending_sync(classic_group& g) {
    schedule_timer(sync_key(g.id()), g.rebalance_timeout_ms(),
                   [this, gid = g.id(), gen = g.generation()](completions& o)
                       REQUIRES(mu_) { expire_pending_sync(gid, gen, o); });
}

// expirePendingSync
void group_slot::expire_pending_sync(const std::string& group_id, int32_t generation, completions& out) {
    auto* g = find(group_id);
    if (!g || generation != g->generation()) return;
    if (!g->is(group_state::completing_rebalance) && !g->is(group_state::stable)) return;
    if (g->has_received_all_syncs()) return;
    // Members that never sent SyncGroup are removed, and the group rebalances.
    std::vector<std::string> late(g->pending_sync().begin(), g->pending_sync().end());
    for (const auto& id : late) {
        g->remove(id, out);
        cancel_timer(heartbeat_key(group_id, id));
    }
    prepare_rebalance(*g, out);
}

// resetAndPropagateAssignmentWithError + propagateAssignment
void group_slot::reset_and_propagate_error(classic_group& g, error_code e, completions& out) {
    for (auto& [id, m] : g.members()) {
        m.assignment.clear();
        if (g.complete_sync(m, sync_result{.error = e, .assignment = {}}, out))
            reschedule_heartbeat(g, m, m.session_timeout_ms);
    }
}

// setAndPropagateAssignment + propagateAssignment
void group_slot::set_and_propagate_assignment(classic_group& g, std::map<std::string, bytes> assignment,
                                              completions& out) {
    for (auto& [id, m] : g.members()) {
        auto it = assignment.find(id);
        m.assignment = it == assignment.end() ? bytes{} : std::move(it->second);
        sync_result r{error_code::none, g.protocol_type(), g.protocol_name(), m.assignment};
        // The session restarts once the member has its assignment.
        if (g.complete_sync(m, std::move(r), out)) reschedule_heartbeat(g, m, m.session_timeout_ms);
    }
    // GroupMetadataManager stores the group with its assignments here.
    persist_classic(g, out);
}

// removePendingSyncMember
void group_slot::remove_pending_sync_member(classic_group& g, const std::string& member_id) {
    g.remove_pending_sync(member_id);
    switch (g.state()) {
        case group_state::dead:
        case group_state::empty:
        case group_state::preparing_rebalance: cancel_timer(sync_key(g.id())); break;
        case group_state::completing_rebalance:
        case group_state::stable:
            if (g.has_received_all_syncs()) cancel_timer(sync_key(g.id()));
            break;
    }
}

}  // namespace ketch::group
