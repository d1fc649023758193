// Helpers shared by the coordinator's .cc files; not part of its interface.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "group/api.h"
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
inline bool any_protocol_too_long(const std::vector<protocol>& ps) {
    for (const auto& p : ps)
        if (too_long(p.name)) return true;
    return false;
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
