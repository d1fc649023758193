#include "app/cluster_groups.h"

#include <spdlog/spdlog.h>

#include "broker/live_brokers.h"

namespace ketch::app {

namespace {

int32_t owner(const cluster::broker_list& live, const std::string& group) {
    std::vector<broker::listed_broker> l;
    l.reserve(live.size());
    for (auto& b : live) l.push_back({b.node_id, {}, 0, {}});
    return broker::owner_of(l, "group:" + group).node_id;
}

}  // namespace

std::unique_ptr<shared::pg_offset_store> cluster_groups::open_store(cluster::pg_pool* pg) {
    if (!pg) return nullptr;
    return std::make_unique<shared::pg_offset_store>(*pg, true);
}

cluster_groups::cluster_groups(cluster::membership& m, int32_t self, shared::pg_offset_store& store,
                               group::group_coordinator& coordinator)
    : membership_(m), self_(self), store_(store), coordinator_(coordinator), view_(m.live()) {}

// The membership (whose heartbeat thread calls on_change) is gone by now:
// cluster_service destroys it first.
cluster_groups::~cluster_groups() { coordinator_.set_ownership(nullptr); }

std::unique_ptr<cluster_groups> cluster_groups::follow(cluster::membership& m, int32_t self,
                                                       shared::pg_offset_store& store,
                                                       group::group_coordinator& coordinator) {
    auto g = std::make_unique<cluster_groups>(m, self, store, coordinator);
    store.set_holder(self, m.incarnation());
    coordinator.set_ownership(g.get());
    (void)g->on_change(*m.live());  // the groups owned now; any not taken is taken at its first request
    m.add_change_listener(
        [p = g.get()](const cluster::broker_list&, const cluster::broker_list& after) { return p->on_change(after); });
    return g;
}

bool cluster_groups::owns(const std::string& group) const {
    std::shared_ptr<const cluster::broker_list> view;
    {
        std::lock_guard l(view_mu_);
        view = view_;
    }
    return owner(*view, group) == self_;
}

bool cluster_groups::serves(const std::string& group_id) {
    if (store_.holds(group_id)) return true;
    if (!owns(group_id)) {
        let_go(group_id);  // lost to the broker that owns it now
        return false;
    }
    return take(group_id);
}

bool cluster_groups::takes_over(const std::string& group_id) { return !store_.holds(group_id) && owns(group_id); }

bool cluster_groups::take(const std::string& group) {
    std::vector<int64_t> producers;  // with offsets of the group pending
    {
        std::lock_guard l(take_mu_);
        if (store_.holds(group)) return true;
        int64_t epoch = 0;
        size_t offsets_read = 0, pending_read = 0;
        const bool ok = coordinator_.acquire_group(group, [&](auto& rows, auto& offsets) {
            auto a = store_.acquire(group);
            if (!a.ok()) {
                spdlog::warn("cluster: group '{}' not taken over: {}", group, a.error().message);
                return false;
            }
            epoch = a->epoch;
            offsets_read = a->offsets.size();
            pending_read = a->pending.size();
            rows = std::move(a->rows);
            offsets = std::move(a->offsets);
            // Under the group's order lock: no TxnOffsetCommit of the group
            // here between the read and this.
            producers = coordinator_.adopt_pending_txn_offsets(group, a->pending);
            return true;
        });
        if (!ok) return false;
        spdlog::info(
            "cluster: group '{}' taken over (lease epoch {}), read from PostgreSQL ({} committed offsets, {} pending "
            "in transactions)",
            group, epoch, offsets_read, pending_read);
    }
    settle(producers);  // out of take_mu_: it may ask serves()
    return true;
}

void cluster_groups::settle(const std::vector<int64_t>& producers) {
    // A transaction that ended between the take's read and the adoption was
    // heard by a coordinator that did not hold its offsets yet: read the
    // store again (what is no longer pending goes; the committed offsets are
    // read back, whichever way it ended).
    for (auto pid : producers)
        if (!coordinator_.txn_offsets_completed(pid, true, txn_reads(store_)))
            spdlog::warn("cluster: producer {}'s pending offsets not settled: reading them failed", pid);
}

bool cluster_groups::vouched(std::chrono::steady_clock::time_point confirmed) const {
    return membership_.window().vouches(confirmed, std::chrono::steady_clock::now());
}

bool cluster_groups::unconfirmed(const std::string& group_id) {
    auto at = store_.confirmed_at(group_id);
    return at && !vouched(*at);
}

group::group_ownership::confirmation cluster_groups::confirm(const std::string& group_id) {
    if (auto at = store_.confirmed_at(group_id); at && vouched(*at)) return confirmation::held;
    auto r = store_.confirm(group_id);
    if (!r.ok()) {
        spdlog::warn("cluster: group '{}': its lease not confirmed: {}", group_id, r.error().message);
        return confirmation::unknown;
    }
    return *r ? confirmation::held : confirmation::moved;
}

group::group_coordinator::txn_end_reads cluster_groups::txn_reads(shared::pg_offset_store& store) {
    auto optional_of = [](auto r) {
        return r.ok() ? std::optional<std::vector<meta::stored_offset>>(std::move(*r)) : std::nullopt;
    };
    return {[&store, optional_of](int64_t pid) { return optional_of(store.pending_txn_keys(pid)); },
            [&store, optional_of](const std::string& group) {
                return optional_of(store.load_offsets_of({&group, 1}));
            }};
}

void cluster_groups::let_go(const std::string& group) {
    // What this broker held of the group goes (parked JoinGroup/SyncGroup
    // answered NOT_COORDINATOR, timers cancelled, nothing written).
    if (store_.forget(group)) coordinator_.reload_groups({group}, {}, {});
}

bool cluster_groups::on_change(const cluster::broker_list& after) {
    {
        std::lock_guard l(view_mu_);
        view_ = std::make_shared<const cluster::broker_list>(after);
    }
    for (auto& g : store_.leased_groups())
        if (!owns(g)) let_go(g);
    auto ids = store_.group_ids();
    if (!ids.ok()) {
        spdlog::warn("cluster: groups moving here not read yet: {}", ids.error().message);
        return false;
    }
    size_t moved = 0;
    for (auto& g : *ids) {
        if (!owns(g) || store_.holds(g)) continue;
        if (!take(g)) return false;  // offered again after the next heartbeat
        ++moved;
    }
    if (moved) spdlog::info("cluster: {} group(s) moved to this broker, read from PostgreSQL", moved);
    return true;
}

}  // namespace ketch::app
