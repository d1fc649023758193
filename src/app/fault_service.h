// --faults (docs/configuration.md, docs/design/faults.md): the registry of
// scripted faults, handed to the dispatcher, the console (/api/v1/faults) and
// the partitions' file system. Off by default: then nothing is made and the
// broker runs exactly as without this file. With --cluster the faults are the
// cluster's (app/pg_fault_store.h): follow() reloads them at every change.
#pragma once

#include <memory>

#include "app/listeners.h"
#include "app/options.h"
#include "app/storage_engines.h"
#include "fault/registry.h"
#include "fault/store.h"
#include "io/file_system.h"

namespace ketch::app {

struct fault_service {
    std::unique_ptr<fault::store> store;        // --cluster: the cluster's faults (PostgreSQL); before registry
    std::unique_ptr<fault::registry> registry;  // null: --faults is off

    // Throws std::runtime_error when --faults is refused: a Kafka listener on
    // a non-loopback address without --faults-unsafe, or the console off.
    // `pg`: cluster mode's pool (the faults in PostgreSQL), else null.
    static fault_service from(const options& opt, const resolved_listeners& lis, cluster::pg_pool* pg);

    // The partitions' file system: `fs` itself when off, else `fs` wrapped in
    // io::fault_file_system asking the registry's disk faults.
    std::shared_ptr<io::file_system> wrap(std::shared_ptr<io::file_system> fs) const;

    // Cluster mode with --faults: the registry reloaded at each NOTIFY
    // 'faults' (another broker's change) and at once. Declare it after the
    // storage engines.
    notice_follower follow(storage_engines& storage) const;
};

}  // namespace ketch::app
