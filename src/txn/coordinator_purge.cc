// transaction_coordinator::purge: the transactional ids of a deleted tenant
// (docs/tenancy.md "Administration"). Kafka has no call that removes a
// transactional id: its ids expire (transactional.id.expiration.ms). The
// purge does what abortTimedOutTransactions and the expiration do, at once.
#include <condition_variable>

#include "txn/coordinator.h"

namespace ketch::txn {

transaction_coordinator::purge_result transaction_coordinator::purge(
    const std::function<bool(const std::string&)>& owned, int64_t wait_ms) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(wait_ms);
    purge_result out;
    std::vector<std::string> ids;
    std::vector<std::pair<std::string, txn_metadata>> doomed;
    {
        std::lock_guard l(mu_);
        if (!active_) return out;
        for (auto& [id, e] : txns_) {
            if (!owned(id)) continue;
            ids.push_back(id);
            if (e.pending || e.m.state != txn_state::ongoing) continue;
            // As abortTimedOutTransactions: fence (epoch + 1), then abort;
            // the producer's next request is answered PRODUCER_FENCED.
            auto fenced = e.m.prepare_fence_epoch(e.failed_epoch_fence);
            e.pending = txn_state::prepare_epoch_fence;
            doomed.emplace_back(id, fenced);
        }
    }
    for (auto& [id, f] : doomed)
        if (end_internal_v2(id, f.producer_id, f.producer_epoch, false, false).error == error_code::none) ++out.aborted;
    for (auto& id : ids) {
        wait_completed(id, deadline);
        (remove_if_idle(id) ? out.removed : out.left) += 1;
    }
    return out;
}

void transaction_coordinator::wait_completed(const std::string& id, std::chrono::steady_clock::time_point deadline) {
    struct signal {
        std::mutex mu;
        std::condition_variable cv;
        bool woken = false;
    };
    for (;;) {
        {
            std::lock_guard l(mu_);
            auto it = txns_.find(id);
            if (it == txns_.end() || !it->second.pending || !active_) return;
        }
        if (std::chrono::steady_clock::now() >= deadline) return;
        auto s = std::make_shared<signal>();
        const uint64_t token = when_completed(id, [s] {
            std::lock_guard l(s->mu);
            s->woken = true;
            s->cv.notify_all();
        });
        std::unique_lock l(s->mu);
        // Woken at once (token 0): the pending state is a store write under
        // way, which has no waiters; look again shortly.
        if (token == 0) s->woken = false;
        s->cv.wait_until(l, std::min(deadline, std::chrono::steady_clock::now() + std::chrono::milliseconds(20)),
                         [&] { return s->woken; });
        l.unlock();
        forget_waiter(id, token);
    }
}

bool transaction_coordinator::remove_if_idle(const std::string& id) {
    {
        std::lock_guard l(mu_);
        auto it = txns_.find(id);
        if (it == txns_.end()) return true;  // gone already (expired meanwhile)
        if (it->second.pending || !is_expiration_allowed(it->second.m.state)) return false;
        it->second.pending = txn_state::dead;
    }
    auto st = store_.delete_txn(id);
    std::lock_guard l(mu_);
    auto it = txns_.find(id);
    if (it == txns_.end()) return st.ok();
    if (st.ok()) {
        txns_.erase(it);
        return true;
    }
    it->second.pending.reset();
    return false;
}

}  // namespace ketch::txn
