// DescribeClientQuotas v0-1. v1: flexible. Behaviour: KafkaApis
// .handleDescribeClientQuotasRequest answering from the metadata image
// (ClientQuotasImage.describe): error_message "" on success; a malformed
// filter is answered with the error code and message in the top-level
// fields and null entries.
#include "broker/handlers/handlers.h"
#include "security/quota_config.h"

namespace ketch::broker {

using namespace kafka;

awaitable<describe_client_quotas_response> handle_describe_client_quotas(request_context& ctx,
                                                                         describe_client_quotas_request& req) {
    describe_client_quotas_response resp;
    if (!ctx.authorize_cluster(security::acl_operation::describe_configs)) {  // DESCRIBE_CONFIGS on the cluster
        resp.error_code = code(error_code::cluster_authorization_failed);
        resp.error_message = std::string(error_message(error_code::cluster_authorization_failed));
        resp.entries = std::nullopt;
        co_return resp;
    }
    if (!ctx.broker.quota_settings) co_return resp;
    std::vector<security::quota_filter_component> filter;
    for (auto& c : req.components) filter.push_back({c.entity_type, c.match_type, c.match});
    auto r = ctx.broker.quota_settings->describe(filter, req.strict);
    if (!r.ok()) {
        resp.error_code = code(r.error().code);
        resp.error_message = r.error().message;
        resp.entries = std::nullopt;
        co_return resp;
    }
    for (auto& e : *r) {
        auto& out = resp.entries->emplace_back();
        for (auto& [type, name] : e.entity) out.entity.push_back({type, name, {}});
        for (auto& [key, value] : e.values) out.values.push_back({key, value, {}});
    }
    co_return resp;
}

// DescribeClientQuotasRequest.getErrorResponse: the error and the exception's
// message, entries null.
std::optional<describe_client_quotas_response> describe_client_quotas_error(const describe_client_quotas_request&,
                                                                            int16_t, const error_answer& e) {
    describe_client_quotas_response resp;
    resp.error_code = e.code;
    set_message(resp.error_message, e.message);
    resp.entries = std::nullopt;
    return resp;
}

}  // namespace ketch::broker
