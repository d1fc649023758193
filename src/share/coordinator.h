// The share coordinator (KIP-932): share groups' membership and assignment
// (Kafka's GroupMetadataManager.shareGroupHeartbeat), their share sessions
// (ShareSessionCache) and the delivery state of their share-partitions
// (SharePartitionManager, SharePartition), kept in shares.db
// (meta/share_store.h). Takes and returns domain types: the handlers
// (broker/handlers/76_…79_) decode and encode; the records themselves are
// read by the handler through the partition service.
//
// Threads: every method may be called from any thread; one mutex guards all
// state (base/mutex.h annotations). Store writes happen under it, so the
// order of writes is the order of changes.
#pragma once

#include <atomic>
#include <climits>
#include <compare>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "base/error_code.h"
#include "base/mutex.h"
#include "meta/share_store.h"
#include "meta/topic.h"
#include "share/partition_state.h"
#include "share/settings.h"
#include "share/share_group.h"

namespace ketch::share {

struct topic_partition {
    uuid topic_id;
    int32_t partition = 0;
    auto operator<=>(const topic_partition&) const = default;
};

struct heartbeat_request {
    std::string group_id;
    std::string member_id;
    int32_t member_epoch = 0;
    std::optional<std::string> rack_id;
    std::optional<std::vector<std::string>> subscribed_topic_names;
    std::string client_id;
    std::string client_host;
};

struct heartbeat_answer {
    error_code error = error_code::none;
    std::string error_message;
    std::string member_id;
    int32_t member_epoch = 0;
    int32_t heartbeat_interval_ms = 0;
    std::optional<assignment> assigned;  // sent when the member's assignment changed
};

struct described_group {
    error_code error = error_code::none;
    std::string error_message;
    std::string group_id;
    std::string state;
    int32_t group_epoch = 0;
    int32_t assignment_epoch = 0;
    std::vector<share_member> members;
};

// A share session after a ShareFetch's epoch is checked.
struct session_answer {
    error_code error = error_code::none;
    std::vector<topic_partition> partitions;  // the session's, to fetch
    int64_t lock_duration_ms = 0;
    bool final = false;  // epoch -1: the session is gone once acknowledgements are done
};

// A share-partition's progress (DescribeShareGroupOffsets).
struct partition_progress {
    topic_partition tp;
    int64_t start_offset = -1;
    int64_t done_in_flight = 0;  // ACKNOWLEDGED or ARCHIVED records after the SPSO
};

// How the group reads its share-partitions (share.isolation.level,
// share.auto.offset.reset's by_duration).
struct read_settings {
    bool read_committed = false;
    std::optional<int64_t> reset_by_duration_ms;  // by_duration:<d>: start at the first record newer than now - d
};

class coordinator {
public:
    using topics_fn = std::function<std::vector<topic_info>()>;
    using configs_fn = std::function<meta::config_map(const std::string& group)>;
    using clock_fn = std::function<int64_t()>;  // ms

    coordinator(settings s, meta::share_store* store, topics_fn topics, configs_fn configs, clock_fn clock);
    // Loads the share-partitions the store kept. Fails with the store's error.
    std::optional<std::string> load();

    // --- membership (share_heartbeat.cc) ---------------------------------------
    heartbeat_answer heartbeat(const heartbeat_request& req) EXCLUDES(mu_);
    std::vector<described_group> describe(const std::vector<std::string>& ids) EXCLUDES(mu_);
    // Every share group: id and state (ListGroups).
    std::vector<std::pair<std::string, std::string>> list() EXCLUDES(mu_);
    bool is_share_group(const std::string& id) EXCLUDES(mu_);

    // --- delivery (share_delivery.cc) -------------------------------------------
    // ShareFetch's session step (SharePartitionManager.newContext).
    // `connection` is the request's connection: the session ends with it.
    session_answer fetch_session(const std::string& group, const std::string& member, int32_t epoch,
                                 const std::vector<topic_partition>& add, const std::vector<topic_partition>& forget,
                                 bool has_acks, uint64_t connection = 0) EXCLUDES(mu_);
    // ShareAcknowledge's session step: epoch 0 is refused, -1 ends the session.
    session_answer ack_session(const std::string& group, const std::string& member, int32_t epoch) EXCLUDES(mu_);
    // Ends a session (after a final request's acknowledgements): releases
    // what the member holds.
    void close_session(const std::string& group, const std::string& member) EXCLUDES(mu_);
    // A client connection closed: the share sessions it held end and their
    // members' records are released (ShareSessionCache's connection listener).
    void connection_closed(uint64_t connection) EXCLUDES(mu_);

    // `why`, when given, receives the error's message where Kafka sends one.
    // The new state is on disk when it returns.
    error_code acknowledge(const std::string& group, const std::string& member, const topic_partition& tp,
                           const std::vector<ack_batch>& batches, std::string* why = nullptr) EXCLUDES(mu_);
    // acknowledge without the write: the state changes at once (what is
    // released can be acquired again), and the caller calls sync() before it
    // answers, so that a ShareFetch's read overlaps its acknowledgements' fsync.
    error_code acknowledge_unsynced(const std::string& group, const std::string& member, const topic_partition& tp,
                                    const std::vector<ack_batch>& batches, std::string* why = nullptr) EXCLUDES(mu_);
    // Writes every change made so far (a turn of the group commit; at once
    // when a previous turn wrote them). Blocks on the disk.
    void sync() EXCLUDES(mu_, store_mu_) { sync_dirty(); }
    read_settings reading(const std::string& group) const;
    // Where to read the partition from next, creating its state at
    // `earliest` / `latest` / by_time() per share.auto.offset.reset (by_time
    // is asked only then); -1: nothing to acquire.
    int64_t fetch_offset(const std::string& group, const topic_partition& tp, int64_t earliest, int64_t latest,
                         const std::function<int64_t()>& by_time = {}) EXCLUDES(mu_) {
        return fetch_range(group, tp, earliest, latest, INT32_MAX, by_time).first;
    }
    // fetch_offset, and the last offset a read from there needs to acquire at
    // most max_records (partition_state::last_to_read); first -1: nothing.
    struct read_range {
        int64_t first = -1;
        int64_t last = -1;
    };
    read_range fetch_range(const std::string& group, const topic_partition& tp, int64_t earliest, int64_t latest,
                           int32_t max_records, const std::function<int64_t()>& by_time = {}) EXCLUDES(mu_);
    // Hands `member` the records of first..last it may have; the records of
    // `aborted` batches (read_committed: batches of aborted transactions)
    // that it acquired are archived instead of delivered, as
    // SharePartition.filterAbortedTransactionalAcquiredRecords does.
    // `batch_ends`: batch_optimized (partition_state::acquire).
    std::vector<acquired_range> acquire(const std::string& group, const std::string& member, const topic_partition& tp,
                                        int64_t first, int64_t last, int32_t max_records,
                                        const std::vector<offset_range>& aborted = {},
                                        std::span<const int64_t> batch_ends = {}) EXCLUDES(mu_);
    // The SPSO of a share-partition, if it has state (DescribeShareGroupOffsets).
    std::optional<int64_t> start_offset(const std::string& group, const topic_partition& tp) EXCLUDES(mu_);

    // --- offsets admin (share_offsets.cc) --------------------------------------
    // Every share-partition of the group with state; nullopt: no such share group.
    std::optional<std::vector<partition_progress>> progress(const std::string& group) EXCLUDES(mu_);
    // AlterShareGroupOffsets: sets the SPSO (dropping what is in flight);
    // NON_EMPTY_GROUP while the group has members.
    error_code alter_offsets(const std::string& group, const std::vector<std::pair<topic_partition, int64_t>>& to)
        EXCLUDES(mu_);
    // DeleteShareGroupOffsets: forgets the topic's share-partitions (they
    // start again at share.auto.offset.reset); NON_EMPTY_GROUP while the
    // group has members.
    error_code delete_offsets(const std::string& group, const uuid& topic_id) EXCLUDES(mu_);
    // DeleteGroups of a share group: forgets it and its share-partitions'
    // state; NON_EMPTY_GROUP while it has members, GROUP_ID_NOT_FOUND when
    // there is no such share group (ShareGroup.validateDeleteGroup).
    error_code delete_group(const std::string& group) EXCLUDES(mu_);

    // Timers: members past their session, records past their lock; the
    // share-partition initializations asked since the last tick complete.
    void tick() EXCLUDES(mu_);

    // --- cluster mode: share-partition leases (share_leases.cc) ----------------
    // With a leased store (meta::share_store::leased; docs/design/cluster.md
    // "share groups") a partition's share-partitions are served only by its
    // leader (Metadata's) while it holds the partition's lease.
    // `leads` (set before serving) says whether this broker leads a partition.
    using leads_fn = std::function<bool(const topic_partition&)>;
    void set_leader_check(leads_fn leads) { leads_ = std::move(leads); }
    // Whether this broker serves tp's share-partitions now: always with an
    // unleased store; else when it leads tp and holds its lease, taking it
    // (every group's state of tp read) if it did not. Not led here: what it
    // held of tp is dropped, false.
    bool hold(const topic_partition& tp) EXCLUDES(mu_, store_mu_);
    // The hold tp's state is under (0: none; always 0 unleased). It changes
    // when the state is lost (a write refused or failed) or taken again: a
    // change made under one value is durable if, after its write, the value
    // is still the same.
    uint64_t hold_of(const topic_partition& tp) EXCLUDES(mu_);
    // Another broker's offsets administration took leases this broker held
    // (NOTIFY share-leases): their state here is dropped, read again at the
    // next request.
    void drop_moved() EXCLUDES(mu_);

private:
    struct session {
        int32_t epoch = 1;
        uint64_t connection = 0;
        std::set<topic_partition> partitions;
    };
    using part_key = std::tuple<std::string, uuid, int32_t>;

    partition_limits limits(const std::string& group) REQUIRES(mu_);
    int32_t config_int(const meta::config_map& c, const char* key, int32_t dflt) const;
    // --- share_target.cc ---
    bool metadata_changed(share_group& g, const std::vector<topic_info>& topics) const;
    void maybe_update_target(share_group& g, const std::vector<topic_info>& topics, int64_t now) REQUIRES(mu_);
    void reconcile(share_group& g, share_member& m, bool subscription_changed) REQUIRES(mu_);
    bool initialized_assignment_pending(const share_group& g) REQUIRES(mu_);
    void start_initialization(share_group& g, const std::vector<topic_info>& topics, int64_t now) const;
    void complete_initializations() REQUIRES(mu_);
    void seed_initialized(share_group& g) REQUIRES(mu_);
    void remove_member(share_group& g, const std::string& member) REQUIRES(mu_);
    void release_member(const std::string& group, const std::string& member) REQUIRES(mu_);
    // Group commit of the share-partitions' rows: persist() only marks the
    // partition dirty; an entry point that changed something declares a
    // durable_on_return before its lock_guard, and once the lock is released
    // sync_dirty() writes every dirty row in one store transaction (one fsync
    // shared by concurrent acknowledgements; fetches are not held behind it).
    // Writers take turns on store_mu_ and each snapshots, under mu_, what is
    // dirty when its turn comes: rows reach the disk in the order of the
    // changes, and every change is on disk before its entry point returns.
    void persist(const std::string& group, const uuid& topic, int32_t partition, const partition_state& p)
        REQUIRES(mu_);
    void sync_dirty() EXCLUDES(mu_, store_mu_);
    class durable_on_return {
    public:
        explicit durable_on_return(coordinator& c) : c_(c), start_(c.change_seq_.load()) {}
        ~durable_on_return() {
            if (c_.change_seq_.load() != start_) c_.sync_dirty();
        }
        durable_on_return(const durable_on_return&) = delete;
        durable_on_return& operator=(const durable_on_return&) = delete;

    private:
        coordinator& c_;
        uint64_t start_;
    };
    heartbeat_answer join_or_update(share_group& g, const heartbeat_request& req, int64_t now) REQUIRES(mu_);
    // --- share_leases.cc ---
    void restore_row(const meta::stored_share_partition& r) REQUIRES(mu_);
    bool held(const topic_partition& tp) const REQUIRES(mu_);      // always true unleased
    void drop_partition(const topic_partition& tp) REQUIRES(mu_);  // every group's state of tp
    void drop_unwritten(std::span<const meta::stored_share_partition> rows) EXCLUDES(mu_);
    // --- share_offsets_leased.cc: the offsets administration in PostgreSQL ---
    std::optional<std::vector<partition_progress>> stored_progress(const std::string& group) REQUIRES(mu_);
    // Sets (offset) or removes (nullopt) the group's share-partitions' rows, each under a take of its lease.
    error_code replace_stored(const std::string& group,
                              const std::vector<std::pair<topic_partition, std::optional<int64_t>>>& rows)
        REQUIRES(mu_);
    std::vector<topic_partition> stored_partitions(const std::string& group, const uuid* topic) REQUIRES(mu_);

    const settings settings_;
    meta::share_store* store_;
    topics_fn topics_;
    configs_fn configs_;
    clock_fn clock_;

    mutex store_mu_;  // one store writer at a time (sync_dirty, removals); taken before mu_
    uint64_t durable_seq_ GUARDED_BY(store_mu_) = 0;  // every change up to it is written
    mutex mu_ ACQUIRED_AFTER(store_mu_);
    std::atomic<uint64_t> change_seq_{0};  // bumped under mu_ by persist()
    std::set<part_key> dirty_ GUARDED_BY(mu_);
    std::map<std::string, share_group> groups_ GUARDED_BY(mu_);
    // Each group's target assignment by member.
    std::map<std::string, std::map<std::string, assignment>> targets_ GUARDED_BY(mu_);
    std::map<part_key, partition_state> partitions_ GUARDED_BY(mu_);
    std::map<std::pair<std::string, std::string>, session> sessions_ GUARDED_BY(mu_);
    // Cluster mode: the partitions held, each with its hold (hold_of).
    const bool leased_;
    leads_fn leads_;
    std::map<std::pair<uuid, int32_t>, uint64_t> held_ GUARDED_BY(mu_);
    uint64_t holds_ GUARDED_BY(mu_) = 0;
};

}  // namespace ketch::share
