// DeleteAcls v1-3 (v0 was removed in Kafka 4.0). v2: flexible. Behaviour:
// AclApis.handleDeleteAcls (on the controller) and AclControlManager.
// deleteAcls: ALTER on the cluster, else every filter result
// CLUSTER_AUTHORIZATION_FAILED; without an authorizer every filter result
// SECURITY_DISABLED; a filter whose resource or pattern type is unknown
// "Unknown patternFilter.", whose operation or permission is unknown
// "Unknown entryFilter." (INVALID_REQUEST); else the bindings it matched, in
// matching_acls, are deleted (a binding matched by two filters is listed under
// both). A field with code 0 (UNKNOWN) fails the parse: close.
#include "broker/blocking.h"
#include "broker/handlers/acl_convert.h"
#include "broker/handlers/handlers.h"
#include "security/authorizer.h"

namespace ketch::broker {

using namespace kafka;

namespace {

delete_acls_response none_deleted(size_t n, error_code e, std::string message) {
    delete_acls_response resp;
    fail_all(resp.filter_results, n, code(e), message);
    return resp;
}

}  // namespace

awaitable<delete_acls_response> handle_delete_acls(request_context& ctx, delete_acls_request& req) {
    std::vector<security::acl_binding_filter> filters;
    for (auto& f : req.filters) {
        if (has_unknown_code(f.resource_type_filter, f.pattern_type_filter, f.operation, f.permission_type)) {
            ctx.close_connection = true;
            co_return delete_acls_response{};
        }
        filters.push_back(to_filter(f));
    }
    const size_t n = req.filters.size();
    if (!ctx.authorize_cluster(security::acl_operation::alter))
        co_return none_deleted(n, error_code::cluster_authorization_failed, not_authorized_message("DeleteAcls"));
    if (!ctx.broker.authorizer)
        co_return none_deleted(n, error_code::security_disabled, "No Authorizer is configured.");
    auto* auth = ctx.broker.authorizer;
    auto results = co_await blocking_call<std::vector<security::acl_delete_result>>(
        ctx.broker, [auth, &filters] { return auth->remove(filters); });
    delete_acls_response resp;
    for (auto& r : results) {
        auto& out = resp.filter_results.emplace_back();
        out.error_code = code(r.error);
        out.error_message = r.message;
        for (auto& b : r.deleted) {
            auto& m = out.matching_acls.emplace_back();
            fill_binding(m, b);
            m.error_message = std::nullopt;
        }
    }
    co_return resp;
}

// DeleteAclsRequest.getErrorResponse: each filter with the error and the
// exception's message.
std::optional<delete_acls_response> delete_acls_error(const delete_acls_request& req, int16_t, const error_answer& e) {
    delete_acls_response resp;
    for (size_t i = 0; i < req.filters.size(); ++i)
        set_message(error_row(resp.filter_results, e).error_message, e.message);
    return resp;
}

}  // namespace ketch::broker
