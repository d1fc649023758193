// The traffic inspector (docs/console.md, "Traffic"):
//   GET /api/v1/traffic?after=SEQ&limit=N&client_id=&api=&topic=&error=&connection=
//       the newest exchanges after SEQ (oldest first), each with what the
//       filters need decoded (topics, error codes); every call keeps the
//       dispatcher recording for the next 60 s.
//   GET /api/v1/traffic/{seq}           one exchange: request and response as JSON
//   GET /api/v1/traffic/{seq}/records   the records of a Produce request
//   GET /api/v1/traffic/connections     the last 200 connection events
// In cluster mode a page is the cluster's (console/traffic_cluster.h): each
// row names its broker (node_id).
// With --tenancy every path shows only the exchanges and events of the
// request's tenant view (console/tenant_view.h: a tenant's user its own,
// an operator all or `?tenant=T`'s), by the connection's principal.
#include <map>
#include <mutex>

#include "base/clock.h"
#include "base/error_code.h"
#include "console/kafka_facts.h"
#include "console/local_pages.h"
#include "console/reply.h"
#include "console/routes.h"
#include "console/tenant_view.h"
#include "console/traffic_cluster.h"
#include "console/traffic_decode.h"
#include "protocol/messages/api_table.h"

namespace ketch::console {

namespace {

inspect::traffic_ring& ring(const context& ctx) {
    if (!ctx.traffic) throw api_error(404, "the traffic inspector is off");
    return *ctx.traffic;
}

std::string api_name(int16_t key) {
    auto* a = kafka::find_api(key);
    return a ? std::string(a->name) : "Api" + std::to_string(key);
}

std::string lower(std::string s) {
    for (auto& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

// Decoded summaries by seq: an exchange is decoded once however often it is listed.
class summary_cache {
public:
    std::shared_ptr<const decoded_exchange> get(const inspect::exchange& e) {
        {
            std::lock_guard l(mu_);
            if (auto it = cache_.find(e.seq); it != cache_.end()) return it->second;
        }
        auto d = std::make_shared<const decoded_exchange>(decode_exchange(e));
        std::lock_guard l(mu_);
        cache_[e.seq] = d;
        while (cache_.size() > inspect::traffic_ring::k_exchanges + 100) cache_.erase(cache_.begin());
        return d;
    }

private:
    std::mutex mu_;
    std::map<uint64_t, std::shared_ptr<const decoded_exchange>> cache_;
};

json summary(const context& ctx, const inspect::exchange& e, const decoded_exchange& d,
             const std::vector<std::string>& topics) {
    json errors = json::array();
    for (auto c : d.errors) errors.push_back(kafka_error_name(c));
    return {{"node_id", ctx.node_id},
            {"seq", e.seq},
            {"time_ms", e.time_ms},
            {"connection", e.conn_id},
            {"peer", e.peer},
            {"listener", e.listener},
            {"principal", e.principal},
            {"client_id", e.client_id},
            {"client_software", e.client_software},
            {"api", api_name(e.api_key)},
            {"api_key", e.api_key},
            {"api_version", e.api_version},
            {"correlation_id", e.correlation_id},
            {"duration_us", e.duration_us},
            {"request_bytes", e.request_bytes},
            {"response_bytes", e.response_bytes},
            {"closed", e.closed},
            {"topics", topics},
            {"errors", errors},
            {"withheld", e.withheld.empty() ? json(nullptr) : json(e.withheld)},
            {"fault", e.fault.empty() ? json(nullptr) : json(e.fault)}};
}

// Topic names for ids (requests by topic id), from one Metadata.
std::vector<std::string> topic_names(const context& ctx, const std::string& who, const decoded_exchange& d,
                                     std::map<std::string, std::string>& by_id, bool& loaded) {
    std::vector<std::string> out = d.topics;
    if (!d.topic_ids.empty() && !loaded) {
        loaded = true;
        try {
            for (auto& t : describe_topics(ctx, who)) by_id[t.id.to_base64()] = t.name;
        } catch (const std::exception&) {
        }
    }
    for (auto& id : d.topic_ids)
        if (auto it = by_id.find(id); it != by_id.end()) out.push_back(it->second);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

json traffic_list(const context& ctx, summary_cache& cache, const http::request& req) {
    const tenant_view view = view_of(ctx, req);
    auto& r = ring(ctx);
    r.watch(wall_ms());
    const uint64_t after = uint64_t(query_int(req, "after", 0, 0, INT64_MAX));
    const size_t limit = size_t(query_int(req, "limit", 200, 1, int64_t(inspect::traffic_ring::k_exchanges)));
    const std::string client = req.query_value("client_id").value_or("");
    const std::string api = lower(req.query_value("api").value_or(""));
    const std::string topic = req.query_value("topic").value_or("");
    const std::string error = req.query_value("error").value_or("");
    const int64_t conn = query_int(req, "connection", 0, 0, INT64_MAX);
    std::optional<int16_t> error_code;
    if (!error.empty() && error != "any") {
        if (auto e = error_from_name(error))
            error_code = int16_t(*e);
        else
            error_code = int16_t(query_int(req, "error", 0, -1, 200));
    }
    std::map<std::string, std::string> by_id;
    bool ids_loaded = false;
    std::vector<json> newest_first;
    auto all = r.exchanges_after(after, inspect::traffic_ring::k_exchanges);
    const uint64_t last = all.empty() ? after : std::max(after, all.back().seq);
    // Newest first, and no further than `limit` matches: a poll decodes (and
    // caches) at most `limit` exchanges, not every one in the ring (2,000 a
    // poll at 5,000 requests/s cost the watched broker ~40% more CPU per
    // request; docs/performance.md, "Console").
    for (auto it = all.rbegin(); it != all.rend() && newest_first.size() < limit; ++it) {
        const auto& e = *it;
        if (!client.empty() && e.client_id.find(client) == std::string::npos) continue;
        if (!api.empty() && lower(api_name(e.api_key)) != api && api != std::to_string(e.api_key)) continue;
        if (conn && e.conn_id != uint64_t(conn)) continue;
        if (!sees_principal(ctx, view, e.principal)) continue;
        auto d = cache.get(e);
        auto topics = topic_names(ctx, principal_of(req), *d, by_id, ids_loaded);
        if (!topic.empty() && std::find(topics.begin(), topics.end(), topic) == topics.end()) continue;
        if (error == "any" && d->errors.empty()) continue;
        if (error_code && std::find(d->errors.begin(), d->errors.end(), *error_code) == d->errors.end()) continue;
        newest_first.push_back(summary(ctx, e, *d, topics));
    }
    json rows = json::array();
    for (auto it = newest_first.rbegin(); it != newest_first.rend(); ++it) rows.push_back(std::move(*it));
    return {{"exchanges", rows}, {"last_seq", last}, {"recording", r.active()}, {"kept_bytes", r.kept_bytes()}};
}

// One exchange the request may see (404 for another tenant's, as for one no
// longer kept).
std::optional<inspect::exchange> exchange_of(const context& ctx, const http::request& req) {
    const tenant_view view = view_of(ctx, req);
    const std::string& s = req.param("seq");
    if (s.empty() || s.size() > 19 || s.find_first_not_of("0123456789") != std::string::npos)
        throw api_error(400, "the exchange number must be a non-negative integer");
    auto e = ring(ctx).find(std::stoull(s));
    if (!e || !sees_principal(ctx, view, e->principal))
        throw api_error(404, "exchange " + req.param("seq") + " is no longer in the ring");
    return e;
}

json events(const context& ctx, const http::request& req) {
    const tenant_view view = view_of(ctx, req);
    auto& r = ring(ctx);
    r.watch(wall_ms());
    json arr = json::array();
    for (auto& e : r.events()) {
        if (!sees_principal(ctx, view, e.principal)) continue;
        arr.push_back({{"node_id", ctx.node_id},
                       {"seq", e.seq},
                       {"time_ms", e.time_ms},
                       {"connection", e.conn_id},
                       {"kind", e.kind},
                       {"peer", e.peer},
                       {"listener", e.listener},
                       {"principal", e.principal},
                       {"detail", e.detail}});
    }
    return {{"events", arr}};
}

json exchange_page(const context& ctx, const http::request& req) {
    auto e = exchange_of(ctx, req);
    auto d = decode_exchange(*e);
    std::map<std::string, std::string> by_id;
    bool loaded = false;
    json j = summary(ctx, *e, d, topic_names(ctx, principal_of(req), d, by_id, loaded));
    j["request"] = d.request;
    j["response"] = d.response;
    j["problem"] = d.problem.empty() ? json(nullptr) : json(d.problem);
    return j;
}

json records_page(const context& ctx, const http::request& req) {
    auto e = exchange_of(ctx, req);
    if (e->api_key != 0) throw api_error(400, "only a Produce request carries records");
    if (e->request.empty()) throw api_error(404, "the request's bytes are no longer kept");
    return {{"records", produce_records(*e)}};
}

// This broker's pages, each with its answer as a function of the request.
struct local_traffic {
    std::function<json(const http::request&)> list, events, exchange, records;
};

local_traffic local_of(const context& ctx) {
    auto cache = std::make_shared<summary_cache>();
    return {[&ctx, cache](const http::request& req) { return traffic_list(ctx, *cache, req); },
            [&ctx](const http::request& req) { return events(ctx, req); },
            [&ctx](const http::request& req) { return exchange_page(ctx, req); },
            [&ctx](const http::request& req) { return records_page(ctx, req); }};
}

}  // namespace

void add_local_traffic(http::router& r, const context& ctx) {
    auto l = local_of(ctx);
    auto as_route = [](std::function<json(const http::request&)> f) {
        return route([f = std::move(f)](http::request& req) { return json_reply(f(req)); });
    };
    r.add("GET", "/api/v1/traffic", as_route(l.list));
    r.add("GET", "/api/v1/traffic/connections", as_route(l.events));
    r.add("GET", "/api/v1/traffic/{seq}", as_route(l.exchange));
    r.add("GET", "/api/v1/traffic/{seq}/records", as_route(l.records));
}

// In cluster mode the listing and the connection events are every live
// broker's, and an exchange (?node=N) is asked of the broker that served it
// (console/traffic_cluster.h).
void add_traffic(http::server& server, const context& ctx) {
    auto l = local_of(ctx);
    server.add("GET", "/api/v1/traffic",
               route([&ctx, l](http::request& req) { return json_reply(cluster_traffic(ctx, req, l.list)); }));
    server.add("GET", "/api/v1/traffic/connections",
               route([&ctx, l](http::request& req) { return json_reply(cluster_events(ctx, req, l.events)); }));
    server.add("GET", "/api/v1/traffic/{seq}", route([&ctx, l](http::request& req) {
                   return json_reply(on_node(ctx, req, "traffic/" + req.param("seq"), l.exchange));
               }));
    server.add("GET", "/api/v1/traffic/{seq}/records", route([&ctx, l](http::request& req) {
                   return json_reply(on_node(ctx, req, "traffic/" + req.param("seq") + "/records", l.records));
               }));
}

}  // namespace ketch::console
