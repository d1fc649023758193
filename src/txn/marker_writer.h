// What the transaction coordinator needs from the rest of the broker to
// finish a transaction: control records (commit/abort markers) in the data
// partitions, and the completion of the transaction's offsets in the group
// coordinator (Kafka writes a marker to __consumer_offsets for that; ketch
// has no such topic and calls the group coordinator instead).
//
// Implemented in src/broker (partition logs, group coordinator); tests use a
// recording fake. Calls come from the coordinator's executor, never with its
// lock held; each may block on the disk, for a bounded time.
#pragma once

#include <cstdint>
#include <vector>

#include "base/error_code.h"
#include "txn/txn_metadata.h"

namespace ketch::txn {

// The topic Kafka's AddOffsetsToTxn adds to a transaction (one partition per group).
inline constexpr const char* consumer_offsets_topic = "__consumer_offsets";

class marker_writer {
public:
    virtual ~marker_writer() = default;

    // Appends a COMMIT or ABORT marker of (producer_id, producer_epoch) to
    // every partition of `tps` and makes them durable together (the log's
    // group commit: about one fsync for the lot, not one per partition).
    // One answer per partition, in order: none: written.
    // unknown_topic_or_partition: the partition is gone, the marker is dropped
    // (as Kafka's TransactionMarkerChannelManager drops markers of deleted
    // partitions). Any other error: the coordinator retries that partition.
    // Returns within a bounded time even if the disk does not answer.
    virtual std::vector<error_code> write_markers(const std::vector<topic_partition>& tps, int64_t producer_id,
                                                  int16_t producer_epoch, bool commit, int32_t coordinator_epoch) = 0;

    // Makes the producer's pending transactional offsets committed (commit)
    // or drops them (abort), durably. false: retry.
    virtual bool complete_txn_offsets(int64_t producer_id, bool commit) = 0;
};

}  // namespace ketch::txn
