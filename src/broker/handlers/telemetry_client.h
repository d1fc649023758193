// What the telemetry handlers (71, 72) tell the client metrics manager about
// the requesting client: its id, software (ApiVersions v3+), address,
// principal and tenant, for subscription match patterns and the console.
#pragma once

#include "broker/request_context.h"
#include "telemetry/subscription.h"

namespace ketch::broker {

inline telemetry::client_meta telemetry_client(const request_context& ctx) {
    telemetry::client_meta m;
    m.client_id = ctx.client_id.value_or("");
    m.software_name = ctx.conn.client_software_name;
    m.software_version = ctx.conn.client_software_version;
    m.source_address = ctx.host();
    auto colon = ctx.conn.peer.rfind(':');
    if (colon != std::string::npos) m.source_port = ctx.conn.peer.substr(colon + 1);
    m.principal = ctx.conn.principal;
    if (ctx.tenant) m.tenant = ctx.tenant->tenant();
    return m;
}

}  // namespace ketch::broker
