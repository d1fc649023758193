// JoinGroup (v0-9). Mirrors GroupCoordinatorService.joinGroup (request
// checks) and GroupMetadataManager.classicGroupJoinToClassicGroup and the
// methods it calls (Kafka 4.3.1).
#include "base/utf8.h"
#include "base/uuid.h"
#include "group/coordinator.h"
#include "group/coordinator_internal.h"

namespace ketch::group {

namespace {

join_result join_refused(error_code e, std::string member_id) {
    return join_result{.error = e, .member_id = std::move(member_id)};
}

// java.util.UUID.toString of a random (v4) uuid.
std::string java_uuid_string() {
    static const char* hex = "0123456789abcdef";
    auto u = uuid::random();
    std::string s;
    for (size_t i = 0; i < u.b.size(); ++i) {
        if (i == 4 || i == 6 || i == 8 || i == 10) s.push_back('-');
        s.push_back(hex[u.b[i] >> 4]);
        s.push_back(hex[u.b[i] & 0xf]);
    }
    return s;
}

}  // namespace

void group_coordinator::join(join_args args, join_callback done) {
    if (!serves(args.group_id)) return done(join_refused(error_code::not_coordinator, args.member_id));
    completions out;
    {
        auto ref = use_slot(args.group_id, true);
        group_slot& s = *ref;
        ketch::lock_guard lock(s.mu_);
        if (env_.stopped)
            out.add(std::move(done), join_refused(error_code::coordinator_not_available, args.member_id));
        else
            s.join_locked(args, done, out);
    }
    finish(out);
}

// Kafka's member id: "<group.instance.id or client.id>-<uuid>". ketch
// difference: the prefix is cut (at a character boundary) so that the id
// stays within max_id_bytes and is accepted back.
std::string group_slot::new_member_id(const std::string& client_id,
                                      const std::optional<std::string>& instance_id) const {
    const std::string& id = instance_id ? *instance_id : client_id;
    return std::string(utf8_prefix(id, max_id_bytes - 37)) + "-" + java_uuid_string();
}

void group_slot::join_locked(join_args& args, join_callback& done, completions& out) {
    // GroupCoordinatorService.joinGroup
    if (args.group_id.empty() || too_long(args.group_id)) {
        out.add(std::move(done), join_refused(error_code::invalid_group_id, args.member_id));
        return;
    }
    if (too_long(args.member_id) || too_long(args.group_instance_id) || too_long(args.protocol_type) ||
        any_protocol_too_long(args.protocols)) {
        out.add(std::move(done), join_refused(error_code::invalid_request, ""));
        return;
    }
    if (args.session_timeout_ms < config_.min_session_timeout_ms ||
        args.session_timeout_ms > config_.max_session_timeout_ms) {
        out.add(std::move(done), join_refused(error_code::invalid_session_timeout, args.member_id));
        return;
    }
    // classicGroupJoinToClassicGroup: a group is created by a member without
    // an id; a member with an id joining a group that does not exist is unknown.
    const bool unknown_member = args.member_id.empty();
    // classicGroupJoin: a streams group does not take classic members.
    if (find_streams(args.group_id)) {
        out.add(std::move(done), join_refused(error_code::inconsistent_group_protocol, args.member_id));
        return;
    }
    if (auto* cg = find_consumer(args.group_id)) {
        // classicGroupJoin: a consumer group with members takes the classic
        // member (a mixed group, migration.cc).
        if (!cg->empty()) return join_consumer_group(*cg, args, done, out);
        // An empty consumer group gives way to a classic one (its offsets stay).
        if (!unknown_member) {
            out.add(std::move(done), join_refused(error_code::unknown_member_id, args.member_id));
            return;
        }
        // ketch difference: the generation goes on from the group epoch.
        const int32_t epoch = cg->group_epoch();
        cancel_group_timers(args.group_id);
        consumer_.reset();
        get_or_create(args.group_id).restore(std::nullopt, epoch, clock_.now_ms());
    }
    auto* g = find(args.group_id);
    if (!g) {
        if (!unknown_member) {
            out.add(std::move(done), join_refused(error_code::unknown_member_id, args.member_id));
            return;
        }
        g = &get_or_create(args.group_id);
    }
    if (!accept_joining_member(*g, args.member_id)) {
        g->remove(args.member_id, out);
        out.add(std::move(done), join_refused(error_code::group_max_size_reached, ""));
    } else if (unknown_member) {
        join_new_member(*g, args, done, out);
    } else {
        join_existing_member(*g, args, done, out);
    }
}

// acceptJoiningMember
bool group_slot::accept_joining_member(const classic_group& g, const std::string& member_id) const {
    auto& members = g.members();
    auto it = members.find(member_id);
    switch (g.state()) {
        case group_state::empty:
        case group_state::dead: return true;
        case group_state::preparing_rebalance:
            // An awaiting member is kept; others count against the awaiting ones.
            return (it != members.end() && it->second.is_awaiting_join()) || g.num_awaiting_join() < config_.max_size;
        case group_state::completing_rebalance:
        case group_state::stable: return it != members.end() || int64_t(g.size()) < config_.max_size;
    }
    return false;
}

// classicGroupJoinNewMember, classicGroupJoinNewStaticMember, classicGroupJoinNewDynamicMember
void group_slot::join_new_member(classic_group& g, join_args& args, join_callback& done, completions& out) {
    if (g.is(group_state::dead)) {
        out.add(std::move(done), join_refused(error_code::coordinator_not_available, ""));
        return;
    }
    if (!g.supports_protocols(args.protocol_type, args.protocols)) {
        out.add(std::move(done), join_refused(error_code::inconsistent_group_protocol, ""));
        return;
    }
    auto id = new_member_id(args.client_id, args.group_instance_id);
    if (args.group_instance_id) {
        if (auto existing = g.static_member_id(*args.group_instance_id))
            update_static_member_then_rebalance(g, args, *existing, id, done, out);
        else
            add_member_then_rebalance(g, args, id, done, out);
        return;
    }
    if (args.api_version >= 4) {
        // KIP-394: the member must come back with this id; until it does it is
        // pending, and dropped if it does not within its session timeout.
        g.add_pending(id);
        schedule_timer(heartbeat_key(g.id(), id), args.session_timeout_ms,
                       [this, gid = g.id(), id](completions& o) REQUIRES(mu_) { expire_heartbeat(gid, id, o); });
        out.add(std::move(done), join_refused(error_code::member_id_required, id));
        return;
    }
    add_member_then_rebalance(g, args, id, done, out);
}

// classicGroupJoinExistingMember
void group_slot::join_existing_member(classic_group& g, join_args& args, join_callback& done, completions& out) {
    const auto& mid = args.member_id;
    if (g.is(group_state::dead)) {
        out.add(std::move(done), join_refused(error_code::coordinator_not_available, mid));
        return;
    }
    if (!g.supports_protocols(args.protocol_type, args.protocols)) {
        out.add(std::move(done), join_refused(error_code::inconsistent_group_protocol, mid));
        return;
    }
    if (g.is_pending(mid)) {
        // Pending members are dynamic; Kafka fails such a request with an
        // IllegalStateException, which the client sees as UNKNOWN_SERVER_ERROR.
        if (args.group_instance_id) {
            out.add(std::move(done), join_refused(error_code::unknown_server_error, ""));
            return;
        }
        add_member_then_rebalance(g, args, mid, done, out);
        return;
    }
    if (auto e = g.validate_member(mid, args.group_instance_id); e != error_code::none) {
        out.add(std::move(done), join_refused(e, mid));
        return;
    }
    auto& m = g.member(mid);
    auto current = [&](std::vector<join_member> members) {
        return join_result{.generation_id = g.generation(),
                           .protocol_type = g.protocol_type(),
                           .protocol_name = g.protocol_name().value_or(""),
                           .leader = g.leader_or_empty(),
                           .member_id = mid,
                           .members = std::move(members)};
    };
    auto update_then_rebalance = [&]() REQUIRES(mu_) {
        g.update_member(m, std::move(args.protocols), args.rebalance_timeout_ms, args.session_timeout_ms,
                        std::move(done), out);
        maybe_prepare_rebalance_or_complete_join(g, out);
    };
    switch (g.state()) {
        case group_state::preparing_rebalance: update_then_rebalance(); return;
        case group_state::completing_rebalance:
            // Same metadata: the member probably missed its JoinGroup answer.
            if (m.protocols == args.protocols)
                out.add(std::move(done), current(g.is_leader(mid) ? g.current_members() : std::vector<join_member>{}));
            else
                update_then_rebalance();
            return;
        case group_state::stable:
            // The leader rejoining forces a rebalance (it may have seen metadata
            // change); so does a follower with new metadata.
            if (g.is_leader(mid) || m.protocols != args.protocols)
                update_then_rebalance();
            else
                out.add(std::move(done), current({}));
            return;
        case group_state::empty:
        case group_state::dead: out.add(std::move(done), join_refused(error_code::unknown_member_id, mid)); return;
    }
}

// addMemberThenRebalanceOrCompleteJoin
void group_slot::add_member_then_rebalance(classic_group& g, join_args& args, const std::string& member_id,
                                           join_callback& done, completions& out) {
    classic_member m;
    m.member_id = member_id;
    m.group_instance_id = args.group_instance_id;
    m.client_id = args.client_id;
    m.client_host = args.client_host;
    m.rebalance_timeout_ms = args.rebalance_timeout_ms;
    m.session_timeout_ms = args.session_timeout_ms;
    m.protocol_type = args.protocol_type;
    m.protocols = std::move(args.protocols);
    m.is_new = true;
    // A member joining during the initial delay extends it.
    if (g.is(group_state::preparing_rebalance) && g.previous_state() == group_state::empty)
        g.set_new_member_added(true);
    g.add(std::move(m), std::move(done));
    // A new member cannot heartbeat while its JoinGroup is parked; it is
    // dropped if the join does not complete in the new-member timeout.
    reschedule_heartbeat(g, g.member(member_id), config_.new_member_join_timeout_ms);
    maybe_prepare_rebalance_or_complete_join(g, out);
}

// updateStaticMemberThenRebalanceOrCompleteJoin
void group_slot::update_static_member_then_rebalance(classic_group& g, join_args& args, const std::string& old_id,
                                                     const std::string& new_id, join_callback& done, completions& out) {
    const std::string current_leader = g.leader_or_empty();
    cancel_timer(heartbeat_key(g.id(), old_id));
    auto& m = g.replace_static_member(*args.group_instance_id, old_id, new_id, out);
    reschedule_heartbeat(g, m, m.session_timeout_ms);
    g.update_member(m, std::move(args.protocols), args.rebalance_timeout_ms, args.session_timeout_ms, std::move(done),
                    out);
    switch (g.state()) {
        case group_state::stable:
            if (g.protocol_name().value_or("") == g.select_protocol()) {
                // The selected protocol does not change: no rebalance, the
                // member keeps the assignment of the id it replaces.
                join_result r{.generation_id = g.generation(),
                              .protocol_type = g.protocol_type(),
                              .protocol_name = g.protocol_name().value_or(""),
                              .member_id = new_id};
                if (args.api_version >= 9) {
                    // KIP-814: a returning static leader gets the members but
                    // is told to skip the assignment.
                    bool leader = g.is_leader(new_id);
                    if (leader) r.members = g.current_members();
                    r.leader = g.leader_or_empty();
                    r.skip_assignment = leader;
                } else {
                    // Older clients see the old leader id so that they do not
                    // compute an assignment.
                    r.leader = current_leader;
                }
                g.complete_join(m, std::move(r), out);
                // Kafka stores the group here, so the new member id survives a restart.
                persist_classic(g, out);
            } else {
                maybe_prepare_rebalance_or_complete_join(g, out);
            }
            return;
        case group_state::completing_rebalance:
            // The leader may be assigning with the old id: rebalance.
            prepare_rebalance(g, out);
            return;
        case group_state::preparing_rebalance: maybe_complete_join_phase(g, out); return;
        case group_state::empty:
        case group_state::dead: return;  // unreachable: the group has this static member
    }
}

}  // namespace ketch::group
