// The share coordinator (KIP-932) as the broker runs it: group.share.*
// settings from the flags, per-group share.* overrides from the GROUP config
// registry, delivery state in shares.db, and a timer (on the group
// service's thread) that expires members and acquisition locks.
#pragma once

#include <memory>

#include "app/options.h"
#include "app/periodic.h"
#include "cluster/membership.h"
#include "meta/resource_config_registry.h"
#include "meta/topic_registry.h"
#include "share/coordinator.h"
#include "shared/pg_share_store.h"
#include "shared/shared_engine.h"

namespace ketch::broker {
struct broker_context;
}

namespace ketch::app {

struct stores;
struct group_service;

// Cluster mode: share-partition leases taken by another broker's offsets
// administration drop what this broker held of them
// (share::coordinator::drop_moved). GROUP configs (share.*) are shared with
// the other GROUP and CLIENT_METRICS resources (run_broker's
// follow_resource_configs). Nothing on a single node.
class share_leases_follower {
public:
    // `engine`: the storage's owner (stop_storage resets it before this goes).
    share_leases_follower(std::unique_ptr<shared::shared_engine>& engine, share::coordinator& shares);
    ~share_leases_follower();
    share_leases_follower(const share_leases_follower&) = delete;
    share_leases_follower& operator=(const share_leases_follower&) = delete;

private:
    std::unique_ptr<shared::shared_engine>& engine_;
};

struct share_service {
    // Throws std::runtime_error when shares.db cannot be read. Sets ctx.shares.
    share_service(const options& opt, stores& s, const meta::topic_registry& topics, group_service& groups,
                  broker::broker_context& ctx);
    // Cluster mode (docs/design/cluster.md "share groups"): share-partitions
    // are served by their partition's leader (Metadata's: broker::partition_leader
    // over the serving brokers) under its lease. Nothing without --cluster.
    // Call before serving; `m` outlives the requests.
    void follow(const cluster::membership* m, int32_t self, std::unique_ptr<shared::shared_engine>& engine);
    // Cluster mode: the share-partitions' state in PostgreSQL (not shares.db).
    std::unique_ptr<shared::pg_share_store> cluster_store;
    std::unique_ptr<share::coordinator> coordinator;
    std::unique_ptr<periodic> timer;
    std::unique_ptr<share_leases_follower> leases_follower;  // last: gone before the coordinator

private:
    const meta::topic_registry* topics_;  // outlives the service (run_broker's)
};

}  // namespace ketch::app
