// Retention and DeleteRecords in the shared log (docs/design/cluster.md,
// "retention and garbage collection"): by metadata only. A partition's log
// start offset moves forward in ketch_partitions and the index rows of the
// batches wholly below it are dropped, in one transaction; no object is
// rewritten. As Kafka's UnifiedLog.deleteOldSegments removes whole segments
// (never part of one), retention here removes whole batches: the new log
// start is always a batch's base offset (or the high watermark). The objects
// whose every batch is gone are then the garbage collector's
// (shared/janitor.h).
#pragma once

#include <cstdint>
#include <string>

#include "base/result.h"
#include "cluster/catalogue.h"
#include "cluster/pg.h"

namespace ketch::cluster {

// A topic's retention.ms and retention.bytes (negative: no limit).
struct retention_limits {
    int64_t retention_ms = -1;
    int64_t retention_bytes = -1;
};

struct retention_outcome {
    int64_t log_start_offset = 0;  // after the call
    bool moved = false;            // the log start moved forward
    int64_t batches_dropped = 0;   // index rows removed
};

// The payload prefix of the NOTIFY ketch_commit a move of the log start
// sends: "log-start:<topic id>:<partition>:<offset>" (the brokers with the
// partition open learn its new start without reading it).
inline constexpr const char* k_log_start_prefix = "log-start:";

// Moves the log start to at least `offset` (DeleteRecords; never back, never
// past the high watermark) and drops the index rows below it, in one
// transaction that notifies the brokers when it moved. Creates the
// partition's row if nothing was committed to it yet.
result<retention_outcome, pg_error> move_log_start(pg_connection& c, const partition_key& tp, int64_t offset);

// Retention of one partition at `now_ms` (UnifiedLog.deleteRetentionMsBreachedSegments
// and deleteRetentionSizeBreachedSegments, per batch instead of per segment):
// from the log start, the batches whose newest timestamp is more than
// retention_ms old, up to the first that is not; and the oldest batches
// while what remains would still be at least retention_bytes. Bounded by the
// high watermark. Index rows already below the log start (DeleteRecords)
// are dropped as well.
result<retention_outcome, pg_error> apply_retention(pg_connection& c, const partition_key& tp,
                                                    const retention_limits& limits, int64_t now_ms);

// Idempotent producers' rows (ketch_producer_batches, at most the last 5
// batches per producer and partition) are not dropped with the batches
// retention or DeleteRecords removes: as Kafka's
// ProducerStateManager.onLogStartOffsetIncremented keeps its producers, a
// producer whose batches are all gone keeps its sequences, so a retry of a
// removed batch is still answered as a duplicate and its next batch is in
// sequence. They go as Kafka's removeExpiredProducers removes a producer:
// no batch of it committed to the partition for `expiration_ms`
// (producer.id.expiration.ms; the commit time, PostgreSQL's clock) and no
// transaction of it open there. Returns the rows deleted.
result<int64_t, pg_error> expire_producers(pg_connection& c, int64_t expiration_ms);

}  // namespace ketch::cluster
