// Cluster mode's consumer groups (docs/cluster.md, "consumer groups"): the
// coordinator writes committed offsets and group rows to PostgreSQL
// (shared/pg_offset_store.h), and serves a group only while this broker
// holds the group's lease there. The owner of a group is the live broker
// FindCoordinator names (rendezvous hashing); the owner takes the lease —
// reading the group in the same transaction — when the group moves to it
// (a change of the live brokers, before FindCoordinator names it) or at the
// first request for a group it has not taken yet, and lets it go when the
// group moves away. A broker whose lease another took has its writes of the
// group refused, answers NOT_COORDINATOR, and takes the group back only if
// it is still its owner.
#pragma once

#include <memory>
#include <mutex>

#include "app/options.h"
#include "cluster/membership.h"
#include "group/coordinator.h"
#include "group/ownership.h"
#include "shared/pg_offset_store.h"

namespace ketch::app {

class cluster_groups final : public group::group_ownership {
public:
    // Null without --cluster (the schema is migrated by then: open_topics).
    static std::unique_ptr<shared::pg_offset_store> open_store(cluster::pg_pool* pg);

    // Fences the store's writes with this broker's leases, takes the groups
    // this broker owns now, and follows the changes of the live set.
    static std::unique_ptr<cluster_groups> follow(cluster::membership& m, int32_t self, shared::pg_offset_store& store,
                                                  group::group_coordinator& coordinator);
    cluster_groups(cluster::membership& m, int32_t self, shared::pg_offset_store& store,
                   group::group_coordinator& coordinator);
    ~cluster_groups() override;

    bool serves(const std::string& group_id) override;
    // The lease read in PostgreSQL (shared::pg_offset_store::confirm), unless
    // vouched for in memory (below).
    confirmation confirm(const std::string& group_id) override;
    // The lease is vouched for in memory while it was found this broker's
    // (taken, confirmed, a write fenced) during the membership's current
    // unbroken run of heartbeats and that run's window is still open
    // (cluster::membership::window): no other broker can have found this
    // one gone, so none took the group for that reason.
    bool unconfirmed(const std::string& group_id) override;
    // Not held here, and this broker's by the live set (no I/O).
    bool takes_over(const std::string& group_id) override;

    // What the coordinator reads of the shared store when a transaction's end
    // is heard (group_coordinator::txn_offsets_completed).
    static group::group_coordinator::txn_end_reads txn_reads(shared::pg_offset_store& store);

private:
    bool on_change(const cluster::broker_list& after);
    bool owns(const std::string& group) const;  // by view_
    // Whether a lease found this broker's at `confirmed` is still vouched for.
    bool vouched(std::chrono::steady_clock::time_point confirmed) const;
    bool take(const std::string& group);
    // The transactions whose offsets a take read pending may have ended
    // before the coordinator held them: the store says what is still pending.
    void settle(const std::vector<int64_t>& producers);
    void let_go(const std::string& group);

    cluster::membership& membership_;
    const int32_t self_;
    shared::pg_offset_store& store_;
    group::group_coordinator& coordinator_;
    mutable std::mutex view_mu_;
    // The live set ownership follows: the membership's, ahead of it while a
    // change is being taken in (so a request meanwhile does not take back a
    // group just let go).
    std::shared_ptr<const cluster::broker_list> view_;
    std::mutex take_mu_;  // one take at a time
};

}  // namespace ketch::app
