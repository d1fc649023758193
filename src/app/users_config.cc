#include "app/users_config.h"

#include <stdexcept>

namespace ketch::app {

// ketch.toml's [[users]]: SASL users with their passwords (stored salted).
void read_users(const toml::table& t, options& o) {
    auto* users = t["users"].as_array();
    if (!users) return;
    for (auto& u : *users) {
        auto* ut = u.as_table();
        if (!ut) throw std::invalid_argument("[[users]] entries must be tables");
        auto name = (*ut)["name"].value<std::string>();
        auto password = (*ut)["password"].value<std::string>();
        if (!name || !password || name->empty() || password->empty())
            throw std::invalid_argument("every [[users]] entry needs a non-empty name and password");
        o.users[*name] = *password;
        if (auto tenant = (*ut)["tenant"].value<std::string>()) o.user_tenants[*name] = *tenant;
    }
}

namespace {

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

void read_tenants(const toml::table& t, options& o) {
    if (auto* d = t["tenant_defaults"].as_table()) o.tenant_limits.defaults = limits_of(*d, "[tenant_defaults]");
    auto* tenants = t["tenants"].as_array();
    if (!tenants) return;
    for (auto& e : *tenants) {
        auto* et = e.as_table();
        if (!et) throw std::invalid_argument("[[tenants]] entries must be tables");
        auto name = (*et)["name"].value<std::string>();
        if (!name) throw std::invalid_argument("every [[tenants]] entry needs a name");
        if (auto why = tenant::check_tenant_name(*name); !why.empty())
            throw std::invalid_argument("[[tenants]] " + *name + ": " + why);
        o.tenant_limits.tenants[*name] = limits_of(*et, "[[tenants]] " + *name);
    }
}

}  // namespace ketch::app
