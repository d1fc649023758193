// The Prometheus page (--metrics-listen host:port, /metrics) on the broker's
// small HTTP server.
#pragma once

#include <memory>
#include <string>

#include "app/tenant_metrics.h"
#include "fault/registry.h"
#include "fetch/session_cache.h"
#include "http/server.h"
#include "net/connection_stats.h"
#include "net/request_metrics.h"
#include "security/quota_manager.h"
#include "tenant/catalog.h"

namespace ketch::app {

struct metrics_server {
    std::unique_ptr<http::server> http;
    std::string address;  // host:port as bound

    // Binds and starts serving; throws on a bad address or a port in use.
    // An empty `listen`: nothing is served (no http, no address).
    static metrics_server start(const std::string& listen, const net::connection_stats& connections,
                                const net::request_metrics& requests, const security::quota_manager* quotas,
                                const fault::registry* faults = nullptr, fetch::session_cache* fetch_sessions = nullptr,
                                const tenant::catalog* tenants = nullptr, tenant_bytes_fn tenant_storage = {});
    void stop() {
        if (http) http->stop();
    }
};

}  // namespace ketch::app
