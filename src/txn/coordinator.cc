// InitProducerId, AddPartitionsToTxn, Describe/ListTransactions, load and the
// periodic tasks. Mirrors TransactionCoordinator.handleInitProducerId /
// prepareInitProducerIdTransit / handleAddPartitionsToTransaction /
// handleVerifyPartitionsInTransaction / handleDescribeTransactions and
// TransactionStateManager.listTransactionStates / timedOutTransactions /
// removeExpiredTransactionalIds (Kafka 4.3.1).
#include "txn/coordinator.h"

#include <algorithm>
#include <optional>

#include <re2/re2.h>

namespace ketch::txn {

namespace {

// The fields txn_metadata and its stored row (meta::stored_txn) hold alike,
// copied either way; the state and the partitions differ in type.
template <class To, class From>
void copy_common_fields(To& to, const From& from) {
    to.transactional_id = from.transactional_id;
    to.producer_id = from.producer_id;
    to.previous_producer_id = from.previous_producer_id;
    to.producer_epoch = from.producer_epoch;
    to.last_producer_epoch = from.last_producer_epoch;
    to.timeout_ms = from.timeout_ms;
    to.txn_start_ms = from.txn_start_ms;
    to.last_update_ms = from.last_update_ms;
    to.next_producer_id = from.next_producer_id;
    to.client_txn_version = from.client_txn_version;
}

}  // namespace

meta::stored_txn to_stored_txn(const txn_metadata& m) {
    meta::stored_txn s;
    copy_common_fields(s, m);
    s.state = int8_t(m.state);
    for (auto& tp : m.partitions) s.partitions.emplace_back(tp.topic, tp.partition);
    return s;
}

txn_metadata from_stored_txn(const meta::stored_txn& s) {
    txn_metadata m;
    copy_common_fields(m, s);
    m.state = txn_state(s.state);
    for (auto& [t, p] : s.partitions) m.partitions.insert({t, p});
    return m;
}

transaction_coordinator::transaction_coordinator(txn_config config, std::function<int64_t()> now_ms,
                                                 std::function<int64_t()> next_producer_id, meta::txn_store& store,
                                                 marker_writer& markers, executor run, delayed_executor run_later)
    : config_(config),
      now_ms_(std::move(now_ms)),
      next_producer_id_(std::move(next_producer_id)),
      store_(store),
      markers_(markers),
      run_(std::move(run)),
      run_later_(std::move(run_later)) {
    if (!run_later_) run_later_ = [this](int64_t, std::function<void()> job) { run_(std::move(job)); };
}

status<meta::store_error> transaction_coordinator::load() {
    auto rows = store_.load_txns();
    if (!rows.ok()) return failure{rows.error()};
    std::vector<std::pair<std::string, std::pair<txn_metadata, txn_metadata>>> to_complete;
    {
        std::lock_guard l(mu_);
        const int64_t now = now_ms_();
        for (auto& s : *rows) {
            auto m = from_stored_txn(s);
            auto& e = txns_[m.transactional_id];
            e.m = m;
            // TransactionStateManager.loadTransactionsForTxnTopicPartition:
            // prepared transactions are completed (markers resent).
            if (m.state == txn_state::prepare_commit || m.state == txn_state::prepare_abort) {
                auto done = m.prepare_complete(now);
                e.pending = done.state;
                to_complete.push_back({m.transactional_id, {m, done}});
            }
        }
        active_ = true;
    }
    for (auto& [id, p] : to_complete) complete(id, p.first, p.second);
    return ok_v;
}

void transaction_coordinator::shutdown() {
    std::map<std::string, std::vector<waiter>> woken;
    {
        std::lock_guard l(mu_);
        active_ = false;
        woken.swap(completion_waiters_);
    }
    for (auto& [id, waiters] : woken)
        for (auto& w : waiters) w.second();
}

bool transaction_coordinator::stopped() {
    std::lock_guard l(mu_);
    return !active_;
}

error_code transaction_coordinator::persist(const std::string& id, const txn_metadata& next, bool epoch_fence) {
    auto st = store_.put_txn(to_stored_txn(next));
    std::lock_guard l(mu_);
    auto it = txns_.find(id);
    if (it == txns_.end()) return error_code::not_coordinator;
    it->second.pending.reset();
    // A failed append to __transaction_state is answered COORDINATOR_NOT_AVAILABLE
    // (TransactionStateManager.appendTransactionToLog maps storage errors to
    // retriable coordinator errors).
    if (!st.ok()) {
        // The fencing epoch stays in memory, unreturned: the next fence reuses
        // it rather than bumping again (TransactionCoordinator's hasFailedEpochFence).
        if (epoch_fence) it->second.failed_epoch_fence = true;
        return error_code::coordinator_not_available;
    }
    it->second.m = next;
    return error_code::none;
}

transaction_coordinator::entry* transaction_coordinator::find_or_create_locked(std::unique_lock<std::mutex>& l,
                                                                               const std::string& id,
                                                                               int32_t timeout_ms) {
    if (auto it = txns_.find(id); it != txns_.end()) return &it->second;
    int64_t pid;
    try {
        l.unlock();
        pid = next_producer_id_();
        l.lock();
    } catch (const std::exception&) {
        return nullptr;
    }
    auto it = txns_.find(id);  // another InitProducerId may have created it meanwhile
    if (it == txns_.end()) {
        entry e;
        e.m.transactional_id = id;
        e.m.producer_id = pid;
        e.m.timeout_ms = timeout_ms;
        e.m.last_update_ms = now_ms_();
        it = txns_.emplace(id, std::move(e)).first;
    }
    return &it->second;
}

init_pid_result transaction_coordinator::init_producer_id(const std::string& id, int32_t timeout_ms,
                                                          std::optional<pid_and_epoch> expected) {
    if (id.empty()) return {error_code::invalid_request};
    if (timeout_ms <= 0 || timeout_ms > config_.max_timeout_ms) return {error_code::invalid_transaction_timeout};
    if (auto e = claim(id); e != error_code::none) return {e};
    txn_metadata next;
    bool fence = false;
    {
        std::unique_lock l(mu_);
        if (!active_) return {error_code::coordinator_not_available};
        entry* found = find_or_create_locked(l, id, timeout_ms);
        if (!found) return {error_code::unknown_server_error};
        auto& e = *found;
        auto& m = e.m;
        if (e.pending) return {error_code::concurrent_transactions};
        if (expected) {
            const bool valid =
                m.producer_epoch == no_producer_epoch || expected->producer_id == m.producer_id ||
                (expected->producer_id == m.previous_producer_id && is_epoch_exhausted(expected->producer_epoch));
            if (!valid) return {error_code::producer_fenced};
        }
        const int64_t now = now_ms_();
        switch (m.state) {
            case txn_state::prepare_abort:
            case txn_state::prepare_commit: return {error_code::concurrent_transactions};
            case txn_state::complete_abort:
            case txn_state::complete_commit:
            case txn_state::empty:
                if (m.is_epoch_exhausted_now() && (!expected || expected->producer_epoch == m.producer_epoch)) {
                    int64_t pid;
                    try {
                        pid = next_producer_id_();
                    } catch (const std::exception&) {
                        return {error_code::unknown_server_error};
                    }
                    next =
                        m.prepare_producer_id_rotation(ketch::producer_id{pid}, timeout_ms, now, expected.has_value());
                } else {
                    auto r = m.prepare_increment_epoch(
                        timeout_ms, expected ? std::optional<int16_t>(expected->producer_epoch) : std::nullopt, now);
                    if (!r.ok()) return {r.error()};
                    next = *r;
                }
                e.pending = next.state;
                break;
            case txn_state::ongoing:
                // Fence the producer (epoch + 1, never returned), abort its
                // transaction; the client retries on CONCURRENT_TRANSACTIONS and
                // then gets the epoch bumped once more.
                next = m.prepare_fence_epoch(e.failed_epoch_fence);
                e.pending = txn_state::prepare_epoch_fence;
                fence = true;
                break;
            case txn_state::dead:
            case txn_state::prepare_epoch_fence: return {error_code::unknown_server_error};
        }
    }
    if (fence) {
        // handleInitProducerId aborts at the server's transaction version (2).
        auto err = end_internal_v2(id, next.producer_id, next.producer_epoch, false, false).error;
        return {err == error_code::none ? error_code::concurrent_transactions : err};
    }
    auto err = persist(id, next);
    if (err != error_code::none) return {err};
    return {error_code::none, next.producer_id, next.producer_epoch};
}

error_code transaction_coordinator::add_partitions(const std::string& id, int64_t producer_id, int16_t producer_epoch,
                                                   const std::vector<topic_partition>& partitions,
                                                   int8_t client_txn_version) {
    if (id.empty()) return error_code::invalid_request;
    if (auto e = claim(id); e != error_code::none) return e;
    txn_metadata next;
    {
        std::lock_guard l(mu_);
        if (!active_) return error_code::coordinator_not_available;
        auto it = txns_.find(id);
        if (it == txns_.end()) return error_code::invalid_producer_id_mapping;
        auto& e = it->second;
        if (e.m.producer_id != producer_id) return error_code::invalid_producer_id_mapping;
        if (e.m.producer_epoch != producer_epoch) return error_code::producer_fenced;
        if (e.pending) return error_code::concurrent_transactions;
        if (e.m.state == txn_state::prepare_commit || e.m.state == txn_state::prepare_abort)
            return error_code::concurrent_transactions;
        std::set<topic_partition> added(partitions.begin(), partitions.end());
        if (e.m.state == txn_state::ongoing &&
            std::includes(e.m.partitions.begin(), e.m.partitions.end(), added.begin(), added.end()))
            return error_code::none;
        next = e.m.prepare_add_partitions(added, now_ms_(), client_txn_version);
        e.pending = next.state;
    }
    return persist(id, next);
}

std::vector<std::pair<topic_partition, error_code>> transaction_coordinator::verify_partitions(
    const std::string& id, int64_t producer_id, int16_t producer_epoch,
    const std::vector<topic_partition>& partitions) {
    std::vector<std::pair<topic_partition, error_code>> out;
    auto all = [&](error_code e) {
        for (auto& tp : partitions) out.emplace_back(tp, e);
        return out;
    };
    if (id.empty()) return all(error_code::invalid_request);
    if (auto e = claim(id); e != error_code::none) return all(e);
    std::lock_guard l(mu_);
    if (!active_) return all(error_code::coordinator_not_available);
    auto it = txns_.find(id);
    if (it == txns_.end() || it->second.m.producer_id != producer_id)
        return all(error_code::invalid_producer_id_mapping);
    auto& m = it->second.m;
    if (m.producer_epoch != producer_epoch) return all(error_code::producer_fenced);
    if (m.state == txn_state::prepare_commit || m.state == txn_state::prepare_abort)
        return all(error_code::concurrent_transactions);
    for (auto& tp : partitions)
        out.emplace_back(tp, m.partitions.count(tp) ? error_code::none : error_code::transaction_abortable);
    return out;
}

described_txn transaction_coordinator::describe(const std::string& id) {
    described_txn d;
    d.transactional_id = id;
    std::lock_guard l(mu_);
    if (!active_) {
        d.error = error_code::coordinator_not_available;
        return d;
    }
    if (id.empty()) {
        d.error = error_code::invalid_request;
        return d;
    }
    auto it = txns_.find(id);
    if (it == txns_.end() || it->second.m.state == txn_state::dead) {
        d.error = error_code::transactional_id_not_found;
        return d;
    }
    auto& m = it->second.m;
    d.state = std::string(state_name(m.state));
    d.timeout_ms = m.timeout_ms;
    d.start_ms = m.txn_start_ms;
    d.producer_id = m.producer_id;
    d.producer_epoch = m.producer_epoch;
    d.partitions.assign(m.partitions.begin(), m.partitions.end());
    return d;
}

list_txns_result transaction_coordinator::list(const std::vector<std::string>& state_filters,
                                               const std::vector<int64_t>& producer_ids, int64_t duration_filter_ms,
                                               const std::string& id_pattern) {
    list_txns_result r;
    std::lock_guard l(mu_);
    if (!active_) {
        r.error = error_code::coordinator_not_available;
        return r;
    }
    // TransactionStateManager.listTransactionStates: a pattern that does not
    // compile fails the whole request with INVALID_REGULAR_EXPRESSION.
    std::optional<re2::RE2> pattern;
    if (!id_pattern.empty()) {
        re2::RE2::Options options;
        options.set_log_errors(false);
        pattern.emplace(id_pattern, options);
        if (!pattern->ok()) return {error_code::invalid_regular_expression, {}, {}};
    }
    std::set<txn_state> states;
    for (auto& name : state_filters) {
        if (auto s = state_from_name(name))
            states.insert(*s);
        else
            r.unknown_state_filters.push_back(name);
    }
    const int64_t now = now_ms_();
    for (auto& [id, e] : txns_) {
        auto& m = e.m;
        if (m.state == txn_state::dead) continue;
        if (!producer_ids.empty() &&
            std::find(producer_ids.begin(), producer_ids.end(), m.producer_id) == producer_ids.end())
            continue;
        if (!state_filters.empty() && !states.count(m.state)) continue;
        if (duration_filter_ms >= 0 && now - m.txn_start_ms <= duration_filter_ms) continue;
        if (pattern && !re2::RE2::FullMatch(id, *pattern)) continue;
        r.txns.push_back({id, m.producer_id, std::string(state_name(m.state))});
    }
    return r;
}

void transaction_coordinator::abort_timed_out() {
    claim_orphans();
    std::vector<std::pair<std::string, txn_metadata>> doomed;
    {
        std::lock_guard l(mu_);
        if (!active_) return;
        const int64_t now = now_ms_();
        for (auto& [id, e] : txns_) {
            if (e.pending || e.m.state != txn_state::ongoing) continue;
            if (e.m.txn_start_ms + e.m.timeout_ms >= now) continue;
            // abortTimedOutTransactions: fence (epoch + 1), then abort.
            auto fenced = e.m.prepare_fence_epoch(e.failed_epoch_fence);
            e.pending = txn_state::prepare_epoch_fence;
            doomed.emplace_back(id, fenced);
        }
    }
    // abortTimedOutTransactions aborts at the server's transaction version (2).
    for (auto& [id, f] : doomed) end_internal_v2(id, f.producer_id, f.producer_epoch, false, false);
}

void transaction_coordinator::expire_transactional_ids() {
    std::vector<std::string> doomed;
    {
        std::lock_guard l(mu_);
        if (!active_) return;
        const int64_t now = now_ms_();
        for (auto& [id, e] : txns_) {
            if (e.pending || !is_expiration_allowed(e.m.state)) continue;
            if (e.m.last_update_ms > now - config_.transactional_id_expiration_ms) continue;
            e.pending = txn_state::dead;
            doomed.push_back(id);
        }
    }
    for (auto& id : doomed) {
        auto st = store_.delete_txn(id);
        std::lock_guard l(mu_);
        auto it = txns_.find(id);
        if (it == txns_.end()) continue;
        if (st.ok())
            txns_.erase(it);
        else
            it->second.pending.reset();
    }
}

std::optional<txn_metadata> transaction_coordinator::state_of(const std::string& id) {
    std::lock_guard l(mu_);
    auto it = txns_.find(id);
    if (it == txns_.end()) return std::nullopt;
    return it->second.m;
}

std::optional<txn_state> transaction_coordinator::pending_of(const std::string& id) {
    std::lock_guard l(mu_);
    auto it = txns_.find(id);
    if (it == txns_.end()) return std::nullopt;
    return it->second.pending;
}

}  // namespace ketch::txn
