// One share group's membership (KIP-932): members with epochs and
// subscriptions, and the assignment of the subscribed partitions over them.
// Kafka's ShareGroup and ShareGroupMember (group-coordinator/.../modern/
// share/) and the SimpleAssignor (group-coordinator/.../assignor/
// SimpleAssignor.java). Share groups need no revocation: a member is at the
// group's assignment as soon as it is computed, so the member epoch is the
// epoch of the last target assignment it received.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "base/uuid.h"

namespace ketch::share {

struct topic_info {
    std::string name;
    uuid id;
    int32_t partitions = 0;
};

// Topic id -> partition indexes, sorted.
using assignment = std::map<uuid, std::vector<int32_t>>;

// A topic as the assignor sees it: only the partitions it may assign (the
// initialized ones, as ShareTargetAssignmentBuilder's
// withTopicAssignablePartitionsMap).
struct assignable_topic {
    std::string name;
    uuid id;
    std::vector<int32_t> partitions;  // sorted
};

// Share-partitions of one topic being or done initializing
// (ShareGroup.InitMapValue).
struct init_topic {
    std::string name;
    std::set<int32_t> partitions;
    int64_t since_ms = 0;  // when the initialization was asked (initializing only)
};

struct share_member {
    std::string member_id;
    int32_t member_epoch = 0;
    std::string rack_id;
    std::string client_id;
    std::string client_host;
    std::vector<std::string> subscribed_topic_names;  // sorted, unique
    int64_t session_deadline_ms = 0;
    assignment assigned;
};

struct share_group {
    std::string group_id;
    int32_t group_epoch = 1;  // ModernGroup starts a group at epoch 1
    int32_t assignment_epoch = 0;
    int64_t assignment_timestamp_ms = 0;  // when the target was last computed (0: never)
    std::map<std::string, share_member> members;
    // The subscribed topics as last seen, (name, id, partitions) sorted: a
    // change bumps the group epoch (Kafka's group metadata hash).
    std::vector<std::tuple<std::string, uuid, int32_t>> metadata;
    // ShareGroupStatePartitionMetadata: a share-partition is assigned only
    // once its state is initialized; the initialization is asked at a
    // heartbeat and completes asynchronously (coordinator::tick).
    std::map<uuid, init_topic> initialized;
    std::map<uuid, init_topic> initializing;

    // ShareGroup.ShareGroupState: Empty or Stable (Kafka's share groups have
    // no reconciling state).
    const char* state() const { return members.empty() ? "Empty" : "Stable"; }
    // Every subscribed topic name of every member.
    std::vector<std::string> subscribed_topics() const;
};

// The SimpleAssignor for share groups (Kafka 4.3.1): every partition of the
// topics a member subscribes to goes to at least one member subscribed to
// it. With at least as many partitions as members, each partition has
// exactly one member (partitions dealt round robin over the members in id
// order); with more members than partitions, partitions are shared so that
// every member gets one.
std::map<std::string, assignment> assign(const share_group& g, const std::vector<assignable_topic>& topics);

}  // namespace ketch::share
