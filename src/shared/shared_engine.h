// The shared log as the partition service's storage (cluster mode,
// docs/design/cluster.md): partitions' batches live in immutable objects in
// S3-compatible storage, their offsets, the index and producers' sequences
// in PostgreSQL (cluster/catalogue.h). The second implementation of
// partition::storage_engine, beside partition::local_engine; app/ constructs
// it when --cluster and --object-store are given.
//
// Produce: append stages the validated batch in this broker's buffer and
// answers "pending"; a flusher thread starts a flush at most every flush
// interval (or when the buffer reaches flush_bytes): the buffer becomes one
// object, PUT on a thread of its own while the next interval fills the
// buffer; a committer thread commits the flushes one after another in
// staging order, each in one PostgreSQL transaction (offsets assigned
// there, so any broker may append to any partition), and completes each
// batch's wait_commit with its offsets or refusal. Fetch: the index in PostgreSQL, the batches' byte
// ranges through object_reader (a bounded memory cache, an optional disk cache, coalesced ranged GETs),
// base offsets and leader epochs rewritten. Wake-ups: this
// broker's commits, and other brokers' through LISTEN ketch_commit.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "cluster/catalogue.h"
#include "cluster/commit_listener.h"
#include "cluster/pg.h"
#include "cluster/pg_pool.h"
#include "objstore/s3_client.h"
#include "partition/storage.h"
#include "shared/disk_cache.h"
#include "shared/object_cache.h"
#include "shared/object_reader.h"

namespace ketch::shared {

struct engine_config {
    std::string pg_url;
    cluster::pg_pool* pool = nullptr;  // the broker's (outlives the engine): reads, producer ids
    objstore::s3_location where;
    objstore::credentials who;
    int32_t node_id = 0;
    std::chrono::milliseconds flush_interval{100};  // --cluster-flush-ms: flushes start at most this often
    size_t max_puts_in_flight = 4;                  // flushes PUT and not yet committed
    uint64_t flush_bytes = 1ull << 20;              // --cluster-flush-bytes: a flush this large goes at once
    uint64_t max_buffered_bytes = 64ull << 20;      // staged and not yet flushed: beyond, appends are refused
    uint64_t cache_bytes = 64ull << 20;             // recently written and read objects' pieces, in memory
    std::string cache_dir;                          // --cluster-cache-dir: the disk level ("" none)
    uint64_t cache_dir_bytes = 1ull << 30;          // --cluster-cache-dir-bytes: its bound
    read_policy reads;                              // ranged GETs, whole small objects
    // The topic's id (its uuid as text) for a topic name; nullopt if unknown.
    std::function<std::optional<std::string>(const std::string& topic)> topic_id_of;
    // Topics kept in `local` instead (the internal __consumer_offsets mirror,
    // whose groups are still per broker).
    std::function<bool(const std::string& topic)> is_local;
    partition::storage_engine* local = nullptr;
};

class shared_storage;

class shared_engine final : public partition::storage_engine {
public:
    // Connects to PostgreSQL (and migrates the schema) and starts the flusher
    // and the commit listener. Why not, as text.
    static result<std::unique_ptr<shared_engine>, std::string> open(engine_config cfg);
    ~shared_engine() override;  // flushes what is staged, then stops

    std::shared_ptr<partition::storage> get(const partition::topic_partition& tp) override;
    log::log_result<std::shared_ptr<partition::storage>> get_or_create(const partition::topic_partition& tp,
                                                                       const log::log_config& config) override;
    // The local partitions as the local engine reads them; the shared ones
    // are opened (their data is in the catalogue, not known here yet).
    log::log_result<std::shared_ptr<partition::storage>> get_for_read(const partition::topic_partition& tp,
                                                                      const log::log_config& config) override;
    log::log_status remove(const partition::topic_partition& tp) override;
    std::vector<partition::topic_partition> partitions() const override;

    // A partition got new committed batches (this broker's or another's):
    // wake its fetches. Set once the partition service exists.
    void set_on_commit(std::function<void(const std::string& topic, int32_t partition)> fn);
    // Another broker (or this one) changed the topics (pg_topic_store's NOTIFY).
    void set_on_topics(std::function<void()> fn);
    // Another broker (or this one) changed what a NOTIFY ketch_commit `payload`
    // names ("acls": shared/pg_acl_store.h, "credentials": pg_credential_store.h);
    // also called, as on_topics, when the listener LISTENs again after a lost
    // connection (what was sent meanwhile is lost). Waits for a call in
    // progress: once set to null, the old callback is not running.
    void set_on_notice(const std::string& payload, std::function<void()> fn);
    // The same for every payload starting with `prefix` (given the payload,
    // without the prefix); not called when the listener LISTENs again.
    void set_on_notice_prefix(const std::string& prefix, std::function<void(const std::string& rest)> fn);
    // True once the commit listener LISTENs (what is committed later is heard).
    bool listening(std::chrono::milliseconds timeout) { return listener_->wait_listening(timeout); }
    // A transaction's coordinator ended it (pg_txn_store::complete_offsets's NOTIFY).
    void set_on_txn_end(std::function<void(int64_t producer_id, bool commit)> fn);
    // The first id of a fresh block of `size` producer ids, unique across
    // brokers (InitProducerId); throws std::runtime_error when PostgreSQL
    // cannot be reached.
    int64_t reserve_producer_ids(int64_t size);

    // For shared_storage. 0 when the buffer is full (a flush is slow): the
    // produce is answered a retriable error instead of growing memory.
    // `marker`: an end-transaction control batch (0 abort, 1 commit), -1 none.
    uint64_t stage(const std::shared_ptr<shared_storage>& s, byte_view batch, int8_t marker = -1);
    void wait_commit(uint64_t ticket, std::function<void(log::log_result<log::append_result>)> done);
    cluster::pg_pool& pool() { return pool_; }
    object_cache& cache() { return cache_; }
    object_reader& reader() { return reader_; }
    objstore::s3_client s3() const { return s3_; }  // a copy shares the TLS context

private:
    shared_engine(engine_config cfg, std::unique_ptr<disk_cache> disk);
    struct staged {
        std::shared_ptr<shared_storage> store;
        bytes batch;
        uint64_t ticket = 0;
        int8_t marker = -1;
    };
    struct ticket_state {
        std::optional<log::log_result<log::append_result>> result;
        std::function<void(log::log_result<log::append_result>)> done;
    };
    // A flush between its start and its commit (shared/flush_pipeline.cc):
    // the object is being PUT (on a thread of its own) or waits for the
    // commits before it.
    struct in_flight {
        std::vector<staged> items;
        std::string key;
        std::shared_ptr<const std::string> body;
        std::vector<cluster::staged_batch> batches;
        uint64_t bytes = 0;                                  // what the items hold (the buffer's bound)
        std::future<std::optional<std::string>> put;         // stored, or why not
        std::string failed;                                  // the object could not be built
        std::chrono::steady_clock::time_point first_staged;  // when its first batch was staged
        std::chrono::steady_clock::time_point started;
        std::shared_ptr<std::chrono::steady_clock::time_point> put_done;  // set by the PUT's thread
    };
    // The committer's connection: its own, named ketch-<node>-commit.
    std::string commit_url() const;
    void run_flusher();
    void run_committer();
    in_flight start_put(std::vector<staged> items, uint64_t bytes);
    void commit_flushed(in_flight& f);
    void answer(const std::vector<staged>& items, const std::vector<cluster::batch_outcome>& outcomes);
    void complete(uint64_t ticket, log::log_result<log::append_result> r);
    void on_foreign_commit(const std::string& object_key);
    // Every open partition's offsets read again (after a gap in the notifications).
    void refresh_open();
    // A NOTIFY of set_on_notice's or set_on_topics' (or k_listening_again): true when handled.
    bool on_notice(const std::string& payload);
    void on_log_start(const std::string& payload);
    void woke(const std::string& topic, int32_t partition);
    bool local(const partition::topic_partition& tp) const {
        return cfg_.local && cfg_.is_local && cfg_.is_local(tp.topic);
    }

    const engine_config cfg_;
    const std::string incarnation_;  // object keys: data/<node>-<incarnation>-<sequence>
    cluster::pg_pool& pool_;
    objstore::s3_client s3_;
    object_cache cache_;
    std::unique_ptr<disk_cache> disk_;  // null unless cache_dir
    object_reader reader_;
    std::unique_ptr<cluster::pg_connection> commit_conn_;  // the committer's own (not the pool's)

    mutable std::mutex parts_mu_;
    std::map<partition::topic_partition, std::shared_ptr<shared_storage>, std::less<>> parts_;  // parts_mu_
    std::function<void(const std::string&, int32_t)> on_commit_;                                // parts_mu_
    std::function<void()> on_topics_;                                                           // parts_mu_
    std::function<void(int64_t, bool)> on_txn_end_;                                             // parts_mu_
    std::mutex notice_mu_;                                    // held while a notice's callback runs
    std::map<std::string, std::function<void()>> on_notice_;  // notice_mu_
    std::map<std::string, std::function<void(const std::string&)>> on_notice_prefix_;  // notice_mu_

    std::mutex mu_;  // the buffer
    std::condition_variable cv_;
    std::vector<staged> buffer_;
    uint64_t buffered_bytes_ = 0;                         // in buffer_
    std::chrono::steady_clock::time_point first_staged_;  // when buffer_'s first batch was staged
    uint64_t in_flight_bytes_ = 0;                        // in puts_ (both count against max_buffered_bytes)
    std::chrono::steady_clock::time_point last_flush_;    // when the last flush started
    std::deque<in_flight> puts_;  // started flushes, in staging order; the committer takes the front
    uint64_t next_ticket_ = 1;
    uint64_t next_object_ = 0;
    bool stop_ = false;
    bool flusher_done_ = false;

    std::mutex tickets_mu_;
    std::map<uint64_t, ticket_state> tickets_;

    std::thread flusher_;
    std::thread committer_;
    std::unique_ptr<cluster::commit_listener> listener_;
};

// One partition of the shared log.
class shared_storage final : public partition::storage, public std::enable_shared_from_this<shared_storage> {
public:
    shared_storage(shared_engine& e, std::string topic, int32_t partition, std::string topic_id,
                   cluster::partition_offsets offsets, log::log_config config)
        : engine_(e),
          topic_(std::move(topic)),
          partition_(partition),
          key_{std::move(topic_id), partition},
          log_start_(offsets.log_start_offset),
          hwm_(offsets.high_watermark),
          lso_(offsets.last_stable_offset()),
          config_(std::move(config)) {}

    const std::string& topic() const { return topic_; }
    int32_t partition() const { return partition_; }
    const cluster::partition_key& key() const { return key_; }
    // What the catalogue said last (a commit, a read, a wake-up): only moves
    // forward. `first_unstable`: the oldest open transaction's first offset
    // (-1 none), when known: the LSO is min(it, hwm).
    void observe(int64_t log_start, int64_t hwm, std::optional<int64_t> first_unstable = std::nullopt);
    const log::log_config& config() const { return config_; }

    log::log_result<log::append_result> append(byte_view batch, const log::append_options& opts) override;
    log::log_result<log::append_result> append_txn_marker(int64_t, int16_t, bool, int32_t, int64_t) override;
    void wait_durable(int64_t, std::function<void(log::log_status)> done) override { done(ok_v); }
    void wait_commit(uint64_t pending, std::function<void(log::log_result<log::append_result>)> done) override {
        engine_.wait_commit(pending, std::move(done));
    }
    log::log_result<log::read_result> read(int64_t offset, uint64_t max_bytes, const log::read_options& opts) override;
    log::log_status refresh_offsets() override;
    int64_t log_start_offset() const override { return log_start_.load(); }
    int64_t local_log_start_offset() const override { return log_start_.load(); }
    int64_t log_end_offset() const override { return hwm_.load(); }
    int64_t high_watermark() const override { return hwm_.load(); }
    int64_t last_stable_offset() const override { return std::min(lso_.load(), hwm_.load()); }
    uint64_t size_bytes() const override { return 0; }
    log::log_result<std::optional<log::timestamp_offset>> offset_for_timestamp(int64_t ts) override;
    log::log_result<std::optional<log::timestamp_offset>> max_timestamp() override;
    log::log_result<int64_t> delete_records_before(int64_t offset) override;
    log::log_result<log::retention_result> apply_retention(int64_t, int64_t, int64_t) override {
        return log::retention_result{0, 0, log_start_.load()};
    }
    log::log_result<log::clean_result> clean(const log::compaction_config&, int64_t) override {
        return log::clean_result{};
    }
    // DescribeProducers: each producer's last batch as PostgreSQL holds it
    // (ketch_producer_batches, written in the commit transaction), so every
    // broker answers the same; empty when PostgreSQL does not answer.
    std::vector<log::producer_entry> producers() const override;
    bool has_ongoing_txn(int64_t, int16_t) const override { return false; }
    size_t expire_producers(int64_t, int64_t) override { return 0; }
    void set_config(const log::log_config& c) override {
        std::lock_guard l(mu_);
        config_ = c;
    }

private:
    log::log_result<log::append_result> staged(uint64_t ticket) const;
    // The partition's offsets as PostgreSQL holds them now, observed (this broker's view catches up).
    log::log_result<cluster::partition_offsets> read_and_observe(cluster::pg_connection& c);
    // The index rows of the batches from `offset`: at most max_bytes (the
    // first always when min_one_batch, else none if it is larger), none at or
    // past `limit`.
    log::log_result<std::vector<cluster::indexed_batch>> find_range(cluster::pg_connection& c, int64_t offset,
                                                                    uint64_t max_bytes, int64_t limit,
                                                                    bool min_one_batch);
    // Those batches' bytes with real offsets (through the cache: GETs on a
    // miss), read with no connection of the pool held.
    log::log_result<bytes> read_range(const std::vector<cluster::indexed_batch>& found);
    // The first batch whose max timestamp passes `pick` (SQL), decoded record by record.
    log::log_result<std::optional<log::timestamp_offset>> find_timestamp(const std::string& sql, int64_t ts,
                                                                         bool want_max);

    shared_engine& engine_;
    const std::string topic_;
    const int32_t partition_;
    const cluster::partition_key key_;
    std::atomic<int64_t> log_start_;
    std::atomic<int64_t> hwm_;
    std::atomic<int64_t> lso_;  // as last known; only moves forward (an open transaction starts at the hwm)
    std::mutex mu_;
    log::log_config config_;  // mu_ (kept; the shared log has no segments to roll)
};

}  // namespace ketch::shared
