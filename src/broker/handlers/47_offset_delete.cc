// OffsetDelete v0 (KIP-496).
// Behaviour: KafkaApis.handleOffsetDeleteRequest and OffsetDeleteResponse.Builder
// (Apache Kafka 4.3.1): unknown topics and partitions are answered
// UNKNOWN_TOPIC_OR_PARTITION; the coordinator (group/offsets.cc) is asked for
// the rest, even when none is left, so that group errors still show; a group
// error replaces every per-partition answer.
#include "broker/blocking.h"
#include "broker/handlers/handlers.h"
#include "group/coordinator.h"
#include "meta/topic_registry.h"

namespace ketch::broker {

using namespace kafka;

namespace {

using delete_response_topic = offset_delete_response::offset_delete_response_topic;

delete_response_topic& delete_topic_of(offset_delete_response& resp, const std::string& name) {
    for (auto& t : resp.topics)
        if (t.name == name) return t;
    auto& t = resp.topics.emplace_back();
    t.name = name;
    return t;
}

void add_delete_result(offset_delete_response& resp, const std::string& name, int32_t partition, error_code e) {
    auto& p = delete_topic_of(resp, name).partitions.emplace_back();
    p.partition_index = partition;
    p.error_code = code(e);
}

}  // namespace

awaitable<offset_delete_response> handle_offset_delete(request_context& ctx, offset_delete_request& req) {
    auto& b = ctx.broker;
    offset_delete_response resp;
    // KafkaApis.handleOffsetDeleteRequest: DELETE on the group (else the
    // top-level error), READ on each topic.
    if (!ctx.authorize(security::acl_operation::remove, security::resource_type::group, req.group_id)) {
        resp.error_code = code(error_code::group_authorization_failed);
        co_return resp;
    }
    group::offset_delete_args args;
    args.group_id = req.group_id;
    for (auto& t : req.topics) {
        if (!ctx.authorize(security::acl_operation::read, security::resource_type::topic, t.name)) {
            for (auto& p : t.partitions)
                add_delete_result(resp, t.name, p.partition_index, error_code::topic_authorization_failed);
            continue;
        }
        auto topic = b.topics.by_name(t.name);
        group::fetch_topic valid{t.name, {}};
        for (auto& p : t.partitions) {
            if (!topic || p.partition_index < 0 || p.partition_index >= topic->partition_count)
                add_delete_result(resp, t.name, p.partition_index, error_code::unknown_topic_or_partition);
            else
                valid.partitions.push_back(p.partition_index);
        }
        if (!valid.partitions.empty()) args.topics.push_back(std::move(valid));
    }
    // The delete writes the offset store (cluster mode: PostgreSQL, through the pool): off the reactor.
    auto r =
        co_await blocking_call<group::offset_delete_result>(b, [&b, &args] { return b.groups.delete_offsets(args); });
    if (r.error != error_code::none) {
        resp = offset_delete_response{};
        resp.error_code = code(r.error);
        co_return resp;
    }
    for (auto& t : r.topics)
        for (auto& p : t.partitions) add_delete_result(resp, t.name, p.partition, p.error);
    co_return resp;
}

}  // namespace ketch::broker
