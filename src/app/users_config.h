// ketch.toml's [[users]]: SASL users, their passwords and their tenants;
// [tenant_defaults] and [[tenants]]: the tenants' limits.
#pragma once

#include <toml++/toml.h>

#include "app/options.h"

namespace ketch::app {

// Throws std::invalid_argument for an entry without a name or a password.
void read_users(const toml::table& t, options& o);
// ketch.toml's [tenant_defaults] and [[tenants]] (docs/tenancy.md "Limits");
// throws std::invalid_argument for an unknown key or a bad value.
void read_tenants(const toml::table& t, options& o);

}  // namespace ketch::app
