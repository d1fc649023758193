#include "security/acl.h"

#include <array>
#include <span>

namespace ketch::security {

namespace {

constexpr std::array<std::string_view, 8> k_resource_names = {
    "UNKNOWN", "ANY", "TOPIC", "GROUP", "CLUSTER", "TRANSACTIONAL_ID", "DELEGATION_TOKEN", "USER"};
constexpr std::array<std::string_view, 5> k_pattern_names = {"UNKNOWN", "ANY", "MATCH", "LITERAL", "PREFIXED"};
constexpr std::array<std::string_view, 16> k_operation_names = {"UNKNOWN",
                                                                "ANY",
                                                                "ALL",
                                                                "READ",
                                                                "WRITE",
                                                                "CREATE",
                                                                "DELETE",
                                                                "ALTER",
                                                                "DESCRIBE",
                                                                "CLUSTER_ACTION",
                                                                "DESCRIBE_CONFIGS",
                                                                "ALTER_CONFIGS",
                                                                "IDEMPOTENT_WRITE",
                                                                "CREATE_TOKENS",
                                                                "DESCRIBE_TOKENS",
                                                                "TWO_PHASE_COMMIT"};
constexpr std::array<std::string_view, 4> k_permission_names = {"UNKNOWN", "ANY", "DENY", "ALLOW"};

// Each enum's names, by code (code 0 is UNKNOWN in each), found by overload on a value of the enum.
constexpr std::span<const std::string_view> names(resource_type) { return k_resource_names; }
constexpr std::span<const std::string_view> names(pattern_type) { return k_pattern_names; }
constexpr std::span<const std::string_view> names(acl_operation) { return k_operation_names; }
constexpr std::span<const std::string_view> names(acl_permission) { return k_permission_names; }

// A code outside the table (a value cast from another broker's answer) is UNKNOWN.
template <class E>
E from_code(int8_t code) {
    return code >= 0 && size_t(code) < names(E{}).size() ? E(code) : E{};
}

template <class E>
std::string_view name_in(E v) {
    auto i = size_t(uint8_t(v));
    return i < names(v).size() ? names(v)[i] : names(v)[0];
}

bool pattern_matches(const acl_binding_filter& f, const resource_pattern& p) {
    // ResourcePatternFilter.matches
    if (f.type != resource_type::any && f.type != p.type) return false;
    if (f.pattern != pattern_type::any && f.pattern != pattern_type::match && f.pattern != p.pattern) return false;
    if (!f.name) return true;
    if (f.pattern == pattern_type::any || f.pattern == p.pattern) return *f.name == p.name;
    switch (p.pattern) {  // f.pattern is MATCH here
        case pattern_type::literal: return *f.name == p.name || p.name == wildcard;
        case pattern_type::prefixed: return f.name->starts_with(p.name);
        default: return false;
    }
}

bool entry_matches(const acl_binding_filter& f, const acl_entry& e) {
    // AccessControlEntryFilter.matches
    if (f.principal && *f.principal != e.principal) return false;
    if (f.host && *f.host != e.host) return false;
    if (f.operation != acl_operation::any && f.operation != e.operation) return false;
    return f.permission == acl_permission::any || f.permission == e.permission;
}

}  // namespace

resource_type to_resource_type(int8_t c) { return from_code<resource_type>(c); }
pattern_type to_pattern_type(int8_t c) { return from_code<pattern_type>(c); }
acl_operation to_acl_operation(int8_t c) { return from_code<acl_operation>(c); }
acl_permission to_acl_permission(int8_t c) { return from_code<acl_permission>(c); }

std::string_view name_of(resource_type t) { return name_in(t); }
std::string_view name_of(pattern_type t) { return name_in(t); }
std::string_view name_of(acl_operation o) { return name_in(o); }
std::string_view name_of(acl_permission p) { return name_in(p); }

template <class E>
std::optional<E> from_name(std::string_view name) {
    auto all = names(E{});
    for (size_t i = 0; i < all.size(); ++i)
        if (all[i] == name) return E(i);
    return std::nullopt;
}
template std::optional<resource_type> from_name(std::string_view);
template std::optional<pattern_type> from_name(std::string_view);
template std::optional<acl_operation> from_name(std::string_view);
template std::optional<acl_permission> from_name(std::string_view);

bool acl_binding_filter::matches(const acl_binding& b) const {
    return pattern_matches(*this, b.pattern) && entry_matches(*this, b.entry);
}

bool acl_binding_filter::unknown() const {
    return type == resource_type::unknown || pattern == pattern_type::unknown || operation == acl_operation::unknown ||
           permission == acl_permission::unknown;
}

// The checks in Kafka's order; the principal last (StandardAcl.kafkaPrincipal:
// any "Type:name", even "User:").
bool is_cluster_resource_name(std::string_view name, bool tenancy) {
    if (name == cluster_resource_name) return true;
    if (!tenancy || name.size() <= cluster_resource_name.size() + 1 || !name.ends_with(cluster_resource_name))
        return false;
    const auto tenant = name.substr(0, name.size() - cluster_resource_name.size());  // "T~"
    return tenant.find('~') == tenant.size() - 1 && tenant.size() > 1;
}

std::optional<std::string> validate_new_acl(const acl_binding& b, bool tenancy) {
    // AclApis.handleCreateAcls first, then AclControlManager.validateNewAcl.
    if (b.pattern.type == resource_type::cluster && !is_cluster_resource_name(b.pattern.name, tenancy))
        return "The only valid name for the CLUSTER resource is " + std::string(cluster_resource_name);
    if (b.pattern.name.empty()) return "Invalid empty resource name";
    if (b.pattern.type == resource_type::unknown || b.pattern.type == resource_type::any)
        return "Invalid resourceType " + std::string(name_of(b.pattern.type));
    if (b.pattern.pattern != pattern_type::literal && b.pattern.pattern != pattern_type::prefixed)
        return "Invalid patternType " + std::string(name_of(b.pattern.pattern));
    if (b.entry.operation == acl_operation::unknown || b.entry.operation == acl_operation::any)
        return "Invalid operation " + std::string(name_of(b.entry.operation));
    if (b.entry.permission != acl_permission::deny && b.entry.permission != acl_permission::allow)
        return "Invalid permissionType " + std::string(name_of(b.entry.permission));
    if (b.entry.principal.find(':') == std::string::npos)  // StandardAcl.kafkaPrincipal
        return "Could not parse principal from `" + b.entry.principal +
               "` (no colon is present separating the principal type from the principal name)";
    return std::nullopt;
}

}  // namespace ketch::security
