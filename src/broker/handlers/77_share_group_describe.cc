// ShareGroupDescribe v1 (KIP-932). Behaviour: KafkaApis.
// handleShareGroupDescribe and GroupCoordinatorService.shareGroupDescribe
// (Apache Kafka 4.3.1): groups without DESCRIBE are answered
// GROUP_AUTHORIZATION_FAILED; an unknown group GROUP_ID_NOT_FOUND.
#include "broker/handlers/describable_groups.h"
#include "broker/handlers/handlers.h"
#include "meta/topic_registry.h"
#include "share/coordinator.h"

namespace ketch::broker {

using namespace kafka;

namespace {

share_group_describe_response::assignment_data to_wire(request_context& ctx, const share::assignment& a) {
    share_group_describe_response::assignment_data out;
    for (auto& [id, parts] : a) {
        auto& tp = out.topic_partitions.emplace_back();
        tp.topic_id = id;
        auto t = ctx.broker.topics.by_id(id);
        tp.topic_name = t ? t->name : "";
        tp.partitions = parts;
    }
    return out;
}

void fill_share_group(request_context& ctx, share_group_describe_response::described_group& out,
                      const share::described_group& g) {
    out.error_code = code(g.error);
    if (!g.error_message.empty()) out.error_message = g.error_message;
    out.group_id = g.group_id;
    // An unknown group: Kafka's ShareGroupDescribeResponse defaults (empty
    // state and assignor; conformance/scenarios/share-groups.json).
    if (g.error != error_code::none) return;
    out.group_state = g.state;
    out.group_epoch = g.group_epoch;
    out.assignment_epoch = g.assignment_epoch;
    out.assignor_name = "simple";
    for (auto& m : g.members) {
        auto& om = out.members.emplace_back();
        om.member_id = m.member_id;
        if (!m.rack_id.empty()) om.rack_id = m.rack_id;
        om.member_epoch = m.member_epoch;
        om.client_id = m.client_id;
        om.client_host = m.client_host;
        om.subscribed_topic_names = m.subscribed_topic_names;
        om.assignment = to_wire(ctx, m.assigned);
    }
}

}  // namespace

awaitable<share_group_describe_response> handle_share_group_describe(request_context& ctx,
                                                                     share_group_describe_request& req) {
    share_group_describe_response resp;
    std::vector<std::string> allowed;
    for (auto& id : req.group_ids) {
        if (ctx.broker.shares && ctx.authorize(security::acl_operation::describe, security::resource_type::group, id)) {
            allowed.push_back(id);
            continue;
        }
        auto& out = resp.groups.emplace_back();
        out.group_id = id;
        out.error_code =
            code(ctx.broker.shares ? error_code::group_authorization_failed : error_code::unsupported_version);
    }
    if (allowed.empty()) co_return resp;
    described_group_rows(ctx, resp.groups, ctx.broker.shares->describe(allowed), req.include_authorized_operations,
                         [&](auto& out, const share::described_group& g) { fill_share_group(ctx, out, g); });
    co_return resp;
}

// ShareGroupDescribeRequest.getErrorResponse: each group with the error.
std::optional<share_group_describe_response> share_group_describe_error(const share_group_describe_request& req,
                                                                        int16_t, const error_answer& e) {
    return per_group_error<share_group_describe_response>(req.group_ids, e);
}

}  // namespace ketch::broker
