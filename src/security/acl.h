// ACL domain types with Kafka's numeric codes (org.apache.kafka.common.acl,
// org.apache.kafka.common.resource): resource patterns, access control
// entries, bindings and binding filters. No wire types: handlers convert.
//
// Codes read off the wire that Kafka does not know map to `unknown`, as
// Kafka's fromCode does.
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ketch::security {

enum class resource_type : int8_t {
    unknown = 0,
    any = 1,
    topic = 2,
    group = 3,
    cluster = 4,
    transactional_id = 5,
    delegation_token = 6,
    user = 7,
};
enum class pattern_type : int8_t { unknown = 0, any = 1, match = 2, literal = 3, prefixed = 4 };
enum class acl_operation : int8_t {
    unknown = 0,
    any = 1,
    all = 2,
    read = 3,
    write = 4,
    create = 5,
    remove = 6 /* DELETE */,
    alter = 7,
    describe = 8,
    cluster_action = 9,
    describe_configs = 10,
    alter_configs = 11,
    idempotent_write = 12,
    create_tokens = 13,
    describe_tokens = 14,
    two_phase_commit = 15,
};
enum class acl_permission : int8_t { unknown = 0, any = 1, deny = 2, allow = 3 };

resource_type to_resource_type(int8_t code);
pattern_type to_pattern_type(int8_t code);
acl_operation to_acl_operation(int8_t code);
acl_permission to_acl_permission(int8_t code);

// Kafka's enum names ("TOPIC", "PREFIXED", "DESCRIBE_CONFIGS", "ALLOW").
std::string_view name_of(resource_type t);
std::string_view name_of(pattern_type t);
std::string_view name_of(acl_operation o);
std::string_view name_of(acl_permission p);
// The value named `name` (Kafka's enum name, exact case), if any: one of
// resource_type, pattern_type, acl_operation, acl_permission.
template <class E>
std::optional<E> from_name(std::string_view name);

// The only name of the CLUSTER resource (Kafka's CLUSTER_NAME).
inline constexpr std::string_view cluster_resource_name = "kafka-cluster";
// A LITERAL resource name / host matching every name / host.
inline constexpr std::string_view wildcard = "*";
inline constexpr std::string_view wildcard_principal = "User:*";

struct resource_pattern {
    resource_type type = resource_type::unknown;
    std::string name;
    pattern_type pattern = pattern_type::unknown;
    auto operator<=>(const resource_pattern&) const = default;
};

struct acl_entry {
    std::string principal;  // "User:alice", "User:*"
    std::string host;       // an IP address or "*"
    acl_operation operation = acl_operation::unknown;
    acl_permission permission = acl_permission::unknown;
    auto operator<=>(const acl_entry&) const = default;
};

struct acl_binding {
    resource_pattern pattern;
    acl_entry entry;
    auto operator<=>(const acl_binding&) const = default;
};

// AclBindingFilter: a null name / principal / host matches any; ANY matches
// every type / operation / permission; pattern MATCH matches the LITERAL
// bindings of that name, the wildcard '*' LITERAL binding and every PREFIXED
// binding whose name is a prefix of the filter's name.
struct acl_binding_filter {
    resource_type type = resource_type::any;
    std::optional<std::string> name;
    pattern_type pattern = pattern_type::any;
    std::optional<std::string> principal;
    std::optional<std::string> host;
    acl_operation operation = acl_operation::any;
    acl_permission permission = acl_permission::any;

    bool matches(const acl_binding& b) const;
    // Kafka's isUnknown(): some field is UNKNOWN (such a filter matches nothing).
    bool unknown() const;
};

// AclControlManager.validateNewAcl and AclApis' checks: nullopt when the
// binding may be stored, else the INVALID_REQUEST message Kafka answers.
std::optional<std::string> validate_new_acl(const acl_binding& b);

}  // namespace ketch::security
