// Transitions of Kafka's TransactionMetadata (transaction-coordinator module,
// Kafka 4.3.1), for transaction versions 1 and 2.
#include "txn/txn_metadata.h"

#include <utility>

namespace ketch::txn {

// What every InitProducerId leaves (prepareTransitionTo(Empty, ...)): no
// transaction open, no partitions, the timeout the producer asked for.
txn_metadata txn_metadata::initialised(int32_t new_timeout_ms, int64_t now_ms) && {
    timeout_ms = new_timeout_ms;
    state = txn_state::empty;
    partitions.clear();
    txn_start_ms = -1;
    last_update_ms = now_ms;
    return std::move(*this);
}

result<txn_metadata, error_code> txn_metadata::prepare_increment_epoch(int32_t new_timeout_ms,
                                                                       std::optional<int16_t> expected_epoch,
                                                                       int64_t now_ms) const {
    const int16_t bumped = int16_t(producer_epoch + 1);
    int16_t next_epoch = bumped;
    int16_t last_epoch = no_producer_epoch;
    if (expected_epoch) {
        if (producer_epoch == no_producer_epoch || *expected_epoch == producer_epoch) {
            // The producer recovers from an error and nobody else initialised: bump, remember the last.
            last_epoch = producer_epoch;
        } else if (*expected_epoch == last_producer_epoch) {
            // A retry of a bump that succeeded: answer the current epoch again.
            next_epoch = producer_epoch;
            last_epoch = last_producer_epoch;
        } else {
            return failure{error_code::producer_fenced};
        }
    }
    txn_metadata t = *this;
    t.producer_epoch = next_epoch;
    t.last_producer_epoch = last_epoch;
    return std::move(t).initialised(new_timeout_ms, now_ms);
}

txn_metadata txn_metadata::prepare_producer_id_rotation(ketch::producer_id new_producer_id, int32_t new_timeout_ms,
                                                        int64_t now_ms, bool record_last_epoch) const {
    txn_metadata t = *this;
    t.previous_producer_id = producer_id;
    t.producer_id = new_producer_id.value;
    t.producer_epoch = 0;
    t.last_producer_epoch = record_last_epoch ? producer_epoch : no_producer_epoch;
    return std::move(t).initialised(new_timeout_ms, now_ms);
}

txn_metadata txn_metadata::prepare_fence_epoch(bool failed_fence) const {
    txn_metadata t = *this;
    if (!failed_fence) t.producer_epoch = int16_t(producer_epoch + 1);
    t.last_producer_epoch = no_producer_epoch;
    t.state = txn_state::prepare_epoch_fence;
    return t;
}

txn_metadata txn_metadata::prepare_add_partitions(const std::set<topic_partition>& added, int64_t now_ms,
                                                  int8_t client_txn_version) const {
    txn_metadata t = *this;
    t.client_txn_version = client_txn_version;
    if (state == txn_state::empty || state == txn_state::complete_abort || state == txn_state::complete_commit)
        t.txn_start_ms = now_ms;
    t.partitions.insert(added.begin(), added.end());
    t.state = txn_state::ongoing;
    t.last_update_ms = now_ms;
    return t;
}

txn_metadata txn_metadata::prepare_end(bool commit, int64_t now_ms) const {
    txn_metadata t = *this;
    t.state = commit ? txn_state::prepare_commit : txn_state::prepare_abort;
    t.last_update_ms = now_ms;
    return t;
}

txn_metadata txn_metadata::prepare_end_v2(bool commit, ketch::producer_id next_pid, int64_t now_ms,
                                          bool no_partition_added) const {
    txn_metadata t = *this;
    t.state = commit ? txn_state::prepare_commit : txn_state::prepare_abort;
    // Kafka logs an abort at Short.MaxValue as a bug and does not bump.
    if (!(producer_epoch == INT16_MAX && !commit)) t.producer_epoch = int16_t(producer_epoch + 1);
    t.last_producer_epoch = producer_epoch;
    if (no_partition_added) t.txn_start_ms = now_ms;
    t.next_producer_id = next_pid.value;
    t.client_txn_version = 2;
    t.last_update_ms = now_ms;
    return t;
}

txn_metadata txn_metadata::prepare_complete(int64_t now_ms) const {
    txn_metadata t = *this;
    t.state = state == txn_state::prepare_commit ? txn_state::complete_commit : txn_state::complete_abort;
    if (client_txn_version >= 2 && next_producer_id != no_producer_id) {
        // The markers carried the old id at the bumped epoch; the client now gets the new id.
        t.previous_producer_id = producer_id;
        t.producer_id = next_producer_id;
        t.producer_epoch = 0;
    }
    t.next_producer_id = no_producer_id;
    t.partitions.clear();
    t.last_update_ms = now_ms;
    return t;
}

}  // namespace ketch::txn
