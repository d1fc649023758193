#include "app/metrics_server.h"

#include "app/metrics_page.h"
#include "app/options.h"

namespace ketch::app {

metrics_server metrics_server::start(const std::string& listen, const net::connection_stats& connections,
                                     const net::request_metrics& requests, const security::quota_manager* quotas,
                                     const fault::registry* faults) {
    auto [host, port] = split_host_port(listen);
    metrics_server m;
    m.http = std::make_unique<http::server>();
    m.http->add_route("/metrics", [&connections, &requests, quotas, faults] {
        return http::response{200, "text/plain; version=0.0.4; charset=utf-8",
                              render_metrics(connections, requests, quotas, faults)};
    });
    m.address = host + ":" + std::to_string(m.http->listen(host, port));
    m.http->start();
    return m;
}

}  // namespace ketch::app
