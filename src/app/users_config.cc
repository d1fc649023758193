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

}  // namespace ketch::app
