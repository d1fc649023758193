// Compaction of the shared log (cleanup.policy=compact; docs/design/cluster.md,
// "compaction"), run by the janitor on one broker at a time. Kafka's
// LogCleaner pass (storage/.../log/Cleaner.java doClean, LogCleanerManager
// cleanableOffsets) over a partition's index instead of its segments:
//
//   cleanable   cluster::cleanable_offsets: [first dirty, first uncleanable)
//               with first uncleanable = min(LSO, the first batch younger than
//               min.compaction.lag.ms); compacted when dirty / (clean + dirty)
//               bytes > min.cleanable.dirty.ratio, or the oldest dirty batch
//               is older than max.compaction.lag.ms;
//   map         key -> latest offset over the dirty batches (aborted data and
//               control batches not mapped, at most max_map_keys keys);
//   rewrite     every batch from the log start below the map's end, in runs of
//               about `group_bytes`, through log::filter_batch (the single-node
//               cleaner's rules: the latest value per key, tombstones until
//               their delete horizon, aborted data and finished markers as
//               CleanedTransactionMetadata decides, batches keep their offsets
//               and are rebuilt with their records' offset deltas and a new
//               CRC); the kept batches are PUT as one new object
//               (`next_key()`, If-None-Match) and swapped into the index in one
//               transaction (cluster::swap_compacted); a run that would not
//               change is left as it is;
//   checkpoint  the partition's first_dirty_offset moves to the map's end.
//
// Every GET and PUT of a partition's compaction is charged to an io_throttle
// started with it (--log-cleaner-io-max-bytes-per-second, as the single-node
// cleaner's pass of one log), which sleeps while the reads and writes ran
// faster than that.
//
// Readers see the old rows or the new ones (one transaction), never a gap
// other than the records compaction removes; the old objects lose their rows
// and are garbage collected after the grace period like any other. A swap
// refused because the index changed meanwhile (retention, DeleteRecords) ends
// the pass: the next one starts again from the checkpoint.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "base/result.h"
#include "cluster/catalogue.h"
#include "cluster/pg.h"
#include "log/compaction_config.h"
#include "objstore/s3_client.h"

namespace ketch::shared {

inline constexpr uint64_t k_compaction_group_bytes = 8 << 20;

struct compaction_outcome {
    log::clean_result clean;
    size_t objects_written = 0;  // compacted objects recorded
    size_t runs_swapped = 0;     // runs of batches replaced in the index
    uint64_t io_bytes = 0;       // read and written (GETs, PUTs)
    int64_t throttled_ms = 0;    // slept by the io throttle
};

// A fresh object key for each compacted object.
using object_key_fn = std::function<std::string()>;

result<compaction_outcome, std::string> compact_partition(objstore::s3_client& s3, cluster::pg_connection& pg,
                                                          const cluster::partition_key& tp,
                                                          const log::compaction_config& cfg, int64_t now_ms,
                                                          const object_key_fn& next_key,
                                                          uint64_t group_bytes = k_compaction_group_bytes,
                                                          double io_max_bytes_per_second = 0);

// A topic's compaction settings by name; nullopt: not compacted (no compact policy, unknown).
using compaction_of_topic = std::function<std::optional<log::compaction_config>(const std::string& topic)>;

struct compaction_pass {
    size_t partitions = 0;  // looked at
    size_t compacted = 0;   // whose checkpoint moved
    size_t objects_written = 0;
};

// Every partition of every compacted topic, one after another, each under
// `io_max_bytes_per_second` (<= 0: unthrottled); a partition that fails is
// logged and skipped.
result<compaction_pass, std::string> compact_all(objstore::s3_client& s3, cluster::pg_connection& pg,
                                                 const compaction_of_topic& compaction_of, int64_t now_ms,
                                                 const object_key_fn& next_key, double io_max_bytes_per_second = 0);

}  // namespace ketch::shared
