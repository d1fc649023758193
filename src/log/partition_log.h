// partition_log: the storage of one partition, named after what Kafka does
// with it (append, fetch, list offsets, delete records, retention). local_log
// is the embedded engine (segment files in a directory); a later engine may
// keep segments in object storage behind the same interface.
//
// All methods are thread-safe. Offsets are Kafka offsets (int64); timestamps
// are milliseconds since the Unix epoch.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "base/bytes.h"
#include "io/file.h"
#include "log/compaction_config.h"
#include "log/log_config.h"
#include "log/log_error.h"
#include "log/producer_state.h"
#include "log/record_timestamps.h"
#include "record/batch_header.h"

namespace ketch::log {

struct append_options {
    // log_append_time: the batch's max timestamp becomes `now` and its
    // timestamp-type bit is set (the CRC is recomputed), as Kafka does for
    // message.timestamp.type=LogAppendTime.
    record::timestamp_type timestamp_type = record::timestamp_type::create_time;
    // The wall clock for log-append time and time-based rolling; -1 reads the
    // log's clock.
    int64_t now_ms = -1;
    // When set, written into the batch's partition_leader_epoch field.
    std::optional<int32_t> leader_epoch;
};

struct append_result {
    int64_t base_offset = -1;
    int64_t last_offset = -1;
    int64_t log_append_time = -1;  // -1 unless log-append time was applied
    int64_t log_start_offset = 0;
    // The batch repeats one of its producer's last 5 (same epoch and
    // sequences): nothing was appended; the offsets are the original's and
    // log_append_time is the original's max timestamp (Kafka answers that).
    bool duplicate = false;
    // A shared-storage engine only staged the batch (partition/storage.h
    // wait_commit): offsets are assigned by a later commit; 0 otherwise.
    uint64_t pending = 0;
};

// A byte range of a segment file holding batches (the last may be partial). `file` keeps the data
// readable (even if the segment is deleted meanwhile); native_handle() gives
// the descriptor for sendfile(2) when the file system is the real one.
struct file_slice {
    std::shared_ptr<io::file> file;
    uint64_t position = 0;
    uint32_t length = 0;
    // The segment's size when read: where the file's published bytes end (a
    // tailing reader's slice ends there; the file may hold more, a failed or
    // preallocated tail, which is never read). -1: not known (the reader's
    // look-ahead may then reach past it: net/page_in.h).
    int64_t file_end = -1;
};

struct segment_info {
    int64_t base_offset = 0;
    int64_t next_offset = 0;  // last offset + 1; base_offset when empty
    uint64_t size_bytes = 0;
    int64_t created_ms = 0;
    int64_t max_timestamp = -1;  // of its batches; -1 none
};

struct read_options {
    // Exclusive upper bound: batches whose base offset is >= it are not
    // returned (the last stable offset for read_committed, the high watermark).
    int64_t max_offset = INT64_MAX;
    // Kafka's minOneMessage: return the first batch even if it is larger than
    // max_bytes. When false and the first batch does not fit, nothing is read.
    bool min_one_batch = true;
    // read_committed: stop at the last stable offset (as well as max_offset)
    // and report the aborted transactions overlapping what was read.
    bool read_committed = false;
};

struct read_result {
    // Batches from one segment, starting with the one holding the fetch
    // offset; the last may be cut short by max_bytes (as Kafka's slice is).
    std::vector<file_slice> slices;
    uint64_t total_bytes = 0;
    int64_t log_start_offset = 0;
    int64_t high_watermark = 0;  // = log end offset on a single node
    int64_t last_stable_offset = 0;
    // read_committed only: the aborted transactions that may overlap the
    // batches read, as Kafka's LocalLog.addAbortedTransactions finds them
    // (empty when nothing was read).
    std::optional<std::vector<aborted_txn>> aborted;
};

// Copies the slices into one buffer (TLS connections, tests).
log_result<bytes> read_bytes(const read_result& r);

struct retention_result {
    int segments_deleted = 0;
    uint64_t bytes_deleted = 0;
    int64_t log_start_offset = 0;
};

class partition_log {
public:
    virtual ~partition_log() = default;

    // Appends one v2 batch (already validated by the caller), assigning its
    // offsets from the log end offset. The caller's bytes are not modified.
    virtual log_result<append_result> append(byte_view batch, const append_options& opts) = 0;

    // Appends Kafka's end-transaction marker for the producer (a control +
    // transactional batch holding one EndTransactionMarker record: key
    // version 0 + type 0 abort / 1 commit, value version 0 + coordinator
    // epoch) and ends its open transaction here; an aborted one enters the
    // aborted-transactions index. invalid_producer_epoch when producer_epoch
    // is below the partition's, coordinator_fenced when coordinator_epoch is
    // below the last marker's (ProducerAppendInfo.appendEndTxnMarker).
    virtual log_result<append_result> append_txn_marker(int64_t producer_id, int16_t producer_epoch, bool commit,
                                                        int32_t coordinator_epoch, int64_t now_ms) = 0;
    // min(first offset of any open transaction, high watermark), never below
    // the log start offset.
    virtual int64_t last_stable_offset() const = 0;
    // The producers this partition knows (DescribeProducers).
    virtual std::vector<producer_entry> producers() const = 0;
    // UnifiedLog.hasOngoingTransaction: the producer, at this epoch, has an
    // open transaction here (its partition was verified or added already).
    virtual bool has_ongoing_txn(int64_t producer_id, int16_t producer_epoch) const = 0;
    // Forgets producers idle for expiration_ms with no open transaction
    // (producer.id.expiration.ms). Returns how many.
    virtual size_t expire_producers(int64_t now_ms, int64_t expiration_ms) = 0;

    // Whole batches from the one containing `offset`: at least one (see
    // read_options), then more while the total stays within max_bytes.
    // offset_out_of_range outside [log_start_offset, log_end_offset].
    virtual log_result<read_result> read(int64_t offset, uint64_t max_bytes, const read_options& opts) = 0;

    // Makes everything appended so far durable before returning.
    virtual log_status flush() = 0;
    // Group commit: `done` runs once every offset below `end_offset` (use
    // append_result.last_offset + 1) is durable, or with the error that
    // prevented it. It runs on the flusher thread (on the calling thread when
    // the log has no flusher), with no log lock held; it must be quick (repost).
    virtual void sync_async(int64_t end_offset, std::function<void(log_status)> done) = 0;

    virtual int64_t log_start_offset() const = 0;
    virtual int64_t log_end_offset() const = 0;
    virtual int64_t high_watermark() const { return log_end_offset(); }
    // The first offset held locally (ListOffsets -4); = log start here.
    virtual int64_t local_log_start_offset() const = 0;
    virtual uint64_t size_bytes() const = 0;

    // The first record at or after the log start whose timestamp is >= ts;
    // nullopt when there is none (ListOffsets with a timestamp).
    virtual log_result<std::optional<timestamp_offset>> offset_for_timestamp(int64_t ts) = 0;
    // The record with the largest timestamp (ListOffsets -3); nullopt if empty.
    virtual log_result<std::optional<timestamp_offset>> max_timestamp() = 0;

    // DeleteRecords: moves the log start offset up to `offset` (durably) and
    // deletes the segments wholly below it. offset_out_of_range if `offset`
    // is past the high watermark. Returns the new log start offset.
    virtual log_result<int64_t> delete_records_before(int64_t offset) = 0;
    // Deletes the oldest closed segments while their largest timestamp is more
    // than retention_ms before now, or while the log minus them is still at
    // least retention_bytes; -1 disables either rule. The active segment is
    // never deleted. Moves the log start offset to the first kept segment.
    virtual log_result<retention_result> apply_retention(int64_t now_ms, int64_t retention_ms,
                                                         int64_t retention_bytes) = 0;

    // Compaction (cleanup.policy=compact): one cleaning pass if the log is
    // cleanable under `c` at `now_ms` (docs/design/compaction.md). Never
    // blocks appends or reads for longer than a few renames.
    virtual log_result<clean_result> clean(const compaction_config& c, int64_t now_ms) {
        (void)c;
        (void)now_ms;
        return clean_result{};
    }

    virtual void set_config(const log_config& c) = 0;
    virtual log_config config() const = 0;

    // The files the log keeps, oldest first, the last being the active one
    // (what the console shows; no Kafka API reports them). An engine without
    // segments answers none.
    virtual std::vector<segment_info> segments() const { return {}; }

    // Flushes, writes the index files and the checkpoint; afterwards every
    // call fails with log_errc::closed. Idempotent.
    virtual log_status close() = 0;
};

}  // namespace ketch::log
