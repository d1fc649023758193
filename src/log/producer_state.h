// producer_state: what one partition knows about the idempotent and
// transactional producers that wrote to it (Kafka's ProducerStateManager,
// ProducerStateEntry and ProducerAppendInfo in storage/internals/log).
//
// It lives in src/log, not src/txn, because the log consults it on every
// append and rebuilds it during recovery, and `log` may not include `txn`
// (docs/design/producer_state.md).
//
// Per producer id: the epoch, the last 5 batches (sequence range, offsets,
// max timestamp), the coordinator epoch of its last marker, and the first
// offset of its open transaction. Across producers: the open transactions,
// whose smallest first offset bounds the last stable offset.
//
// Not thread-safe: the owning log calls it under its append lock.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <vector>

#include "base/bytes.h"
#include "base/result.h"
#include "record/batch_header.h"

namespace ketch::log {

inline constexpr size_t k_producer_batches_retained = 5;  // ProducerStateEntry.NUM_BATCHES_TO_RETAIN

struct producer_batch {
    int32_t first_seq = -1;
    int32_t last_seq = -1;
    int64_t first_offset = -1;
    int64_t last_offset = -1;
    int64_t timestamp = -1;  // the batch's max timestamp
    friend bool operator==(const producer_batch&, const producer_batch&) = default;
};

struct producer_entry {
    int64_t producer_id = -1;
    int16_t epoch = record::k_no_producer_epoch;
    std::deque<producer_batch> batches;  // oldest first, at most k_producer_batches_retained
    int32_t coordinator_epoch = -1;
    int64_t last_timestamp = -1;
    int64_t txn_first_offset = -1;  // -1: no open transaction

    int32_t last_seq() const { return batches.empty() ? record::k_no_sequence : batches.back().last_seq; }
    int64_t last_offset() const { return batches.empty() ? -1 : batches.back().last_offset; }
    friend bool operator==(const producer_entry&, const producer_entry&) = default;
};

// A transaction ended by a marker (Kafka's CompletedTxn).
struct completed_txn {
    int64_t producer_id = -1;
    int64_t first_offset = -1;
    int64_t last_offset = -1;  // the marker's offset
    bool aborted = false;
};

// One entry of a segment's aborted-transactions index (Kafka's AbortedTxn).
struct aborted_txn {
    int64_t producer_id = -1;
    int64_t first_offset = -1;
    int64_t last_offset = -1;
    int64_t last_stable_offset = -1;  // the LSO right after the abort
    friend bool operator==(const aborted_txn&, const aborted_txn&) = default;
};

// An end-transaction marker as read from a control batch.
struct txn_marker {
    bool commit = false;
    int32_t coordinator_epoch = -1;
};

enum class producer_errc : uint8_t {
    out_of_order_sequence,   // OUT_OF_ORDER_SEQUENCE_NUMBER
    invalid_producer_epoch,  // INVALID_PRODUCER_EPOCH
    invalid_txn_state,       // INVALID_TXN_STATE: plain batch inside an open transaction
    coordinator_fenced,      // TRANSACTION_COORDINATOR_FENCED: marker from an older coordinator
};

// Kafka's DefaultRecordBatch.incrementSequence / decrementSequence (wrap at INT32_MAX).
int32_t increment_sequence(int32_t seq, int32_t by);
int32_t decrement_sequence(int32_t seq, int32_t by);
// The batch's last sequence (base_sequence + last_offset_delta, wrapping).
int32_t last_sequence(const record::batch_header& h);

// The marker of a whole control batch (uncompressed, one record); nullopt if
// it does not hold one.
std::optional<txn_marker> decode_txn_marker(byte_view batch);

struct loaded_snapshot;

class producer_state {
public:
    // Validates a client's data batch (producer_id >= 0) as Kafka's
    // ProducerAppendInfo does for AppendOrigin.CLIENT (transaction version 0/1).
    // A value holds the batch it duplicates (same epoch and sequence range as
    // one of the producer's last 5), which must then not be appended.
    result<std::optional<producer_batch>, producer_errc> check_data(const record::batch_header& h) const;
    // Validates a marker: epoch below the producer's, or coordinator epoch
    // below the last seen, is refused.
    status<producer_errc> check_marker(int64_t producer_id, int16_t epoch, int32_t coordinator_epoch) const;

    // Records an appended data batch (offsets assigned). No validation: also
    // used when replaying the log.
    void apply_data(const record::batch_header& h);
    // Records an appended marker; the completed transaction, if the producer
    // had one open (Kafka emits none for an empty transaction).
    std::optional<completed_txn> apply_marker(int64_t producer_id, int16_t epoch, const txn_marker& m, int64_t offset,
                                              int64_t timestamp);

    // The smallest first offset of an open transaction; INT64_MAX when none.
    int64_t first_unstable_offset() const;
    // ProducerStateManager.lastStableOffset(completedTxn): the first offset of
    // the earliest other open transaction, else the marker's offset + 1.
    int64_t last_stable_offset_after(const completed_txn& t) const;

    // Removes producers without an open transaction whose last timestamp is
    // at least expiration_ms before now (ProducerStateManager.removeExpiredProducers).
    size_t expire(int64_t now_ms, int64_t expiration_ms);

    const std::map<int64_t, producer_entry>& producers() const { return producers_; }
    const producer_entry* find(int64_t producer_id) const;
    void clear();

    // Snapshot file image (docs/design/log_format.md) and its parser;
    // nullopt when the bytes are malformed or the CRC does not match.
    bytes serialize(int64_t snapshot_offset) const;
    static std::optional<loaded_snapshot> parse(byte_view file);

private:
    std::map<int64_t, producer_entry> producers_;
    std::map<int64_t, int64_t> open_txns_;  // first offset -> producer id
};

struct loaded_snapshot {
    int64_t offset = -1;  // the state is that before this offset
    producer_state state;
};

}  // namespace ketch::log
