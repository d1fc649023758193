// Cluster mode's background upkeep of the shared log (docs/design/cluster.md,
// "retention and garbage collection"), on one broker of the cluster at a
// time (a PostgreSQL advisory lock held for the pass, as the sweeper's):
//
// - retention: every partition of a topic whose cleanup.policy has delete
//   gets cluster::apply_retention (its log start moves by metadata, the
//   index rows below it go);
// - small-object merging (shared/merger.h), with --cluster-merge-bytes;
//   it and compaction read and write under --log-cleaner-io-max-bytes-per-second;
// - compaction (shared/compactor.h) of every partition of a topic whose
//   cleanup.policy has compact, every `compact_interval`
//   (--log-cleaner-backoff-ms);
// - idempotent producers' rows expire (cluster::expire_producers), not
//   with their batches;
// - the rows of deleted topics go (their batches, offsets, producers' and
//   transactions' rows);
// - garbage collection: an object no index row references any more (checked
//   only for the objects noted in ketch_gc_candidates by the statements that
//   dropped or moved rows since the last pass) is
//   marked dead (ketch_objects.dead_since, PostgreSQL's clock), and deleted
//   from the object store — then its row — only once `grace` has passed
//   since. Nothing makes a dead object referenced again (only a commit adds
//   index rows, and only for the object it records in the same
//   transaction), so a fetch that read the index before the rows went has
//   the grace period to GET the object.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>

#include "base/result.h"
#include "cluster/pg.h"
#include "cluster/retention.h"
#include "objstore/s3_client.h"
#include "shared/compactor.h"
#include "shared/exclusive_job.h"

namespace ketch::shared {

struct retention_pass {
    size_t partitions = 0;  // looked at
    size_t moved = 0;       // whose log start moved
    int64_t batches_dropped = 0;
};

// A topic's limits by name; nullopt: nothing to apply (no delete policy, unknown).
using limits_of_topic = std::function<std::optional<cluster::retention_limits>(const std::string& topic)>;

result<retention_pass, std::string> apply_retention_all(cluster::pg_connection& pg, const limits_of_topic& limits_of,
                                                        int64_t now_ms);

struct gc_result {
    int64_t topic_rows_dropped = 0;  // index rows of deleted topics
    int64_t marked_dead = 0;         // objects found unreferenced this pass
    size_t deleted = 0;              // dead longer than the grace period: gone from the store
};

// Deleted topics' rows, then dead objects marked, then those dead for longer
// than `grace` deleted (a DELETE that fails leaves the row: tried again next pass).
result<gc_result, std::string> collect_garbage(objstore::s3_client& s3, cluster::pg_connection& pg,
                                               std::chrono::milliseconds grace);

struct janitor_config {
    job_session* jobs = nullptr;  // the broker's (outlives the janitor)
    objstore::s3_location where;
    objstore::credentials who;
    std::chrono::milliseconds interval{300000};  // --retention-check-ms (log.retention.check.interval.ms)
    std::chrono::milliseconds grace{600000};     // --cluster-gc-grace-ms
    limits_of_topic limits_of;
    uint64_t merge_bytes = 0;                           // --cluster-merge-bytes: objects smaller are merged (0: never)
    int32_t node_id = 0;                                // in merged and compacted objects' keys
    compaction_of_topic compaction_of;                  // unset: no compaction
    std::chrono::milliseconds compact_interval{15000};  // --log-cleaner-backoff-ms (log.cleaner.backoff.ms)
    int64_t producer_id_expiration_ms = 86'400'000;     // --producer-id-expiration-ms (producer.id.expiration.ms)
    // --log-cleaner-io-max-bytes-per-second (log.cleaner.io.max.bytes.per.second): compaction's and merging's
    // GETs and PUTs, per partition (<= 0: unthrottled).
    double io_max_bytes_per_second = 0;
};

class janitor {
public:
    explicit janitor(janitor_config cfg);

private:
    void pass(cluster::pg_connection& pg);
    void merge(cluster::pg_connection& pg);
    void compact(cluster::pg_connection& pg, int64_t now_ms);
    // The job runs at the shorter of the two intervals; each part when it is due.
    std::chrono::milliseconds tick() const;

    const janitor_config cfg_;
    std::chrono::steady_clock::time_point last_upkeep_{}, last_compaction_{};  // the job's thread only
    objstore::s3_client s3_;
    exclusive_job job_;  // last: stopped first
};

}  // namespace ketch::shared
