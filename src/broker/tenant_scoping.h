// --tenancy: which tenant a request's names belong to (docs/design/tenancy.md
// "Tenants of connections"), set on the request_context by the dispatcher
// before the request reaches its handler.
#pragma once

#include "broker/request_context.h"

namespace ketch::broker {

// Sets ctx.tenant (and ctx.tenant_usage) for the connection's principal.
// False: the connection has none (not authenticated and no anonymous tenant,
// or a principal that names no valid tenant) or its tenant is at its
// max_connections, and is closed; the requests of a login pass.
//
// What a connection resolves is kept on it (connection_info::tenant_state)
// while its principal and the directory's bindings (directory::generation)
// are unchanged, so a request of a scoped connection resolves nothing: no
// lock, no map lookup, no string built.
bool scope_tenant(request_context& ctx);

}  // namespace ketch::broker
