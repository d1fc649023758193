// Cluster mode with --tenancy: tenants' connections and byte rates counted
// for the cluster (docs/design/cluster.md "Tenants' limits for the
// cluster"). Every --cluster-heartbeat-ms, on a thread of its own, this
// broker publishes in ketch_tenant_usage (migration 20) what each tenant
// uses here — connections open, produce and fetch bytes per second as the
// tenant rate manager measures them (only the rates the tenant is limited
// by) — and reads the other live brokers' sums into tenant::cluster_usage,
// which the catalog's connection admission and the tenant rates
// (broker/quota_accounting.cc) take their share from. A failed round keeps
// the last numbers (logged once per outage). Nothing on a single node or
// without --tenancy.
#pragma once

#include <memory>

#include "app/options.h"
#include "app/security_services.h"
#include "partition/tasks.h"
#include "shared/pg_session.h"
#include "tenant/cluster_usage.h"

namespace ketch::app {

class cluster_tenant_usage {
public:
    // Gives the catalog its cluster_usage (for as long as this lives) when on.
    cluster_tenant_usage(const options& opt, cluster::pg_pool* pool, security_services& security);
    ~cluster_tenant_usage();
    cluster_tenant_usage(const cluster_tenant_usage&) = delete;
    cluster_tenant_usage& operator=(const cluster_tenant_usage&) = delete;

    // One round: publish this broker's numbers, read the others'.
    void exchange();

private:
    tenant::catalog* catalog_ = nullptr;
    int32_t node_id_ = 0;
    int64_t session_timeout_ms_ = 0;
    std::unique_ptr<shared::pg_session> session_;
    tenant::cluster_usage others_;
    bool failing_ = false;                            // exchange()'s own
    std::unique_ptr<partition::periodic_task> task_;  // last: joined before the rest goes
};

}  // namespace ketch::app
