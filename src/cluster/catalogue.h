// The shared log's catalogue in PostgreSQL (docs/design/cluster.md, "the
// produce path" and "the fetch path"): one transaction commits a flushed
// object's batches — partitions locked in a fixed order, producers'
// sequences checked, offsets assigned from the high watermark — and the batch
// index answers which object holds an offset. Blocking calls on a connection
// the caller owns. Not yet wired to the partition service (cluster.md says
// what is missing).
#pragma once

#include <algorithm>
#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "cluster/pg.h"

namespace ketch::cluster {

struct partition_key {
    std::string topic_id;  // the topic's uuid, as text
    int32_t partition = 0;
    auto operator<=>(const partition_key&) const = default;
};

// A batch inside a flushed object, validated by the partition service.
struct staged_batch {
    partition_key tp;
    int32_t record_count = 1;  // last offset delta + 1
    uint64_t byte_offset = 0;  // where the batch starts in the object
    uint32_t byte_length = 0;
    int64_t max_timestamp = -1;
    int64_t producer_id = -1;  // -1: not idempotent
    int16_t producer_epoch = -1;
    int32_t base_sequence = -1;
    bool transactional = false;      // a data batch of a transaction: opens it on the partition
    int8_t marker = -1;              // an end-transaction control batch: 0 abort, 1 commit
    int32_t coordinator_epoch = -1;  // a marker's (its control record's value)
};

struct flushed_object {
    std::string object_key;
    uint64_t size_bytes = 0;
    int32_t node_id = 0;
    std::vector<staged_batch> batches;
};

struct batch_outcome {
    enum kind {
        appended,
        duplicate,
        invalid_producer_epoch,
        out_of_order_sequence,
        coordinator_fenced,  // a marker of a coordinator epoch older than the partition's last
    } what = appended;
    int64_t base_offset = -1;  // appended or duplicate: the batch's offsets
    int64_t last_offset = -1;
    // The first offset of the partition's oldest open transaction once the
    // commit is done (-1: none): the LSO is min(it, high watermark).
    int64_t first_unstable = -1;
};

// Commits every batch of `obj` in one transaction: an outcome per batch, in
// order. The object is recorded only if one of its batches was appended
// (else the sweeper removes it). Errors: the transaction was rolled back;
// nothing was committed (connection_lost: the outcome may be unknown).
result<std::vector<batch_outcome>, pg_error> commit_flush(pg_connection& c, const flushed_object& obj);

struct indexed_batch {
    int64_t base_offset = 0;
    int64_t last_offset = 0;
    std::string object_key;
    uint64_t byte_offset = 0;
    uint32_t byte_length = 0;
    uint64_t object_size = 0;  // the whole object's (ketch_objects.size_bytes); 0 if unknown
};

struct partition_offsets {
    int64_t log_start_offset = 0;
    int64_t high_watermark = 0;
    int64_t first_unstable = -1;  // the oldest open transaction's first offset; -1 none
    // The compactor's checkpoint, the first offset not compacted yet (Kafka's cleaner-offset-checkpoint).
    int64_t first_dirty_offset = 0;
    int64_t last_stable_offset() const {
        return first_unstable < 0 ? high_watermark
                                  : std::max(log_start_offset, std::min(first_unstable, high_watermark));
    }
};

// An aborted transaction's range on a partition (read_committed fetches).
struct aborted_range {
    int64_t producer_id = -1;
    int64_t first_offset = -1;
    int64_t last_offset = -1;
};

// The batches holding `offset` and after, in offset order, up to about
// max_bytes (the first one always).
result<std::vector<indexed_batch>, pg_error> find_batches(pg_connection& c, const partition_key& tp, int64_t offset,
                                                          uint64_t max_bytes);
// The partition's offsets; nullopt for a partition nothing was committed to.
result<std::optional<partition_offsets>, pg_error> find_offsets(pg_connection& c, const partition_key& tp);
// Zeros for a partition nothing was committed to.
result<partition_offsets, pg_error> read_offsets(pg_connection& c, const partition_key& tp);
// The aborted transactions with last_offset >= from and first_offset < upper
// (Kafka's LocalLog.collectAbortedTransactions), in offset order.
result<std::vector<aborted_range>, pg_error> find_aborted(pg_connection& c, const partition_key& tp, int64_t from,
                                                          int64_t upper);

// A partition with its topic's name.
struct named_partition {
    std::string topic;
    partition_key key;
};
// Every partition with a row (ketch_partitions) of a topic that exists, by
// topic id and partition: what the janitor's and the compactor's passes go
// through.
result<std::vector<named_partition>, pg_error> list_partitions(pg_connection& c);

}  // namespace ketch::cluster
