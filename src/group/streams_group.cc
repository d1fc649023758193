#include "group/streams_group.h"

namespace ketch::group {

std::string_view streams_state_name(streams_group_state s) {
    switch (s) {
        case streams_group_state::empty: return "Empty";
        case streams_group_state::not_ready: return "NotReady";
        case streams_group_state::assigning: return "Assigning";
        case streams_group_state::reconciling: return "Reconciling";
        case streams_group_state::stable: return "Stable";
    }
    return "Dead";
}

// StreamsGroup.maybeUpdateGroupState
streams_group_state streams_group::state() const {
    if (members.empty()) return streams_group_state::empty;
    if (!configured || !configured->ready()) return streams_group_state::not_ready;
    if (group_epoch != assignment_epoch) return streams_group_state::assigning;
    for (const auto& [_, m] : members)
        if (m.member_epoch != assignment_epoch || m.state != streams_member_state::stable)
            return streams_group_state::reconciling;
    return streams_group_state::stable;
}

const tasks_tuple& streams_group::target_of(const std::string& member_id) const {
    static const tasks_tuple none;
    auto it = target.find(member_id);
    return it == target.end() ? none : it->second;
}

namespace {
bool holds(const task_set& ts, const std::string& s, int32_t p) {
    auto it = ts.find(s);
    return it != ts.end() && it->second.count(p);
}
}  // namespace

std::string streams_group::active_owner(const std::string& s, int32_t p, const std::string& except) const {
    for (const auto& [id, m] : members)
        if (id != except && (holds(m.assigned.active, s, p) || holds(m.pending_revocation.active, s, p))) return id;
    return "";
}

bool streams_group::process_holds_active(const std::string& process_id, const std::string& s, int32_t p,
                                         const std::string& except) const {
    for (const auto& [id, m] : members)
        if (id != except && m.process_id == process_id &&
            (holds(m.assigned.active, s, p) || holds(m.pending_revocation.active, s, p)))
            return true;
    return false;
}

}  // namespace ketch::group
