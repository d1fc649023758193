// /api/v1/tenants (--tenancy; docs/tenancy.md "Administration"): the tenants
// and their limits, for super users only (403 otherwise; 404 without
// --tenancy).
//   GET    /api/v1/tenants                     every created tenant, and the defaults
//   POST   /api/v1/tenants                     {"name": "t1", "limits": {"max_partitions": 10, ...}} -> 201
//   GET    /api/v1/tenants/{name}              limits, users, usage (topics, partitions, bytes, connections)
//   DELETE /api/v1/tenants/{name}              deletes the tenant and everything it owns (created or not)
//   PUT    /api/v1/tenants/{name}/limits       {"max_partitions": 20, "producer_byte_rate": null}
//   PUT    /api/v1/tenants/{name}/users/{user} binds the user to the tenant
//   GET|PUT /api/v1/tenant_defaults            the default limits
// Limit values are numbers; null removes a limit.
#include <algorithm>

#include "console/reply.h"
#include "console/routes.h"
#include "console/tenant_purge.h"
#include "tenant/names.h"

namespace ketch::console {

namespace {

tenant::catalog& admin(const context& ctx, const http::request& req) {
    if (!ctx.tenants) throw api_error(404, "tenancy is off (start the broker with --tenancy)");
    if (!ctx.tenants->users().is_super_user(principal_of(req)))
        throw api_error(403,
                        "only super users (--super-users) administer tenants; " + principal_of(req) + " is not one");
    return *ctx.tenants;
}

void check(const tenant::admin_status& st) {
    if (!st) return;
    using k = tenant::admin_error::kind;
    const int status = st->what == k::invalid     ? 400
                       : st->what == k::not_found ? 404
                       : st->what == k::exists    ? 409
                                                  : 500;
    throw api_error(status, st->message);
}

json limits_json(const tenant::limits& l) {
    json o = json::object();
    for (auto& [k, v] : l.values) {
        if (k == "request_percentage")
            o[k] = v;
        else
            o[k] = int64_t(v);
    }
    return o;
}

// {"key": number | null}: the changes a body asks for (400 for anything else).
std::map<std::string, std::optional<double>> changes_of(const json& b) {
    if (!b.is_object()) throw api_error(400, "limits must be a JSON object");
    std::map<std::string, std::optional<double>> out;
    for (auto& [k, v] : b.items()) {
        if (!tenant::is_limit_key(k)) throw api_error(400, "unknown limit '" + k + "'");
        if (v.is_null())
            out[k] = std::nullopt;
        else if (v.is_number())
            out[k] = v.get<double>();
        else
            throw api_error(400, "limit " + k + " must be a number or null");
    }
    return out;
}

json info_json(const tenant::tenant_info& t) {
    return {{"name", t.name},
            {"limits", limits_json(t.own)},
            {"effective_limits", limits_json(t.effective)},
            {"users", t.users}};
}

json describe_tenant(const context& ctx, const http::request& req, const std::string& name) {
    auto& cat = admin(ctx, req);
    auto t = cat.describe(name);
    if (!t) throw api_error(404, "no tenant " + name);
    json out = info_json(*t);
    json usage = tenant_footprint(ctx, principal_of(req), name);
    usage["connections"] = cat.usage_of(name).connections.load(std::memory_order_relaxed);
    out["usage"] = usage;
    return out;
}

http::response list_tenants(const context& ctx, const http::request& req) {
    auto& cat = admin(ctx, req);
    json arr = json::array();
    for (auto& n : cat.names())
        if (auto t = cat.describe(n)) arr.push_back(info_json(*t));
    return json_reply({{"tenants", arr}, {"defaults", limits_json(cat.defaults())}});
}

http::response create_tenant(const context& ctx, http::request& req) {
    auto& cat = admin(ctx, req);
    json b = body_object(req);
    if (!b.contains("name") || !b["name"].is_string()) throw api_error(400, "a tenant needs a \"name\" (a string)");
    const std::string name = b["name"].get<std::string>();
    tenant::limits own;
    if (b.contains("limits"))
        for (auto& [k, v] : changes_of(b["limits"]))
            if (v) own.values[k] = *v;
    check(cat.create(name, own));
    return json_reply(describe_tenant(ctx, req, name), 201);
}

http::response remove_tenant(const context& ctx, http::request& req) {
    auto& cat = admin(ctx, req);
    const std::string name = req.param("name");
    if (name == tenant::default_tenant)
        throw api_error(400, "the default tenant owns every name made without tenancy; it cannot be deleted");
    if (auto why = tenant::check_tenant_name(name); !why.empty()) throw api_error(400, why);
    // A tenant never created (a user is its own tenant) owns what its users
    // made all the same: deleting it deletes that. Only a name that was never
    // created, owns nothing and has no connection is 404.
    const bool created = cat.describe(name).has_value();
    const bool connected = cat.usage_of(name).connections.load(std::memory_order_relaxed) > 0;
    json deleted = purge_tenant(ctx, principal_of(req), name);
    if (created)
        check(cat.remove(name));
    else if (!connected && std::all_of(deleted.begin(), deleted.end(), [](const json& n) { return n == 0; }))
        throw api_error(404, "no tenant " + name + ": it was never created and owns nothing");
    return json_reply({{"name", name}, {"created", created}, {"deleted", deleted}});
}

http::response set_limits(const context& ctx, http::request& req) {
    auto& cat = admin(ctx, req);
    const std::string name = req.param("name");
    check(cat.set_limits(name, changes_of(body_object(req))));
    return json_reply(describe_tenant(ctx, req, name));
}

http::response bind(const context& ctx, http::request& req) {
    auto& cat = admin(ctx, req);
    const std::string name = req.param("name"), user = req.param("user");
    check(cat.bind(user, name));
    return json_reply(describe_tenant(ctx, req, name));
}

http::response defaults(const context& ctx, http::request& req, bool change) {
    auto& cat = admin(ctx, req);
    if (change) check(cat.set_default_limits(changes_of(body_object(req))));
    return json_reply({{"defaults", limits_json(cat.defaults())}});
}

}  // namespace

void add_tenants(http::server& server, const context& ctx) {
    server.add("GET", "/api/v1/tenants", route([&ctx](http::request& req) { return list_tenants(ctx, req); }));
    server.add("POST", "/api/v1/tenants", route([&ctx](http::request& req) { return create_tenant(ctx, req); }));
    server.add("GET", "/api/v1/tenants/{name}",
               route([&ctx](http::request& req) { return json_reply(describe_tenant(ctx, req, req.param("name"))); }));
    server.add("DELETE", "/api/v1/tenants/{name}",
               route([&ctx](http::request& req) { return remove_tenant(ctx, req); }));
    server.add("PUT", "/api/v1/tenants/{name}/limits",
               route([&ctx](http::request& req) { return set_limits(ctx, req); }));
    server.add("PUT", "/api/v1/tenants/{name}/users/{user}",
               route([&ctx](http::request& req) { return bind(ctx, req); }));
    server.add("GET", "/api/v1/tenant_defaults",
               route([&ctx](http::request& req) { return defaults(ctx, req, false); }));
    server.add("PUT", "/api/v1/tenant_defaults",
               route([&ctx](http::request& req) { return defaults(ctx, req, true); }));
}

}  // namespace ketch::console
