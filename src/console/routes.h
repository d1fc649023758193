// The console on an http::server: /healthz, the JSON API under /api/v1 (one
// file per resource; docs/console.md) and the embedded pages.
#pragma once

#include "console/context.h"
#include "http/server.h"

namespace ketch::console {

// ctx must outlive the server.
void add_routes(http::server& server, const context& ctx);

void add_health(http::server& server, const context& ctx);
void add_cluster(http::server& server, const context& ctx);
void add_topics(http::server& server, const context& ctx);
void add_topic_configs(http::server& server, const context& ctx);
void add_messages(http::server& server, const context& ctx);
void add_groups(http::server& server, const context& ctx);
void add_group_offsets(http::server& server, const context& ctx);
void add_producers(http::server& server, const context& ctx);
void add_transactions(http::server& server, const context& ctx);
void add_acls(http::server& server, const context& ctx);
void add_users(http::server& server, const context& ctx);
void add_quotas(http::server& server, const context& ctx);
void add_traffic(http::server& server, const context& ctx);
void add_clients(http::server& server, const context& ctx);
void add_faults(http::server& server, const context& ctx);
void add_tenants(http::server& server, const context& ctx);
void add_tenant_view(http::server& server, const context& ctx);
void add_assets(http::server& server, const context& ctx);

// The server's own errors (404, 405, 413, ...) as the API's JSON error body.
http::response server_error_body(int status, const std::string& message);

}  // namespace ketch::console
