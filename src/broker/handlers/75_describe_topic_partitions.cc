// DescribeTopicPartitions v0 (flexible; KIP-966).
// Behaviour: DescribeTopicPartitionsRequestHandler / KRaftMetadataCache
// .describeTopicResponse, as recorded from Kafka 4.3.1 (adminapis dtp-*):
// the named topics (every topic when none is named) in name order, starting
// at the cursor's topic and partition; at most response_partition_limit
// partitions (capped at 2000, at least 1) in all. When partitions remain,
// next_cursor names the first one left out (the next topic's partition 0
// when a topic ended exactly at the limit). A cursor whose topic is not
// among the requested ones, or with a negative partition, makes every topic
// INVALID_REQUEST. Unknown topics: UNKNOWN_TOPIC_OR_PARTITION; invalid
// names: INVALID_TOPIC_EXCEPTION.
#include <algorithm>
#include <set>

#include "broker/handlers/handlers.h"
#include "broker/tenant_topics.h"
#include "broker/topic_read_through.h"
#include "meta/topic_name.h"
#include "meta/topic_registry.h"

namespace ketch::broker {

using namespace kafka;

namespace {

using topic_out = describe_topic_partitions_response::describe_topic_partitions_response_topic;

constexpr int32_t k_max_partition_limit = 2000;

topic_out partitions_topic_error(const std::string& name, error_code e, int32_t ops) {
    topic_out t;
    t.error_code = code(e);
    t.name = name;
    t.topic_authorized_operations = ops;
    return t;
}

}  // namespace

awaitable<describe_topic_partitions_response> handle_describe_topic_partitions(request_context& ctx,
                                                                               describe_topic_partitions_request& req) {
    auto& b = ctx.broker;
    const int32_t node = b.config.node_id;
    co_await read_through_topics(ctx, req.topics, [](auto& t) { return std::string_view(t.name); });
    describe_topic_partitions_response resp;

    std::set<std::string> names;
    if (req.topics.empty())
        for (auto& t : listed_topics(ctx)) names.insert(t.name);
    for (auto& t : req.topics) names.insert(t.name);

    if (req.cursor && (req.cursor->partition_index < 0 || !names.count(req.cursor->topic_name))) {
        for (auto& n : names) resp.topics.push_back(partitions_topic_error(n, error_code::invalid_request, INT32_MIN));
        co_return resp;
    }
    int32_t budget = std::clamp(req.response_partition_limit, 1, k_max_partition_limit);
    bool stopped = false;
    for (auto& name : names) {
        if (req.cursor && name < req.cursor->topic_name) continue;
        if (stopped) break;
        // DescribeTopicPartitionsRequestHandler: DESCRIBE on the topic; an
        // all-topics request leaves the others out, a named one is refused.
        if (!ctx.authorize(security::acl_operation::describe, security::resource_type::topic, name)) {
            if (!req.topics.empty())
                resp.topics.push_back(partitions_topic_error(name, error_code::topic_authorization_failed, INT32_MIN));
            continue;
        }
        if (check_topic_name(ctx.broker, name)) {
            resp.topics.push_back(
                partitions_topic_error(name, error_code::invalid_topic_exception, k_all_topic_operations));
            continue;
        }
        auto t = b.topics.by_name(name);
        if (!t) {
            resp.topics.push_back(
                partitions_topic_error(name, error_code::unknown_topic_or_partition, k_all_topic_operations));
            continue;
        }
        int32_t first = req.cursor && name == req.cursor->topic_name ? req.cursor->partition_index : 0;
        if (budget == 0) {
            resp.next_cursor.emplace();
            resp.next_cursor->topic_name = name;
            resp.next_cursor->partition_index = first;
            break;
        }
        auto& out = resp.topics.emplace_back();
        out.name = name;
        out.topic_id = t->id;
        out.is_internal = meta::is_internal_topic(name);
        out.topic_authorized_operations =
            authorized_operations(ctx, security::resource_type::topic, name, k_all_topic_operations);
        for (int32_t p = first; p < t->partition_count; ++p) {
            if (budget == 0) {
                resp.next_cursor.emplace();
                resp.next_cursor->topic_name = name;
                resp.next_cursor->partition_index = p;
                stopped = true;
                break;
            }
            --budget;
            auto& mp = out.partitions.emplace_back();
            mp.partition_index = p;
            mp.leader_id = node;
            mp.leader_epoch = 0;
            mp.replica_nodes = {node};
            mp.isr_nodes = {node};
            mp.eligible_leader_replicas.emplace();
            mp.last_known_elr.emplace();
        }
    }
    co_return resp;
}

// DescribeTopicPartitionsRequest.getErrorResponse: each topic with the error,
// not internal, no partitions.
std::optional<describe_topic_partitions_response> describe_topic_partitions_error(
    const describe_topic_partitions_request& req, int16_t, const error_answer& e) {
    describe_topic_partitions_response resp;
    for (auto& t : req.topics) {
        auto& rt = error_row(resp.topics, e);
        rt.name = t.name;
        rt.is_internal = false;
    }
    return resp;
}

}  // namespace ketch::broker
