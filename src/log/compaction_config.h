// compaction_config: the topic configs the log cleaner acts on (Kafka's
// LogConfig fields of the same names), and what one cleaning pass did.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>

namespace ketch::log {

struct compaction_config {
    // delete.retention.ms: how long a tombstone (and a removable transaction
    // marker) survives in the cleaned section once a pass has set its batch's
    // delete horizon.
    int64_t delete_retention_ms = 86'400'000;
    // min.compaction.lag.ms: a segment whose largest timestamp is younger than
    // this is not cleaned (nor anything after it).
    int64_t min_compaction_lag_ms = 0;
    // max.compaction.lag.ms: a dirty segment whose first batch is older than
    // this makes the log cleanable whatever its dirty ratio.
    int64_t max_compaction_lag_ms = std::numeric_limits<int64_t>::max();
    // min.cleanable.dirty.ratio: clean when dirty / (clean + dirty) exceeds it.
    double min_cleanable_dirty_ratio = 0.5;
    // Most keys one pass maps (Kafka: log.cleaner.dedupe.buffer.size / 24
    // bytes * load factor); a pass stops mapping at it and the next pass
    // continues from there.
    int64_t max_map_keys = 1'000'000;
    // log.cleaner.io.max.bytes.per.second: the pass sleeps so that the bytes it
    // reads and writes stay under this rate (<= 0 or infinity: no limit).
    double io_max_bytes_per_second = 0;
};

// Test hook: the points of the swap protocol (docs/design/compaction.md). A
// hook returning true at a step makes the pass stop right there, leaving the
// files as a crash at that point would (the log must then be dropped without
// close and reopened).
enum class clean_step { cleaned_written, swap_renamed, old_renamed, swap_in_place, index_written, done };
using clean_hook = std::function<bool(clean_step)>;

struct clean_result {
    bool cleaned = false;            // false: nothing was cleanable
    int64_t first_dirty_offset = 0;  // before the pass
    int64_t end_offset = 0;          // the new first dirty offset (cleaner checkpoint)
    int groups = 0;                  // replacement segments swapped in
    uint64_t bytes_before = 0;
    uint64_t bytes_after = 0;
    int64_t records_read = 0;
    int64_t records_kept = 0;
    double dirty_ratio = 0;
};

}  // namespace ketch::log
