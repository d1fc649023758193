// ConsumerGroupDescribe v0-1 (KIP-848). v1: member_type of members (KIP-1099).
// Behaviour: KafkaApis.handleConsumerGroupDescribe and
// GroupCoordinatorService.consumerGroupDescribe (Apache Kafka 4.3.1); the
// group rules are group/consumer_describe.cc's. ketch has no authorizer yet,
// so a group that is found shows every operation a group supports, as
// 15_describe_groups.cc does.
#include "broker/group_lease.h"
#include "broker/handlers/describable_groups.h"
#include "broker/handlers/handlers.h"
#include "group/coordinator.h"

namespace ketch::broker {

using namespace kafka;

namespace {
// MemberType: a member of the classic or of the consumer protocol.
constexpr int8_t k_classic_member = 0;
constexpr int8_t k_consumer_member = 1;

consumer_group_describe_response::assignment_data assignment_to_wire(
    std::vector<group::described_topic_partitions>& a) {
    consumer_group_describe_response::assignment_data out;
    for (auto& tp : a) {
        auto& o = out.topic_partitions.emplace_back();
        o.topic_id = tp.topic_id;
        o.topic_name = std::move(tp.topic_name);
        o.partitions = std::move(tp.partitions);
    }
    return out;
}
}  // namespace

awaitable<consumer_group_describe_response> handle_consumer_group_describe(request_context& ctx,
                                                                           consumer_group_describe_request& req) {
    // KafkaApis.handleConsumerGroupDescribe: groups without DESCRIBE are
    // answered GROUP_AUTHORIZATION_FAILED, first.
    consumer_group_describe_response resp;
    auto allowed = co_await confirmed_groups(ctx, describable_groups(ctx, req.group_ids, resp.groups), resp.groups);
    auto groups = ctx.broker.groups.consumer_describe(allowed);
    described_group_rows(ctx, resp.groups, groups, req.include_authorized_operations, [](auto& out, auto& g) {
        out.error_code = code(g.error);
        out.error_message = std::move(g.error_message);
        out.group_id = std::move(g.group_id);
        out.group_state = std::move(g.group_state);
        out.group_epoch = g.group_epoch;
        out.assignment_epoch = g.assignment_epoch;
        out.assignor_name = std::move(g.assignor_name);
        for (auto& m : g.members) {
            auto& om = out.members.emplace_back();
            om.member_id = std::move(m.member_id);
            om.instance_id = std::move(m.instance_id);
            om.rack_id = std::move(m.rack_id);
            om.member_epoch = m.member_epoch;
            om.client_id = std::move(m.client_id);
            om.client_host = std::move(m.client_host);
            om.subscribed_topic_names = std::move(m.subscribed_topic_names);
            om.subscribed_topic_regex = std::move(m.subscribed_topic_regex);
            om.assignment = assignment_to_wire(m.assignment);
            om.target_assignment = assignment_to_wire(m.target_assignment);
            om.member_type = m.uses_classic_protocol ? k_classic_member : k_consumer_member;
        }
    });
    co_return resp;
}

// ConsumerGroupDescribeRequest.getErrorResponse: each group with the error.
std::optional<consumer_group_describe_response> consumer_group_describe_error(
    const consumer_group_describe_request& req, int16_t, const error_answer& e) {
    consumer_group_describe_response resp;
    for (auto& g : req.group_ids) error_row(resp.groups, e).group_id = g;
    return resp;
}

}  // namespace ketch::broker
