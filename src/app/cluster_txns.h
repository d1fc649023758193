// Cluster mode's transaction coordinators (docs/design/cluster.md
// "transactions"): a transactional id is coordinated by its owner among the
// live brokers (owner_of(live, "txn:<id>"), what FindCoordinator names),
// which holds the id's lease in PostgreSQL (shared/pg_txn_store.h) and
// serves it from the state read when it took the lease. An id it does not
// own is answered NOT_COORDINATOR. Ids with an unfinished transaction whose
// owner is this broker are taken by the periodic timeout check, so a
// coordinator that died has its prepared transactions completed and its
// open ones aborted after their timeout by the broker that owns them now.
// When the live set moves an id it holds to another broker, its lease is
// given back at once (the owner cannot take a lease whose holder's session
// is open: pg_txn_store::acquire), and again at each timeout check
// (orphans()) if that give-back failed.
#pragma once

#include <memory>
#include <mutex>

#include "cluster/membership.h"
#include "shared/pg_txn_store.h"
#include "txn/coordinator.h"
#include "txn/ownership.h"

namespace ketch::app {

class cluster_txns final : public txn::txn_ownership {
public:
    cluster_txns(cluster::membership& m, int32_t self, shared::pg_txn_store& store,
                 txn::transaction_coordinator& coordinator);
    ~cluster_txns() override;

    serving serve(const std::string& id) override;
    std::vector<std::string> orphans() override;
    int32_t coordinator_epoch(const std::string& id) override { return int32_t(store_.lease_epoch(id)); }

private:
    bool owns(const std::string& id) const;
    // Gives back the leases of the ids `live` names another broker the owner of.
    void release_moved(const cluster::broker_list& live);
    void give_back(const std::string& id);  // the id's lease deleted (if held or lost here), or a warning

    // What the membership's heartbeat thread calls: cleared by the destructor
    // (the membership outlives this object).
    struct hook {
        std::mutex mu;
        cluster_txns* self = nullptr;
    };
    std::shared_ptr<hook> hook_ = std::make_shared<hook>();

    cluster::membership& membership_;
    const int32_t self_;
    shared::pg_txn_store& store_;
    txn::transaction_coordinator& coordinator_;
    std::mutex take_mu_;  // one take or give-back at a time
};

}  // namespace ketch::app
