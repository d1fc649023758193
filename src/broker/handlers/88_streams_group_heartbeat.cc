// StreamsGroupHeartbeat v0 (KIP-1071). Behaviour: KafkaApis.
// handleStreamsGroupHeartbeat and GroupCoordinatorService.streamsGroupHeartbeat
// (Apache Kafka 4.3.1); the group rules are group/streams_heartbeat.cc's.
// The internal topics the coordinator finds missing (repartition and
// changelog topics, with the partitions and configs the topology asks) are
// created here, as KafkaApis does through its AutoTopicCreationManager, and
// the answer still carries MISSING_INTERNAL_TOPICS: the next heartbeat sees
// them. The coordinator may write the group's row (an fsync): the call runs
// on broker_context::run_blocking, as ConsumerGroupHeartbeat's does.
#include <spdlog/spdlog.h>

#include "broker/async.h"
#include "broker/blocking.h"
#include "broker/group_lease.h"
#include "broker/handlers/handlers.h"
#include "broker/handlers/heartbeat_assignment.h"
#include "broker/topics.h"
#include "group/coordinator.h"
#include "share/coordinator.h"

namespace ketch::broker {

using namespace kafka;

namespace {

group::task_set tasks_of(const std::vector<streams_group_heartbeat_request::task_ids>& in) {
    group::task_set out;
    for (auto& t : in) out[t.subtopology_id].insert(t.partitions.begin(), t.partitions.end());
    return out;
}

std::optional<group::task_set> tasks_of(
    const std::optional<std::vector<streams_group_heartbeat_request::task_ids>>& in) {
    if (!in) return std::nullopt;
    return tasks_of(*in);
}

group::streams_topic_info topic_of(const streams_group_heartbeat_request::topic_info& t) {
    group::streams_topic_info out{t.name, t.partitions, t.replication_factor, {}};
    for (auto& kv : t.topic_configs) out.configs[kv.key] = kv.value;
    return out;
}

group::streams_topology topology_of(const streams_group_heartbeat_request::topology_data& in, bool& regex) {
    group::streams_topology t;
    t.epoch = in.epoch;
    for (auto& s : in.subtopologies) {
        auto& o = t.subtopologies.emplace_back();
        o.id = s.subtopology_id;
        o.source_topics = s.source_topics;
        o.repartition_sink_topics = s.repartition_sink_topics;
        for (auto& c : s.state_changelog_topics) o.state_changelog_topics.push_back(topic_of(c));
        for (auto& r : s.repartition_source_topics) o.repartition_source_topics.push_back(topic_of(r));
        for (auto& g : s.copartition_groups)
            o.copartition_groups.push_back({g.source_topics, g.repartition_source_topics});
        if (!s.source_topic_regex.empty()) regex = true;
    }
    return t;
}

group::streams_heartbeat_args args_of(request_context& ctx, streams_group_heartbeat_request& req) {
    group::streams_heartbeat_args a;
    a.group_id = std::move(req.group_id);
    a.member_id = std::move(req.member_id);
    a.member_epoch = req.member_epoch;
    a.endpoint_information_epoch = req.endpoint_information_epoch;
    a.instance_id = std::move(req.instance_id);
    a.rack_id = std::move(req.rack_id);
    a.rebalance_timeout_ms = req.rebalance_timeout_ms;
    if (req.topology) a.topology = topology_of(*req.topology, a.uses_source_topic_regex);
    a.active_tasks = tasks_of(req.active_tasks);
    a.standby_tasks = tasks_of(req.standby_tasks);
    a.warmup_tasks = tasks_of(req.warmup_tasks);
    a.process_id = std::move(req.process_id);
    if (req.user_endpoint) a.user_endpoint = group::streams_endpoint{req.user_endpoint->host, req.user_endpoint->port};
    if (req.client_tags) {
        a.client_tags.emplace();
        for (auto& kv : *req.client_tags) (*a.client_tags)[kv.key] = kv.value;
    }
    a.shutdown_application = req.shutdown_application;
    a.client_id = ctx.client_id.value_or("");
    a.client_host = java_client_host(ctx.conn.peer);
    return a;
}

std::vector<streams_group_heartbeat_response::topic_partition> wire_partitions(
    const std::map<std::string, std::set<int32_t>>& in) {
    std::vector<streams_group_heartbeat_response::topic_partition> out;
    for (auto& [t, ps] : in) out.push_back({t, std::vector<int32_t>(ps.begin(), ps.end()), {}});
    return out;
}

// AutoTopicCreationManager.createStreamsInternalTopics: each missing internal
// topic with its partitions, replication factor (-1: the default) and configs.
void create_internal_topics(request_context& ctx, const std::vector<group::streams_topic_to_create>& topics) {
    for (auto& t : topics) {
        if (!ctx.authorize(security::acl_operation::create, security::resource_type::topic, t.name)) continue;
        meta::create_topic_args a;
        a.name = t.name;
        a.partition_count = t.partitions;
        a.replication_factor =
            t.replication_factor < 0 ? ctx.broker.config.default_replication_factor : t.replication_factor;
        for (auto& [k, v] : t.configs) a.configs[k] = v;
        auto r = create_topics(ctx.broker, std::span<const meta::create_topic_args>(&a, 1), false);
        if (!r.empty() && !r[0].ok() && r[0].error().code != meta::errc::topic_already_exists)
            spdlog::warn("streams group: cannot create internal topic {}: {}", t.name, r[0].error().message);
    }
}

streams_group_heartbeat_response response_of(group::streams_heartbeat_result& r) {
    auto resp = member_heartbeat_answer<streams_group_heartbeat_response>(r);
    if (r.status)
        for (auto& s : *r.status) resp.status->push_back({int8_t(s.code), s.detail, {}});
    if (r.assignment) {
        resp.active_tasks = wire_tasks<streams_group_heartbeat_response::task_ids>(r.assignment->active);
        resp.standby_tasks = wire_tasks<streams_group_heartbeat_response::task_ids>(r.assignment->standby);
        resp.warmup_tasks = wire_tasks<streams_group_heartbeat_response::task_ids>(r.assignment->warmup);
    }
    resp.endpoint_information_epoch = r.endpoint_information_epoch;
    if (r.partitions_by_endpoint) {
        auto& out = resp.partitions_by_user_endpoint.emplace();
        for (auto& e : *r.partitions_by_endpoint) {
            auto& o = out.emplace_back();
            o.user_endpoint.host = e.endpoint.host;
            o.user_endpoint.port = e.endpoint.port;
            o.active_partitions = wire_partitions(e.active);
            o.standby_partitions = wire_partitions(e.standby);
        }
    }
    return resp;
}

}  // namespace

awaitable<streams_group_heartbeat_response> handle_streams_group_heartbeat(request_context& ctx,
                                                                           streams_group_heartbeat_request& req) {
    // KafkaApis.handleStreamsGroupHeartbeat: READ on the group.
    if (!ctx.authorize(security::acl_operation::read, security::resource_type::group, req.group_id)) {
        streams_group_heartbeat_response denied;
        denied.error_code = code(error_code::group_authorization_failed);
        co_return denied;
    }
    if (ctx.broker.shares && ctx.broker.shares->is_share_group(req.group_id)) {
        streams_group_heartbeat_response other;
        other.error_code = code(error_code::group_id_not_found);
        other.error_message = "Group " + req.group_id + " is not a streams group.";
        co_return other;
    }
    if (auto e = co_await confirm_group_lease(ctx, req.group_id); e != error_code::none) {
        streams_group_heartbeat_response refused;
        refused.error_code = code(e);
        co_return refused;
    }
    auto args = args_of(ctx, req);
    auto& b = ctx.broker;
    auto r = co_await on_callback<group::streams_heartbeat_result>(
        on_blocking_pool<group::streams_heartbeat_result>(b, [&b, &args] { return b.groups.streams_heartbeat(args); }));
    if (!r.topics_to_create.empty()) create_internal_topics(ctx, r.topics_to_create);
    co_return response_of(r);
}

}  // namespace ketch::broker
