#include "console/tenant_view.h"

#include <set>

#include "console/context.h"
#include "console/kafka_facts.h"
#include "console/reply.h"
#include "console/routes.h"
#include "tenant/names.h"

namespace ketch::console {

namespace {

bool operator_principal(const context& ctx, const std::string& principal) {
    return principal.empty() || principal == "User:ANONYMOUS" || ctx.tenants->users().is_super_user(principal);
}

}  // namespace

tenant_view view_of(const context& ctx, const http::request& req) {
    tenant_view v;
    if (!ctx.tenants) return v;
    auto asked = req.query_value("tenant");
    if (asked && asked->empty()) asked.reset();
    const std::string who = principal_of(req);
    if (operator_principal(ctx, req.principal)) {
        v.tenant = asked;
        return v;
    }
    auto own = tenant_of_principal(ctx, who);
    if (!own) throw api_error(403, who + " belongs to no tenant");
    if (asked && *asked != *own) throw api_error(403, who + " sees tenant " + *own + " only");
    v.tenant = own;
    v.scoped = true;
    return v;
}

std::optional<std::string> tenant_of_principal(const context& ctx, const std::string& principal) {
    if (!ctx.tenants) return std::nullopt;
    const bool anonymous = principal.empty() || principal == "User:ANONYMOUS";
    auto a = ctx.tenants->users().resolve(principal, !anonymous);
    if (!a.tenant) return std::nullopt;
    return a.tenant->tenant();
}

bool sees_principal(const context& ctx, const tenant_view& v, const std::string& principal) {
    return !v.tenant || tenant_of_principal(ctx, principal) == v.tenant;
}

nlohmann::json tenant_of(const context& ctx, const tenant_view& v, const std::string& name) {
    if (!ctx.tenants) return nullptr;
    if (v.scoped) return *v.tenant;
    return std::string(tenant::owner_of(name));
}

std::string internal_name(const tenant_view& v, const std::string& name) {
    return v.scoped ? tenant::scope(*v.tenant).to_internal(name) : name;
}

bool of_tenant(const context& ctx, const tenant_view& v, const std::string& name) {
    return !v.tenant || v.scoped || tenant::owner_of(name) == *v.tenant;
}

namespace {

// The tenants an operator may pick: the created ones, those users are bound
// to, `default`, and the owners of every topic (a user is its own tenant
// without being created).
nlohmann::json known_tenants(const context& ctx, const http::request& req) {
    std::set<std::string> names{std::string(tenant::default_tenant)};
    for (auto& t : ctx.tenants->names()) names.insert(t);
    for (auto& [user, t] : ctx.tenants->users().bindings()) names.insert(t);
    for (auto& t : describe_topics(ctx, principal_of(req))) names.insert(std::string(tenant::owner_of(t.name)));
    return names;
}

}  // namespace

void add_tenant_view(http::server& server, const context& ctx) {
    // GET /api/v1/tenant_view: what the pages' tenant selector shows.
    server.add("GET", "/api/v1/tenant_view", route([&ctx](http::request& req) {
                   if (!ctx.tenants) return json_reply({{"tenancy", false}});
                   const tenant_view v = view_of(ctx, req);
                   nlohmann::json out = {{"tenancy", true},
                                         {"scoped", v.scoped},
                                         {"tenant", v.tenant ? nlohmann::json(*v.tenant) : nlohmann::json(nullptr)}};
                   out["tenants"] = v.scoped ? nlohmann::json::array({*v.tenant}) : known_tenants(ctx, req);
                   return json_reply(out);
               }));
}

}  // namespace ketch::console
