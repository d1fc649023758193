// storage: what the partition service needs from the storage of one
// partition, named after Kafka's operations; storage_engine: the set of them.
//
// The local log (partition/local_storage.h, segment files on this machine) is
// the first implementation. The interface is shaped for a second one that
// keeps batches in shared storage (cluster mode: objects in S3-compatible
// storage, offsets and the high watermark in PostgreSQL; issue 26):
//   - append stages a validated batch and answers the offsets it was given;
//     wait_durable(end) completes when everything below `end` is durable.
//     The service answers acks=all only after wait_durable, and never reads
//     durability from anything else, so an engine whose offsets become final
//     only at a commit answers from wait_durable (see
//     docs/design/partition_service.md for how offsets assigned at commit fit).
//   - read answers byte ranges of io::files: a local segment, or a cached
//     object range (an io::file over memory) for a shared engine.
//   - the offsets (log start, high watermark, LSO) are what the engine knows
//     now; for a shared engine, what its catalogue last told it.
// All methods are thread-safe. Offsets are Kafka offsets; times are ms since
// the Unix epoch.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "base/bytes.h"
#include "log/compaction_config.h"
#include "log/log_config.h"
#include "log/log_error.h"
#include "log/partition_dir.h"
#include "log/partition_log.h"
#include "log/producer_state.h"
#include "partition/account_slot.h"

namespace ketch::partition {

using log::topic_partition;

class storage {
public:
    virtual ~storage() = default;

    // Appends one batch the service has validated, assigning its offsets (a
    // duplicate of one of the producer's last five is answered with the
    // original's, nothing appended). Producer-state refusals are log errors
    // with producer-state codes (partition/errors.h).
    virtual log::log_result<log::append_result> append(byte_view batch, const log::append_options& opts) = 0;
    // Kafka's end-transaction control batch for the producer (see
    // log::partition_log::append_txn_marker).
    virtual log::log_result<log::append_result> append_txn_marker(int64_t producer_id, int16_t producer_epoch,
                                                                  bool commit, int32_t coordinator_epoch,
                                                                  int64_t now_ms) = 0;
    // `done` runs once every offset below end_offset is durable, or with the
    // error that prevented it; on any thread, with no lock held: it must only
    // post work elsewhere.
    virtual void wait_durable(int64_t end_offset, std::function<void(log::log_status)> done) = 0;
    // Engines that assign offsets at a later commit (the shared log) answer
    // append with append_result::pending set and no offsets; `done` runs once
    // with the batch's final result (offsets, or the commit's refusal) after
    // the commit. Called exactly once per pending batch (acks=0 too, with a
    // callback that ignores the result). The local log never answers pending.
    virtual void wait_commit(uint64_t pending, std::function<void(log::log_result<log::append_result>)> done) {
        (void)pending;
        done(failure{log::log_error{log::log_errc::io, "no pending commits in this storage"}});
    }

    // Whole batches from the one holding `offset`, at most max_bytes (but see
    // read_options::min_one_batch), cut at the high watermark or the LSO.
    virtual log::log_result<log::read_result> read(int64_t offset, uint64_t max_bytes,
                                                   const log::read_options& opts) = 0;

    // Cluster mode: read the offsets again where another broker moves them
    // (its commits' notifications can be missed: a reconnecting listener, a
    // failed query), so that what follows answers the committed state. A
    // local log knows its own.
    virtual log::log_status refresh_offsets() { return ok_v; }

    virtual int64_t log_start_offset() const = 0;
    virtual int64_t local_log_start_offset() const = 0;
    virtual int64_t log_end_offset() const = 0;
    virtual int64_t high_watermark() const = 0;
    virtual int64_t last_stable_offset() const = 0;
    virtual uint64_t size_bytes() const = 0;
    virtual log::log_result<std::optional<log::timestamp_offset>> offset_for_timestamp(int64_t ts) = 0;
    virtual log::log_result<std::optional<log::timestamp_offset>> max_timestamp() = 0;

    // DeleteRecords: the new log start offset (durable).
    virtual log::log_result<int64_t> delete_records_before(int64_t offset) = 0;
    virtual log::log_result<log::retention_result> apply_retention(int64_t now_ms, int64_t retention_ms,
                                                                   int64_t retention_bytes) = 0;
    virtual log::log_result<log::clean_result> clean(const log::compaction_config& c, int64_t now_ms) = 0;

    virtual std::vector<log::producer_entry> producers() const = 0;
    // UnifiedLog.hasOngoingTransaction (transactional produce verification).
    virtual bool has_ongoing_txn(int64_t producer_id, int16_t producer_epoch) const {
        for (const auto& p : producers())
            if (p.producer_id == producer_id) return p.txn_first_offset >= 0 && p.epoch == producer_epoch;
        return false;
    }
    virtual size_t expire_producers(int64_t now_ms, int64_t expiration_ms) = 0;

    virtual void set_config(const log::log_config& c) = 0;

    // The partition's bytes-held account (account_slot.h), set and read only
    // by the partition service's storage_accounts; never by the engine.
    account_slot& account() { return account_; }

private:
    account_slot account_;
};

class storage_engine {
public:
    virtual ~storage_engine() = default;
    // nullptr when the partition has no storage yet.
    virtual std::shared_ptr<storage> get(const topic_partition& tp) = 0;
    // Creates it with `config` on first use (an existing one keeps its config).
    virtual log::log_result<std::shared_ptr<storage>> get_or_create(const topic_partition& tp,
                                                                    const log::log_config& config) = 0;
    // For a read (Fetch, ListOffsets, DescribeProducers, ...): the partition's
    // storage; for one that has none, an engine whose absent partition can
    // only mean "nothing was ever written" answers an empty log that creates
    // nothing (the local engine: partition/empty_storage.h). The default
    // opens it as get_or_create does (a shared engine's partition may hold
    // data this broker has not opened yet).
    virtual log::log_result<std::shared_ptr<storage>> get_for_read(const topic_partition& tp,
                                                                   const log::log_config& config) {
        return get_or_create(tp, config);
    }
    // Deletes the partition's data; ok if it has none.
    virtual log::log_status remove(const topic_partition& tp) = 0;
    // Deletes many partitions' data (a deleted topic's): the first error, after
    // trying them all. An engine may do it at once (the local one syncs once).
    virtual log::log_status remove_all(const std::vector<topic_partition>& tps) {
        log::log_status result = ok_v;
        for (const auto& tp : tps)
            if (auto st = remove(tp); !st.ok() && result.ok()) result = st;
        return result;
    }
    // Every partition that has storage.
    virtual std::vector<topic_partition> partitions() const = 0;
};

}  // namespace ketch::partition
