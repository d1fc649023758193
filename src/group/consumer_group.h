// One KIP-848 consumer group: its members with their epochs and current
// assignments, the group epoch, the target assignment and its epoch, and
// which member owns each partition. A data structure with Kafka's invariants
// (modern/consumer/ConsumerGroup.java, ConsumerGroupMember.java, Kafka
// 4.3.1); the heartbeat logic that drives it lives in its group_slot
// (consumer_heartbeat.cc). Not thread-safe: the slot's lock guards it.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "group/api.h"
#include "group/consumer_api.h"

namespace ketch::group {

// Epochs with a meaning of their own (ConsumerGroupHeartbeatRequest.java).
inline constexpr int32_t leave_group_member_epoch = -1;
inline constexpr int32_t leave_group_static_member_epoch = -2;

// Where a member is in its reconciliation (modern/MemberState.java).
enum class member_state { stable, unrevoked_partitions, unreleased_partitions };

// What a member of a consumer group that speaks the classic protocol
// (JoinGroup/SyncGroup/Heartbeat) keeps of its JoinGroup
// (ConsumerGroupMemberMetadataValue.ClassicMemberMetadata).
struct classic_member_meta {
    int32_t session_timeout_ms = 0;
    std::vector<protocol> protocols;  // its JoinGroup's, in preference order
    friend bool operator==(const classic_member_meta&, const classic_member_meta&) = default;
};

struct consumer_member : modern_member {
    std::set<std::string> subscribed_topic_names;
    std::optional<std::string> subscribed_topic_regex;
    std::optional<std::string> server_assignor;

    member_state state = member_state::stable;
    topic_partitions assigned;            // usable now
    topic_partitions pending_revocation;  // still owned, being given up
    // KIP-1251 (Kafka 4.3): the epoch at which each partition of `assigned`
    // and `pending_revocation` was assigned to the member; an offset commit
    // with an older member epoch is accepted for a partition assigned at or
    // before it.
    std::map<uuid, std::map<int32_t, int32_t>> assignment_epochs;
    // Set for a member using the classic protocol (a mixed group, KIP-848
    // online migration); such a member has no rebalance-timeout timer but a
    // join and a sync timer.
    std::optional<classic_member_meta> classic;

    bool uses_classic() const { return classic.has_value(); }
    std::optional<int32_t> assignment_epoch_of(const uuid& topic, int32_t partition) const {
        auto t = assignment_epochs.find(topic);
        if (t == assignment_epochs.end()) return std::nullopt;
        auto p = t->second.find(partition);
        return p == t->second.end() ? std::nullopt : std::optional<int32_t>(p->second);
    }

    // Whether the member is at `epoch` with nothing left to do.
    bool reconciled_to(int32_t epoch) const { return state == member_state::stable && member_epoch == epoch; }
    friend bool operator==(const consumer_member&, const consumer_member&) = default;
};

// Kafka's ConsumerGroup.ConsumerGroupState names.
enum class consumer_group_state { empty, assigning, reconciling, stable };
std::string_view consumer_state_name(consumer_group_state s);

class consumer_group {
public:
    explicit consumer_group(std::string id) : id_(std::move(id)) {}

    const std::string& id() const { return id_; }
    int32_t group_epoch() const { return group_epoch_; }
    void set_group_epoch(int32_t e) { group_epoch_ = e; }
    int32_t assignment_epoch() const { return assignment_epoch_; }
    // Kafka's ConsumerGroup.state: Empty without members; Assigning while the
    // target lags the group epoch; Reconciling while a member is not at the
    // target; else Stable.
    consumer_group_state state() const;
    bool empty() const { return members_.empty(); }

    // ---- members ----
    size_t size() const { return members_.size(); }
    bool has_member(const std::string& id) const { return members_.count(id) != 0; }
    const consumer_member* member(const std::string& id) const;
    const std::map<std::string, consumer_member>& members() const { return members_; }
    // The member holding `instance_id`, if any.
    const consumer_member* static_member(const std::string& instance_id) const;
    // Inserts or replaces m (by member id), keeping the partition owners and
    // static members in step.
    void update_member(const consumer_member& m);
    // Removes a member, its partitions and its target assignment.
    void remove_member(const std::string& id);

    // ---- partitions ----
    // The epoch of the member owning (topic, partition), -1 when free.
    int32_t partition_epoch(const uuid& topic, int32_t partition) const;

    // ---- target assignment ----
    const std::map<std::string, topic_partitions>& target() const { return target_; }
    const topic_partitions& target_of(const std::string& member_id) const;
    // `computed_at_ms`: when the assignor produced it (Kafka's
    // assignmentTimestamp); 0 when unknown (a new or converted group), which
    // lets the next target be computed at once.
    void set_target(std::map<std::string, topic_partitions> target, int32_t epoch, int64_t computed_at_ms = 0);
    int64_t assignment_timestamp_ms() const { return assignment_timestamp_ms_; }
    // A static member's replacement takes over its target assignment.
    void move_target(const std::string& from, const std::string& to);

    // ---- subscriptions ----
    // The topics the group's members subscribe to by name (with how many
    // members), and the regexes they use.
    std::map<std::string, int> subscribed_topic_names() const;
    std::set<std::string> regexes() const;
    // What the group last saw of its subscribed topics: a change bumps the epoch.
    const std::map<std::string, topic_meta>& subscription_metadata() const { return subscription_metadata_; }
    void set_subscription_metadata(std::map<std::string, topic_meta> m) { subscription_metadata_ = std::move(m); }
    // ---- classic-protocol members (mixed groups) ----
    size_t num_classic_members() const;
    // Kafka's supportsClassicProtocols: the type is "consumer" and, unless the
    // group is empty, one of `names` is supported by every classic member.
    bool supports_classic_protocols(const std::string& protocol_type, const std::vector<protocol>& protocols) const;
    // Kafka's allMembersUseClassicProtocolExcept: `member_id` uses the
    // consumer protocol and every other member the classic one.
    bool all_members_use_classic_except(const std::string& member_id) const;
    // Kafka's waitingOnUnreleasedPartition: part of the member's target is
    // still owned by another member.
    bool waiting_on_unreleased_partition(const consumer_member& m) const;

    // Kafka's computePreferredServerAssignor: the assignor most members name.
    std::optional<std::string> preferred_assignor() const;

    // The record last handed to the store (group_record.h), to write only changes.
    const std::string& persisted() const { return persisted_; }
    void set_persisted(std::string r) { persisted_ = std::move(r); }

private:
    void add_partition_epochs(const consumer_member& m);
    void remove_partition_epochs(const consumer_member& m);

    std::string id_;
    int32_t group_epoch_ = 0;
    int32_t assignment_epoch_ = 0;
    int64_t assignment_timestamp_ms_ = 0;
    std::map<std::string, consumer_member> members_;
    std::map<std::string, std::string> static_members_;  // instance id -> member id
    std::map<std::string, topic_partitions> target_;
    std::map<uuid, std::map<int32_t, int32_t>> partition_epochs_;
    std::map<std::string, topic_meta> subscription_metadata_;
    std::string persisted_;
};

}  // namespace ketch::group
