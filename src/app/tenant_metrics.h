// The per-tenant metrics (--tenancy; docs/metrics.md): every counter that has
// a principal behind it, with a `tenant` label.
#pragma once

#include <string>

#include "tenant/catalog.h"

namespace ketch::app {

std::string render_tenant_metrics(const tenant::catalog& tenants);

}  // namespace ketch::app
