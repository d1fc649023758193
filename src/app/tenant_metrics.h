// The per-tenant metrics (--tenancy; docs/metrics.md): every counter that has
// a principal behind it, with a `tenant` label.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "tenant/catalog.h"

namespace ketch::app {

// A tenant's bytes as its max_storage_bytes check sees them (broker/tenant_limits.h storage_of).
using tenant_bytes_fn = std::function<int64_t(const std::string& tenant)>;

// `storage` unset: no ketch_tenant_storage_bytes.
std::string render_tenant_metrics(const tenant::catalog& tenants, const tenant_bytes_fn& storage = {});

}  // namespace ketch::app
