#include "tenant/directory.h"

namespace ketch::tenant {

directory::directory(directory_config cfg) : cfg_(std::move(cfg)) {}

std::shared_ptr<const scope> directory::scope_of(const std::string& tenant) const {
    std::lock_guard l(mu_);
    auto& s = scopes_[tenant];
    if (!s) s = std::make_shared<const scope>(tenant, this);
    return s;
}

std::string directory::tenant_of_user(const std::string& user) const {
    if (is_tenant_user(user)) return user.substr(0, user.find(separator));
    std::lock_guard l(mu_);
    auto it = cfg_.bindings.find(user);
    return it == cfg_.bindings.end() ? user : it->second;
}

directory::answer directory::resolve(const std::string& principal, bool authenticated) const {
    answer a;
    const bool anonymous = !authenticated || principal.empty() || principal == "User:ANONYMOUS";
    if (anonymous) {
        if (cfg_.anonymous_tenant.empty()) return a;  // refused
        a.what = answer::kind::scoped;
        a.tenant = scope_of(cfg_.anonymous_tenant);
        return a;
    }
    if (cfg_.super_users.count(principal)) {
        a.what = answer::kind::unscoped;
        return a;
    }
    constexpr std::string_view user_prefix = "User:";
    if (principal.compare(0, user_prefix.size(), user_prefix) != 0) return a;
    const std::string t = tenant_of_user(principal.substr(user_prefix.size()));
    if (!check_tenant_name(t).empty()) return a;
    a.what = answer::kind::scoped;
    a.tenant = scope_of(t);
    return a;
}

bool directory::operator_user_of(std::string_view user, std::string_view tenant) const {
    if (user.find(separator) != std::string_view::npos) return false;
    const std::string u(user);
    return !is_super_user("User:" + u) && tenant_of_user(u) == tenant;
}

std::string directory::check_user(const std::string& user, bool scram) const {
    if (scram && is_tenant_user(user)) return {};
    if (user.find(separator) != std::string::npos)
        return "Authentication failed: a principal name may not contain '~' (the tenant separator)";
    if (cfg_.super_users.count("User:" + user)) return {};
    const std::string t = tenant_of_user(user);
    if (auto why = check_tenant_name(t); !why.empty())
        return "Authentication failed: user " + user + " has no valid tenant (" + why + ")";
    return {};
}

bool directory::bind(const std::string& user, const std::string& tenant, std::string& why) {
    why = check_tenant_name(tenant);
    if (!why.empty()) return false;
    if (user.find(separator) != std::string::npos) {
        why = "a user name may not contain '~'";
        return false;
    }
    std::lock_guard l(mu_);
    cfg_.bindings[user] = tenant;
    generation_.fetch_add(1, std::memory_order_release);
    return true;
}

void directory::unbind(const std::string& user) {
    std::lock_guard l(mu_);
    cfg_.bindings.erase(user);
    generation_.fetch_add(1, std::memory_order_release);
}

std::map<std::string, std::string> directory::bindings() const {
    std::lock_guard l(mu_);
    return cfg_.bindings;
}

}  // namespace ketch::tenant
