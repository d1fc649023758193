// /api/v1/faults (--faults; docs/console.md, docs/design/faults.md): list
// (GET), add (POST, 201 with the new fault's id), remove one (DELETE
// /api/v1/faults/{id}) or all (DELETE /api/v1/faults). Without --faults the
// resource answers 404 (a broker that injects nothing). Cluster mode: the
// cluster's faults (fault::store in PostgreSQL), 503 while it cannot be reached.

#include "base/clock.h"
#include "console/fault_json.h"
#include "console/reply.h"
#include "console/routes.h"

namespace ketch::console {

namespace {

fault::registry& faults_of(const context& ctx) {
    if (!ctx.faults) throw api_error(404, "fault injection is off (start the broker with --faults)");
    return *ctx.faults;
}

http::response list_faults(const context& ctx) {
    json arr = json::array();
    for (auto& f : faults_of(ctx).list(steady_ms())) arr.push_back(fault_to_json(f));
    return json_reply({{"faults", arr}});
}

http::response add(const context& ctx, const http::request& req) {
    auto& reg = faults_of(ctx);
    auto rule = fault_rule_from(body_object(req));
    const int64_t now = steady_ms();
    auto [id, why] = reg.add(rule, now);
    if (id == 0) throw api_error(why.find("at most") == 0 ? 409 : 400, why);
    for (auto& f : reg.list(now))
        if (f.id == id) return json_reply(fault_to_json(f), 201);
    // Already used up or over (a pause of a few ms): as added.
    return json_reply(fault_to_json({id, rule, rule.count, 0, now}), 201);
}

http::response remove_one(const context& ctx, const http::request& req) {
    auto& reg = faults_of(ctx);
    const std::string& s = req.param("id");
    uint64_t id = 0;
    for (char c : s) {
        if (c < '0' || c > '9' || id > (uint64_t(1) << 60)) throw api_error(400, "a fault id is a number");
        id = id * 10 + uint64_t(c - '0');
    }
    if (s.empty()) throw api_error(400, "a fault id is a number");
    if (!reg.remove(id, steady_ms())) throw api_error(404, "no active fault " + s);
    return json_reply({{"removed", id}});
}

// `fn` with the cluster's store unreachable answered 503.
http::route_handler store_route(std::function<http::response(http::request&)> fn) {
    return route([fn = std::move(fn)](http::request& req) {
        try {
            return fn(req);
        } catch (const fault::store_unavailable& e) {
            throw api_error(503, std::string("the cluster's faults cannot be reached: ") + e.what());
        }
    });
}

}  // namespace

void add_faults(http::server& server, const context& ctx) {
    server.add("GET", "/api/v1/faults", store_route([&ctx](http::request&) { return list_faults(ctx); }));
    server.add("POST", "/api/v1/faults", store_route([&ctx](http::request& req) { return add(ctx, req); }));
    server.add("DELETE", "/api/v1/faults", store_route([&ctx](http::request&) {
                   return json_reply({{"cleared", faults_of(ctx).clear(steady_ms())}});
               }));
    server.add("DELETE", "/api/v1/faults/{id}",
               store_route([&ctx](http::request& req) { return remove_one(ctx, req); }));
}

}  // namespace ketch::console
