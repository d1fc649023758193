// DescribeAcls v1-3 (v0 was removed in Kafka 4.0). v2: flexible. Behaviour:
// AclApis.handleDescribeAcls: DESCRIBE on the cluster, else
// CLUSTER_AUTHORIZATION_FAILED; without an authorizer SECURITY_DISABLED; else
// the bindings the filter matches, grouped by resource pattern. A filter
// field with code 0 (UNKNOWN) fails the request's parse: the connection closes.
// Kafka groups in a HashMap (no stable order); ketch sorts by resource
// pattern, then entry.
#include "broker/handlers/acl_convert.h"
#include "broker/handlers/handlers.h"
#include "security/authorizer.h"

namespace ketch::broker {

using namespace kafka;

awaitable<describe_acls_response> handle_describe_acls(request_context& ctx, describe_acls_request& req) {
    describe_acls_response resp;
    if (has_unknown_code(req.resource_type_filter, req.pattern_type_filter, req.operation, req.permission_type)) {
        ctx.close_connection = true;
        co_return resp;
    }
    if (!ctx.authorize_cluster(security::acl_operation::describe)) {
        resp.error_code = code(error_code::cluster_authorization_failed);
        resp.error_message = not_authorized_message("DescribeAcls");
        co_return resp;
    }
    if (!ctx.broker.authorizer) {
        resp.error_code = code(error_code::security_disabled);
        resp.error_message = "No Authorizer is configured on the broker";
        co_return resp;
    }
    for (auto& b : ctx.broker.authorizer->acls(to_filter(req))) {
        if (resp.resources.empty() || resp.resources.back().resource_type != int8_t(b.pattern.type) ||
            resp.resources.back().resource_name != b.pattern.name ||
            resp.resources.back().pattern_type != int8_t(b.pattern.pattern)) {
            auto& r = resp.resources.emplace_back();
            r.resource_type = int8_t(b.pattern.type);
            r.resource_name = b.pattern.name;
            r.pattern_type = int8_t(b.pattern.pattern);
        }
        auto& d = resp.resources.back().acls.emplace_back();
        d.principal = b.entry.principal;
        d.host = b.entry.host;
        d.operation = int8_t(b.entry.operation);
        d.permission_type = int8_t(b.entry.permission);
    }
    co_return resp;
}

}  // namespace ketch::broker
