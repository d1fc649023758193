// The transaction coordinator as the broker runs it: state in txn.db (with
// the groups' pending transactional offsets), markers and completions on the
// blocking pool, timed-out transactions aborted and idle transactional ids
// expired on the group timer thread.
#pragma once

#include <memory>

#include <boost/asio/thread_pool.hpp>

#include "app/group_service.h"
#include "app/options.h"
#include "app/periodic.h"
#include "broker/broker_context.h"
#include "broker/txn_markers.h"
#include "shared/pg_txn_store.h"
#include "txn/coordinator.h"
#include "txn/producer_ids.h"

namespace ketch::app {

struct stores;

class txn_service {
public:
    // Loads the coordinator's state; throws std::runtime_error when it cannot.
    // Cluster mode: the coordinators' state and the groups' pending
    // transactional offsets in PostgreSQL (shared/pg_txn_store.h) in place of txn.db.
    txn_service(const options& opt, stores& s, broker::broker_context& ctx, group_service& groups,
                txn::producer_ids& producer_ids, boost::asio::thread_pool& blocking);
    txn_service(const txn_service&) = delete;
    txn_service& operator=(const txn_service&) = delete;

    // Stops the periodic tasks; later requests find the coordinator shut down.
    void shutdown();
    txn::transaction_coordinator& coordinator() { return coordinator_; }
    shared::pg_txn_store* cluster_store() { return shared_.get(); }  // null without --cluster

private:
    std::unique_ptr<shared::pg_txn_store> shared_;  // cluster mode
    broker::txn_markers markers_;
    txn::transaction_coordinator coordinator_;
    periodic abort_timed_out_;
    periodic expire_ids_;
};

}  // namespace ketch::app
