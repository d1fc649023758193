#include "console/routes.h"

#include "console/reply.h"

namespace ketch::console {

void add_routes(http::server& server, const context& ctx) {
    add_health(server, ctx);
    add_cluster(server, ctx);
    add_topics(server, ctx);
    add_topic_configs(server, ctx);
    add_messages(server, ctx);
    add_groups(server, ctx);
    add_group_offsets(server, ctx);
    add_producers(server, ctx);
    add_transactions(server, ctx);
    add_acls(server, ctx);
    add_users(server, ctx);
    add_quotas(server, ctx);
    add_traffic(server, ctx);
    add_clients(server, ctx);
    add_faults(server, ctx);
    add_tenants(server, ctx);
    add_tenant_view(server, ctx);
    add_assets(server, ctx);
}

http::response server_error_body(int status, const std::string& message) { return error_reply(status, message); }

}  // namespace ketch::console
