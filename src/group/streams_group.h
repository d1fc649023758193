// One KIP-1071 streams group: its members with their epochs and tasks, the
// group epoch, the topology and its configured view, and the target
// assignment (Kafka's StreamsGroup and StreamsGroupMember, 4.3.1). The
// heartbeat logic that drives it lives in its group_slot
// (streams_heartbeat.cc). Not thread-safe: the slot's lock guards it.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "group/streams_api.h"
#include "group/streams_topology.h"

namespace ketch::group {

// Kafka's streams MemberState.
enum class streams_member_state { stable, unrevoked_tasks, unreleased_tasks };

struct streams_member : modern_member {
    int32_t topology_epoch = -1;
    std::string process_id;
    std::optional<streams_endpoint> user_endpoint;
    std::map<std::string, std::string> client_tags;

    streams_member_state state = streams_member_state::stable;
    tasks_tuple assigned;
    tasks_tuple pending_revocation;
    // The epoch at which each active task of `assigned` and
    // `pending_revocation` was given to the member (KIP-1251 offset commits).
    std::map<std::string, std::map<int32_t, int32_t>> active_epochs;

    // The metadata the assignor reads: a change bumps the group epoch.
    bool same_metadata(const streams_member& o) const {
        return instance_id == o.instance_id && rack_id == o.rack_id && process_id == o.process_id &&
               user_endpoint == o.user_endpoint && client_tags == o.client_tags && topology_epoch == o.topology_epoch;
    }
    friend bool operator==(const streams_member&, const streams_member&) = default;
};

// Kafka's StreamsGroup.StreamsGroupState names.
enum class streams_group_state { empty, not_ready, assigning, reconciling, stable };
std::string_view streams_state_name(streams_group_state s);

class streams_group {
public:
    explicit streams_group(std::string id) : id_(std::move(id)) {}

    const std::string& id() const { return id_; }
    // A new group starts at group epoch 1 and assignment epoch 1 (Kafka's
    // StreamsGroup constructor and TargetAssignmentMetadata.INITIAL): its
    // first member's join bumps the group epoch to 2.
    int32_t group_epoch = 1;
    int32_t assignment_epoch = 1;
    // When the target was last computed (0: never; the assignment interval
    // counts from it).
    int64_t assignment_timestamp_ms = 0;
    // The num.standby.replicas of the last group-epoch bump (Kafka's
    // lastAssignmentConfigs): another value bumps the epoch again.
    std::optional<int32_t> last_num_standby;
    int32_t endpoint_information_epoch = 0;
    std::optional<streams_topology> topology;
    // The configured view of the topology (recomputed when the topics change)
    // and the fingerprint of the topics' partition counts it was made from.
    std::optional<configured_topology> configured;
    std::string metadata_fingerprint;
    std::optional<std::string> shutdown_requested_by;
    std::map<std::string, streams_member> members;
    std::map<std::string, tasks_tuple> target;
    // The record last handed to the store (group_record.h).
    std::string persisted;

    // Empty without members; NotReady while the topology is not configured;
    // Assigning while the target lags the group epoch; Reconciling while a
    // member is not at the target; else Stable.
    streams_group_state state() const;
    bool empty() const { return members.empty(); }
    const streams_member* member(const std::string& id) const {
        auto it = members.find(id);
        return it == members.end() ? nullptr : &it->second;
    }
    const tasks_tuple& target_of(const std::string& member_id) const;
    // The member (other than `except`) holding active task (s, p), assigned
    // or pending revocation; "" when none.
    std::string active_owner(const std::string& s, int32_t p, const std::string& except) const;
    // Whether a member of `process_id` other than `except` holds (s, p) active.
    bool process_holds_active(const std::string& process_id, const std::string& s, int32_t p,
                              const std::string& except) const;

private:
    std::string id_;
};

// StreamsGroup.isSubscribedToTopic (streams_offsets.cc).
bool streams_reads_topic(const streams_group& g, const std::string& topic);

}  // namespace ketch::group
