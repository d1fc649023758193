// ILLEGAL_SASL_STATE error responses of the admin APIs (ACLs, configs,
// quotas, records, log dirs, producers, transactions), as Kafka 4.3.1's
// AbstractRequest.getErrorResponse answers them (see sasl_refusal.h;
// recorded: conformance/recordings/acl-sasl-states.json).
#include "broker/sasl_refusal_detail.h"
#include "protocol/messages/add_partitions_to_txn.h"
#include "protocol/messages/alter_client_quotas.h"
#include "protocol/messages/alter_configs.h"
#include "protocol/messages/consumer_group_describe.h"
#include "protocol/messages/create_acls.h"
#include "protocol/messages/delete_acls.h"
#include "protocol/messages/delete_groups.h"
#include "protocol/messages/delete_records.h"
#include "protocol/messages/describe_client_quotas.h"
#include "protocol/messages/describe_producers.h"
#include "protocol/messages/describe_transactions.h"
#include "protocol/messages/incremental_alter_configs.h"
#include "protocol/messages/offset_for_leader_epoch.h"

namespace ketch::broker::sasl_refusal_detail {
namespace {

// AlterConfigs / IncrementalAlterConfigs: one row per resource.
auto per_resource(const std::string& message) {
    return [&message](auto& resp, auto& res) {
        auto& rr = error_row(resp.responses);
        rr.error_message = message;
        rr.resource_type = res.resource_type;
        rr.resource_name = res.resource_name;
    };
}

}  // namespace

using result = std::optional<net::handler_result>;
using namespace kafka;

namespace lists {

result create_acls(const request_context& ctx, kafka::reader& r, const std::string& message) {
    using req = create_acls_request;
    return per_row<req, create_acls_response>(ctx, r, &req::creations,
                                              [&](auto& resp, auto&) { resp.results.push_back({k_illegal, message}); });
}

result delete_acls(const request_context& ctx, kafka::reader& r, const std::string& message) {
    using req = delete_acls_request;
    return per_row<req, delete_acls_response>(ctx, r, &req::filters,
        [&](auto& resp, auto&) { error_row(resp.filter_results).error_message = message; });
}

result alter_configs(const request_context& ctx, kafka::reader& r, const std::string& message) {
    using req = alter_configs_request;
    return per_row<req, alter_configs_response>(ctx, r, &req::resources, per_resource(message));
}

result incremental_alter_configs(const request_context& ctx, kafka::reader& r, const std::string& message) {
    using req = incremental_alter_configs_request;
    return per_row<req, incremental_alter_configs_response>(ctx, r, &req::resources, per_resource(message));
}

result delete_records(const request_context& ctx, kafka::reader& r, const std::string&) {
    using req = delete_records_request;
    return per_row<req, delete_records_response>(ctx, r, &req::topics, [](auto& resp, auto& t) {
        auto& rt = resp.topics.emplace_back();
        rt.name = t.name;
        for (auto& p : t.partitions) rt.partitions.push_back({p.partition_index, -1, k_illegal});
    });
}

result offset_for_leader_epoch(const request_context& ctx, kafka::reader& r, const std::string&) {
    using req = offset_for_leader_epoch_request;
    return per_row<req, offset_for_leader_epoch_response>(ctx, r, &req::topics, [](auto& resp, auto& t) {
        auto& rt = resp.topics.emplace_back();
        rt.topic = t.topic;
        for (auto& p : t.partitions) {
            auto& rp = error_row(rt.partitions);
            rp.partition = p.partition;
        }
    });
}

result describe_producers(const request_context& ctx, kafka::reader& r, const std::string&) {
    using req = describe_producers_request;
    return per_row<req, describe_producers_response>(ctx, r, &req::topics, [](auto& resp, auto& t) {
        auto& rt = resp.topics.emplace_back();
        rt.name = t.name;
        for (int32_t p : t.partition_indexes) {
            auto& rp = error_row(rt.partitions);
            rp.partition_index = p;
        }
    });
}

result add_partitions_to_txn(const request_context& ctx, kafka::reader& r, const std::string&) {
    if (ctx.api_version >= 4) return std::nullopt;  // not recorded: closed
    using req = add_partitions_to_txn_request;
    return per_row<req, add_partitions_to_txn_response>(ctx, r, &req::v3_and_below_topics, [](auto& resp, auto& t) {
        auto& rt = resp.results_by_topic_v3_and_below.emplace_back();
        rt.name = t.name;
        for (int32_t p : t.partitions) rt.results_by_partition.push_back({p, k_illegal});
    });
}

result describe_transactions(const request_context& ctx, kafka::reader& r, const std::string&) {
    using req = describe_transactions_request;
    return per_row<req, describe_transactions_response>(ctx, r, &req::transactional_ids,
        [](auto& resp, auto& id) { error_row(resp.transaction_states).transactional_id = id; });
}

result consumer_group_describe(const request_context& ctx, kafka::reader& r, const std::string&) {
    using req = consumer_group_describe_request;
    return per_row<req, consumer_group_describe_response>(ctx, r, &req::group_ids,
        [](auto& resp, auto& id) { error_row(resp.groups).group_id = id; });
}

result delete_groups(const request_context& ctx, kafka::reader& r, const std::string&) {
    using req = delete_groups_request;
    return per_row<req, delete_groups_response>(ctx, r, &req::groups_names,
        [](auto& resp, auto& id) { error_row(resp.results).group_id = id; });
}

result alter_client_quotas(const request_context& ctx, kafka::reader& r, const std::string&) {
    using req = alter_client_quotas_request;
    return per_row<req, alter_client_quotas_response>(ctx, r, &req::entries, [](auto& resp, auto& e) {
        auto& re = error_row(resp.entries);
        re.error_message = k_default_message;
        for (auto& part : e.entity) re.entity.push_back({part.entity_type, part.entity_name});
    });
}

result describe_client_quotas(const request_context& ctx, kafka::reader& r, const std::string& message) {
    return answer<describe_client_quotas_request>(ctx, r, [&](const auto&) {
        describe_client_quotas_response resp;
        resp.error_code = k_illegal;
        resp.error_message = message;
        resp.entries = std::nullopt;
        return resp;
    });
}

}  // namespace lists
}  // namespace ketch::broker::sasl_refusal_detail
