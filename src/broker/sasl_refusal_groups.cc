// ILLEGAL_SASL_STATE error responses of the group, transaction and
// topic-admin APIs (see sasl_refusal.h), as Kafka 4.3.1's
// AbstractRequest.getErrorResponse answers them (recorded:
// conformance/recordings/acl-sasl-states.json).
#include "broker/sasl_refusal.h"
#include "broker/sasl_refusal_detail.h"
#include "protocol/messages/add_offsets_to_txn.h"
#include "protocol/messages/api_table.h"
#include "protocol/messages/consumer_group_heartbeat.h"
#include "protocol/messages/create_partitions.h"
#include "protocol/messages/delete_topics.h"
#include "protocol/messages/describe_groups.h"
#include "protocol/messages/end_txn.h"
#include "protocol/messages/leave_group.h"
#include "protocol/messages/list_groups.h"
#include "protocol/messages/offset_commit.h"
#include "protocol/messages/sync_group.h"
#include "protocol/messages/txn_offset_commit.h"

namespace ketch::broker {
namespace {

using sasl_refusal_detail::answer;
using sasl_refusal_detail::k_illegal;
using sasl_refusal_detail::with_error;

// Every partition of the request's topics, with the error.
template <class Resp, class Req>
Resp per_partition(const Req& req) {
    Resp resp;
    for (auto& t : req.topics) {
        auto& rt = resp.topics.emplace_back();
        rt.name = t.name;
        if constexpr (requires { rt.topic_id = t.topic_id; }) rt.topic_id = t.topic_id;
        for (auto& p : t.partitions) {
            auto& rp = rt.partitions.emplace_back();
            rp.partition_index = p.partition_index;
            rp.error_code = k_illegal;
        }
    }
    return resp;
}

kafka::describe_groups_response describe_groups(const kafka::describe_groups_request& req) {
    kafka::describe_groups_response resp;
    for (auto& g : req.groups) {
        auto& rg = resp.groups.emplace_back();
        rg.group_id = g;
        rg.error_code = k_illegal;
    }
    return resp;
}

kafka::delete_topics_response delete_topics(const kafka::delete_topics_request& req) {
    kafka::delete_topics_response resp;
    for (auto& t : req.topics) {
        auto& rt = resp.responses.emplace_back();
        rt.name = t.name;
        rt.topic_id = t.topic_id;
        rt.error_code = k_illegal;
    }
    for (auto& n : req.topic_names) {
        auto& rt = resp.responses.emplace_back();
        rt.name = n;
        rt.error_code = k_illegal;
    }
    return resp;
}

kafka::create_partitions_response create_partitions(const kafka::create_partitions_request& req,
                                                    const std::string& message) {
    kafka::create_partitions_response resp;
    for (auto& t : req.topics) {
        auto& rt = resp.results.emplace_back();
        rt.name = t.name;
        rt.error_code = k_illegal;
        rt.error_message = message;
    }
    return resp;
}

}  // namespace

std::optional<net::handler_result> illegal_sasl_state_group_response(const request_context& ctx, kafka::reader& r,
                                                                     const std::string& message) {
    using k = kafka::api_key;
    switch (kafka::api_key(ctx.api_key)) {
        case k::offset_commit:
            return answer<kafka::offset_commit_request>(
                ctx, r, per_partition<kafka::offset_commit_response, kafka::offset_commit_request>);
        case k::txn_offset_commit:
            return answer<kafka::txn_offset_commit_request>(
                ctx, r, per_partition<kafka::txn_offset_commit_response, kafka::txn_offset_commit_request>);
        case k::sync_group:
            return answer<kafka::sync_group_request>(
                ctx, r, [](const auto&) { return with_error<kafka::sync_group_response>(); });
        case k::leave_group:
            return answer<kafka::leave_group_request>(
                ctx, r, [](const auto&) { return with_error<kafka::leave_group_response>(); });
        case k::list_groups:
            return answer<kafka::list_groups_request>(
                ctx, r, [](const auto&) { return with_error<kafka::list_groups_response>(); });
        case k::describe_groups:
            return answer<kafka::describe_groups_request>(ctx, r, describe_groups);
        case k::consumer_group_heartbeat:
            return answer<kafka::consumer_group_heartbeat_request>(
                ctx, r, [](const auto&) { return with_error<kafka::consumer_group_heartbeat_response>(); });
        case k::end_txn:
            return answer<kafka::end_txn_request>(
                ctx, r, [](const auto&) { return with_error<kafka::end_txn_response>(); });
        case k::add_offsets_to_txn:
            return answer<kafka::add_offsets_to_txn_request>(
                ctx, r, [](const auto&) { return with_error<kafka::add_offsets_to_txn_response>(); });
        case k::delete_topics:
            return answer<kafka::delete_topics_request>(ctx, r, delete_topics);
        case k::create_partitions:
            return answer<kafka::create_partitions_request>(
                ctx, r, [&](const kafka::create_partitions_request& q) { return create_partitions(q, message); });
        default:
            return illegal_sasl_state_admin_response(ctx, r, message);
    }
}

}  // namespace ketch::broker
