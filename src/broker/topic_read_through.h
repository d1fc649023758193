// Cluster mode: a controller-style request that names a topic this broker
// has not heard of reads the topics from PostgreSQL once before it answers
// UNKNOWN_TOPIC_OR_PARTITION (docs/cluster.md "Caches and read-through").
// Each broker keeps the topics in memory and reloads them when PostgreSQL
// NOTIFYs a change; a client that creates a topic through one broker and at
// once asks another (Kafka sends these APIs to its controller, which knows)
// could otherwise be told the topic does not exist.
//
// Which requests: AlterPartitionReassignments, CreatePartitions, DeleteTopics
// (by name), DeleteRecords, ElectLeaders, DescribeTopicPartitions (the Java
// Admin's describeTopics), ListOffsets (an admin's listOffsets, a consumer's
// start), DescribeLogDirs and AlterReplicaLogDirs (named topics),
// DescribeConfigs, AlterConfigs and IncrementalAlterConfigs of TOPIC
// resources, and Metadata naming topics (kafka-python's describe_topics, a
// client's first look at a topic). At most one read per request, of the
// names it holds that the broker does not know (not the whole table: a
// cluster may have 10,000 topics); a topic name at most once a second, and
// at most a bound of names per second for the broker (app/storage_engines.cc):
// a producer waiting for a topic that exists nowhere asks Metadata again and
// again.
// Not Produce or Fetch: a lagging Kafka broker answers those "unknown" too,
// clients retry them, and they are the hot path.
//
//   co_await read_through_topics(ctx, req.topics, [](auto& t) { return std::string_view(t.name); });
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "broker/async.h"
#include "broker/request_context.h"
#include "meta/topic_registry.h"

namespace ketch::broker {

// Reads the topics `missing` from PostgreSQL (broker_context::read_topics_through)
// off the reactor.
boost::asio::awaitable<void> read_topics_through(request_context& ctx, const std::vector<std::string>& missing);

// The read above of the topics among `items` (name_of(item): its name, or an
// empty view for an item that names none) this broker does not know, in one
// query of those names. Nothing in single-node mode, or when every topic is
// known.
template <class Items, class NameOf>
boost::asio::awaitable<void> read_through_topics(request_context& ctx, const Items& items, NameOf name_of) {
    if (!ctx.broker.read_topics_through) co_return;
    std::vector<std::string> missing;
    for (auto& item : items) {
        std::string_view name = name_of(item);
        if (!name.empty() && !ctx.broker.topics.find(name) &&
            std::find(missing.begin(), missing.end(), name) == missing.end())
            missing.emplace_back(name);
    }
    if (!missing.empty()) co_await read_topics_through(ctx, missing);
}

}  // namespace ketch::broker
