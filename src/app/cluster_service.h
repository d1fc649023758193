// Cluster mode at start-up (docs/cluster.md): checks that the object store
// answers (HEAD bucket, a conditional PUT of a probe object, its DELETE),
// then joins the cluster in PostgreSQL (schema migrations, the cluster id,
// registration, heartbeats). Not started without --cluster: a single-node
// broker loads neither libpq nor makes any of these calls.
#pragma once

#include <memory>
#include <vector>

#include "app/broker_properties.h"
#include "app/cluster_groups.h"
#include "app/cluster_txns.h"
#include "app/console_peers.h"
#include "app/options.h"
#include "app/remote_txns.h"
#include "broker/broker_context.h"
#include "cluster/membership.h"

namespace ketch::app {

struct cluster_service {
    // Set by run_broker after start; declared first so that it outlives the
    // membership, whose heartbeat thread calls it.
    std::unique_ptr<cluster_groups> groups;
    std::unique_ptr<cluster::membership> membership;
    // After the membership: gone first, so the coordinator never asks a
    // destroyed membership (it is called by requests, not by the heartbeat).
    std::unique_ptr<cluster_txns> txns;
    // The other brokers' transaction coordinators (broker::remote_txns_of); gone
    // before the membership, whose live set it reads.
    std::unique_ptr<remote_txns> remote;
    // The console's calls to the other brokers (console_peers.h); gone before
    // the membership. The console stops before this service goes.
    std::unique_ptr<inter_broker_clients> console_clients;
    // The console's page calls still running (console_peers.h); after the
    // connections, so that it is destroyed, waiting for them, first.
    std::unique_ptr<peer_calls_in_flight> console_calls = std::make_unique<peer_calls_in_flight>();

    // The other brokers as the console asks them; empty on a single node.
    console::peer_brokers console_peers() const {
        if (!membership || !console_clients) return {};
        return app::console_peers(*membership, *console_clients, *console_calls);
    }

    // Empty (single node) without --cluster. Throws std::runtime_error with
    // the reason when an engine does not answer. Sets ctx.config.cluster_id to
    // the cluster's and ctx.cluster to the membership. Destroyed, it
    // deregisters the broker (the others stop listing it at once).
    static cluster_service start(const options& opt, broker::broker_context& ctx,
                                 const std::vector<listener_endpoint>& endpoints);

    // Cluster mode: the groups this broker owns are read from PostgreSQL and
    // follow the live set from now on (cluster_groups::follow), and
    // transactional ids are coordinated by their owner (cluster_txns);
    // nothing without --cluster.
    struct groups_of {
        shared::pg_offset_store* store;
        group::group_coordinator& coordinator;
    };
    struct txns_of {
        shared::pg_txn_store* store;
        txn::transaction_coordinator& coordinator;
    };
    void follow(const options& opt, groups_of g, txns_of t) {
        if (!membership) return;
        if (g.store) groups = cluster_groups::follow(*membership, opt.node_id, *g.store, g.coordinator);
        if (t.store) txns = std::make_unique<cluster_txns>(*membership, opt.node_id, *t.store, t.coordinator);
    }
};

}  // namespace ketch::app
