// One group id's slot in the coordinator's router (coordinator.h): the
// machine of the group that has the id — a classic group, a KIP-848
// consumer group or a KIP-1071 streams group, at most one of them — with
// its committed offsets, its consumer.* overrides, its regex cache and its
// timers, all guarded by the slot's own mutex. A request for group G locks
// G's slot only, so requests for different groups never wait for each other
// (docs/design/group_coordinator.md, "Threads and locks").
//
// The transitions that drive the machines (join.cc, rebalance.cc,
// membership.cc, migration.cc, consumer_heartbeat.cc, streams_*.cc,
// offsets.cc, admin.cc) are the slot's methods, each REQUIRES(mu_). The
// `group_id` parameters they take are the slot's own id (a slot finds no
// other group: find(other) is null).
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>

#include "base/mutex.h"
#include "base/result.h"
#include "group/api.h"
#include "group/classic_group.h"
#include "group/completions.h"
#include "group/consumer_api.h"
#include "group/consumer_group.h"
#include "group/consumer_util.h"
#include "group/group_config.h"
#include "group/streams_api.h"
#include "group/streams_group.h"
#include "group/time_source.h"
#include "group/txn_api.h"
#include "meta/offset_store.h"

namespace ketch::group {

class group_coordinator;

// What every slot shares, owned by the router: immutable settings, the clock
// and scheduler, and atomics (no lock).
struct group_env {
    group_config config;
    const clock& clk;
    scheduler& sched;
    std::atomic<const topic_view*> topics{nullptr};  // set_topic_view
    std::atomic<bool> stopped{false};                // shutdown()
    std::atomic<uint64_t> next_timer_seq{0};         // unique over all slots
    std::weak_ptr<group_coordinator> owner;          // set by open(), before any timer
};

// topic -> partition -> offset
using group_offsets = std::map<std::string, std::map<int32_t, meta::stored_offset>>;

class group_slot {
public:
    group_slot(std::string id, group_env& env);
    ~group_slot();
    group_slot(const group_slot&) = delete;
    group_slot& operator=(const group_slot&) = delete;

    const std::string& id() const { return id_; }

    // Orders the group's store writes (OffsetCommit, OffsetDelete, topic
    // deletion, expiry, DeleteGroups, the end of a transaction) as they were
    // validated: held from the decision under mu_ to the end of the write,
    // which runs without mu_. Held only with a slot_ref out, so the slot
    // stays in the router meanwhile and every writer of the id finds it.
    ketch::mutex order_mu_ ACQUIRED_BEFORE(mu_);
    // Guards everything below marked GUARDED_BY(mu_): in-memory work only,
    // never a store write or a callback. Never two slots at once.
    ketch::mutex mu_;

    // Nothing left in the slot (no group, offsets, overrides or timers):
    // the router may drop it.
    bool idle() const REQUIRES(mu_);

    // ---- restart and shutdown (group_slot.cc) ----
    void load_row(meta::stored_group& row, int64_t now) REQUIRES(mu_);
    void load_offset(meta::stored_offset o) REQUIRES(mu_);
    void shut_down(completions& out) REQUIRES(mu_);
    // Cluster mode: the group is read again from the shared store. Parked
    // JoinGroup/SyncGroup answered NOT_COORDINATOR, timers cancelled, the
    // groups and offsets forgotten (the consumer.* overrides stay).
    void drop_for_reload(completions& out) REQUIRES(mu_);

    // ---- timers (group_slot.cc) ----
    using timer_action = std::function<void(completions&)>;
    void schedule_timer(const std::string& key, int64_t delay_ms, timer_action action) REQUIRES(mu_);
    void cancel_timer(const std::string& key) REQUIRES(mu_);
    void cancel_group_timers(const std::string& group_id) REQUIRES(mu_);
    // Runs the action of timer `key` if `seq` is still its sequence number.
    void fire(const std::string& key, uint64_t seq, completions& out) REQUIRES(mu_);

    // ---- classic groups: join.cc, membership.cc, rebalance.cc ----
    classic_group* find(const std::string& group_id) REQUIRES(mu_);
    classic_group& get_or_create(const std::string& group_id) REQUIRES(mu_);
    void remove_group(const std::string& group_id, completions& out) REQUIRES(mu_);
    void join_locked(join_args& args, join_callback& done, completions& out) REQUIRES(mu_);
    void sync_locked(sync_args& args, sync_callback& done, completions& out) REQUIRES(mu_);
    error_code heartbeat_locked(const heartbeat_args& args) REQUIRES(mu_);
    leave_result leave_locked(const leave_args& args, completions& out) REQUIRES(mu_);
    void describe_classic(described_group& d, int16_t api_version) REQUIRES(mu_);
    void list_into(const list_groups_args& args, const std::set<std::string>& states, const std::set<group_type>& types,
                   std::vector<listed_group>& out) REQUIRES(mu_);

    // ---- offsets: offsets.cc, admin.cc, txn_offsets.cc ----
    error_code validate_commit(const commit_args& args) REQUIRES(mu_);
    // TxnOffsetCommit's validation (txn_offsets.cc).
    error_code validate_txn_commit(const txn_commit_args& args) REQUIRES(mu_);
    // Offsets now durable in the store; `create`: a simple group if none.
    void remember_offsets(std::vector<meta::stored_offset>& records, bool create) REQUIRES(mu_);
    fetch_result fetch_locked(const fetch_args& args) REQUIRES(mu_);
    // OffsetDelete's decision: the answer, and the offsets to delete.
    void offsets_to_delete(const offset_delete_args& args, offset_delete_result& res,
                           std::vector<meta::offset_key>& doomed) REQUIRES(mu_);
    void offsets_of_topics(const std::vector<std::string>& topics, std::vector<meta::offset_key>& doomed) REQUIRES(mu_);
    void forget_offsets(const std::vector<meta::offset_key>& keys) REQUIRES(mu_);
    bool has_offsets() const REQUIRES(mu_) { return !offsets_.empty(); }
    bool has_group() const REQUIRES(mu_) { return classic_ || consumer_ || streams_; }
    // One group's part of expire_offsets (admin.cc).
    bool expired_offsets_of(const std::string& id, int64_t now, int64_t retention,
                            std::vector<meta::offset_key>& expired, bool& delete_group) REQUIRES(mu_);
    // After the store deleted the group row: the group goes unless it was
    // joined meanwhile (then only `expired` go).
    void finish_expiry(const std::vector<meta::offset_key>& expired, completions& out) REQUIRES(mu_);
    // DeleteGroups: takes the empty group and its offsets out (error
    // otherwise); put_back restores them when the store refused.
    struct taken_group {
        std::unique_ptr<classic_group> classic;
        std::unique_ptr<consumer_group> consumer;
        std::unique_ptr<streams_group> streams;
        std::optional<group_offsets> offsets;
    };
    error_code take_for_delete(taken_group& taken) REQUIRES(mu_);
    void put_back(taken_group& taken) REQUIRES(mu_);

    // ---- consumer groups: consumer_heartbeat.cc, consumer_describe.cc ----
    consumer_group* find_consumer(const std::string& group_id) REQUIRES(mu_);
    consumer_heartbeat_result consumer_heartbeat_locked(const consumer_heartbeat_args& args, completions& out)
        REQUIRES(mu_);
    void describe_consumer(described_consumer_group& d, const topic_index& topics) REQUIRES(mu_);
    void set_overrides(const group_overrides& overrides) REQUIRES(mu_);
    topic_index topics_by_name() const;

    // ---- streams groups: streams_heartbeat.cc, streams_membership.cc ----
    streams_group* find_streams(const std::string& group_id) REQUIRES(mu_);
    streams_heartbeat_result streams_heartbeat_locked(const streams_heartbeat_args& args, completions& out)
        REQUIRES(mu_);
    void describe_streams(described_streams_group& d) REQUIRES(mu_);

private:
    // ---- rebalance (rebalance.cc) ----
    void reschedule_heartbeat(classic_group& g, classic_member& m, int64_t timeout_ms) REQUIRES(mu_);
    void expire_heartbeat(const std::string& group_id, const std::string& member_id, completions& out) REQUIRES(mu_);
    void remove_member_and_update(classic_group& g, const std::string& member_id, completions& out) REQUIRES(mu_);
    void maybe_prepare_rebalance_or_complete_join(classic_group& g, completions& out) REQUIRES(mu_);
    void prepare_rebalance(classic_group& g, completions& out) REQUIRES(mu_);
    void maybe_complete_join_else_schedule(classic_group& g, completions& out) REQUIRES(mu_);
    void try_complete_initial_rebalance(const std::string& group_id, int32_t delay_ms, int32_t remaining_ms,
                                        completions& out) REQUIRES(mu_);
    void maybe_complete_join_phase(classic_group& g, completions& out) REQUIRES(mu_);
    void complete_join(classic_group& g, completions& out) REQUIRES(mu_);
    void schedule_pending_sync(classic_group& g) REQUIRES(mu_);
    void expire_pending_sync(const std::string& group_id, int32_t generation, completions& out) REQUIRES(mu_);
    void reset_and_propagate_error(classic_group& g, error_code e, completions& out) REQUIRES(mu_);
    void set_and_propagate_assignment(classic_group& g, std::map<std::string, bytes> assignment, completions& out)
        REQUIRES(mu_);
    void remove_pending_sync_member(classic_group& g, const std::string& member_id) REQUIRES(mu_);

    // ---- join (join.cc) ----
    void join_new_member(classic_group& g, join_args& args, join_callback& done, completions& out) REQUIRES(mu_);
    void join_existing_member(classic_group& g, join_args& args, join_callback& done, completions& out) REQUIRES(mu_);
    void add_member_then_rebalance(classic_group& g, join_args& args, const std::string& member_id, join_callback& done,
                                   completions& out) REQUIRES(mu_);
    void update_static_member_then_rebalance(classic_group& g, join_args& args, const std::string& old_id,
                                             const std::string& new_id, join_callback& done, completions& out)
        REQUIRES(mu_);
    bool accept_joining_member(const classic_group& g, const std::string& member_id) const REQUIRES(mu_);
    std::string new_member_id(const std::string& client_id, const std::optional<std::string>& instance_id) const;
    void leave_classic(classic_group& g, const leave_args& args, leave_result& res, completions& out) REQUIRES(mu_);

    // ---- consumer groups (consumer_heartbeat.cc) ----
    result<consumer_group*, consumer_heartbeat_result> consumer_group_for(const std::string& id, bool create,
                                                                          completions& out) REQUIRES(mu_);
    consumer_heartbeat_result consumer_join_or_heartbeat(const consumer_heartbeat_args& args, completions& out)
        REQUIRES(mu_);
    std::optional<consumer_heartbeat_result> admit_consumer_member(consumer_group& g,
                                                                   const consumer_heartbeat_args& args, bool create,
                                                                   consumer_member& old, bool& is_new) REQUIRES(mu_);
    consumer_heartbeat_result consumer_leave(const consumer_heartbeat_args& args, completions& out) REQUIRES(mu_);
    void fence_consumer_member(consumer_group& g, const std::string& member_id, completions& out) REQUIRES(mu_);
    // `timeout_ms` < 0: group.consumer.session.timeout.ms (a classic member has its own).
    void schedule_consumer_session_timeout(const std::string& group_id, const std::string& member_id,
                                           int32_t timeout_ms = -1) REQUIRES(mu_);
    void schedule_consumer_rebalance_timeout(const std::string& group_id, const std::string& member_id, int32_t epoch,
                                             int32_t timeout_ms) REQUIRES(mu_);
    void cancel_consumer_timers(const std::string& group_id, const std::string& member_id) REQUIRES(mu_);
    // The group's consumer.* settings: its override, else the broker's.
    int32_t consumer_session_timeout_ms(const std::string& group_id) const REQUIRES(mu_);
    int32_t consumer_heartbeat_interval_ms(const std::string& group_id) const REQUIRES(mu_);
    int32_t consumer_assignment_interval_ms(const std::string& group_id) const REQUIRES(mu_);

    // ---- streams groups (streams_*.cc) ----
    result<streams_group*, streams_heartbeat_result> streams_group_for(const std::string& id, bool create)
        REQUIRES(mu_);
    streams_heartbeat_result streams_join_or_heartbeat(const streams_heartbeat_args& args, completions& out)
        REQUIRES(mu_);
    std::optional<streams_heartbeat_result> streams_topology_step(streams_group& g, const streams_heartbeat_args& a,
                                                                  bool& bump) REQUIRES(mu_);
    std::string streams_fingerprint(const streams_topology& t) const;
    configured_topology configure_streams(const streams_topology& t) const;
    // `status`: what the steps before said (STALE_TOPOLOGY, ASSIGNMENT_DELAYED).
    streams_heartbeat_result streams_answer(streams_group& g, const streams_heartbeat_args& a,
                                            const streams_member& old, const streams_member& next,
                                            std::vector<streams_status> status) REQUIRES(mu_);
    // ---- a streams group's target and settings (streams_target.cc) ----
    void maybe_start_streams_initial_delay(streams_group& g) REQUIRES(mu_);
    void compute_delayed_streams_target(const std::string& group_id, completions& out) REQUIRES(mu_);
    // The target epoch and tasks `member_id` reconciles towards (computed
    // anew when due); adds ASSIGNMENT_DELAYED to `status` when held back.
    std::pair<int32_t, tasks_tuple> streams_target_for(streams_group& g, const std::string& member_id,
                                                       std::vector<streams_status>& status) REQUIRES(mu_);
    void compute_streams_target(streams_group& g) REQUIRES(mu_);
    // The group's streams.* settings: its override, else the broker's.
    int32_t streams_session_timeout_ms() const REQUIRES(mu_);
    int32_t streams_heartbeat_interval_ms() const REQUIRES(mu_);
    int32_t streams_num_standby_replicas() const REQUIRES(mu_);
    int32_t streams_initial_rebalance_delay_ms() const REQUIRES(mu_);
    int32_t streams_assignment_interval_ms() const REQUIRES(mu_);
    streams_heartbeat_result streams_leave(const streams_heartbeat_args& args, completions& out) REQUIRES(mu_);
    void fence_streams_member(streams_group& g, const std::string& member_id, completions& out) REQUIRES(mu_);
    void schedule_streams_session_timeout(const std::string& group_id, const std::string& member_id) REQUIRES(mu_);
    void schedule_streams_rebalance_timeout(const std::string& group_id, const std::string& member_id, int32_t epoch,
                                            int32_t timeout_ms) REQUIRES(mu_);
    void persist_streams(streams_group& g, completions& out) REQUIRES(mu_);
    // StreamsGroup.validateOffsetCommit / validateOffsetFetch
    error_code validate_streams_offsets(const streams_group& g, const std::string& member_id, int32_t member_epoch,
                                        bool commit, int16_t api_version,
                                        const std::vector<commit_topic>* commit_topics = nullptr) const REQUIRES(mu_);

    // ---- online migration and mixed groups (migration.cc) ----
    result<consumer_group*, consumer_heartbeat_result> upgrade_classic_group(classic_group& g, completions& out)
        REQUIRES(mu_);
    bool maybe_downgrade(consumer_group& g, const std::string& leaving, completions& out) REQUIRES(mu_);
    void convert_to_classic(consumer_group& g, const std::string& leaving, int32_t generation, bool rebalance,
                            completions& out) REQUIRES(mu_);
    void downgrade_for_replacing_member(consumer_group& g, const consumer_member& upd, int32_t generation,
                                        const join_args& args, join_callback& done, completions& out) REQUIRES(mu_);
    void join_consumer_group(consumer_group& g, join_args& args, join_callback& done, completions& out) REQUIRES(mu_);
    void sync_consumer_group(consumer_group& g, sync_args& args, sync_callback& done, completions& out) REQUIRES(mu_);
    error_code heartbeat_consumer_group(consumer_group& g, const heartbeat_args& args) REQUIRES(mu_);
    leave_result leave_consumer_group(consumer_group& g, const leave_args& args, completions& out) REQUIRES(mu_);
    void schedule_consumer_join_timeout_if_absent(const std::string& group_id, const std::string& member_id,
                                                  int32_t timeout_ms) REQUIRES(mu_);
    // Hand the group's row, with its membership (group_record.h), to finish().
    void persist_classic(const classic_group& g, completions& out) REQUIRES(mu_);
    void persist_consumer(consumer_group& g, completions& out) REQUIRES(mu_);
    // ConsumerGroup.validateOffsetCommit / validateOffsetFetch; `commit_topics`:
    // a commit's partitions, checked against the member's assignment epochs
    // when its epoch is older (KIP-1251); null for a fetch.
    error_code validate_consumer_offsets(const consumer_group& g, const std::string& member_id, int32_t member_epoch,
                                         bool commit, int16_t api_version,
                                         const std::vector<commit_topic>* commit_topics = nullptr) const REQUIRES(mu_);

    struct timer_entry {
        uint64_t seq = 0;
        std::unique_ptr<timer_handle> handle;
        timer_action action;
    };

    const std::string id_;
    group_env& env_;
    const group_config& config_;
    const clock& clock_;

    // At most one of the three is set: the group that has this id.
    std::unique_ptr<classic_group> classic_ GUARDED_BY(mu_);
    std::unique_ptr<consumer_group> consumer_ GUARDED_BY(mu_);
    std::unique_ptr<streams_group> streams_ GUARDED_BY(mu_);
    group_offsets offsets_ GUARDED_BY(mu_);  // empty unless a group is set
    std::optional<group_overrides> overrides_ GUARDED_BY(mu_);
    regex_cache regexes_ GUARDED_BY(mu_);
    std::unordered_map<std::string, timer_entry> timers_ GUARDED_BY(mu_);
};

}  // namespace ketch::group
