// GET /api/v1/clients: every client instance that asked for telemetry
// subscriptions (KIP-714), newest first: who it is, its subscription and
// what it pushed. GET /api/v1/clients/{instance}[?prefix=p&points=n]: one
// instance with its metric series (name, unit, kind, attributes and the last
// n points as [time_ms, value]), optionally only the names starting with p.
// Telemetry is on with the console; the store's bounds are in
// telemetry/client_store.h. With --tenancy both show only the instances of
// the request's tenant view (console/tenant_view.h; `?tenant=T`). In cluster
// mode both are the cluster's: each instance names the broker it pushes to
// (node_id), asked over ConsolePeer (console/peer_fanout.h).

#include "base/clock.h"
#include "console/cluster_view.h"
#include "console/local_pages.h"
#include "console/peer_fanout.h"
#include "console/reply.h"
#include "console/routes.h"
#include "console/tenant_view.h"
#include "telemetry/client_metrics_manager.h"

namespace ketch::console {

namespace {

json attrs_json(const telemetry::attributes& a) {
    json o = json::object();
    for (auto& [k, v] : a) o[k] = v;
    return o;
}

const char* metric_kind_name(telemetry::metric_kind k) {
    switch (k) {
        case telemetry::metric_kind::gauge: return "gauge";
        case telemetry::metric_kind::sum: return "sum";
        case telemetry::metric_kind::histogram: return "histogram";
        case telemetry::metric_kind::summary: return "summary";
    }
    return "gauge";
}

json instance_json(const telemetry::instance_info& c) {
    return {{"client_instance_id", c.id.to_base64()},
            {"client_id", c.meta.client_id},
            {"client_software_name", c.meta.software_name},
            {"client_software_version", c.meta.software_version},
            {"client_source_address", c.meta.source_address},
            {"principal", c.meta.principal},
            {"tenant", c.meta.tenant.empty() ? json(nullptr) : json(c.meta.tenant)},
            {"first_seen_ms", c.first_seen_ms},
            {"last_seen_ms", c.last_seen_ms},
            {"last_metrics_ms", c.last_metrics_ms},
            {"pushes", c.pushes},
            {"terminating", c.terminating},
            {"last_error", c.last_error == 0 ? "NONE" : kafka_error_name(c.last_error)},
            {"subscription",
             {{"subscription_id", c.sub.id}, {"metrics", c.sub.metrics}, {"push_interval_ms", c.sub.interval_ms}}},
            {"resource", attrs_json(c.resource)},
            {"series_count", c.series_count},
            {"dropped_series", c.dropped_series},
            {"dropped_points", c.dropped_points}};
}

json series_json(const telemetry::series& s, size_t max_points) {
    json pts = json::array();
    size_t skip = s.points.size() > max_points ? s.points.size() - max_points : 0;
    for (size_t i = skip; i < s.points.size(); ++i) pts.push_back({s.points[i].time_ms, s.points[i].value});
    return {{"name", s.name},
            {"unit", s.unit},
            {"kind", metric_kind_name(s.kind)},
            {"delta", s.delta},
            {"attributes", attrs_json(s.attrs)},
            {"points", std::move(pts)}};
}

json clients_page(const context& ctx, const http::request& req) {
    const tenant_view view = view_of(ctx, req);
    json arr = json::array();
    if (ctx.telemetry)
        for (auto& c : ctx.telemetry->instances(wall_ms()))
            if (!view.tenant || c.meta.tenant == *view.tenant) {
                arr.push_back(instance_json(c));
                arr.back()["node_id"] = ctx.node_id;
            }
    return {{"enabled", ctx.telemetry != nullptr}, {"clients", std::move(arr)}};
}

json instance_page(const context& ctx, const http::request& req) {
    auto id = uuid::from_base64(req.param("instance"));
    if (!id) throw api_error(400, "not a client instance id: " + req.param("instance"));
    const tenant_view view = view_of(ctx, req);
    auto c = ctx.telemetry ? ctx.telemetry->instance(*id, wall_ms()) : std::nullopt;
    if (c && view.tenant && c->meta.tenant != *view.tenant) c.reset();  // another tenant's: unknown
    if (!c) throw api_error(404, "unknown client instance: " + req.param("instance"));
    auto max_points = size_t(query_int(req, "points", 60, 1, 1000));
    std::string prefix = req.query_value("prefix").value_or("");
    json out = instance_json(*c);
    out["node_id"] = ctx.node_id;
    json metrics = json::array();
    for (auto& [key, s] : c->series_by_key)
        if (s.name.compare(0, prefix.size(), prefix) == 0) metrics.push_back(series_json(s, max_points));
    out["metrics"] = std::move(metrics);
    return out;
}

// Cluster mode: every live broker's instances (a client pushes to the
// broker it is connected to), newest first, each naming its broker.
json cluster_clients(const context& ctx, const http::request& req) {
    json out = clients_page(ctx, req);
    const cluster_view view(ctx, principal_of(req));
    if (!view.clustered()) return out;
    auto peers = ask_others(view, "clients", [&](int32_t) { return query_string(req); });
    auto& rows = out["clients"];
    for (auto& [node, page] : peers.pages) {
        if (page.value("enabled", false)) out["enabled"] = true;
        if (page.contains("clients") && page["clients"].is_array())
            for (auto& c : page["clients"]) rows.push_back(c);
    }
    std::stable_sort(rows.begin(), rows.end(), [](const json& a, const json& b) {
        return a.value("first_seen_ms", int64_t(0)) > b.value("first_seen_ms", int64_t(0));
    });
    out["unreached_brokers"] = std::move(peers.unreached);
    return out;
}

// One instance: this broker's, else (cluster mode) the broker's that holds it.
json cluster_instance(const context& ctx, const http::request& req) {
    try {
        return instance_page(ctx, req);
    } catch (const api_error& e) {
        const cluster_view view(ctx, principal_of(req));
        if (e.status != 404 || !view.clustered()) throw;
        auto peers = ask_others(view, "clients/" + req.param("instance"), [&](int32_t) { return query_string(req); });
        if (!peers.pages.empty()) return peers.pages.begin()->second;
        for (auto& u : peers.unreached) {  // a broker that does not know it (404) was reached
            auto it = peers.refused.find(u["node_id"].get<int32_t>());
            if (it == peers.refused.end() || it->second.status != 404)
                throw api_error(503, e.what() + std::string(" here; not reached: ") + peers.unreached.dump());
        }
        throw;
    }
}

}  // namespace

void add_local_clients(http::router& r, const context& ctx) {
    r.add("GET", "/api/v1/clients", route([&ctx](http::request& req) { return json_reply(clients_page(ctx, req)); }));
    r.add("GET", "/api/v1/clients/{instance}",
          route([&ctx](http::request& req) { return json_reply(instance_page(ctx, req)); }));
}

void add_clients(http::server& server, const context& ctx) {
    server.add("GET", "/api/v1/clients",
               route([&ctx](http::request& req) { return json_reply(cluster_clients(ctx, req)); }));
    server.add("GET", "/api/v1/clients/{instance}",
               route([&ctx](http::request& req) { return json_reply(cluster_instance(ctx, req)); }));
}

}  // namespace ketch::console
