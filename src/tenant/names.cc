#include "tenant/names.h"

namespace ketch::tenant {

std::string check_tenant_name(std::string_view name) {
    if (name.empty()) return "a tenant name may not be empty";
    if (name.size() > max_tenant_name) return "a tenant name has at most 64 characters";
    if (name == "." || name == "..") return "a tenant name may not be '.' or '..'";
    for (char c : name) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                        c == '_' || c == '-';
        if (c == separator) return "a tenant name may not contain '~' (the tenant separator)";
        if (!ok) return "a tenant name has only the characters A-Z a-z 0-9 . _ -";
    }
    return {};
}

scope::scope(std::string tenant, const user_membership* users) : tenant_(std::move(tenant)), users_(users) {
    if (tenant_ != default_tenant) prefix_ = tenant_ + separator;
}

std::string scope::to_internal(std::string_view local) const {
    std::string out;
    if (!prefix_.empty()) {
        out.reserve(prefix_.size() + local.size());
        out += prefix_;
    } else if (local.find(separator) != std::string_view::npos) {
        out += separator;  // escaped: never another tenant's name
    }
    out += local;
    return out;
}

void scope::to_internal_in_place(std::string& name) const {
    if (!prefix_.empty())
        name.insert(0, prefix_);
    else if (name.find(separator) != std::string::npos)
        name.insert(name.begin(), separator);  // escaped: never another tenant's name
}

bool scope::to_local_in_place(std::string& name) const {
    if (!owns(name)) return false;
    if (!prefix_.empty())
        name.erase(0, prefix_.size());
    else if (!name.empty() && name[0] == separator)
        name.erase(0, 1);
    return true;
}

bool scope::owns(std::string_view internal) const {
    if (prefix_.empty()) {
        const auto at = internal.find(separator);
        return at == std::string_view::npos || at == 0;
    }
    return internal.size() >= prefix_.size() && internal.compare(0, prefix_.size(), prefix_) == 0;
}

std::optional<std::string> scope::to_local(std::string_view internal) const {
    if (!owns(internal)) return std::nullopt;
    if (prefix_.empty())
        return std::string(internal.empty() || internal[0] != separator ? internal : internal.substr(1));
    return std::string(internal.substr(prefix_.size()));
}

std::string scope::localize_text(std::string_view text) const {
    if (prefix_.empty()) return std::string(text);
    std::string out;
    out.reserve(text.size());
    size_t i = 0;
    while (i < text.size()) {
        const auto at = text.find(prefix_, i);
        if (at == std::string_view::npos) break;
        out.append(text.substr(i, at - i));
        i = at + prefix_.size();
    }
    out.append(text.substr(i));
    return out;
}

bool is_tenant_user(std::string_view user) {
    const auto at = user.find(separator);
    if (at == std::string_view::npos || at == 0 || at + 1 == user.size()) return false;
    if (user.find(separator, at + 1) != std::string_view::npos) return false;
    return check_tenant_name(user.substr(0, at)).empty();
}

std::string scope::user_to_internal(std::string_view local) const {
    if (local.find(separator) == std::string_view::npos) {
        const bool operators = users_ ? users_->operator_user_of(local, tenant_) : local == tenant_;
        if (operators) return std::string(local);
    }
    std::string out = tenant_;
    out += separator;
    out += local;
    return out;
}

std::optional<std::string> scope::user_to_local(std::string_view internal) const {
    const auto at = internal.find(separator);
    if (at == std::string_view::npos) {
        const bool operators = users_ ? users_->operator_user_of(internal, tenant_) : internal == tenant_;
        return operators ? std::optional<std::string>(internal) : std::nullopt;
    }
    if (internal.substr(0, at) != tenant_) return std::nullopt;
    return std::string(internal.substr(at + 1));
}

namespace {
constexpr std::string_view all_users = "User:*";
}

std::string scope::principal_to_internal(std::string_view local) const {
    const auto colon = local.find(':');
    if (local == all_users || colon == std::string_view::npos) return std::string(local);
    return std::string(local.substr(0, colon + 1)) + user_to_internal(local.substr(colon + 1));
}

std::optional<std::string> scope::principal_to_local(std::string_view internal) const {
    const auto colon = internal.find(':');
    if (internal == all_users) return std::string(internal);
    if (colon == std::string_view::npos) return std::nullopt;
    auto u = user_to_local(internal.substr(colon + 1));
    if (!u) return std::nullopt;
    return std::string(internal.substr(0, colon + 1)) + *u;
}

std::string_view owner_of(std::string_view internal) {
    const auto at = internal.find(separator);
    if (at == std::string_view::npos || at == 0) return default_tenant;
    return internal.substr(0, at);
}

std::string_view local_part(std::string_view internal) {
    const auto at = internal.find(separator);
    if (at == std::string_view::npos) return internal;
    return internal.substr(at + 1);
}

}  // namespace ketch::tenant
