// SyncGroup (v0-5), Heartbeat (v0-4) and LeaveGroup (v0-5). Mirrors
// GroupCoordinatorService.{syncGroup,heartbeat,leaveGroup} (request checks)
// and GroupMetadataManager.{classicGroupSync,classicGroupHeartbeat,
// classicGroupLeave}ToClassicGroup (Kafka 4.3.1).
#include "group/coordinator.h"
#include "group/coordinator_internal.h"

namespace ketch::group {

void group_coordinator::sync(sync_args args, sync_callback done) {
    if (!serves(args.group_id)) return done(sync_result{.error = error_code::not_coordinator});
    completions out;
    {
        auto ref = use_slot(args.group_id, true);
        group_slot& s = *ref;
        ketch::lock_guard lock(s.mu_);
        if (env_.stopped)
            out.add(std::move(done), sync_result{.error = error_code::coordinator_not_available});
        else
            s.sync_locked(args, done, out);
    }
    finish(out);
}

void group_slot::sync_locked(sync_args& args, sync_callback& done, completions& out) {
    auto fail = [&](error_code e) { out.add(std::move(done), sync_result{.error = e}); };
    classic_group* g = nullptr;
    if (args.group_id.empty() || too_long(args.group_id)) {
        fail(error_code::invalid_group_id);
    } else if (too_long(args.member_id) || too_long(args.group_instance_id) || too_long(args.protocol_type) ||
               too_long(args.protocol_name)) {
        fail(error_code::invalid_request);
    } else if (auto* cg = find_consumer(args.group_id)) {
        // classicGroupSyncToConsumerGroup (an empty group: UNKNOWN_MEMBER_ID)
        if (cg->empty())
            fail(error_code::unknown_member_id);
        else
            sync_consumer_group(*cg, args, done, out);
    } else if (g = find(args.group_id); !g || g->is(group_state::empty)) {
        fail(error_code::unknown_member_id);
    } else if (g->is(group_state::dead)) {
        fail(error_code::coordinator_not_available);
    } else if (auto e = g->validate_member(args.member_id, args.group_instance_id); e != error_code::none) {
        fail(e);
    } else if (args.generation_id != g->generation()) {
        fail(error_code::illegal_generation);
    } else if (protocol_inconsistent(args.protocol_type, g->protocol_type()) ||
               protocol_inconsistent(args.protocol_name, g->protocol_name())) {
        fail(error_code::inconsistent_group_protocol);
    } else if (g->is(group_state::preparing_rebalance)) {
        fail(error_code::rebalance_in_progress);
    } else if (g->is(group_state::completing_rebalance)) {
        auto& m = g->member(args.member_id);
        g->park_sync(m, std::move(done), out);
        remove_pending_sync_member(*g, args.member_id);
        if (g->is_leader(args.member_id)) {
            // The leader's assignment goes to every member (an empty one to
            // members it left out), and the group is Stable.
            std::map<std::string, bytes> assignment;
            for (auto& a : args.assignments) assignment[a.member_id] = std::move(a.assignment);
            set_and_propagate_assignment(*g, std::move(assignment), out);
            g->transition_to(group_state::stable, clock_.now_ms());
        }
    } else {  // Stable: the member's current assignment
        remove_pending_sync_member(*g, args.member_id);
        auto& m = g->member(args.member_id);
        out.add(std::move(done), sync_result{error_code::none, g->protocol_type(), g->protocol_name(), m.assignment});
    }
}

error_code group_coordinator::heartbeat(const heartbeat_args& args) {
    if (!serves(args.group_id)) return error_code::not_coordinator;
    auto ref = use_slot(args.group_id, true);
    group_slot& s = *ref;
    ketch::lock_guard lock(s.mu_);
    if (env_.stopped) return error_code::coordinator_not_available;
    return s.heartbeat_locked(args);
}

error_code group_slot::heartbeat_locked(const heartbeat_args& args) {
    if (args.group_id.empty() || too_long(args.group_id)) return error_code::invalid_group_id;
    if (too_long(args.member_id) || too_long(args.group_instance_id)) return error_code::invalid_request;
    if (auto* cg = find_consumer(args.group_id)) return heartbeat_consumer_group(*cg, args);
    auto* g = find(args.group_id);
    if (!g) return error_code::unknown_member_id;
    // validateClassicGroupHeartbeat
    if (g->is(group_state::dead)) return error_code::coordinator_not_available;
    if (auto e = g->validate_member(args.member_id, args.group_instance_id); e != error_code::none) return e;
    if (args.generation_id != g->generation()) return error_code::illegal_generation;
    switch (g->state()) {
        case group_state::empty: return error_code::unknown_member_id;
        case group_state::preparing_rebalance: {
            auto& m = g->member(args.member_id);
            reschedule_heartbeat(*g, m, m.session_timeout_ms);
            return error_code::rebalance_in_progress;
        }
        case group_state::completing_rebalance:
        case group_state::stable: {
            // Heartbeats may start right after the JoinGroup answer.
            auto& m = g->member(args.member_id);
            reschedule_heartbeat(*g, m, m.session_timeout_ms);
            return error_code::none;
        }
        case group_state::dead: break;
    }
    return error_code::coordinator_not_available;
}

leave_result group_coordinator::leave(const leave_args& args) {
    leave_result res;
    if (!serves(args.group_id)) {
        res.error = error_code::not_coordinator;
        return res;
    }
    completions out;
    {
        auto ref = use_slot(args.group_id, true);
        group_slot& s = *ref;
        ketch::lock_guard lock(s.mu_);
        if (env_.stopped) {
            res.error = error_code::coordinator_not_available;
            return res;
        }
        res = s.leave_locked(args, out);
    }
    finish(out);
    return res;
}

leave_result group_slot::leave_locked(const leave_args& args, completions& out) {
    leave_result res;
    if (args.group_id.empty() || too_long(args.group_id)) {
        res.error = error_code::invalid_group_id;
        return res;
    }
    // classicGroupLeaveToConsumerGroup
    if (auto* cg = find_consumer(args.group_id)) return leave_consumer_group(*cg, args, out);
    auto* g = find(args.group_id);
    if (!g) {
        // The service answers an unknown group member by member.
        for (const auto& m : args.members)
            res.members.push_back({m.member_id, m.group_instance_id, error_code::unknown_member_id});
        return res;
    }
    if (g->is(group_state::dead)) {
        res.error = error_code::coordinator_not_available;
        return res;
    }
    leave_classic(*g, args, res, out);
    return res;
}

void group_slot::leave_classic(classic_group& grp, const leave_args& args, leave_result& res, completions& out) {
    auto* g = &grp;
    // removeCurrentMemberFromClassicGroup: a parked JoinGroup is answered
    // UNKNOWN_MEMBER_ID.
    auto remove_current = [&](const std::string& id) REQUIRES(mu_) {
        cancel_timer(heartbeat_key(g->id(), id));
        g->remove(id, out);
    };
    bool any_left = false;
    for (const auto& who : args.members) {
        error_code e = error_code::none;
        if (too_long(who.member_id) || too_long(who.group_instance_id)) {
            e = error_code::invalid_request;
        } else if (who.member_id.empty()) {
            // Administrative removal by group.instance.id (no fencing check).
            if (who.group_instance_id && g->has_static_member(*who.group_instance_id))
                remove_current(*g->static_member_id(*who.group_instance_id));
            else
                e = error_code::unknown_member_id;
        } else if (g->is_pending(who.member_id)) {
            g->remove(who.member_id, out);
            cancel_timer(heartbeat_key(g->id(), who.member_id));
        } else if (e = g->validate_member(who.member_id, who.group_instance_id); e == error_code::none) {
            remove_current(who.member_id);
        }
        if (e == error_code::none) any_left = true;
        res.members.push_back({who.member_id, who.group_instance_id, e});
    }
    if (!any_left) return;
    switch (g->state()) {
        case group_state::stable:
        case group_state::completing_rebalance: maybe_prepare_rebalance_or_complete_join(*g, out); break;
        case group_state::preparing_rebalance: maybe_complete_join_phase(*g, out); break;
        default: break;
    }
}

}  // namespace ketch::group
