// The group coordinator: classic-protocol groups (JoinGroup, SyncGroup,
// Heartbeat, LeaveGroup), committed offsets (OffsetCommit, OffsetFetch,
// OffsetDelete) and group administration (ListGroups, DescribeGroups,
// DeleteGroups, offsets.retention expiry). Behaviour follows Apache Kafka
// 4.3.1's group coordinator (GroupMetadataManager, OffsetMetadataManager,
// GroupCoordinatorService); differences are marked "ketch difference".
//
// Threads: every method may be called from any thread. One mutex guards all
// groups; callbacks are never called while it is held. JoinGroup, SyncGroup
// and OffsetCommit answer through a callback that is called exactly once,
// either before the call returns or later from another thread (a timer, or a
// request of another member).
//
// Durability: an OffsetCommit is answered only after the offsets are durable
// in the offset store. Group membership is written to the store's group row
// (best effort, after the change is answered): a classic group's members as
// of its last completed SyncGroup, and a consumer group's epochs, members and
// assignments after each heartbeat that changed them. After a restart the
// groups come back with them, as Kafka replays __consumer_offsets; members
// whose sessions lapse meanwhile expire as usual.
//
// Classic groups and KIP-848 consumer groups (consumer_group.h) live side by
// side; a group id names one or the other.
#pragma once

#include <array>
#include <map>
#include <memory>
#include <unordered_map>

#include "base/mutex.h"
#include "base/result.h"
#include "group/api.h"
#include "group/classic_group.h"
#include "group/consumer_api.h"
#include "group/consumer_group.h"
#include "group/consumer_util.h"
#include "group/group_config.h"
#include "group/streams_api.h"
#include "group/streams_group.h"
#include "group/time_source.h"
#include "group/txn_api.h"
#include "meta/offset_store.h"
#include "meta/txn_store.h"

namespace ketch::group {

class group_coordinator : public std::enable_shared_from_this<group_coordinator> {
public:
    // Loads the groups and offsets kept in `store` and starts the periodic
    // expiry. `clk`, `sched` and `store` must outlive the coordinator.
    static result<std::shared_ptr<group_coordinator>, meta::store_error> open(group_config config, const clock& clk,
                                                                             scheduler& sched,
                                                                             meta::offset_store& store);
    ~group_coordinator();
    group_coordinator(const group_coordinator&) = delete;
    group_coordinator& operator=(const group_coordinator&) = delete;

    // Answers every parked JoinGroup/SyncGroup NOT_COORDINATOR (as Kafka does
    // when it unloads a group) and stops the timers. Later calls answer
    // COORDINATOR_NOT_AVAILABLE.
    void shutdown() EXCLUDES(mu_);

    // JoinGroup: answered when the rebalance completes (or at once on error).
    void join(join_args args, join_callback done) EXCLUDES(mu_);
    // SyncGroup: a follower's answer waits for the leader's assignment.
    void sync(sync_args args, sync_callback done) EXCLUDES(mu_);
    error_code heartbeat(const heartbeat_args& args) EXCLUDES(mu_);
    leave_result leave(const leave_args& args) EXCLUDES(mu_);

    // OffsetCommit: answered once the offsets are durable (or at once on
    // error). The store write (an fsync with SQLite) runs on the calling
    // thread, and so does `done`.
    void commit_offsets(commit_args args, std::function<void(commit_result)> done) EXCLUDES(mu_);
    // OffsetFetch for one group (v8+ batches: one call per group).
    fetch_result fetch_offsets(const fetch_args& args) EXCLUDES(mu_);
    offset_delete_result delete_offsets(const offset_delete_args& args) EXCLUDES(mu_);

    std::vector<delete_group_result> delete_groups(const std::vector<std::string>& group_ids) EXCLUDES(mu_);
    std::vector<listed_group> list_groups(const list_groups_args& args) EXCLUDES(mu_);
    // v6+ answers an unknown group GROUP_ID_NOT_FOUND; before, a Dead group.
    std::vector<described_group> describe_groups(const std::vector<std::string>& group_ids, int16_t api_version)
        EXCLUDES(mu_);

    // A topic was deleted: its committed offsets go from every group
    // (Kafka's onPartitionsDeleted, called for all partitions of a deleted
    // topic). Best effort: offsets the store fails to delete stay.
    void on_topics_deleted(const std::vector<std::string>& topics) EXCLUDES(mu_);

    // One offsets.retention cycle now (it also runs every
    // offsets_retention_check_interval_ms): expires offsets by Kafka's rules
    // and removes Empty groups left with none.
    void expire_offsets() EXCLUDES(mu_);

    // ---- KIP-848 consumer groups (consumer_heartbeat.cc, consumer_describe.cc) ----
    // ConsumerGroupHeartbeat: join, heartbeat, leave (epoch -1) or static
    // leave (epoch -2). Answered at once.
    consumer_heartbeat_result consumer_heartbeat(const consumer_heartbeat_args& args) EXCLUDES(mu_);
    std::vector<described_consumer_group> consumer_describe(const std::vector<std::string>& group_ids) EXCLUDES(mu_);
    // The topics consumer groups subscribe to and are assigned from; must
    // outlive the coordinator. Unset: no topic exists for them.
    void set_topic_view(const topic_view* topics) EXCLUDES(mu_);
    // The group's own consumer settings from now on (its next heartbeat
    // answer, session timer and target assignment); empty ones: the broker's.
    // The group need not exist (the settings wait for it).
    void set_consumer_overrides(const std::string& group_id, const consumer_group_overrides& overrides) EXCLUDES(mu_);

    // ---- KIP-1071 streams groups (streams_heartbeat.cc, streams_membership.cc) ----
    // StreamsGroupHeartbeat: join, heartbeat, leave (epoch -1). Answered at
    // once; topics_to_create lists the internal topics the broker must create.
    streams_heartbeat_result streams_heartbeat(const streams_heartbeat_args& args) EXCLUDES(mu_);
    std::vector<described_streams_group> streams_describe(const std::vector<std::string>& group_ids) EXCLUDES(mu_);
    bool is_streams_group(const std::string& group_id) EXCLUDES(mu_);

    // ---- transactional offsets (txn_offsets.cc) ----
    // Loads the pending transactional offsets kept in `store`; new ones are
    // kept there too. Call once, before serving TxnOffsetCommit.
    status<meta::store_error> attach_txn_store(meta::txn_store& store) EXCLUDES(mu_);
    // TxnOffsetCommit: validated as ClassicGroup.validateOffsetCommit with
    // isTransactional; the offsets are pending for the producer (durably)
    // until its transaction ends.
    commit_result commit_txn_offsets(const txn_commit_args& args) EXCLUDES(mu_);
    // The guard a TxnOffsetCommit takes before the transaction coordinator
    // verifies the producer; the end of the producer's transaction
    // (complete_txn_offsets) revokes it, so offsets verified against a
    // transaction that ended meanwhile never become pending (Kafka:
    // VerificationGuard, cleared by the end-transaction marker).
    uint64_t begin_txn_offsets_verification(int64_t producer_id) EXCLUDES(mu_);
    // Whether `guard` is still the producer's (no transaction of it ended since).
    bool txn_offsets_guard_valid(int64_t producer_id, uint64_t guard) EXCLUDES(mu_);
    // The producer's transaction ended: its pending offsets become committed
    // (commit) or are dropped (abort). false: the store failed, nothing changed.
    bool complete_txn_offsets(int64_t producer_id, bool commit) EXCLUDES(mu_);
    // OffsetFetch require_stable: is an offset of the partition pending?
    bool has_pending_txn_offset(const std::string& group_id, const std::string& topic, int32_t partition) EXCLUDES(mu_);

    // ---- cluster mode (reload.cc) ----
    // The coordinator of these groups moved here from another broker (which
    // wrote them to the shared store): whatever this coordinator held of them
    // is dropped (parked JoinGroup/SyncGroup answered NOT_COORDINATOR, timers
    // cancelled, nothing written) and they are restored from `rows` and
    // `offsets` (the store's rows of these groups), as at start-up.
    void reload_groups(const std::vector<std::string>& group_ids, std::vector<meta::stored_group> rows,
                       std::vector<meta::stored_offset> offsets) EXCLUDES(mu_);

    // The state of a group, if it exists (for tests and the console).
    std::optional<group_state> state_of(const std::string& group_id) EXCLUDES(mu_);
    std::optional<int32_t> generation_of(const std::string& group_id) EXCLUDES(mu_);

private:
    using timer_action = std::function<void(completions&)>;
    struct timer_slot {
        uint64_t seq = 0;
        std::unique_ptr<timer_handle> handle;
        timer_action action;
    };
    // group -> topic -> partition -> offset
    using group_offsets = std::map<std::string, std::map<int32_t, meta::stored_offset>>;

    group_coordinator(group_config config, const clock& clk, scheduler& sched, meta::offset_store& store);
    status<meta::store_error> load();
    // load()'s second half: the groups and offsets read from the store.
    void restore_locked(std::vector<meta::stored_group>& rows, std::vector<meta::stored_offset>& offsets)
        REQUIRES(mu_);

    // ---- timers (coordinator.cc); call with mu_ held ----
    void schedule_timer(const std::string& key, int64_t delay_ms, timer_action action) REQUIRES(mu_);
    void cancel_timer(const std::string& key) REQUIRES(mu_);
    void cancel_group_timers(const std::string& group_id) REQUIRES(mu_);
    void on_timer(const std::string& key, uint64_t seq) EXCLUDES(mu_);
    void schedule_expiry() REQUIRES(mu_);
    // Runs the callbacks, then writes the group rows (best effort).
    void finish(completions& out) EXCLUDES(mu_);
    ketch::mutex& stripe(const std::string& group_id);

    // ---- rebalance (rebalance.cc); call with mu_ held ----
    classic_group* find(const std::string& group_id) REQUIRES(mu_);
    classic_group& get_or_create(const std::string& group_id) REQUIRES(mu_);
    void remove_group(const std::string& group_id, completions& out) REQUIRES(mu_);
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

    // ---- join (join.cc); call with mu_ held ----
    void join_locked(join_args& args, join_callback& done, completions& out) REQUIRES(mu_);
    void join_new_member(classic_group& g, join_args& args, join_callback& done, completions& out) REQUIRES(mu_);
    void join_existing_member(classic_group& g, join_args& args, join_callback& done, completions& out) REQUIRES(mu_);
    void add_member_then_rebalance(classic_group& g, join_args& args, const std::string& member_id, join_callback& done,
                                   completions& out) REQUIRES(mu_);
    void update_static_member_then_rebalance(classic_group& g, join_args& args, const std::string& old_id,
                                             const std::string& new_id, join_callback& done, completions& out)
        REQUIRES(mu_);
    bool accept_joining_member(const classic_group& g, const std::string& member_id) const REQUIRES(mu_);
    std::string new_member_id(const std::string& client_id, const std::optional<std::string>& instance_id) const
        REQUIRES(mu_);

    // ---- consumer groups; call with mu_ held ----
    consumer_group* find_consumer(const std::string& group_id) REQUIRES(mu_);
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
    topic_index topics_by_name() const REQUIRES(mu_);

    // ---- streams groups; call with mu_ held ----
    streams_group* find_streams(const std::string& group_id) REQUIRES(mu_);
    result<streams_group*, streams_heartbeat_result> streams_group_for(const std::string& id, bool create)
        REQUIRES(mu_);
    streams_heartbeat_result streams_join_or_heartbeat(const streams_heartbeat_args& args, completions& out)
        REQUIRES(mu_);
    std::optional<streams_heartbeat_result> streams_topology_step(streams_group& g, const streams_heartbeat_args& a,
                                                                  bool& bump) REQUIRES(mu_);
    std::string streams_fingerprint(const streams_topology& t) const REQUIRES(mu_);
    configured_topology configure_streams(const streams_topology& t) const REQUIRES(mu_);
    streams_heartbeat_result streams_answer(streams_group& g, const streams_heartbeat_args& a, const streams_member& old,
                                            const streams_member& next) REQUIRES(mu_);
    void compute_streams_target(streams_group& g) REQUIRES(mu_);
    streams_heartbeat_result streams_leave(const streams_heartbeat_args& args, completions& out) REQUIRES(mu_);
    void fence_streams_member(streams_group& g, const std::string& member_id, completions& out) REQUIRES(mu_);
    void schedule_streams_session_timeout(const std::string& group_id, const std::string& member_id) REQUIRES(mu_);
    void schedule_streams_rebalance_timeout(const std::string& group_id, const std::string& member_id, int32_t epoch,
                                            int32_t timeout_ms) REQUIRES(mu_);
    void persist_streams(streams_group& g, completions& out) REQUIRES(mu_);
    error_code take_empty_streams_group(const std::string& id, std::unique_ptr<streams_group>& group,
                                        std::optional<group_offsets>& offsets) REQUIRES(mu_);
    // StreamsGroup.validateOffsetCommit / validateOffsetFetch
    error_code validate_streams_offsets(const streams_group& g, const std::string& member_id, int32_t member_epoch,
                                        bool commit, int16_t api_version,
                                        const std::vector<commit_topic>* commit_topics = nullptr) const REQUIRES(mu_);

    // ---- online migration and mixed groups (migration.cc); call with mu_ held ----
    // validateOnlineUpgrade + convertToConsumerGroup: the classic group
    // becomes a consumer group with its members (classic protocol), or
    // GROUP_ID_NOT_FOUND when it may not.
    result<consumer_group*, consumer_heartbeat_result> upgrade_classic_group(classic_group& g, completions& out)
        REQUIRES(mu_);
    // validateOnlineDowngradeWithFencedMember + convertToClassicGroup: when
    // `leaving` is the last consumer-protocol member, the group becomes a
    // classic group of the others and rebalances; false if it stays.
    bool maybe_downgrade(consumer_group& g, const std::string& leaving, completions& out) REQUIRES(mu_);
    // convertToClassicGroup + ClassicGroup.fromConsumerGroup: every member but
    // `leaving` (may be empty) becomes a classic member with its target
    // assignment, in a Stable classic group at `generation`; `rebalance`
    // starts a rebalance. g is gone afterwards.
    void convert_to_classic(consumer_group& g, const std::string& leaving, int32_t generation, bool rebalance,
                            completions& out) REQUIRES(mu_);
    // A classic static member replaced the last consumer-protocol member
    // (join_consumer_group): the group is downgraded, the JoinGroup answered.
    void downgrade_for_replacing_member(consumer_group& g, const consumer_member& upd, int32_t generation,
                                        const join_args& args, join_callback& done, completions& out) REQUIRES(mu_);
    // classicGroup{Join,Sync,Heartbeat,Leave}ToConsumerGroup
    void join_consumer_group(consumer_group& g, join_args& args, join_callback& done, completions& out) REQUIRES(mu_);
    void sync_consumer_group(consumer_group& g, sync_args& args, sync_callback& done, completions& out) REQUIRES(mu_);
    error_code heartbeat_consumer_group(consumer_group& g, const heartbeat_args& args) REQUIRES(mu_);
    leave_result leave_consumer_group(consumer_group& g, const leave_args& args, completions& out) REQUIRES(mu_);
    void schedule_consumer_join_timeout_if_absent(const std::string& group_id, const std::string& member_id,
                                                  int32_t timeout_ms) REQUIRES(mu_);
    // Hand the group's row, with its membership (group_record.h), to finish().
    void persist_classic(const classic_group& g, completions& out) REQUIRES(mu_);
    void persist_consumer(consumer_group& g, completions& out) REQUIRES(mu_);
    // ConsumerGroup.validateOffsetCommit / validateOffsetFetch
    // `commit_topics`: a commit's partitions, checked against the member's
    // assignment epochs when its epoch is older (KIP-1251); null for a fetch.
    error_code validate_consumer_offsets(const consumer_group& g, const std::string& member_id, int32_t member_epoch,
                                         bool commit, int16_t api_version,
                                         const std::vector<commit_topic>* commit_topics = nullptr) const REQUIRES(mu_);

    // ---- offsets (offsets.cc) ----
    error_code validate_commit(const commit_args& args) REQUIRES(mu_);
    void forget_offsets(const std::string& group_id, const std::vector<meta::offset_key>& keys) REQUIRES(mu_);
    // One group's part of expire_offsets (admin.cc).
    bool expired_offsets_of(const std::string& id, int64_t now, int64_t retention,
                            std::vector<meta::offset_key>& expired, bool& delete_group) REQUIRES(mu_);

    group_config config_;
    const clock& clock_;
    scheduler& scheduler_;
    meta::offset_store& store_;

    // Lock order: txn_offsets_mu_, then one stripe, then mu_ (never two
    // stripes). Checked by clang's -Wthread-safety (base/mutex.h).
    ketch::mutex txn_offsets_mu_ ACQUIRED_BEFORE(mu_);
    ketch::mutex mu_;  // guards everything below that says GUARDED_BY(mu_)
    bool stopped_ GUARDED_BY(mu_) = false;
    std::map<std::string, std::unique_ptr<classic_group>> groups_ GUARDED_BY(mu_);
    // A group id is in groups_ or in consumer_groups_, never both.
    std::map<std::string, std::unique_ptr<consumer_group>> consumer_groups_ GUARDED_BY(mu_);
    // A group id is in at most one of groups_, consumer_groups_ and streams_groups_.
    std::map<std::string, std::unique_ptr<streams_group>> streams_groups_ GUARDED_BY(mu_);
    // Every group here is also in groups_, consumer_groups_ or streams_groups_.
    std::map<std::string, group_offsets> offsets_ GUARDED_BY(mu_);
    const topic_view* topics_ GUARDED_BY(mu_) = nullptr;
    std::map<std::string, consumer_group_overrides> consumer_overrides_ GUARDED_BY(mu_);  // groups with some override
    regex_cache regexes_ GUARDED_BY(mu_);
    std::unordered_map<std::string, timer_slot> timers_ GUARDED_BY(mu_);
    uint64_t next_timer_seq_ GUARDED_BY(mu_) = 0;
    std::unique_ptr<timer_handle> expiry_timer_ GUARDED_BY(mu_);
    meta::txn_store* txn_store_ GUARDED_BY(mu_) = nullptr;
    // producer id -> group -> offsets pending in its transaction (txn_offsets.cc)
    std::map<int64_t, std::map<std::string, group_offsets>> pending_txn_ GUARDED_BY(mu_);
    std::map<int64_t, uint64_t> txn_guards_ GUARDED_BY(mu_);  // producer id -> live verification guard
    uint64_t next_txn_guard_ GUARDED_BY(mu_) = 0;
    // txn_offsets_mu_ serialises TxnOffsetCommit's check-and-write with the
    // end of a transaction (complete_txn_offsets). The stripes serialise
    // the store writes of one group (commit, delete, expiry) so they reach
    // the store in the order they were validated.
    std::array<ketch::mutex, 32> stripes_;
};

}  // namespace ketch::group
