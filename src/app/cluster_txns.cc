#include "app/cluster_txns.h"

#include <spdlog/spdlog.h>

#include "broker/live_brokers.h"

namespace ketch::app {

cluster_txns::cluster_txns(cluster::membership& m, int32_t self, shared::pg_txn_store& store,
                           txn::transaction_coordinator& coordinator)
    : membership_(m), self_(self), store_(store), coordinator_(coordinator) {
    store_.set_holder(self, m.incarnation());
    coordinator_.set_ownership(this);
    hook_->self = this;
    m.add_change_listener([h = hook_](const cluster::broker_list&, const cluster::broker_list& after) {
        std::lock_guard l(h->mu);
        if (h->self) h->self->release_moved(after);
        return true;
    });
}

cluster_txns::~cluster_txns() {
    {
        std::lock_guard l(hook_->mu);
        hook_->self = nullptr;
    }
    coordinator_.set_ownership(nullptr);
}

namespace {

bool owner_is(const cluster::broker_list& live, const std::string& id, int32_t self) {
    std::vector<broker::listed_broker> l;
    l.reserve(live.size());
    for (auto& b : live) l.push_back({b.node_id, {}, 0, {}});
    if (l.empty()) return true;  // this broker is always live to itself
    return broker::owner_of(l, "txn:" + id).node_id == self;
}

}  // namespace

bool cluster_txns::owns(const std::string& id) const { return owner_is(*membership_.live(), id, self_); }

// Under take_mu_ from the list of leases to the last release: a take in
// progress (serve) ends before the list is read, so its lease is in it.
void cluster_txns::release_moved(const cluster::broker_list& live) {
    std::lock_guard l(take_mu_);
    for (auto& id : store_.leased_ids())
        if (!owner_is(live, id, self_)) give_back(id);
}

void cluster_txns::give_back(const std::string& id) {
    if (auto r = store_.release(id); !r.ok())
        spdlog::warn("cluster: transactional id '{}' not given back: {}", id, r.error().message);
}

txn::txn_ownership::serving cluster_txns::serve(const std::string& id) {
    std::lock_guard l(take_mu_);
    if (!owns(id)) {
        // Given back, not only forgotten: the live set may have moved the id
        // before release_moved ran, and a lease left in PostgreSQL under a live
        // broker refuses the new owner's take for as long as this broker lives.
        give_back(id);
        return {false, std::nullopt};
    }
    if (store_.holds(id)) return {};
    auto a = store_.acquire(id);
    if (!a.ok()) {
        spdlog::warn("cluster: transactional id '{}' not taken over: {}", id, a.error().message);
        return {false, std::nullopt};
    }
    spdlog::info("cluster: transactional id '{}' taken over ({})", id, *a ? "state read" : "new");
    return {true, std::move(*a)};
}

std::vector<std::string> cluster_txns::orphans() {
    // A give-back that failed when the live set moved the id (PostgreSQL
    // away for a moment) is tried again at each check: no request reaches
    // serve() for an id the broker knows it does not own, so the lease would
    // otherwise stay under this live broker, refusing the owner, until the
    // live set changes again.
    release_moved(*membership_.live());
    auto ids = store_.unfinished_ids();
    if (!ids.ok()) {
        spdlog::warn("cluster: unfinished transactions not read: {}", ids.error().message);
        return {};
    }
    std::vector<std::string> out;
    for (auto& id : *ids)
        if (!store_.holds(id) && owns(id)) out.push_back(id);
    return out;
}

}  // namespace ketch::app
