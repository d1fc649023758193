#include "app/users_config.h"

#include <stdexcept>

namespace ketch::app {

namespace {

// Calls `f` with each table of the array of tables [[key]] (none when there
// is no such array); throws std::invalid_argument for an entry not a table.
template <class F>
void for_each_entry(const toml::table& t, const std::string& key, F f) {
    auto* entries = t[key].as_array();
    if (!entries) return;
    for (auto& e : *entries) {
        auto* et = e.as_table();
        if (!et) throw std::invalid_argument("[[" + key + "]] entries must be tables");
        f(*et);
    }
}

tenant::limits limits_of(const toml::table& t, const std::string& where) {
    tenant::limits l;
    for (auto& [k, v] : t) {
        const std::string key(k.str());
        if (key == "name" && where != "[tenant_defaults]") continue;
        auto value = v.value<double>();
        if (!value) throw std::invalid_argument(where + ": " + key + " must be a number");
        if (auto why = tenant::check_limit(key, *value); !why.empty()) throw std::invalid_argument(where + ": " + why);
        l.values[key] = *value;
    }
    return l;
}

}  // namespace

// ketch.toml's [[users]]: SASL users with their passwords (stored salted).
void read_users(const toml::table& t, options& o) {
    for_each_entry(t, "users", [&](const toml::table& u) {
        auto name = u["name"].value<std::string>();
        auto password = u["password"].value<std::string>();
        if (!name || !password || name->empty() || password->empty())
            throw std::invalid_argument("every [[users]] entry needs a non-empty name and password");
        o.users[*name] = *password;
        if (auto tenant = u["tenant"].value<std::string>()) o.user_tenants[*name] = *tenant;
    });
}

void read_tenants(const toml::table& t, options& o) {
    if (auto* d = t["tenant_defaults"].as_table()) o.tenant_limits.defaults = limits_of(*d, "[tenant_defaults]");
    for_each_entry(t, "tenants", [&](const toml::table& e) {
        auto name = e["name"].value<std::string>();
        if (!name) throw std::invalid_argument("every [[tenants]] entry needs a name");
        if (auto why = tenant::check_tenant_name(*name); !why.empty())
            throw std::invalid_argument("[[tenants]] " + *name + ": " + why);
        o.tenant_limits.tenants[*name] = limits_of(e, "[[tenants]] " + *name);
    });
}

}  // namespace ketch::app
