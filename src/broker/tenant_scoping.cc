#include "broker/tenant_scoping.h"

#include <spdlog/spdlog.h>

#include "protocol/messages/api_table.h"
#include "tenant/catalog.h"
#include "tenant/directory.h"

namespace ketch::broker {

namespace {

// What a connection's principal resolved to, as of a generation of the
// directory's bindings.
struct connection_tenant {
    std::string principal;
    bool authenticated = false;
    uint64_t generation = 0;
    tenant::directory::answer answer;
    tenant::usage* usage = nullptr;
    uint64_t deletions = 0;      // usage->deletions when the connection was first scoped to its tenant
    std::shared_ptr<void> hold;  // the connection's place in its tenant's count
};

// The console's requests (listener CONSOLE) act as its logged-in user
// (docs/console.md "Tenants"): an operator's (a super user, or no login on a
// console without users) see every tenant's internal names; a tenant's
// user is scoped to its tenant like any of its connections, without taking
// a connection's place or counting in its metrics. False: a login that
// names no tenant (the call fails).
bool scope_console(request_context& ctx) {
    const auto& p = ctx.conn.principal;
    if (p.empty() || p == "User:ANONYMOUS") return true;
    auto a = ctx.broker.tenants->resolve(p, true);
    if (a.what == tenant::directory::answer::kind::refused) return false;
    ctx.tenant = std::move(a.tenant);
    return true;
}

// The connection's resolution, made again when its principal or the
// bindings changed since.
connection_tenant& resolved(request_context& ctx) {
    auto* kept = static_cast<connection_tenant*>(ctx.conn.tenant_state.get());
    const uint64_t generation = ctx.broker.tenants->generation();  // read before resolving
    if (kept && kept->generation == generation && kept->authenticated == ctx.conn.authenticated &&
        kept->principal == ctx.conn.principal) [[likely]]
        return *kept;
    auto fresh = std::make_shared<connection_tenant>();
    fresh->principal = ctx.conn.principal;
    fresh->authenticated = ctx.conn.authenticated;
    fresh->generation = generation;
    fresh->answer = ctx.broker.tenants->resolve(ctx.conn.principal, ctx.conn.authenticated);
    if (auto* cat = ctx.broker.tenant_catalog; cat && fresh->answer.tenant) {
        const std::string& t = fresh->answer.tenant->tenant();
        fresh->usage = &cat->usage_of(t);
        fresh->deletions = fresh->usage->deletions.load(std::memory_order_acquire);
        // The same tenant keeps its place; another tenant's is taken at this request.
        if (kept && kept->hold && kept->answer.tenant && kept->answer.tenant->tenant() == t) {
            fresh->hold = std::move(kept->hold);
            fresh->deletions = kept->deletions;
        }
    }
    ctx.conn.tenant_state = fresh;
    return *fresh;
}

// The tenant the connection was scoped to was deleted since (docs/tenancy.md
// "Administration"): whatever it authenticated with, token or password.
bool tenant_deleted(const request_context& ctx) {
    auto* kept = static_cast<connection_tenant*>(ctx.conn.tenant_state.get());
    return kept && kept->usage && kept->usage->deletions.load(std::memory_order_relaxed) != kept->deletions;
}

}  // namespace

bool scope_tenant(request_context& ctx) {
    const auto key = ctx.api_key;
    if (ctx.conn.listener_name == "CONSOLE") return scope_console(ctx);
    if (key == int16_t(kafka::api_key::api_versions) || key == int16_t(kafka::api_key::sasl_handshake) ||
        key == int16_t(kafka::api_key::sasl_authenticate))
        return true;
    if (tenant_deleted(ctx)) [[unlikely]] {
        auto* kept = static_cast<connection_tenant*>(ctx.conn.tenant_state.get());
        spdlog::info("conn {} from {}: tenant {} was deleted, closing", ctx.conn.id, ctx.conn.peer,
                     kept->answer.tenant ? kept->answer.tenant->tenant() : std::string());
        ctx.conn.close_reason = "tenant deleted";
        return false;
    }
    auto& c = resolved(ctx);
    if (c.answer.what == tenant::directory::answer::kind::refused) {
        spdlog::info("conn {} from {}: principal '{}' has no tenant (--tenancy), closing", ctx.conn.id, ctx.conn.peer,
                     ctx.conn.principal);
        return false;
    }
    ctx.tenant = c.answer.tenant;
    ctx.tenant_usage = c.usage;
    if (c.usage && !c.hold) {
        // max_connections: a connection takes its place at its first request.
        if (!(c.hold = ctx.broker.tenant_catalog->admit_connection(ctx.tenant->tenant()))) {
            spdlog::info("conn {} from {}: tenant {} is at its max_connections, closing", ctx.conn.id, ctx.conn.peer,
                         ctx.tenant->tenant());
            ctx.conn.close_reason = "tenant at its max_connections";
            return false;
        }
    }
    return true;
}

}  // namespace ketch::broker
