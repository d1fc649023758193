#include "app/metrics_server.h"

#include "app/fetch_session_metrics.h"
#include "app/metrics_page.h"
#include "app/options.h"
#include "app/tenant_metrics.h"

namespace ketch::app {

metrics_server metrics_server::start(const std::string& listen, const net::connection_stats& connections,
                                     const net::request_metrics& requests, const security::quota_manager* quotas,
                                     const fault::registry* faults, fetch::session_cache* fetch_sessions,
                                     const tenant::catalog* tenants, tenant_bytes_fn tenant_storage) {
    metrics_server m;
    if (listen.empty()) return m;  // --metrics-listen unset: no page
    auto [host, port] = split_host_port(listen);
    m.http = std::make_unique<http::server>();
    m.http->add_route("/metrics", [&connections, &requests, quotas, faults, fetch_sessions, tenants,
                                   storage = std::move(tenant_storage)] {
        auto page = render_metrics(connections, requests, quotas, faults);
        if (fetch_sessions) page += render_fetch_session_metrics(*fetch_sessions);
        if (tenants) page += render_tenant_metrics(*tenants, storage);
        return http::response{200, "text/plain; version=0.0.4; charset=utf-8", std::move(page)};
    });
    m.address = host + ":" + std::to_string(m.http->listen(host, port));
    m.http->start();
    return m;
}

}  // namespace ketch::app
