// ketch.toml's [[users]]: SASL users, their passwords and their tenants.
#pragma once

#include <toml++/toml.h>

#include "app/options.h"

namespace ketch::app {

// Throws std::invalid_argument for an entry without a name or a password.
void read_users(const toml::table& t, options& o);

}  // namespace ketch::app
