// --tenancy: which tenant a console request sees (docs/console.md "Tenants").
//   - an operator (a super user, or no login on a console without users)
//     sees every tenant, under the internal names; `?tenant=T` narrows a
//     list (topics, groups, traffic, clients) to tenant T's;
//   - a tenant's user sees its tenant only: its Kafka calls are scoped by the
//     broker like any of its connections (the names are its own), and what
//     the console shows besides (traffic, clients) is filtered to its tenant;
//     `?tenant=` naming another tenant is 403.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "http/message.h"

namespace ketch::console {

struct context;

struct tenant_view {
    std::optional<std::string> tenant;  // nullopt: every tenant (or tenancy off)
    bool scoped = false;                // a tenant's user: the broker answers in its own names
};

tenant_view view_of(const context& ctx, const http::request& req);

// The tenant of a connection's principal as the broker scopes it; nullopt
// for an operator (a super user) or a principal with no tenant.
std::optional<std::string> tenant_of_principal(const context& ctx, const std::string& principal);

// Whether a connection's principal is seen by `v`.
bool sees_principal(const context& ctx, const tenant_view& v, const std::string& principal);

// A name of a Kafka answer: its tenant (null without tenancy) and whether `v`
// shows it (the owner of an internal name; a scoped user's names are its own).
nlohmann::json tenant_of(const context& ctx, const tenant_view& v, const std::string& name);
bool of_tenant(const context& ctx, const tenant_view& v, const std::string& name);
// The broker's internal name of a name of a Kafka answer (a scoped user's
// names are its own), for what the console reads past the Kafka APIs (a
// partition's segments).
std::string internal_name(const tenant_view& v, const std::string& name);

}  // namespace ketch::console
