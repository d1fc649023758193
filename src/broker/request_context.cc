#include "broker/request_context.h"

#include <arpa/inet.h>

#include <cstdio>

#include <spdlog/spdlog.h>

#include "security/authorizer.h"

namespace ketch::broker {

std::string request_context::host() const {
    auto colon = conn.peer.rfind(':');
    std::string ip = colon == std::string::npos ? conn.peer : conn.peer.substr(0, colon);
    if (ip.find(':') == std::string::npos) return ip;
    // IPv6 as Java's Inet6Address.getHostAddress writes it (what Kafka's ACL
    // hosts are compared with): eight groups, lowercase hex, no "::".
    in6_addr a{};
    if (::inet_pton(AF_INET6, ip.c_str(), &a) != 1) return ip;
    std::string out;
    for (int g = 0; g < 8; ++g) {
        char buf[8];
        std::snprintf(buf, sizeof buf, g ? ":%x" : "%x", (unsigned(a.s6_addr[2 * g]) << 8) | a.s6_addr[2 * g + 1]);
        out += buf;
    }
    return out;
}

bool request_context::authorize(security::acl_operation op, security::resource_type type,
                                const std::string& name) const {
    auto* a = broker.authorizer;
    if (!a) return true;
    const bool ok = a->authorize(conn.principal, host(), op, type, name);
    // Kafka's kafka.authorizer.logger line, at debug level.
    if (!ok)
        spdlog::debug("Principal = {} is Denied operation = {} from host = {} on resource = {}:LITERAL:{}",
                      conn.principal, security::name_of(op), host(), security::name_of(type), name);
    return ok;
}

bool request_context::authorize_cluster(security::acl_operation op) const {
    using security::resource_type;
    if (tenant &&
        authorize(op, resource_type::cluster, tenant->tenant() + "~" + std::string(security::cluster_resource_name)))
        return true;
    return authorize(op, resource_type::cluster, std::string(security::cluster_resource_name));
}

bool request_context::authorize_any(security::acl_operation op, security::resource_type type) const {
    auto* a = broker.authorizer;
    return !a || a->authorize_any(conn.principal, host(), op, type);
}

int32_t authorized_operations(const request_context& ctx, security::resource_type type, const std::string& name,
                              int32_t all) {
    if (!ctx.broker.authorizer) return all;
    int32_t out = 0;
    for (int8_t op = 0; op < 31; ++op)
        if ((all & (1 << op)) && ctx.authorize(security::acl_operation(op), type, name)) out |= 1 << op;
    return out;
}

int32_t cluster_authorized_operations(const request_context& ctx, int32_t all) {
    if (!ctx.broker.authorizer) return all;
    int32_t out = 0;
    for (int8_t op = 0; op < 31; ++op)
        if ((all & (1 << op)) && ctx.authorize_cluster(security::acl_operation(op))) out |= 1 << op;
    return out;
}

}  // namespace ketch::broker
