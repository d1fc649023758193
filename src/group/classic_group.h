// One classic-protocol group: members, generation, selected protocol, state,
// and the parked JoinGroup/SyncGroup callbacks of its members. A data
// structure with Kafka's invariants (classic/ClassicGroup.java,
// ClassicGroupMember.java); the rebalance logic that drives it, and the
// timers, live in its group_slot. Not thread-safe: the slot's lock guards
// it (group_slot.h).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "group/api.h"
#include "group/completions.h"
#include "group/group_state.h"

namespace ketch::group {

using join_callback = std::function<void(join_result)>;
using sync_callback = std::function<void(sync_result)>;

struct classic_member {
    std::string member_id;
    std::optional<std::string> group_instance_id;
    std::string client_id;
    std::string client_host;
    int32_t rebalance_timeout_ms = 0;
    int32_t session_timeout_ms = 0;
    std::string protocol_type;
    std::vector<protocol> protocols;  // preference order
    bytes assignment;
    join_callback awaiting_join;  // set while its JoinGroup is parked
    sync_callback awaiting_sync;  // set while its SyncGroup is parked
    bool is_new = false;          // joined, not yet through a completed join phase

    bool is_static() const { return group_instance_id.has_value(); }
    bool is_awaiting_join() const { return bool(awaiting_join); }
    bool is_awaiting_sync() const { return bool(awaiting_sync); }
    // Kafka's hasSatisfiedHeartbeat: a member parked in a rebalance needs no
    // heartbeat, unless it is new (new members may time out while joining).
    bool has_satisfied_heartbeat() const { return !is_new && (is_awaiting_join() || is_awaiting_sync()); }
    // Metadata of `name`; empty if the member does not support it.
    const bytes& metadata(const std::string& name) const;
    // The member's most preferred protocol among `candidates`.
    std::string vote(const std::set<std::string>& candidates) const;
};

class classic_group {
public:
    classic_group(std::string id, int64_t now_ms) : id_(std::move(id)), state_timestamp_ms_(now_ms) {}

    const std::string& id() const { return id_; }
    group_state state() const { return state_; }
    group_state previous_state() const { return previous_state_; }
    bool is(group_state s) const { return state_ == s; }
    std::optional<int64_t> state_timestamp_ms() const { return state_timestamp_ms_; }
    int32_t generation() const { return generation_; }
    const std::optional<std::string>& protocol_type() const { return protocol_type_; }
    const std::optional<std::string>& protocol_name() const { return protocol_name_; }
    bool uses_consumer_protocol() const { return protocol_type_ == "consumer"; }
    const std::optional<std::set<std::string>>& subscribed_topics() const { return subscribed_topics_; }
    bool new_member_added() const { return new_member_added_; }
    void set_new_member_added(bool v) { new_member_added_ = v; }

    // For a group reloaded from the store: Empty, with what survived.
    void restore(std::optional<std::string> protocol_type, int32_t generation, std::optional<int64_t> state_ts);
    // For a group reloaded with the members of its last completed SyncGroup
    // (GroupMetadataValue): Stable with them, its protocol and leader.
    void restore_members(std::string protocol_name, const std::string& leader, std::vector<classic_member> members,
                         int64_t now_ms);

    // For a consumer group downgraded online (ClassicGroup.fromConsumerGroup):
    // Stable with `members` (assignments set), the protocol they select.
    void adopt_members(std::vector<classic_member> members, int64_t now_ms);

    // ---- members ----
    bool has_member(const std::string& id) const { return members_.count(id) != 0; }
    classic_member& member(const std::string& id) { return members_.at(id); }
    size_t size() const { return members_.size(); }
    std::map<std::string, classic_member>& members() { return members_; }
    const std::map<std::string, classic_member>& members() const { return members_; }
    bool is_leader(const std::string& id) const { return leader_ == id; }
    std::string leader_or_empty() const { return leader_.value_or(""); }
    int num_awaiting_join() const { return num_awaiting_join_; }

    // Adds a member whose JoinGroup (`cb`, may be empty) is parked. The first
    // member sets the group's protocol type and becomes leader if none.
    void add(classic_member m, join_callback cb);
    // Removes a member or pending member. A JoinGroup or SyncGroup it still
    // has parked is answered UNKNOWN_MEMBER_ID (for a SyncGroup a ketch
    // difference: Kafka leaves it unanswered). A new leader is the first
    // remaining member.
    void remove(const std::string& id, completions& out);
    // Replaces a member's protocols and timeouts and parks `cb` (may be empty).
    // A JoinGroup it already had parked is answered REBALANCE_IN_PROGRESS
    // (ketch difference: Kafka leaves such a superseded request unanswered).
    void update_member(classic_member& m, std::vector<protocol> protocols, int32_t rebalance_timeout_ms,
                       int32_t session_timeout_ms, join_callback cb, completions& out);
    // Answers a parked JoinGroup / SyncGroup; false if none was parked.
    bool complete_join(classic_member& m, join_result r, completions& out);
    bool complete_sync(classic_member& m, sync_result r, completions& out);
    // Parks a SyncGroup; one already parked is answered REBALANCE_IN_PROGRESS.
    void park_sync(classic_member& m, sync_callback cb, completions& out);

    // ---- static members (KIP-345) ----
    bool has_static_member(const std::string& instance_id) const { return static_members_.count(instance_id) != 0; }
    std::optional<std::string> static_member_id(const std::string& instance_id) const;
    // Moves the static member `old_id` to `new_id`, keeping its assignment; its
    // parked requests are answered FENCED_INSTANCE_ID. Returns the new member.
    classic_member& replace_static_member(const std::string& instance_id, const std::string& old_id,
                                          const std::string& new_id, completions& out);

    // ---- pending members (KIP-394: given an id, not yet rejoined) ----
    bool is_pending(const std::string& id) const { return pending_join_.count(id) != 0; }
    void add_pending(const std::string& id) { pending_join_.insert(id); }
    size_t num_pending() const { return pending_join_.size(); }

    // ---- pending sync ----
    void add_pending_sync(const std::string& id) { pending_sync_.insert(id); }
    void remove_pending_sync(const std::string& id) { pending_sync_.erase(id); }
    bool has_received_all_syncs() const { return pending_sync_.empty(); }
    const std::set<std::string>& pending_sync() const { return pending_sync_; }
    void clear_pending_sync() { pending_sync_.clear(); }

    // ---- rebalance helpers ----
    bool has_all_members_joined() const {
        return members_.size() == size_t(num_awaiting_join_) && pending_join_.empty();
    }
    bool can_rebalance() const { return valid_transition(state_, group_state::preparing_rebalance); }
    void transition_to(group_state s, int64_t now_ms);
    int32_t rebalance_timeout_ms() const;
    // Kafka's maybeElectNewJoinedLeader: keep the leader if it rejoined, else
    // pick a member that did; false if none did.
    bool maybe_elect_new_joined_leader();
    // Bumps the generation; selects the protocol and moves to
    // CompletingRebalance, or to Empty when no member is left.
    void init_next_generation(int64_t now_ms);
    // The protocol most members prefer among those all support; ties go the
    // way Kafka's HashMap iteration order sends them.
    std::string select_protocol() const;
    // Kafka's supportsProtocols: an Empty group takes any non-empty type and
    // list; otherwise the type must match and one protocol be supported by all.
    bool supports_protocols(const std::string& type, const std::vector<protocol>& protocols) const;
    // The leader's member list for the current generation.
    std::vector<join_member> current_members() const;
    bool is_subscribed_to_topic(const std::string& topic) const;

    // Kafka's validateMember: FENCED_INSTANCE_ID, UNKNOWN_MEMBER_ID or none.
    error_code validate_member(const std::string& member_id, const std::optional<std::string>& instance_id) const;

private:
    void count_protocols(const classic_member& m, int delta);
    std::optional<std::set<std::string>> compute_subscribed_topics() const;

    std::string id_;
    group_state state_ = group_state::empty;
    group_state previous_state_ = group_state::dead;
    std::optional<int64_t> state_timestamp_ms_;
    std::optional<std::string> protocol_type_;
    std::optional<std::string> protocol_name_;
    int32_t generation_ = 0;
    std::optional<std::string> leader_;
    // Ordered by member id: the order leaders are picked and members listed in
    // (Kafka uses HashMap order, which is as arbitrary for random ids).
    std::map<std::string, classic_member> members_;
    std::map<std::string, std::string> static_members_;  // instance id -> member id
    std::set<std::string> pending_join_;
    int num_awaiting_join_ = 0;
    std::map<std::string, int> supported_protocols_;  // name -> members supporting it
    std::set<std::string> pending_sync_;
    std::optional<std::set<std::string>> subscribed_topics_;
    bool new_member_added_ = false;
};

}  // namespace ketch::group
