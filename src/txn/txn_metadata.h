// One transactional id's metadata and the transitions of Kafka's
// TransactionMetadata (Kafka 4.3.1, transaction versions 1 and 2): each
// prepare_* returns the metadata the transition leads to (Kafka's
// TxnTransitMetadata); the coordinator makes it durable, then adopts it.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>

#include "base/error_code.h"
#include "base/ids.h"
#include "base/result.h"
#include "meta/txn_store.h"
#include "txn/txn_state.h"

namespace ketch::txn {

struct topic_partition {
    std::string topic;
    int32_t partition = 0;
    auto operator<=>(const topic_partition&) const = default;
};

inline constexpr int64_t no_producer_id = -1;
inline constexpr int16_t no_producer_epoch = -1;

// TransactionMetadata.isEpochExhausted: the epoch cannot be bumped once more
// (Short.MaxValue - 1 is kept for the fencing bump).
inline bool is_epoch_exhausted(int16_t epoch) { return epoch >= INT16_MAX - 1; }

struct txn_metadata {
    std::string transactional_id;
    int64_t producer_id = no_producer_id;
    int64_t previous_producer_id = no_producer_id;
    int16_t producer_epoch = no_producer_epoch;
    int16_t last_producer_epoch = no_producer_epoch;
    int32_t timeout_ms = 0;
    txn_state state = txn_state::empty;
    std::set<topic_partition> partitions;
    int64_t txn_start_ms = -1;
    int64_t last_update_ms = 0;
    // Transaction version 2: the producer id that follows an exhausted epoch,
    // chosen at PrepareCommit/PrepareAbort and adopted at Complete*.
    int64_t next_producer_id = no_producer_id;
    // The transaction version of the client's last add or end (Kafka's
    // clientTransactionVersion): 0-1 the classic protocol, 2 KIP-890.
    int8_t client_txn_version = 0;

    // prepareIncrementProducerEpoch: InitProducerId on Empty/Complete*.
    // PRODUCER_FENCED when `expected_epoch` is neither the current nor the last epoch.
    result<txn_metadata, error_code> prepare_increment_epoch(int32_t new_timeout_ms,
                                                             std::optional<int16_t> expected_epoch,
                                                             int64_t now_ms) const;
    // prepareProducerIdRotation: the epoch is exhausted; a new id with epoch 0.
    txn_metadata prepare_producer_id_rotation(ketch::producer_id new_producer_id, int32_t new_timeout_ms,
                                              int64_t now_ms, bool record_last_epoch) const;
    // prepareFenceProducerEpoch: the epoch bump that fences the producer of an
    // Ongoing transaction before it is aborted (never persisted as such).
    // `failed_fence`: a previous fence failed to persist; the epoch was bumped then.
    txn_metadata prepare_fence_epoch(bool failed_fence) const;
    // prepareAddPartitions: Ongoing with the union of the partitions; a new
    // transaction starts now.
    txn_metadata prepare_add_partitions(const std::set<topic_partition>& added, int64_t now_ms,
                                        int8_t client_txn_version = 1) const;
    // prepareAbortOrCommit, transaction version 1: the epoch stays.
    txn_metadata prepare_end(bool commit, int64_t now_ms) const;
    // prepareAbortOrCommit, transaction version 2: the epoch is bumped (not
    // past Short.MaxValue on an abort), the last epoch remembered;
    // `next_pid` (or -1) replaces the producer id at Complete*.
    // `no_partition_added`: an abort of an Empty/Complete* id starts now.
    txn_metadata prepare_end_v2(bool commit, ketch::producer_id next_pid, int64_t now_ms,
                                bool no_partition_added) const;
    // prepareComplete: CompleteCommit/CompleteAbort with no partitions; with
    // a next producer id (version 2, epoch exhausted) that id at epoch 0.
    txn_metadata prepare_complete(int64_t now_ms) const;
    bool is_epoch_exhausted_now() const { return is_epoch_exhausted(producer_epoch); }

private:
    // The state every InitProducerId leaves: Empty, no partitions, no start.
    txn_metadata initialised(int32_t new_timeout_ms, int64_t now_ms) &&;
};

// The row meta::txn_store keeps for it.
meta::stored_txn to_stored_txn(const txn_metadata& m);
txn_metadata from_stored_txn(const meta::stored_txn& s);

}  // namespace ketch::txn
