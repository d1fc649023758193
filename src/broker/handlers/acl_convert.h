// Conversions between the ACL messages' fields and security:: ACL types,
// shared by CreateAcls, DescribeAcls and DeleteAcls.
#pragma once

#include <optional>
#include <string>

#include "security/acl.h"

namespace ketch::broker {

// The request classes' validation at parse time (CreateAclsRequest.validate,
// DescribeAclsRequest / DeleteAclsRequest.normalizeAndValidate): a field with
// code 0 (UNKNOWN) makes the request unparsable, and Kafka closes the connection.
inline bool has_unknown_code(int8_t resource_type, int8_t pattern_type, int8_t operation, int8_t permission) {
    return resource_type == 0 || pattern_type == 0 || operation == 0 || permission == 0;
}

template <class F>  // describe_acls_request or delete_acls_request::delete_acls_filter
security::acl_binding_filter to_filter(const F& f) {
    using namespace security;
    return {to_resource_type(f.resource_type_filter),
            f.resource_name_filter,
            to_pattern_type(f.pattern_type_filter),
            f.principal_filter,
            f.host_filter,
            to_acl_operation(f.operation),
            to_acl_permission(f.permission_type)};
}

template <class Out>  // a message struct with the seven binding fields
void fill_binding(Out& o, const security::acl_binding& b) {
    o.resource_type = int8_t(b.pattern.type);
    o.resource_name = b.pattern.name;
    o.pattern_type = int8_t(b.pattern.pattern);
    o.principal = b.entry.principal;
    o.host = b.entry.host;
    o.operation = int8_t(b.entry.operation);
    o.permission_type = int8_t(b.entry.permission);
}

// CreateAcls / DeleteAcls refused as a whole (not authorized, no authorizer,
// an unconstructible binding): n results, each with the same code and message.
template <class Results>
void fail_all(Results& results, size_t n, int16_t error_code, const std::optional<std::string>& message) {
    results.resize(n);
    for (auto& r : results) {
        r.error_code = error_code;
        r.error_message = message;
    }
}

// Kafka's AuthHelper.authorizeClusterOperation message names the request
// (its toString); ketch names the API.
inline std::string not_authorized_message(std::string_view api) {
    return "Request " + std::string(api) + " is not authorized.";
}

}  // namespace ketch::broker
