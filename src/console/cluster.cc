// GET /api/v1/cluster: version, node id, cluster id, the brokers
// DescribeCluster lists (this one alone on a single node; with --cluster the
// live ones PostgreSQL knows: docs/cluster.md), listeners, data dir and
// its disk use, uptime, connection counters and the per-API request metrics
// the broker already keeps (count, mean and bucketed latency).
//
// --tenancy, for a tenant's user (or an operator's ?tenant=T): the tenant's
// figures instead of the broker's (tenant_overview.h) — "tenant" with its
// topics, groups, storage and traffic; "requests" its Produce and Fetch;
// "connections" and "clients" its connections'; "data_dir_bytes" its
// storage; no data dir for a tenant's user.
#include <filesystem>

#include "console/histogram_json.h"
#include "console/reply.h"
#include "console/routes.h"
#include "console/tenant_overview.h"
#include "protocol/messages/api_table.h"
#include "protocol/messages/describe_cluster.h"

namespace ketch::console {

namespace {

json request_metrics(const net::request_metrics& m) {
    json arr = json::array();
    for (auto& api : kafka::all_apis()) {
        if (size_t(api.key) > net::request_metrics::k_max_api_key) continue;
        auto& a = m.of(api.key);
        if (a.count.load(std::memory_order_relaxed) == 0) continue;
        arr.push_back(histogram_json(api.key, api.name, a));
    }
    return arr;
}

int64_t dir_bytes(const std::string& dir) {
    std::error_code ec;
    int64_t total = 0;
    for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
         !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
        std::error_code e2;
        if (it->is_regular_file(e2)) total += int64_t(it->file_size(e2));
    }
    return total;
}

json brokers_json(const std::vector<kafka::describe_cluster_response::describe_cluster_broker>& brokers) {
    json arr = json::array();
    for (auto& b : brokers)
        arr.push_back({{"node_id", b.broker_id},
                       {"address", b.host + ":" + std::to_string(b.port)},
                       {"rack", b.rack ? json(*b.rack) : json(nullptr)}});
    return arr;
}

}  // namespace

void add_cluster(http::server& server, const context& ctx) {
    server.add(
        "GET", "/api/v1/cluster", route([&ctx](http::request& req) {
            kafka::describe_cluster_request q;
            auto dc = ctx.kafka->call<kafka::describe_cluster_request, kafka::describe_cluster_response>(
                q, principal_of(req));
            json listeners = json::array();
            for (auto& l : ctx.listeners)
                listeners.push_back({{"name", l.name},
                                     {"protocol", l.protocol},
                                     {"address", l.host + ":" + std::to_string(l.port)},
                                     {"advertised", l.advertised}});
            auto up = std::chrono::steady_clock::now() - ctx.started;
            json j = {
                {"version", ctx.version},
                {"kafka_version", ctx.kafka_version},
                {"node_id", ctx.node_id},
                {"cluster_id", dc.cluster_id},
                {"brokers", brokers_json(dc.brokers)},
                {"listeners", listeners},
                {"data_dir", std::filesystem::absolute(ctx.data_dir).string()},
                {"data_dir_bytes", dir_bytes(ctx.data_dir)},
                {"started_unix_ms", ctx.started_unix_ms},
                {"uptime_ms", std::chrono::duration_cast<std::chrono::milliseconds>(up).count()},
                {"schema_registry", ctx.schema_registry_url.empty() ? json(nullptr) : json(ctx.schema_registry_url)},
            };
            if (ctx.connections)
                j["connections"] = {{"active", ctx.connections->active.load()},
                                    {"accepted", ctx.connections->accepted.load()},
                                    {"failed_authentications", ctx.connections->failed_authentications.load()}};
            j["requests"] = ctx.metrics ? request_metrics(*ctx.metrics) : json::array();
            const tenant_view v = view_of(ctx, req);
            std::function<bool(const std::string&)> keep;
            if (v.tenant) {
                keep = [&](const std::string& principal) { return sees_principal(ctx, v, principal); };
                j["tenant"] = tenant_overview(ctx, req, v);
                j["requests"] = tenant_request_metrics(ctx, *v.tenant);
                j["connections"] = {{"active", j["tenant"]["connections"]}};
                j["data_dir_bytes"] = j["tenant"]["storage_bytes"];
                if (v.scoped) j["data_dir"] = nullptr;
            }
            json clients = json::array();
            if (ctx.client_software)
                for (auto& [sw, n] : ctx.client_software(keep))
                    clients.push_back({{"software", sw}, {"connections", n}});
            j["clients"] = clients;
            return json_reply(j);
        }));
}

}  // namespace ketch::console
