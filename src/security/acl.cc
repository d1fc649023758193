#include "security/acl.h"

#include <array>

namespace ketch::security {

namespace {

template <class E, size_t N>
E from_code(int8_t code, E unknown) {
    return code >= 0 && code < int8_t(N) ? E(code) : unknown;
}

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

resource_type to_resource_type(int8_t c) { return from_code<resource_type, 8>(c, resource_type::unknown); }
pattern_type to_pattern_type(int8_t c) { return from_code<pattern_type, 5>(c, pattern_type::unknown); }
acl_operation to_acl_operation(int8_t c) { return from_code<acl_operation, 16>(c, acl_operation::unknown); }
acl_permission to_acl_permission(int8_t c) { return from_code<acl_permission, 4>(c, acl_permission::unknown); }

namespace {
// Codes outside the table (a value cast from another broker's answer) are UNKNOWN.
template <class E, size_t N>
std::string_view name_in(const std::array<std::string_view, N>& names, E v) {
    auto i = size_t(uint8_t(v));
    return i < N ? names[i] : names[0];
}
}  // namespace

std::string_view name_of(resource_type t) { return name_in(k_resource_names, t); }
std::string_view name_of(pattern_type t) { return name_in(k_pattern_names, t); }
std::string_view name_of(acl_operation o) { return name_in(k_operation_names, o); }
std::string_view name_of(acl_permission p) { return name_in(k_permission_names, p); }

namespace {
template <class E, size_t N>
std::optional<E> find_name(const std::array<std::string_view, N>& names, std::string_view name) {
    for (size_t i = 0; i < N; ++i)
        if (names[i] == name) return E(i);
    return std::nullopt;
}
}  // namespace

template <>
std::optional<resource_type> from_name(std::string_view n) {
    return find_name<resource_type>(k_resource_names, n);
}
template <>
std::optional<pattern_type> from_name(std::string_view n) {
    return find_name<pattern_type>(k_pattern_names, n);
}
template <>
std::optional<acl_operation> from_name(std::string_view n) {
    return find_name<acl_operation>(k_operation_names, n);
}
template <>
std::optional<acl_permission> from_name(std::string_view n) {
    return find_name<acl_permission>(k_permission_names, n);
}

bool acl_binding_filter::matches(const acl_binding& b) const {
    return pattern_matches(*this, b.pattern) && entry_matches(*this, b.entry);
}

bool acl_binding_filter::unknown() const {
    return type == resource_type::unknown || pattern == pattern_type::unknown || operation == acl_operation::unknown ||
           permission == acl_permission::unknown;
}

// The checks in Kafka's order; the principal last (StandardAcl.kafkaPrincipal:
// any "Type:name", even "User:").
std::optional<std::string> validate_new_acl(const acl_binding& b) {
    // AclApis.handleCreateAcls first, then AclControlManager.validateNewAcl.
    if (b.pattern.type == resource_type::cluster && b.pattern.name != cluster_resource_name)
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
