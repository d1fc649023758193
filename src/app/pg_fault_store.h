// Cluster mode's scripted faults (--faults with --cluster; docs/design/
// faults.md "Cluster mode"): the faults in PostgreSQL (ketch_faults), shared
// by every broker. Adding or removing one ends its transaction with NOTIFY
// ketch_commit 'faults'; every broker then reloads its fault::registry. Each
// injection is claimed here (claim(): one UPDATE of the fault's row, which
// PostgreSQL locks, so brokers claiming at once take distinct counts), so
// "the next N matching requests" are the cluster's N.
#pragma once

#include <memory>
#include <string>

#include "cluster/pg_pool.h"
#include "fault/store.h"

namespace ketch::app {

// The payload of the NOTIFY a change of the cluster's faults sends.
inline constexpr const char* k_faults_changed = "faults";

// The store of the cluster's faults. Connects at first use; the cluster
// schema must be migrated (storage_engines).
std::unique_ptr<fault::store> make_pg_fault_store(cluster::pg_pool& pool);

}  // namespace ketch::app
