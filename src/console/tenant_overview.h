// The Overview of one tenant (--tenancy; docs/console.md "Tenants"): what
// GET /api/v1/cluster shows a tenant's user, or an operator who picked a
// tenant (?tenant=T), in place of the broker-wide figures — the tenant's
// topics, partitions, groups, storage, connections, traffic and its Produce /
// Fetch durations, nothing of another tenant's.
#pragma once

#include <nlohmann/json.hpp>

#include "console/context.h"
#include "console/tenant_view.h"
#include "http/message.h"

namespace ketch::console {

// {"name", "topics", "partitions", "groups", "storage_bytes", "connections",
//  "requests", "errors", "bytes_in", "bytes_out"} of the view's tenant.
nlohmann::json tenant_overview(const context& ctx, const http::request& req, const tenant_view& v);

// The tenant's Produce and Fetch rows in the form of the broker's per-API
// request metrics ({"api_key", "api", "count", "mean_us", "buckets"}).
nlohmann::json tenant_request_metrics(const context& ctx, const std::string& tenant);

}  // namespace ketch::console
