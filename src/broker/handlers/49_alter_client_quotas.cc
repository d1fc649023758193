// AlterClientQuotas v0-1. v1: flexible. Behaviour: ControllerApis
// .handleAlterClientQuotas -> QuorumController.alterClientQuotas ->
// ClientQuotaControlManager (validation, per-entity results; validate_only
// computes the answers and changes nothing). One answer per distinct entity.
#include <spdlog/spdlog.h>

#include "broker/blocking.h"
#include "broker/handlers/handlers.h"
#include "security/quota_config.h"

namespace ketch::broker {

using namespace kafka;

namespace {

// Every entry, as sent, with the error and its message
// (AlterClientQuotasRequest.getErrorResponse).
alter_client_quotas_response every_entry(const alter_client_quotas_request& req, int16_t code,
                                         const std::string& message) {
    alter_client_quotas_response resp;
    for (auto& entry : req.entries) {
        auto& row = resp.entries.emplace_back();
        row.error_code = code;
        row.error_message = message;
        for (auto& part : entry.entity) row.entity.push_back({part.entity_type, part.entity_name, {}});
    }
    return resp;
}

alter_client_quotas_response every_entry(const alter_client_quotas_request& req, error_code e) {
    return every_entry(req, code(e), std::string(error_message(e)));
}

}  // namespace

awaitable<alter_client_quotas_response> handle_alter_client_quotas(request_context& ctx,
                                                                   alter_client_quotas_request& req) {
    // ALTER_CONFIGS on the cluster; refused: every entry gets the error.
    if (!ctx.authorize_cluster(security::acl_operation::alter_configs))
        co_return every_entry(req, error_code::cluster_authorization_failed);
    std::vector<security::quota_alteration> entries;
    for (auto& e : req.entries) {
        auto& a = entries.emplace_back();
        for (auto& ent : e.entity) a.entity.emplace_back(ent.entity_type, ent.entity_name);
        for (auto& op : e.ops) a.ops.push_back({op.key, op.remove ? std::nullopt : std::optional<double>(op.value)});
    }
    auto* cfg = ctx.broker.quota_settings;
    using altered = result<std::vector<security::quota_alter_result>, meta::store_error>;
    altered r = failure{meta::store_error{"no quota store"}};
    if (cfg)
        r = co_await store_answer<altered>(ctx.broker,
                                           [cfg, &entries, &req] { return cfg->alter(entries, req.validate_only); });
    if (!r.ok()) {
        spdlog::error("AlterClientQuotas: {}", r.error().message);
        co_return every_entry(req, error_code::unknown_server_error);
    }
    alter_client_quotas_response resp;
    for (auto& res : *r) {
        auto& out = resp.entries.emplace_back();
        out.error_code = code(res.code);
        out.error_message = res.message;
        for (auto& [type, name] : res.entity) out.entity.push_back({type, name, {}});
    }
    co_return resp;
}

// AlterClientQuotasRequest.getErrorResponse: each entry (its entity) with the
// error and the code's message.
std::optional<alter_client_quotas_response> alter_client_quotas_error(const alter_client_quotas_request& req, int16_t,
                                                                      const error_answer& e) {
    return every_entry(req, e.code, e.code_message);
}

}  // namespace ketch::broker
