// EndTxn (transaction version 1) and the completion of a transaction. Mirrors
// TransactionCoordinator.endTransactionWithTV1 and
// TransactionMarkerChannelManager.addTxnMarkersToSend / tryAppendToLog
// (Kafka 4.3.1): the EndTxn response follows the durable Prepare state; the
// markers and the Complete state follow asynchronously.
#include <memory>

#include "txn/coordinator.h"

namespace ketch::txn {

namespace {

// EndTxn for a transaction that is not ongoing: the same end again is
// answered as done (or still in progress), the other end is refused.
error_code end_of_settled(txn_state state, bool commit) {
    switch (state) {
        case txn_state::complete_commit: return commit ? error_code::none : error_code::invalid_txn_state;
        case txn_state::complete_abort: return commit ? error_code::invalid_txn_state : error_code::none;
        case txn_state::prepare_commit:
            return commit ? error_code::concurrent_transactions : error_code::invalid_txn_state;
        case txn_state::prepare_abort:
            return commit ? error_code::invalid_txn_state : error_code::concurrent_transactions;
        case txn_state::empty: return error_code::invalid_txn_state;
        case txn_state::ongoing:
        case txn_state::dead:
        case txn_state::prepare_epoch_fence: break;
    }
    return error_code::unknown_server_error;
}

}  // namespace

error_code transaction_coordinator::end_txn(const std::string& id, int64_t producer_id, int16_t producer_epoch,
                                            bool commit) {
    if (auto e = claim(id); e != error_code::none) return e;
    return end_internal(id, producer_id, producer_epoch, commit, true);
}

error_code transaction_coordinator::end_internal(const std::string& id, int64_t producer_id, int16_t producer_epoch,
                                                 bool commit, bool from_client) {
    if (id.empty()) return error_code::invalid_request;
    txn_metadata prepared;
    bool epoch_fence = false;
    {
        std::lock_guard l(mu_);
        if (!active_) return error_code::coordinator_not_available;
        auto it = txns_.find(id);
        if (it == txns_.end()) return error_code::invalid_producer_id_mapping;
        auto& e = it->second;
        auto& m = e.m;
        if (m.producer_id != producer_id) return error_code::invalid_producer_id_mapping;
        // Clients must send the current epoch; the coordinator's own aborts a newer one.
        if ((from_client && producer_epoch != m.producer_epoch) || producer_epoch < m.producer_epoch)
            return error_code::producer_fenced;
        if (e.pending && *e.pending != txn_state::prepare_epoch_fence) return error_code::concurrent_transactions;
        // A client racing the coordinator's own fence-and-abort (Kafka would
        // fail the transition with an IllegalStateException): retry later.
        if (e.pending && from_client) return error_code::concurrent_transactions;
        const bool fencing = e.pending == txn_state::prepare_epoch_fence;
        if (m.state != txn_state::ongoing) {
            if (fencing) e.pending.reset();
            return end_of_settled(m.state, commit);
        }
        if (!commit && fencing) {
            // Adopt the fencing epoch now (Kafka does so in memory before the append).
            epoch_fence = true;
            e.pending.reset();
            m.producer_epoch = producer_epoch;
            m.last_producer_epoch = no_producer_epoch;
        }
        prepared = m.prepare_end(commit, now_ms_());
        e.pending = prepared.state;
    }
    if (auto err = persist(id, prepared, epoch_fence); err != error_code::none) return err;
    return after_prepare(id, producer_id, producer_epoch, prepared, false).error;
}

end_txn_result transaction_coordinator::after_prepare(const std::string& id, int64_t producer_id,
                                                      int16_t producer_epoch, const txn_metadata& prepared, bool v2) {
    txn_metadata completed;
    {
        std::lock_guard l(mu_);
        auto it = txns_.find(id);
        if (it == txns_.end()) return {error_code::not_coordinator};
        auto& e = it->second;
        if (e.m.producer_id != producer_id) return {error_code::invalid_producer_id_mapping};
        // Version 2 ends bump the epoch: the request's epoch + 1 is the current one
        // (TransactionCoordinator.endTxnEpochBumped).
        const bool bumped = v2 && e.m.producer_epoch == int16_t(producer_epoch + 1);
        if (e.m.producer_epoch != producer_epoch && !bumped) return {error_code::producer_fenced};
        if (e.pending) return {error_code::concurrent_transactions};
        if (e.m.state != prepared.state) return {error_code::invalid_txn_state};
        e.failed_epoch_fence = false;
        completed = e.m.prepare_complete(now_ms_());
        e.pending = completed.state;
    }
    complete(id, prepared, completed);
    // The answer of EndTxn v5: the id and epoch the producer continues with.
    return {error_code::none, completed.producer_id, completed.producer_epoch};
}

void transaction_coordinator::complete(const std::string& id, txn_metadata prepared, txn_metadata completed) {
    auto c = std::make_shared<completion>();
    c->id = id;
    c->remaining.assign(prepared.partitions.begin(), prepared.partitions.end());
    // __consumer_offsets gets no marker: the group coordinator completes the offsets.
    std::erase_if(c->remaining, [](const topic_partition& tp) { return tp.topic == consumer_offsets_topic; });
    c->prepared = std::move(prepared);
    c->completed = std::move(completed);
    run_([this, c] { attempt_complete(c); });
}

// One attempt; whatever failed is tried again after the backoff, from a new
// job (TransactionMarkerChannelManager requeues failed markers the same way):
// a write that keeps failing never holds an executor thread.
void transaction_coordinator::attempt_complete(const std::shared_ptr<completion>& c) {
    if (stopped()) return;
    auto retry = [this, c] { run_later_(config_.retry_backoff_ms, [this, c] { attempt_complete(c); }); };
    const auto& p = c->prepared;
    if (!c->remaining.empty()) {
        const int32_t coordinator_epoch = own_ ? own_->coordinator_epoch(c->id) : 0;  // own_: set before requests
        auto errors = markers_.write_markers(c->remaining, p.producer_id, p.producer_epoch,
                                             p.state == txn_state::prepare_commit, coordinator_epoch);
        std::vector<topic_partition> failed;
        for (size_t i = 0; i < c->remaining.size(); ++i) {
            auto e = i < errors.size() ? errors[i] : error_code::unknown_server_error;
            if (e != error_code::none && e != error_code::unknown_topic_or_partition) failed.push_back(c->remaining[i]);
        }
        c->remaining = std::move(failed);
        if (!c->remaining.empty()) return retry();
    }
    if (!c->offsets_done) {
        if (!markers_.complete_txn_offsets(p.producer_id, p.state == txn_state::prepare_commit)) return retry();
        c->offsets_done = true;
    }
    // TransactionMarkerChannelManager.tryAppendToLog retries the Complete state until written.
    if (!store_.put_txn(to_stored_txn(c->completed)).ok()) return retry();
    std::vector<waiter> woken;
    {
        std::lock_guard l(mu_);
        auto it = txns_.find(c->id);
        if (it != txns_.end()) {
            it->second.pending.reset();
            it->second.m = c->completed;
        }
        if (auto w = completion_waiters_.find(c->id); w != completion_waiters_.end()) {
            woken = std::move(w->second);
            completion_waiters_.erase(w);
        }
    }
    for (auto& w : woken) w.second();
}

uint64_t transaction_coordinator::when_completed(const std::string& id, std::function<void()> wake) {
    std::function<void()> now;
    uint64_t token = 0;
    {
        std::lock_guard l(mu_);
        auto it = txns_.find(id);
        const bool completing =
            it != txns_.end() && it->second.pending &&
            (*it->second.pending == txn_state::complete_commit || *it->second.pending == txn_state::complete_abort);
        if (!completing || !active_) {
            now = std::move(wake);
        } else {
            auto& waiters = completion_waiters_[id];
            if (waiters.size() >= k_completion_waiters) {
                now = std::move(waiters.front().second);
                waiters.erase(waiters.begin());
            }
            token = ++next_waiter_;
            waiters.emplace_back(token, std::move(wake));
        }
    }
    if (now) now();
    return token;
}

void transaction_coordinator::forget_waiter(const std::string& id, uint64_t token) {
    if (token == 0) return;
    std::lock_guard l(mu_);
    auto w = completion_waiters_.find(id);
    if (w == completion_waiters_.end()) return;
    std::erase_if(w->second, [token](const waiter& x) { return x.first == token; });
    if (w->second.empty()) completion_waiters_.erase(w);
}

}  // namespace ketch::txn
