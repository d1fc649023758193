// CreateAcls v1-3 (v0 was removed in Kafka 4.0). v2: flexible. Behaviour:
// AclApis.handleCreateAcls (on the controller, where KRaft brokers forward
// it) and AclControlManager.createAcls: ALTER on the cluster, else every
// result CLUSTER_AUTHORIZATION_FAILED; without an authorizer every result
// SECURITY_DISABLED; a creation that cannot form a binding (resource type
// ANY, pattern type ANY or MATCH, operation or permission ANY) fails the
// whole request; else each creation is validated on its own (INVALID_REQUEST)
// and stored once. A field with code 0 (UNKNOWN) fails the parse: close.
#include "broker/blocking.h"
#include "broker/handlers/acl_convert.h"
#include "broker/handlers/handlers.h"
#include "security/authorizer.h"

namespace ketch::broker {

using namespace kafka;

namespace {

security::acl_binding to_binding(const create_acls_request::acl_creation& c) {
    using namespace security;
    return {{to_resource_type(c.resource_type), c.resource_name, to_pattern_type(c.resource_pattern_type)},
            {c.principal, c.host, to_acl_operation(c.operation), to_acl_permission(c.permission_type)}};
}

// ResourcePattern's and AccessControlEntry's constructors refuse these.
bool constructible(const security::acl_binding& b) {
    using namespace security;
    return b.pattern.type != resource_type::any && b.pattern.pattern != pattern_type::any &&
           b.pattern.pattern != pattern_type::match && b.entry.operation != acl_operation::any &&
           b.entry.permission != acl_permission::any;
}

create_acls_response all_failed(size_t n, error_code e, std::optional<std::string> message) {
    create_acls_response resp;
    fail_all(resp.results, n, code(e), message);
    return resp;
}

}  // namespace

awaitable<create_acls_response> handle_create_acls(request_context& ctx, create_acls_request& req) {
    for (auto& c : req.creations)
        if (has_unknown_code(c.resource_type, c.resource_pattern_type, c.operation, c.permission_type)) {
            ctx.close_connection = true;
            co_return create_acls_response{};
        }
    const size_t n = req.creations.size();
    if (!ctx.authorize_cluster(security::acl_operation::alter))
        co_return all_failed(n, error_code::cluster_authorization_failed, not_authorized_message("CreateAcls"));
    if (!ctx.broker.authorizer) co_return all_failed(n, error_code::security_disabled, "No Authorizer is configured.");
    std::vector<security::acl_binding> bindings;
    for (auto& c : req.creations) {
        bindings.push_back(to_binding(c));
        if (!constructible(bindings.back())) co_return all_failed(n, error_code::unknown_server_error, std::nullopt);
    }
    auto* auth = ctx.broker.authorizer;
    auto results = co_await blocking_call<std::vector<security::acl_create_result>>(
        ctx.broker, [auth, &bindings] { return auth->create(bindings); });
    create_acls_response resp;
    for (auto& r : results) {
        auto& out = resp.results.emplace_back();
        out.error_code = code(r.error);
        if (r.error != error_code::none) out.error_message = r.message;
    }
    co_return resp;
}

// CreateAclsRequest.getErrorResponse: each creation with the error and the
// exception's message.
std::optional<create_acls_response> create_acls_error(const create_acls_request& req, int16_t, const error_answer& e) {
    create_acls_response resp;
    for (size_t i = 0; i < req.creations.size(); ++i) set_message(error_row(resp.results, e).error_message, e.message);
    return resp;
}

}  // namespace ketch::broker
