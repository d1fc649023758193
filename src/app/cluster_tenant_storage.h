// Cluster mode with --tenancy: each tenant's bytes in the shared log, read
// from PostgreSQL at start and then every --cluster-heartbeat-ms on a thread
// of its own (docs/design/cluster.md "Tenants"): the sum of
// ketch_partitions.stored_bytes over the partitions of its topics, one
// statement over the partitions (not the batches), handed to
// broker::tenant_storage_totals with what this broker had let through
// before the read. A read that fails keeps the last totals (logged once per outage).
// Nothing on a single node or without --tenancy. It also holds the exchange
// of the tenants' connections and byte rates (cluster_tenant_usage.h), the
// other count the tenants' limits take from PostgreSQL each heartbeat.
#pragma once

#include <memory>

#include "app/cluster_tenant_usage.h"
#include "app/options.h"
#include "app/security_services.h"
#include "app/storage_engines.h"
#include "broker/broker_context.h"
#include "broker/tenant_storage_totals.h"
#include "partition/tasks.h"
#include "shared/pg_session.h"

namespace ketch::app {

class cluster_tenant_storage {
public:
    // Sets ctx.tenant_storage (for as long as this lives) when on.
    cluster_tenant_storage(const options& opt, storage_engines& storage, security_services& security,
                           broker::broker_context& ctx);
    cluster_tenant_storage(const cluster_tenant_storage&) = delete;
    cluster_tenant_storage& operator=(const cluster_tenant_storage&) = delete;

    // One read (at start and on every tick).
    void read();

private:
    cluster_tenant_usage usage_;  // connections and byte rates
    std::unique_ptr<shared::pg_session> session_;
    broker::tenant_storage_totals totals_;
    // read()'s own (at start, then on task_'s thread only):
    bool failing_ = false;                            // the last read failed
    std::unique_ptr<partition::periodic_task> task_;  // last: joined before the rest goes
};

}  // namespace ketch::app
