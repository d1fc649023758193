// The partition service's storage: the local log (single node), or in
// cluster mode the shared log (shared/shared_engine.h) with the internal
// __consumer_offsets mirror still local (groups are per broker so far).
#pragma once

#include <memory>

#include "app/options.h"
#include "log/log_manager.h"
#include "meta/topic_registry.h"
#include "partition/local_storage.h"
#include "partition/service.h"
#include "shared/shared_engine.h"
#include "txn/producer_ids.h"

namespace ketch::app {

struct storage_engines {
    std::unique_ptr<partition::local_engine> local;
    std::unique_ptr<shared::shared_engine> shared;  // cluster mode only

    partition::storage_engine& engine() { return shared ? static_cast<partition::storage_engine&>(*shared) : *local; }
    // Throws std::runtime_error when cluster mode's engines do not answer.
    static storage_engines open(const options& opt, log::log_manager& logs, meta::topic_registry& topics);
    // Cluster mode: topics in PostgreSQL over `local` (the rest of meta.db); null without --cluster.
    static std::unique_ptr<meta::store> topic_store(const options& opt, meta::store& local);

    // Fetch wake-ups (transaction markers; in cluster mode, commits), and in
    // cluster mode: topics reloaded when another broker changes them, producer
    // ids in blocks from PostgreSQL.
    void attach(log::log_manager& logs, meta::topic_registry& topics, partition::service& partitions,
                txn::producer_ids& producer_ids);
};

}  // namespace ketch::app
