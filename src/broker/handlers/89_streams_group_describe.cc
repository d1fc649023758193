// StreamsGroupDescribe v0 (KIP-1071). Behaviour: KafkaApis.
// handleStreamsGroupDescribe and GroupCoordinatorService.streamsGroupDescribe
// (Apache Kafka 4.3.1): groups without DESCRIBE are answered
// GROUP_AUTHORIZATION_FAILED; an unknown group GROUP_ID_NOT_FOUND.
#include "broker/group_lease.h"
#include "broker/handlers/describable_groups.h"
#include "broker/handlers/handlers.h"
#include "broker/handlers/heartbeat_assignment.h"
#include "group/coordinator.h"

namespace ketch::broker {

using namespace kafka;

namespace {

using resp_t = streams_group_describe_response;

resp_t::assignment_data wire_assignment(const group::tasks_tuple& t) {
    using ids = resp_t::task_ids;
    return {wire_tasks<ids>(t.active), wire_tasks<ids>(t.standby), wire_tasks<ids>(t.warmup), {}};
}

resp_t::topic_info wire_topic(const group::streams_topic_info& t) {
    resp_t::topic_info out{t.name, t.partitions, t.replication_factor, {}, {}};
    for (auto& [k, v] : t.configs) out.topic_configs.push_back({k, v, {}});
    return out;
}

resp_t::topology_data wire_topology(const group::streams_topology& t) {
    resp_t::topology_data out;
    out.epoch = t.epoch;
    auto& subs = out.subtopologies.emplace();
    for (auto& s : t.subtopologies) {
        auto& o = subs.emplace_back();
        o.subtopology_id = s.id;
        o.source_topics = s.source_topics;
        o.repartition_sink_topics = s.repartition_sink_topics;
        for (auto& c : s.state_changelog_topics) o.state_changelog_topics.push_back(wire_topic(c));
        for (auto& r : s.repartition_source_topics) o.repartition_source_topics.push_back(wire_topic(r));
    }
    return out;
}

void fill(resp_t::described_group& out, group::described_streams_group& g) {
    out.error_code = code(g.error);
    out.error_message = std::move(g.error_message);
    out.group_id = g.group_id;
    out.group_state = g.group_state;
    out.group_epoch = g.group_epoch;
    out.assignment_epoch = g.assignment_epoch;
    if (g.topology) out.topology = wire_topology(*g.topology);
    for (auto& m : g.members) {
        auto& om = out.members.emplace_back();
        om.member_id = m.member_id;
        om.member_epoch = m.member_epoch;
        om.instance_id = m.instance_id;
        om.rack_id = m.rack_id;
        om.client_id = m.client_id;
        om.client_host = m.client_host;
        om.topology_epoch = m.topology_epoch;
        om.process_id = m.process_id;
        if (m.user_endpoint) om.user_endpoint = resp_t::endpoint{m.user_endpoint->host, m.user_endpoint->port, {}};
        for (auto& [k, v] : m.client_tags) om.client_tags.push_back({k, v, {}});
        om.assignment = wire_assignment(m.assignment);
        om.target_assignment = wire_assignment(m.target_assignment);
    }
}

}  // namespace

awaitable<streams_group_describe_response> handle_streams_group_describe(request_context& ctx,
                                                                         streams_group_describe_request& req) {
    streams_group_describe_response resp;
    auto allowed = co_await confirmed_groups(ctx, describable_groups(ctx, req.group_ids, resp.groups), resp.groups);
    if (allowed.empty()) co_return resp;
    described_group_rows(ctx, resp.groups, ctx.broker.groups.streams_describe(allowed),
                         req.include_authorized_operations, [](auto& out, auto& g) { fill(out, g); });
    co_return resp;
}

// StreamsGroupDescribeRequest.getErrorResponse: each group with the error.
std::optional<streams_group_describe_response> streams_group_describe_error(const streams_group_describe_request& req,
                                                                            int16_t, const error_answer& e) {
    return per_group_error<streams_group_describe_response>(req.group_ids, e);
}

}  // namespace ketch::broker
