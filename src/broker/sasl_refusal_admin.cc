// ILLEGAL_SASL_STATE error responses of the admin APIs (ACLs, configs,
// quotas, records, log dirs, producers, transactions), as Kafka 4.3.1's
// AbstractRequest.getErrorResponse answers them (see sasl_refusal.h;
// recorded: conformance/recordings/acl-sasl-states.json).
#include "broker/sasl_refusal.h"
#include "broker/sasl_refusal_detail.h"
#include "protocol/messages/add_partitions_to_txn.h"
#include "protocol/messages/alter_client_quotas.h"
#include "protocol/messages/alter_configs.h"
#include "protocol/messages/api_table.h"
#include "protocol/messages/consumer_group_describe.h"
#include "protocol/messages/create_acls.h"
#include "protocol/messages/delete_acls.h"
#include "protocol/messages/delete_groups.h"
#include "protocol/messages/delete_records.h"
#include "protocol/messages/describe_acls.h"
#include "protocol/messages/describe_client_quotas.h"
#include "protocol/messages/describe_log_dirs.h"
#include "protocol/messages/describe_producers.h"
#include "protocol/messages/describe_transactions.h"
#include "protocol/messages/incremental_alter_configs.h"
#include "protocol/messages/list_transactions.h"
#include "protocol/messages/offset_delete.h"
#include "protocol/messages/offset_for_leader_epoch.h"

namespace ketch::broker {
namespace {

using sasl_refusal_detail::answer;
using sasl_refusal_detail::k_illegal;
using sasl_refusal_detail::with_error;

// Errors.ILLEGAL_SASL_STATE's default message (see sasl_refusal.cc).
constexpr const char* k_default_message = "Request is not valid given the current SASL state.";

// AlterConfigs / IncrementalAlterConfigs: one row per resource.
template <class Resp, class Req>
Resp per_resource(const Req& req, const std::string& message) {
    Resp resp;
    for (auto& res : req.resources) {
        auto& rr = resp.responses.emplace_back();
        rr.error_code = k_illegal;
        rr.error_message = message;
        rr.resource_type = res.resource_type;
        rr.resource_name = res.resource_name;
    }
    return resp;
}

// One row per name, with the error.
template <class Resp, class Names, class Fill>
Resp per_name(const Names& names, Fill fill) {
    Resp resp;
    for (auto& n : names) fill(resp, n);
    return resp;
}

}  // namespace

std::optional<net::handler_result> illegal_sasl_state_admin_response(const request_context& ctx, kafka::reader& r,
                                                                     const std::string& message) {
    using k = kafka::api_key;
    using namespace kafka;
    switch (kafka::api_key(ctx.api_key)) {
        case k::create_acls:
            return answer<create_acls_request>(ctx, r, [&](const create_acls_request& q) {
                return per_name<create_acls_response>(q.creations, [&](auto& resp, auto&) {
                    resp.results.push_back({k_illegal, message});
                });
            });
        case k::delete_acls:
            return answer<delete_acls_request>(ctx, r, [&](const delete_acls_request& q) {
                return per_name<delete_acls_response>(q.filters, [&](auto& resp, auto&) {
                    auto& f = resp.filter_results.emplace_back();
                    f.error_code = k_illegal;
                    f.error_message = message;
                });
            });
        case k::describe_acls:
            return answer<describe_acls_request>(ctx, r, [&](const auto&) {
                auto resp = with_error<describe_acls_response>();
                resp.error_message = message;
                return resp;
            });
        case k::alter_configs:
            return answer<alter_configs_request>(ctx, r, [&](const alter_configs_request& q) {
                return per_resource<alter_configs_response>(q, message);
            });
        case k::incremental_alter_configs:
            return answer<incremental_alter_configs_request>(ctx, r, [&](const incremental_alter_configs_request& q) {
                return per_resource<incremental_alter_configs_response>(q, message);
            });
        case k::delete_records:
            return answer<delete_records_request>(ctx, r, [](const delete_records_request& q) {
                return per_name<delete_records_response>(q.topics, [](auto& resp, auto& t) {
                    auto& rt = resp.topics.emplace_back();
                    rt.name = t.name;
                    for (auto& p : t.partitions) rt.partitions.push_back({p.partition_index, -1, k_illegal});
                });
            });
        case k::offset_delete:
            return answer<offset_delete_request>(
                ctx, r, [](const auto&) { return with_error<offset_delete_response>(); });
        case k::offset_for_leader_epoch:
            return answer<offset_for_leader_epoch_request>(ctx, r, [](const offset_for_leader_epoch_request& q) {
                return per_name<offset_for_leader_epoch_response>(q.topics, [](auto& resp, auto& t) {
                    auto& rt = resp.topics.emplace_back();
                    rt.topic = t.topic;
                    for (auto& p : t.partitions) {
                        auto& rp = rt.partitions.emplace_back();
                        rp.error_code = k_illegal;
                        rp.partition = p.partition;
                    }
                });
            });
        case k::describe_log_dirs:
            return answer<describe_log_dirs_request>(
                ctx, r, [](const auto&) { return with_error<describe_log_dirs_response>(); });
        case k::describe_producers:
            return answer<describe_producers_request>(ctx, r, [](const describe_producers_request& q) {
                return per_name<describe_producers_response>(q.topics, [](auto& resp, auto& t) {
                    auto& rt = resp.topics.emplace_back();
                    rt.name = t.name;
                    for (int32_t p : t.partition_indexes) {
                        auto& rp = rt.partitions.emplace_back();
                        rp.partition_index = p;
                        rp.error_code = k_illegal;
                    }
                });
            });
        case k::add_partitions_to_txn:
            if (ctx.api_version >= 4) return std::nullopt;  // not recorded: closed
            return answer<add_partitions_to_txn_request>(ctx, r, [](const add_partitions_to_txn_request& q) {
                return per_name<add_partitions_to_txn_response>(q.v3_and_below_topics, [](auto& resp, auto& t) {
                    auto& rt = resp.results_by_topic_v3_and_below.emplace_back();
                    rt.name = t.name;
                    for (int32_t p : t.partitions) rt.results_by_partition.push_back({p, k_illegal});
                });
            });
        case k::describe_transactions:
            return answer<describe_transactions_request>(ctx, r, [](const describe_transactions_request& q) {
                return per_name<describe_transactions_response>(q.transactional_ids, [](auto& resp, auto& id) {
                    auto& s = resp.transaction_states.emplace_back();
                    s.error_code = k_illegal;
                    s.transactional_id = id;
                });
            });
        case k::list_transactions:
            return answer<list_transactions_request>(
                ctx, r, [](const auto&) { return with_error<list_transactions_response>(); });
        case k::consumer_group_describe:
            return answer<consumer_group_describe_request>(ctx, r, [](const consumer_group_describe_request& q) {
                return per_name<consumer_group_describe_response>(q.group_ids, [](auto& resp, auto& id) {
                    auto& g = resp.groups.emplace_back();
                    g.error_code = k_illegal;
                    g.group_id = id;
                });
            });
        case k::delete_groups:
            return answer<delete_groups_request>(ctx, r, [](const delete_groups_request& q) {
                return per_name<delete_groups_response>(q.groups_names, [](auto& resp, auto& id) {
                    auto& g = resp.results.emplace_back();
                    g.group_id = id;
                    g.error_code = k_illegal;
                });
            });
        case k::alter_client_quotas:
            return answer<alter_client_quotas_request>(ctx, r, [](const alter_client_quotas_request& q) {
                return per_name<alter_client_quotas_response>(q.entries, [](auto& resp, auto& e) {
                    auto& re = resp.entries.emplace_back();
                    re.error_code = k_illegal;
                    re.error_message = k_default_message;
                    for (auto& part : e.entity) re.entity.push_back({part.entity_type, part.entity_name});
                });
            });
        case k::describe_client_quotas:
            return answer<describe_client_quotas_request>(ctx, r, [&](const auto&) {
                auto resp = with_error<describe_client_quotas_response>();
                resp.error_message = message;
                resp.entries = std::nullopt;
                return resp;
            });
        default:
            return std::nullopt;
    }
}

}  // namespace ketch::broker
