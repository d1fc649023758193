// Compaction of the shared log in the catalogue (docs/design/cluster.md,
// "compaction"): which offsets of a partition may be compacted (Kafka's
// LogCleanerManager.cleanableOffsets, per batch instead of per segment),
// the index rows to read, the producers' last batches, and the swap of a
// compacted run of batches into the index in one transaction. Reading and
// rewriting the batches is shared/compactor.h's.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "cluster/catalogue.h"
#include "cluster/pg.h"

namespace ketch::cluster {

struct cleanable_range {
    int64_t log_start_offset = 0;
    int64_t first_dirty = 0;              // the checkpoint, reset to the log start when outside [start, hwm]
    int64_t first_uncleanable = 0;        // >= first_dirty: the LSO, or a younger batch's base (min lag)
    uint64_t clean_bytes = 0;             // the batches from the log start below first_dirty
    uint64_t dirty_bytes = 0;             // the batches in [first_dirty, first_uncleanable)
    int64_t oldest_dirty_timestamp = -1;  // the smallest max_timestamp among the dirty batches (-1: none)
};

// The partition's cleanable offsets at `now_ms` (nullopt: no row yet).
// first_uncleanable = min(last stable offset (which is at most the high
// watermark), the base of the first dirty batch whose newest record is
// younger than min.compaction.lag.ms). There is no active segment: every
// committed batch below it may be compacted.
result<std::optional<cleanable_range>, pg_error> cleanable_offsets(pg_connection& c, const partition_key& tp,
                                                                   int64_t min_compaction_lag_ms, int64_t now_ms);

// The index rows with last_offset >= from and after < base_offset < to, in
// offset order, at most `limit` (a page: the next one starts after the last
// base offset).
result<std::vector<indexed_batch>, pg_error> batches_between(pg_connection& c, const partition_key& tp, int64_t from,
                                                             int64_t to, int64_t after, size_t limit);

// Each producer's last batch on the partition (its newest row among
// ketch_producer_batches): Kafka's lastRecordsOfActiveProducers.
struct producer_last {
    int64_t producer_id = -1;
    int16_t producer_epoch = -1;
    std::optional<int64_t> last_data_offset;  // none: its last batch under this epoch is a marker
};
result<std::vector<producer_last>, pg_error> producers_last(pg_connection& c, const partition_key& tp);

// A batch of a compacted object, as its index row records it.
struct compacted_row {
    int64_t base_offset = 0;
    int64_t last_offset = 0;
    uint64_t byte_offset = 0;
    uint32_t byte_length = 0;
    int64_t max_timestamp = -1;
};

// In one transaction, the partition's row locked (as commits, retention and
// merging lock it): if every row of `old_rows` is still as read (same base
// offset, object and byte offset), they are deleted and `kept` inserted
// pointing at `object_key` (recorded in ketch_objects in the same
// transaction; empty: every batch went, no object). false: the index
// changed meanwhile (retention, DeleteRecords), nothing done.
result<bool, pg_error> swap_compacted(pg_connection& c, const partition_key& tp,
                                      const std::vector<indexed_batch>& old_rows, const std::string& object_key,
                                      uint64_t size_bytes, const std::vector<compacted_row>& kept);

// The cleaner checkpoint: the first offset the next pass treats as dirty.
status<pg_error> set_first_dirty(pg_connection& c, const partition_key& tp, int64_t offset);

}  // namespace ketch::cluster
