// CurrentAssignmentBuilder (group-coordinator streams, Apache Kafka 4.3.1).
#include "group/streams_reconcile.h"

namespace ketch::group {

namespace {

task_set intersect(const task_set& a, const task_set& b) {
    task_set out;
    for (const auto& [s, ps] : a) {
        auto it = b.find(s);
        if (it == b.end()) continue;
        for (auto p : ps)
            if (it->second.count(p)) out[s].insert(p);
    }
    return out;
}

task_set minus(const task_set& a, const task_set& b) {
    task_set out;
    for (const auto& [s, ps] : a) {
        auto it = b.find(s);
        for (auto p : ps)
            if (it == b.end() || !it->second.count(p)) out[s].insert(p);
    }
    return out;
}

bool overlaps(const std::optional<task_set>& owned, const task_set& revoking) {
    if (!owned) return true;  // unknown: still owned
    return !intersect(*owned, revoking).empty();
}

// computeNextAssignment
streams_member next_assignment(const streams_group& g, const streams_member& m, int32_t target_epoch,
                               const tasks_tuple& target) {
    streams_member next = m;
    tasks_tuple kept{intersect(m.assigned.active, target.active), intersect(m.assigned.standby, target.standby),
                     intersect(m.assigned.warmup, target.warmup)};
    tasks_tuple revoke{minus(m.assigned.active, target.active), minus(m.assigned.standby, target.standby),
                       minus(m.assigned.warmup, target.warmup)};
    if (!revoke.empty()) {
        next.state = streams_member_state::unrevoked_tasks;
        next.assigned = kept;
        next.pending_revocation = revoke;
        return next;
    }
    bool unreleased = false;
    for (const auto& [s, ps] : minus(target.active, m.assigned.active))
        for (auto p : ps) {
            if (!g.active_owner(s, p, m.member_id).empty()) {
                unreleased = true;
                continue;
            }
            kept.active[s].insert(p);
            next.active_epochs[s][p] = target_epoch;
        }
    auto add_passive = [&](const task_set& want, const task_set& have, task_set& into) {
        for (const auto& [s, ps] : minus(want, have))
            for (auto p : ps) {
                if (g.process_holds_active(m.process_id, s, p, m.member_id)) {
                    unreleased = true;
                    continue;
                }
                into[s].insert(p);
            }
    };
    add_passive(target.standby, m.assigned.standby, kept.standby);
    add_passive(target.warmup, m.assigned.warmup, kept.warmup);
    next.assigned = kept;
    next.pending_revocation = {};
    next.previous_member_epoch = m.member_epoch;
    next.member_epoch = target_epoch;
    next.state = unreleased ? streams_member_state::unreleased_tasks : streams_member_state::stable;
    // Forget the epochs of active tasks the member no longer holds.
    for (auto it = next.active_epochs.begin(); it != next.active_epochs.end();) {
        auto held = next.assigned.active.find(it->first);
        for (auto p = it->second.begin(); p != it->second.end();)
            p = held != next.assigned.active.end() && held->second.count(p->first) ? std::next(p) : it->second.erase(p);
        it = it->second.empty() ? next.active_epochs.erase(it) : std::next(it);
    }
    return next;
}

}  // namespace

bool within(const std::optional<task_set>& owned, const task_set& allowed) {
    if (!owned) return false;
    return minus(*owned, allowed).empty();
}

bool owned_within(const owned_tasks& owned, const tasks_tuple& assigned) {
    return within(owned.active, assigned.active) && within(owned.standby, assigned.standby) &&
           within(owned.warmup, assigned.warmup);
}

streams_member reconcile_streams_member(const streams_group& g, const streams_member& m, int32_t target_epoch,
                                        const tasks_tuple& target, const owned_tasks& owned) {
    switch (m.state) {
        case streams_member_state::stable:
            if (m.member_epoch == target_epoch) return m;
            return next_assignment(g, m, target_epoch, target);
        case streams_member_state::unrevoked_tasks:
            if (overlaps(owned.active, m.pending_revocation.active) ||
                overlaps(owned.standby, m.pending_revocation.standby) ||
                overlaps(owned.warmup, m.pending_revocation.warmup))
                return m;
            {
                streams_member revoked = m;
                revoked.pending_revocation = {};
                return next_assignment(g, revoked, target_epoch, target);
            }
        case streams_member_state::unreleased_tasks: {
            auto next = next_assignment(g, m, target_epoch, target);
            if (m.member_epoch == target_epoch) next.previous_member_epoch = m.previous_member_epoch;
            return next;
        }
    }
    return m;
}

}  // namespace ketch::group
