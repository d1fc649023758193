// Helpers shared by the coordinator's .cc files; not part of its interface.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "group/api.h"
#include "group/consumer_group.h"
#include "group/group_config.h"

namespace ketch::group {

// Timer keys (coordinator.cc): a member's session, a group's join and sync phases.
std::string heartbeat_key(const std::string& group_id, const std::string& member_id);
std::string join_key(const std::string& group_id);
std::string sync_key(const std::string& group_id);
// A consumer-group member's session and rebalance (revocation) timeouts.
std::string consumer_session_key(const std::string& group_id, const std::string& member_id);
std::string consumer_rebalance_key(const std::string& group_id, const std::string& member_id);
// A streams-group member's session and rebalance (revocation) timeouts.
std::string streams_session_key(const std::string& group_id, const std::string& member_id);
std::string streams_rebalance_key(const std::string& group_id, const std::string& member_id);
// A new streams group's initial rebalance delay (streams_target.cc).
std::string streams_initial_delay_key(const std::string& group_id);
// A classic-protocol member of a consumer group: the time it has to rejoin
// after being told to, and to sync after its JoinGroup was answered.
std::string consumer_join_key(const std::string& group_id, const std::string& member_id);
std::string consumer_sync_key(const std::string& group_id, const std::string& member_id);

inline bool too_long(const std::string& s) { return s.size() > max_id_bytes; }
inline bool too_long(const std::optional<std::string>& s) { return s && too_long(*s); }
// Utils.throwIfEmptyString: set and blank after Java's trim().
inline bool blank(const std::optional<std::string>& s) {
    if (!s) return false;
    for (char c : *s)
        if (static_cast<unsigned char>(c) > ' ') return false;
    return true;
}
// A KIP-848 / KIP-1071 heartbeat's member epoch that leaves the group
// (-1, or -2 for a static member that comes back).
inline bool leaves_group(int32_t member_epoch) {
    return member_epoch == leave_group_member_epoch || member_epoch == leave_group_static_member_epoch;
}
// FENCED_MEMBER_EPOCH's message for a consumer or streams group member
// (throwIfConsumerGroupMemberEpochIsInvalid, throwIfStreamsGroupMemberEpochIsInvalid).
inline std::string fenced_epoch_message(const char* kind, int32_t received, int32_t known) {
    return std::string("The ") + kind + " group member has a " + (received > known ? "greater" : "smaller") +
           " member epoch (" + std::to_string(received) + ") than the one known by the group coordinator (" +
           std::to_string(known) + "). The member must abandon all its partitions and rejoin.";
}
inline bool any_protocol_too_long(const std::vector<protocol>& ps) {
    for (const auto& p : ps)
        if (too_long(p.name)) return true;
    return false;
}

// The member a KIP-848 or KIP-1071 group's OffsetCommit (`commit`) or
// OffsetFetch is from, as ConsumerGroup and StreamsGroup.validateOffsetCommit /
// validateOffsetFetch start; else the answer without one: NONE for a commit
// without a member epoch to an empty group or a fetch without a member,
// UNKNOWN_MEMBER_ID for a member the group does not have.
template <class Group>
auto offsets_member(const Group& g, const std::string& member_id, int32_t member_epoch, bool commit)
    -> result<decltype(g.member(member_id)), error_code> {
    if (commit ? member_epoch < 0 && g.empty() : member_id.empty() && member_epoch < 0)
        return failure{error_code::none};
    if (const auto* m = g.member(member_id)) return m;
    return failure{error_code::unknown_member_id};
}

// An OffsetCommit / TxnOffsetCommit answer of one error for every partition asked for.
inline commit_result all_partitions(const std::vector<commit_topic>& topics, error_code e) {
    commit_result r;
    for (const auto& t : topics) {
        auto& rt = r.topics.emplace_back();
        rt.name = t.name;
        for (const auto& p : t.partitions) rt.partitions.push_back({p.partition, e});
    }
    return r;
}

// Kafka's isProtocolInconsistent: both known and different.
inline bool protocol_inconsistent(const std::optional<std::string>& request, const std::optional<std::string>& group) {
    return request && group && *request != *group;
}

}  // namespace ketch::group
