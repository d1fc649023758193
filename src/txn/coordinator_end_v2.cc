// EndTxn with transaction version 2 (KIP-890; EndTxn v5+ and the
// coordinator's own aborts). Mirrors TransactionCoordinator.endTransaction
// and TransactionMetadata.prepareAbortOrCommit / prepareComplete (Kafka
// 4.3.1, kafka_2.13 and kafka-transaction-coordinator):
// - every end bumps the epoch; the markers carry the bumped epoch and the
//   answer the producer id and epoch the client continues with;
// - an exhausted epoch gets a new producer id at Prepare*, adopted (epoch 0)
//   at Complete*;
// - a retried EndTxn (its epoch is the current one - 1, or the old id at
//   Short.MaxValue - 1 after a rotation) is answered with the current id and
//   epoch; the same epoch on a Complete* or Empty id starts the next end;
// - an abort with nothing added (Empty, Complete*) is accepted: epoch bumped,
//   no markers.
#include "txn/coordinator.h"

namespace ketch::txn {

namespace {

// TransactionCoordinator.endTransaction's isValidEpoch (not fencing).
bool valid_epoch_v2(const txn_metadata& m, int16_t epoch, bool retry_on_bump, bool retry_on_overflow) {
    switch (m.state) {
        case txn_state::ongoing:
        case txn_state::empty:
        case txn_state::dead:
        case txn_state::prepare_epoch_fence: return epoch == m.producer_epoch;
        case txn_state::prepare_commit:
        case txn_state::prepare_abort: return retry_on_bump;
        case txn_state::complete_commit:
        case txn_state::complete_abort: return retry_on_bump || retry_on_overflow || epoch == m.producer_epoch;
    }
    return false;
}

}  // namespace

end_txn_result transaction_coordinator::end_txn_v2(const std::string& id, int64_t producer_id, int16_t producer_epoch,
                                                   bool commit) {
    if (auto e = claim(id); e != error_code::none) return {e};
    return end_internal_v2(id, producer_id, producer_epoch, commit, true);
}

result<txn_metadata, error_code> transaction_coordinator::prepare_end_v2_locked(entry& e, bool commit,
                                                                                bool no_partition_added, bool fencing) {
    int64_t next_pid = no_producer_id;
    if (!fencing && e.m.is_epoch_exhausted_now()) {
        try {
            next_pid = next_producer_id_();
        } catch (const std::exception&) {
            return failure{error_code::unknown_server_error};
        }
    }
    // A fence's epoch is not adopted: prepareAbortOrCommit bumps the current one.
    auto prepared = e.m.prepare_end_v2(commit, ketch::producer_id{next_pid}, now_ms_(), no_partition_added);
    e.pending = prepared.state;
    return prepared;
}

end_txn_result transaction_coordinator::end_internal_v2(const std::string& id, int64_t producer_id,
                                                        int16_t producer_epoch, bool commit, bool from_client) {
    if (id.empty()) return {error_code::invalid_request};
    txn_metadata prepared;
    bool fencing = false;
    {
        std::lock_guard l(mu_);
        if (!active_) return {error_code::coordinator_not_available};
        auto it = txns_.find(id);
        if (it == txns_.end()) return {error_code::invalid_producer_id_mapping};
        auto& e = it->second;
        auto& m = e.m;
        // A client racing the coordinator's own fence-and-abort retries later
        // (Kafka would fail the transition with an IllegalStateException).
        if (e.pending && from_client) return {error_code::concurrent_transactions};
        // The coordinator's fence is this call's own pending state (mu_ is held until the next one is set).
        fencing = e.pending == txn_state::prepare_epoch_fence;
        if (fencing) e.pending.reset();
        const bool retry_on_overflow = !fencing && m.previous_producer_id == producer_id &&
                                       producer_epoch == INT16_MAX - 1 && m.producer_epoch == 0;
        const bool retry_on_bump = !fencing && m.producer_epoch == int16_t(producer_epoch + 1);
        const bool valid =
            fencing ? (!from_client || producer_epoch == m.producer_epoch) && producer_epoch >= m.producer_epoch
                    : valid_epoch_v2(m, producer_epoch, retry_on_bump, retry_on_overflow);
        const bool retry = retry_on_bump || retry_on_overflow;
        if (e.pending) return {error_code::concurrent_transactions};
        if (m.producer_id != producer_id && !retry_on_overflow) return {error_code::invalid_producer_id_mapping};
        if (!valid) return {error_code::producer_fenced};
        const end_txn_result done{error_code::none, m.producer_id, m.producer_epoch};
        const end_txn_result invalid{error_code::invalid_txn_state};
        bool no_partition_added = false;
        switch (m.state) {
            case txn_state::ongoing: break;
            case txn_state::complete_commit:
                if (commit) return retry ? done : invalid;
                if (retry) return invalid;
                no_partition_added = true;
                break;
            case txn_state::complete_abort:
                if (!commit && retry) return done;
                if (commit) return invalid;
                no_partition_added = true;
                break;
            case txn_state::prepare_commit:
                return commit ? end_txn_result{error_code::concurrent_transactions} : invalid;
            case txn_state::prepare_abort:
                return commit ? invalid : end_txn_result{error_code::concurrent_transactions};
            case txn_state::empty:
                if (commit) return invalid;
                no_partition_added = true;
                break;
            case txn_state::dead:
            case txn_state::prepare_epoch_fence: return {error_code::unknown_server_error};
        }
        auto p = prepare_end_v2_locked(e, commit, no_partition_added, fencing);
        if (!p.ok()) return {p.error()};
        prepared = *p;
    }
    if (auto err = persist(id, prepared, fencing); err != error_code::none) return {err};
    return after_prepare(id, producer_id, producer_epoch, prepared, true);
}

}  // namespace ketch::txn
