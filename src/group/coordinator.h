// The group coordinator: classic-protocol groups (JoinGroup, SyncGroup,
// Heartbeat, LeaveGroup), committed offsets (OffsetCommit, OffsetFetch,
// OffsetDelete) and group administration (ListGroups, DescribeGroups,
// DeleteGroups, offsets.retention expiry). Behaviour follows Apache Kafka
// 4.3.1's group coordinator (GroupMetadataManager, OffsetMetadataManager,
// GroupCoordinatorService); differences are marked "ketch difference".
//
// Threads: every method may be called from any thread. The coordinator is a
// router from group id to the group's slot (group_slot.h), which has its own
// lock: requests for different groups do not wait for each other. Callbacks
// are never called while a lock is held. JoinGroup, SyncGroup
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
// Classic groups, KIP-848 consumer groups (consumer_group.h) and KIP-1071
// streams groups (streams_group.h) live side by side; a group id names one
// of them, kept in the id's slot.
#pragma once

#include <array>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <unordered_map>

#include "base/mutex.h"
#include "base/result.h"
#include "group/api.h"
#include "group/classic_group.h"
#include "group/consumer_api.h"
#include "group/consumer_group.h"
#include "group/consumer_util.h"
#include "group/group_config.h"
#include "group/group_slot.h"
#include "group/ownership.h"
#include "group/streams_api.h"
#include "group/streams_group.h"
#include "group/time_source.h"
#include "group/txn_api.h"
#include "meta/offset_store.h"
#include "meta/txn_store.h"

namespace ketch::group {

// A slot held for use: while one is out, the router keeps the slot in its
// table (release() on destruction). Holding one takes no lock; lock the
// slot's mu_ for its state, and let go of that lock first.
class slot_ref {
public:
    slot_ref() = default;
    slot_ref(group_coordinator* router, std::shared_ptr<group_slot> slot) : router_(router), slot_(std::move(slot)) {}
    slot_ref(slot_ref&& o) noexcept : router_(o.router_), slot_(std::move(o.slot_)) {}
    slot_ref& operator=(slot_ref&&) = delete;
    ~slot_ref();
    explicit operator bool() const { return slot_ != nullptr; }
    group_slot& operator*() const { return *slot_; }

private:
    group_coordinator* router_ = nullptr;
    std::shared_ptr<group_slot> slot_;
};

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
    void set_group_overrides(const std::string& group_id, const group_overrides& overrides) EXCLUDES(mu_);

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
    // Cluster mode (txn_end.cc): the producer's transaction was completed in
    // the shared store (its pending rows applied or dropped and deleted) and
    // NOTIFY told every broker, perhaps after the producer's next
    // TxnOffsetCommit reached this one. The store is the truth: what is held
    // here and still pending there is a later transaction's and stays (its
    // guard too); the rest was completed: on commit the groups' committed
    // offsets of those partitions are read back from the store, then the
    // completed ones are dropped. Writes nothing. false: a read failed,
    // nothing changed.
    struct txn_end_reads {
        // The producer's rows still pending in the store (group, topic, partition).
        std::function<std::optional<std::vector<meta::stored_offset>>(int64_t)> pending;
        // A group's committed offsets in the store.
        std::function<std::optional<std::vector<meta::stored_offset>>(const std::string&)> committed;
    };
    bool txn_offsets_completed(int64_t producer_id, bool commit, const txn_end_reads& reads) EXCLUDES(mu_);
    // Cluster mode: the group's transactional offsets pending in the shared
    // store, read when the group was taken over, replace what this
    // coordinator held pending for the group (its previous holder had them).
    // Returns the producers they belong to: a transaction of one of them may
    // have ended between the read and now (settle them: txn_offsets_completed).
    std::vector<int64_t> adopt_pending_txn_offsets(const std::string& group_id,
                                                   const std::vector<meta::pending_txn_offset>& pending) EXCLUDES(mu_);
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
    // Who serves which group (null: every group, a single node). Set before
    // serving requests; must outlive the coordinator.
    void set_ownership(group_ownership* o) { ownership_ = o; }
    // Takes the group over: with no write of the group in flight (its order
    // lock held), `take` takes the group's lease and reads its rows and
    // offsets; then the group is dropped and restored from them, as
    // reload_groups does. false (nothing changed) if `take` failed.
    using group_taker = std::function<bool(std::vector<meta::stored_group>&, std::vector<meta::stored_offset>&)>;
    bool acquire_group(const std::string& group_id, const group_taker& take) EXCLUDES(mu_);

    // The state of a group, if it exists (for tests and the console).
    std::optional<group_state> state_of(const std::string& group_id) EXCLUDES(mu_);
    std::optional<int32_t> generation_of(const std::string& group_id) EXCLUDES(mu_);
    // How many group ids have a slot (a group, offsets, overrides or a timer).
    size_t slot_count() EXCLUDES(mu_);
    // Cluster mode: whether this broker coordinates the group id now (its
    // lease held or taken; share groups use it too: group ids are one
    // namespace). Always true on a single node.
    bool coordinates(const std::string& group_id) { return serves(group_id); }
    // Cluster mode: whether a request for the group must confirm_ownership()
    // before it is served (group_ownership::unconfirmed; no I/O). The broker
    // then confirms off the reactor: the confirm reads PostgreSQL.
    bool ownership_unconfirmed(const std::string& group_id) {
        auto* o = ownership_.load();
        return o && o->unconfirmed(group_id);
    }
    // Cluster mode: whether coordinates() would take the group over first
    // (group_ownership::takes_over; no I/O): the broker then asks it off the
    // reactor, the take reading PostgreSQL.
    bool takes_over(const std::string& group_id) {
        auto* o = ownership_.load();
        return o && o->takes_over(group_id);
    }
    // NONE if the group served is still this broker's where ownership is kept
    // (group_ownership::confirm); else NOT_COORDINATOR or COORDINATOR_NOT_AVAILABLE.
    error_code confirm_ownership(const std::string& group_id);

private:
    friend class slot_ref;
    // f(the classic group `group_id`), if it exists.
    template <class T>
    std::optional<T> peek_classic(const std::string& group_id, T (*f)(const classic_group&)) EXCLUDES(mu_);
    friend class group_slot;  // its timers fire through on_timer

    group_coordinator(group_config config, const clock& clk, scheduler& sched, meta::offset_store& store);
    status<meta::store_error> load() EXCLUDES(mu_);

    // ---- the router (coordinator.cc) ----
    // The slot of `group_id`, held for use (not locked): created if absent
    // and `create`; empty if absent and not `create`.
    slot_ref use_slot(const std::string& group_id, bool create) EXCLUDES(mu_);
    // Every slot, held for use; a walk locks them one at a time.
    // The slots of the groups whose id starts with `prefix` (all: empty), in id order.
    std::vector<slot_ref> all_slots(std::string_view prefix = {}) EXCLUDES(mu_);
    // The end of a use: an idle slot no one uses leaves the router.
    void release(const std::shared_ptr<group_slot>& slot) EXCLUDES(mu_);
    // A timer of `group_id`'s slot fired (group_slot::schedule_timer).
    void on_timer(const std::string& group_id, const std::string& key, uint64_t seq) EXCLUDES(mu_);
    void schedule_expiry() REQUIRES(mu_);
    // Runs the callbacks, then writes the group rows (best effort).
    void finish(completions& out);
    // DescribeGroups, ConsumerGroupDescribe, StreamsGroupDescribe: a
    // `Described` for each id, its error `refusal(id)` where that is not NONE,
    // else filled by `describe(slot, described)` (which locks the slot).
    template <class Described, class Refusal, class Describe>
    std::vector<Described> describe_each(const std::vector<std::string>& group_ids, Refusal refusal,
                                         Describe describe) {
        std::vector<Described> out;
        for (const auto& id : group_ids) {
            auto& d = out.emplace_back();
            d.group_id = id;
            if (auto e = refusal(id); e != error_code::none) {
                d.error = e;
                continue;
            }
            auto ref = use_slot(id, true);
            describe(*ref, d);
        }
        return out;
    }
    // A KIP-848 or KIP-1071 heartbeat once its request checks passed:
    // NOT_COORDINATOR for another broker's group, COORDINATOR_NOT_AVAILABLE
    // once stopped, else `run` (group_slot::consumer_heartbeat_locked or
    // streams_heartbeat_locked) under the group's slot lock, its completions
    // after the lock is released.
    template <class Result, class Args>
    Result heartbeat_on_slot(const Args& args, Result (group_slot::*run)(const Args&, completions&)) {
        auto refused = [](error_code e) { return Result{.error = e, .error_message = std::string()}; };
        if (!serves(args.group_id)) return refused(error_code::not_coordinator);
        completions out;
        Result r;
        {
            auto ref = use_slot(args.group_id, true);
            group_slot& s = *ref;
            ketch::lock_guard lock(s.mu_);
            if (env_.stopped) return refused(error_code::coordinator_not_available);
            r = (s.*run)(args, out);
        }
        finish(out);
        return r;
    }
    void expire_group(group_slot& s, int64_t retention) EXCLUDES(mu_);
    void delete_one(const std::string& id, delete_group_result& r) EXCLUDES(mu_);

    // Whether this broker serves the group (always, without an ownership).
    bool serves(const std::string& group_id) {
        auto* o = ownership_.load();
        return !o || o->serves(group_id);
    }
    // Why DescribeGroups / ConsumerGroupDescribe cannot describe `id` here
    // (NONE: it can): a stopped coordinator, an invalid id (an empty one too
    // where `empty_invalid`), another broker's group.
    error_code describe_refusal(const std::string& id, bool empty_invalid);

    group_env env_;
    meta::offset_store& store_;
    std::atomic<group_ownership*> ownership_{nullptr};

    // Lock order: one producer's txn stripe, then mu_ (the router, held
    // only to find a slot), then one slot's order_mu_, then its mu_ (never
    // two slots); txn_mu_ is a leaf. A thread holding a slot's lock never takes mu_
    // (slot_ref's release takes mu_, then the slot's mu_).
    // Checked by clang's -Wthread-safety (base/mutex.h) where it can see
    // both locks; docs/design/group_coordinator.md.
    ketch::mutex mu_;  // the router: the slot table and the expiry timer
    struct slot_entry {
        std::shared_ptr<group_slot> slot;
        int users = 0;  // slot_refs out; the slot leaves only when idle and 0
    };
    std::map<std::string, slot_entry> slots_ GUARDED_BY(mu_);
    std::unique_ptr<timer_handle> expiry_timer_ GUARDED_BY(mu_);

    // Transactional offsets (txn_offsets.cc), per producer across groups.
    // A producer's stripe (by hash of its id) serialises its TxnOffsetCommit's
    // check-and-write with the end of its transaction (complete_txn_offsets);
    // other producers' commits, to any group, do not wait for it.
    std::array<ketch::mutex, 32> txn_stripes_;
    ketch::mutex& txn_stripe(int64_t producer_id) {
        return txn_stripes_[std::hash<int64_t>{}(producer_id) % txn_stripes_.size()];
    }
    // txn_offsets_completed's commit: the store's committed offsets of the
    // partitions `held` names, into the groups this broker serves.
    bool refresh_committed(const std::map<std::string, group_offsets>& held, const txn_end_reads& reads) EXCLUDES(mu_);
    ketch::mutex txn_mu_;
    meta::txn_store* txn_store_ GUARDED_BY(txn_mu_) = nullptr;
    // producer id -> group -> offsets pending in its transaction
    std::map<int64_t, std::map<std::string, group_offsets>> pending_txn_ GUARDED_BY(txn_mu_);
    std::map<int64_t, uint64_t> txn_guards_ GUARDED_BY(txn_mu_);  // producer id -> live verification guard
    uint64_t next_txn_guard_ GUARDED_BY(txn_mu_) = 0;
};

}  // namespace ketch::group
