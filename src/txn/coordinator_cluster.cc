// The transaction coordinator in cluster mode (txn/ownership.h;
// docs/design/cluster.md "transactions"): ids claimed before each request,
// adopted from the store when taken, orphans of a dead coordinator taken by
// their new owner.
#include "txn/coordinator.h"

namespace ketch::txn {

void transaction_coordinator::set_ownership(txn_ownership* o) {
    std::lock_guard l(mu_);
    own_ = o;
}

error_code transaction_coordinator::claim(const std::string& id) {
    txn_ownership* own = nullptr;
    {
        std::lock_guard l(mu_);
        own = own_;
    }
    if (!own) return error_code::none;
    auto s = own->serve(id);
    if (!s.owned) {
        std::lock_guard l(mu_);
        txns_.erase(id);  // another broker coordinates it now
        return error_code::not_coordinator;
    }
    if (s.taken) adopt(id, *s.taken);
    return error_code::none;
}

void transaction_coordinator::adopt(const std::string& id, const std::optional<meta::stored_txn>& stored) {
    std::optional<std::pair<txn_metadata, txn_metadata>> to_complete;
    {
        std::lock_guard l(mu_);
        txns_.erase(id);
        if (!stored) return;
        auto m = from_stored_txn(*stored);
        auto& e = txns_[id];
        e.m = m;
        // As load(): a prepared transaction is completed (markers sent again;
        // a partition that has the marker already gets a second one, which
        // closes nothing and aborts nothing).
        if (m.state == txn_state::prepare_commit || m.state == txn_state::prepare_abort) {
            auto done = m.prepare_complete(now_ms_());
            e.pending = done.state;
            to_complete = {m, done};
        }
    }
    if (to_complete) complete(id, to_complete->first, to_complete->second);
}

void transaction_coordinator::claim_orphans() {
    txn_ownership* own = nullptr;
    {
        std::lock_guard l(mu_);
        if (!active_) return;
        own = own_;
    }
    if (!own) return;
    for (auto& id : own->orphans()) (void)claim(id);
}

}  // namespace ketch::txn
