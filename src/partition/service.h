// The partition service (Kafka's ReplicaManager in spirit): everything the
// broker's handlers do with a partition's data goes through here. It owns
//   - opening partitions (created on first use, with the topic's settings),
//   - the mapping of topic configs to storage settings (partition/settings.h),
//   - produce validation (limits, LogAppendTime, recompression),
//   - the mapping of storage errors to Kafka codes (partition/errors.h),
//   - waiting for durability (acks=all, transaction markers),
//   - waking parked fetches (partition/waiters.h),
//   - retention, producer expiry and compaction passes (partition/tasks.h).
// It takes domain types (no generated messages, no sockets): the handlers
// translate requests into calls and results into responses.
//
// Thread-safe: called from every reactor, the blocking pool (markers) and the
// background tasks. It holds no lock of its own around storage calls; the
// storage engine and the waiters lock internally (docs/design/partition_service.md).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/bytes.h"
#include "base/error_code.h"
#include "base/result.h"
#include "meta/log_settings.h"
#include "meta/topic_registry.h"
#include "partition/defaults.h"
#include "partition/storage.h"
#include "partition/storage_accounts.h"
#include "partition/waiters.h"
#include "record/batch_validate.h"
#include "txn/txn_metadata.h"

namespace ketch::partition {

struct service_config {
    int64_t flush_ms = k_default_flush_ms;                                    // --flush-ms
    int64_t producer_id_expiration_ms = k_default_producer_id_expiration_ms;  // --producer-id-expiration-ms
    std::function<int64_t()> clock_ms;                                        // wall clock; default: the system clock
};

// An open partition. `settings` lives as long as the caller's resolved_topic.
struct partition_handle {
    std::shared_ptr<storage> store;
    const meta::log_settings& settings;
    std::string_view topic;  // the topic's name (lives as long as `settings`)
};

// One partition's produce, as the log saw it.
struct append_outcome {
    error_code error = error_code::none;
    // Kafka puts a message into the response only for per-record validation
    // failures; empty otherwise.
    std::optional<std::string> error_message;
    std::vector<record::record_error> record_errors;
    int64_t base_offset = -1;
    int64_t log_append_time = -1;
    int64_t log_start_offset = -1;
    // For acks=all: wait until this end offset of `store` is durable (also for
    // a duplicate, which may not be durable yet). Null on error.
    std::shared_ptr<storage> store;
    int64_t end_offset = -1;
    // A shared-storage engine staged the batch: offsets come from its commit
    // (service::wait_commits); base_offset is -1 until then.
    uint64_t pending = 0;
};

// A staged batch's commit to wait for (append_outcome::pending).
struct commit_wait {
    std::shared_ptr<storage> store;
    uint64_t pending = 0;
    void* tag = nullptr;  // the caller's; never read here
};

struct durable_wait {
    std::shared_ptr<storage> store;
    int64_t end_offset = 0;
    void* tag = nullptr;  // the caller's (which answer the wait is for); never read here
};

// ListOffsets' special timestamps (ListOffsetsRequest.*_TIMESTAMP).
inline constexpr int64_t k_latest_timestamp = -1, k_earliest_timestamp = -2, k_max_timestamp = -3,
                         k_earliest_local_timestamp = -4, k_earliest_pending_upload_timestamp = -5;

struct offset_answer {
    error_code error = error_code::none;
    int64_t timestamp = -1;
    int64_t offset = -1;
    int32_t leader_epoch = -1;
};

class service {
public:
    service(meta::topic_registry& topics, storage_engine& engine, service_config config = {});

    const service_config& config() const { return config_; }
    meta::topic_registry& topics() { return topics_; }
    fetch_waiters& waiters() { return waiters_; }
    int64_t now_ms() const;

    // Every partition's leader epoch is k_leader_epoch on this single broker.
    // A client's current_leader_epoch (-1: no check) above it is
    // UNKNOWN_LEADER_EPOCH, below it FENCED_LEADER_EPOCH
    // (Partition.checkCurrentLeaderEpoch).
    static error_code check_leader_epoch(int32_t current) {
        if (current < 0 || current == k_leader_epoch) return error_code::none;
        return current > k_leader_epoch ? error_code::unknown_leader_epoch : error_code::fenced_leader_epoch;
    }

    // --- opening -------------------------------------------------------------
    // UNKNOWN_TOPIC_OR_PARTITION for a partition outside the topic;
    // KAFKA_STORAGE_ERROR if the storage cannot be opened or created.
    result<partition_handle, error_code> open(const meta::resolved_topic& topic, int32_t partition);
    // For a read: as open, but a partition with no storage yet is answered as
    // an empty log (log start 0, high watermark 0) and nothing is created,
    // where the engine allows it (storage_engine::get_for_read). Writes
    // (append, markers, DeleteRecords) go through open.
    result<partition_handle, error_code> open_for_read(const meta::resolved_topic& topic, int32_t partition);
    // The partition's storage if it has any (never creates it).
    std::shared_ptr<storage> find(const std::string& topic, int32_t partition) {
        return engine_.get({topic, partition});
    }

    // --- produce -------------------------------------------------------------
    // Validates `records` (exactly one v2 batch, the topic's limits),
    // recompresses it when compression.type names another codec, appends it
    // and wakes the partition's parked fetches. allow_zstd: Produce v7+.
    append_outcome append(const meta::resolved_topic& topic, int32_t partition, byte_view records, bool allow_zstd);
    // Calls `done` once every wait is over, with failed[i] set where the data
    // could not be made durable (KAFKA_STORAGE_ERROR for that partition).
    // `done` runs on any thread (see storage::wait_durable).
    void wait_durable(const std::vector<durable_wait>& waits, std::function<void(std::vector<bool>)> done);
    // Calls `done` once every staged batch is committed, with each one's
    // outcome (offsets, or the error: producer-state codes, else
    // KAFKA_STORAGE_ERROR). Wakes the partitions' fetches. Only a shared
    // engine stages batches; `done` runs on any thread.
    void wait_commits(const std::vector<commit_wait>& waits, std::function<void(std::vector<append_outcome>)> done);

    // Appends the end-transaction marker to each partition, waits (blocking,
    // at most `timeout`) until they are durable and wakes the partitions'
    // fetches. A marker refused for a newer producer epoch or coordinator
    // epoch is dropped (none: retrying cannot help); other failures are
    // KAFKA_STORAGE_ERROR.
    std::vector<error_code> write_txn_markers(const std::vector<txn::topic_partition>& tps, int64_t producer_id,
                                              int16_t producer_epoch, bool commit, int32_t coordinator_epoch,
                                              std::chrono::milliseconds timeout);

    // --- reads ----------------------------------------------------------------
    // Fetch: whole batches from the one holding `offset` (storage::read);
    // OFFSET_OUT_OF_RANGE outside the log, else KAFKA_STORAGE_ERROR.
    result<log::read_result, error_code> read(const partition_handle& p, int64_t offset, uint64_t max_bytes,
                                              const log::read_options& opts);
    // ListOffsets for one partition: a timestamp or one of the special ones
    // above; nothing at or past the last fetchable offset (the LSO for
    // read_committed, else the high watermark).
    offset_answer list_offset(const partition_handle& p, int64_t timestamp, bool read_committed);
    // DeleteRecords: offset -1 is the high watermark; past it (or negative) is
    // OFFSET_OUT_OF_RANGE. The new log start offset.
    result<int64_t, error_code> delete_records(const partition_handle& p, int64_t offset);

    // --- topic lifecycle -------------------------------------------------------
    // Puts every open partition's topic settings into its storage (at start-up
    // the engine opens every partition with the default config).
    void apply_topic_configs();
    // The same for one topic (after AlterConfigs): acts at once.
    void apply_topic_settings(const meta::topic& t);
    // Deletes the data of each of the topic's partitions (after the registry
    // forgot the topic).
    void remove_topic(const meta::topic& t);

    // --- bytes held per account (storage_accounts.h) ------------------------------
    storage_accounts& accounts() { return accounts_; }
    // The accounts recounted from every open partition's size (at start-up,
    // after set_account_fn).
    void count_storage();

    // --- background passes (partition/tasks.h runs them) ------------------------
    // Producer expiry and retention over every partition.
    void run_retention();
    // One cleaning pass over each compacted partition; stops early when
    // `stop` says so. io_max_bytes_per_second <= 0: no limit.
    void run_cleaner(double io_max_bytes_per_second, const std::function<bool()>& stop);

private:
    using engine_open = log::log_result<std::shared_ptr<storage>> (storage_engine::*)(const topic_partition&,
                                                                                      const log::log_config&);
    // open and open_for_read: the partition's storage, or `how` opens it.
    result<partition_handle, error_code> open_with(const meta::resolved_topic& topic, int32_t partition,
                                                   engine_open how);

    meta::topic_registry& topics_;
    storage_engine& engine_;
    service_config config_;
    fetch_waiters waiters_;
    storage_accounts accounts_;
};

}  // namespace ketch::partition
